package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/timeparse"
	"github.com/acpkit/acpkit/usage"
)

// Config configures an [Agent]. Start, NewSessionID and Clock are
// required; package bridgeos's NewAgent fills them in with the operating
// system's.
type Config struct {
	// Start starts a CLI process.
	Start Starter
	// NewSessionID returns a fresh session id, a UUID: the CLI requires
	// one for --session-id.
	NewSessionID func() string
	// Clock gives the time and the timers.
	Clock Clock
	// CLI is the CLI that serves the sessions: [Claude] (when nil),
	// [Codex], [Gemini] or one of the program's.
	CLI CLI
	// Model is the model a new session starts with; "" means the CLI's
	// default.
	Model string
	// ExtraArgs are added to every CLI command line.
	ExtraArgs []string
	// TurnTimeout ends a turn with an error when the CLI writes nothing
	// for that long, and stops the CLI; 0 means never.
	TurnTimeout time.Duration
	// Idle stops a session's CLI that has had no turn for that long; the
	// next prompt resumes the conversation in a new process. 0 means
	// never.
	Idle time.Duration
	// Grace is how long the CLI has to end a cancelled turn, or to exit
	// after its input was closed, before it is signalled; 0 means 5s.
	Grace time.Duration
	// AllowBypass offers the mode that runs every tool without asking
	// and without a sandbox (Claude Code's bypassPermissions, which it
	// refuses when it runs as root; Codex's danger-full-access; Gemini's
	// yolo).
	AllowBypass bool
	// Location is the time zone reset times are shown in; nil means UTC.
	Location *time.Location
	// Zones resolves the time zones the CLI names in its words; nil
	// resolves only "UTC". A program passes time.LoadLocation.
	Zones timeparse.ZoneResolver
	// Logger receives what the Agent skipped or failed at; nil is silent.
	Logger *slog.Logger
	// Info names the agent in the initialize result; nil means
	// "claude-acp".
	Info *acp.Implementation
	// CheckDir checks that a directory a session names, its cwd or one of
	// its additional directories, is one the CLI can work in: session/new,
	// load and resume refuse it otherwise, with -32602 naming the member
	// and the directory, and the error's words. Nil checks only what ACP
	// requires of every such path, that it is absolute; package bridgeos
	// gives one that requires an existing directory.
	CheckDir func(dir string) error
	// LoginArgs are the arguments that, appended to the command line the
	// editor starts this agent with, run the CLI's sign-in
	// ([CLIInfo].SignIn) in the user's terminal and exit 0 once signed
	// in: claude-acp's "login". initialize advertises them as a terminal
	// authentication method to an editor that declared
	// clientCapabilities.auth.terminal, as ACP requires, and to no other.
	// nil advertises none, as does a CLI without a sign-in.
	LoginArgs []string
	// Store is the folder where the CLI, a [Keeper], keeps its sessions
	// (see [Keeper.StoreDir]): session/list lists them, session/load
	// replays one, session/delete removes one. Nil means none: the Agent
	// then lists only the sessions it opened, and serves neither
	// session/load nor session/delete.
	Store Store
}

// Agent is an ACP agent that serves its sessions with a CLI, to any
// number of editors: serve each editor's connection with a handler of its
// own ([Agent.Handler]), and Close the Agent when the connections have
// ended. Its methods are safe for concurrent use.
//
// Each session is served by a goroutine of its own that owns its state
// and its CLI process: the handlers hand it their requests, in order.
type Agent struct {
	cfg    Config
	cli    CLI
	keeper Keeper // cli, when it is one; nil otherwise
	info   CLIInfo
	log    *slog.Logger
	wg     sync.WaitGroup // every goroutine the Agent starts
	stored storeList

	mu       sync.Mutex
	sessions map[string]*session
	order    []string          // session ids in the order they were opened
	models   []Model           // the CLI's models, once one listed them
	listed   []acp.SessionMode // the CLI's modes, once one listed them
	closed   bool
}

// ErrClosed is returned for a prompt that comes after [Agent.Close].
var ErrClosed = errors.New("bridge: agent closed")

// NewAgent returns an Agent with the given configuration.
func NewAgent(cfg Config) (*Agent, error) {
	if cfg.Start == nil || cfg.NewSessionID == nil || cfg.Clock == nil {
		return nil, errors.New("bridge: Config needs Start, NewSessionID and Clock")
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 5 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cli := cfg.CLI
	if cli == nil {
		cli = Claude
	}
	keeper, _ := cli.(Keeper)
	return &Agent{cfg: cfg, cli: cli, keeper: keeper, info: cli.Info(), log: log, sessions: map[string]*session{}}, nil
}

// Close stops every session's CLI (closing its input, then signalling it
// if it does not exit within the grace period) and waits until the
// processes have exited and the Agent's goroutines have ended.
func (a *Agent) Close() {
	a.mu.Lock()
	a.closed = true
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(s.close)
	}
	wg.Wait()
	a.wg.Wait()
}

func (e *editor) initialize(ctx context.Context, p acp.InitializeParams) (acp.InitializeResult, error) {
	e.declare(p.ClientCapabilities, false)
	res := e.a.initialized(p.ProtocolVersion)
	res.AuthMethods = e.a.authMethods(p.ClientCapabilities.Auth.Terminal)
	return res, nil
}

// authMethods are the authentication methods initialize advertises to an
// editor: the terminal sign-in, to one that runs terminal methods.
func (a *Agent) authMethods(terminal bool) []acp.AuthMethod {
	if !terminal || a.cfg.LoginArgs == nil || a.info.SignIn == nil {
		return []acp.AuthMethod{}
	}
	return []acp.AuthMethod{{
		Type: acp.AuthMethodTerminal, ID: "login", Name: "Sign in to " + a.info.Name,
		Description: "Runs `" + strings.Join(append([]string{a.info.Program}, a.info.SignIn...), " ") + "` in a terminal",
		Args:        a.cfg.LoginArgs,
	}}
}

// initialized is the initialize result of an editor that asked for
// version, with no authentication method.
func (a *Agent) initialized(version int) acp.InitializeResult {
	info := a.cfg.Info
	if info == nil {
		info = &acp.Implementation{Name: "claude-acp", Title: "Claude Code", Version: "0"}
	}
	sc := &acp.SessionCapabilities{
		List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{}, Close: &acp.SessionCloseCapabilities{},
		AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{},
	}
	if a.canLoad() {
		sc.Delete = &acp.SessionDeleteCapabilities{}
	}
	if a.info.Forks {
		sc.Fork = &acp.SessionForkCapabilities{}
	}
	acc := a.info.Accepts
	var auth *acp.AgentAuthCapabilities
	if a.info.SignOut != nil {
		auth = &acp.AgentAuthCapabilities{Logout: &acp.LogoutCapabilities{}}
	}
	return acp.InitializeResult{
		ProtocolVersion: acp.NegotiateVersion(version),
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         a.canLoad(),
			PromptCapabilities:  acp.PromptCapabilities{Image: acc.Image, Audio: acc.Audio, EmbeddedContext: acc.EmbeddedContext},
			MCPCapabilities:     acp.MCPCapabilities{HTTP: acc.MCPHTTP, SSE: acc.MCPSSE},
			SessionCapabilities: sc,
			Auth:                auth,
		},
		AgentInfo:   info,
		AuthMethods: []acp.AuthMethod{},
	}
}

func (e *editor) newSession(ctx context.Context, p acp.NewSessionParams) (acp.NewSessionResult, error) {
	s, err := e.a.open(ctx, e, opening{id: e.a.cfg.NewSessionID(), cwd: p.Cwd, dirs: p.AdditionalDirectories, servers: p.MCPServers})
	if err != nil {
		return acp.NewSessionResult{}, err
	}
	v, err := s.describe()
	s.warm()
	return acp.NewSessionResult{SessionID: s.id, Modes: v.modes, ConfigOptions: v.options}, err
}

// resume binds a session to a conversation the CLI keeps: a conversation
// it does not know fails the first prompt, unless the CLI's
// NewConversation refuses it at once (an ACP agent's does).
func (a *Agent) resume(ctx context.Context, ed *editor, o opening) (acp.LoadSessionResult, error) {
	s, _, err := a.resumeSession(ctx, ed, o)
	if err != nil {
		return acp.LoadSessionResult{}, err
	}
	v, err := s.describe()
	s.warm()
	return acp.LoadSessionResult{Modes: v.modes, ConfigOptions: v.options}, err
}

// resumeSession returns the session that goes on with the conversation
// o.id: the one open, or one it opens, reporting whether it did.
func (a *Agent) resumeSession(ctx context.Context, ed *editor, o opening) (s *session, opened bool, err error) {
	if o.id == "" {
		return nil, false, acp.Errorf(acp.CodeInvalidParams, "sessionId is empty")
	}
	if err := refuseChild(o.id); err != nil {
		return nil, false, err
	}
	if err := a.checkDirs(o); err != nil {
		return nil, false, err
	}
	o.resumeID = o.id
	if s = a.lookup(o.id); s != nil {
		if !slices.Equal(s.dirs, cleanDirs(o.cwd, o.dirs)) {
			return nil, false, acp.Errorf(acp.CodeInvalidParams, "session %s is open with other additional directories", o.id)
		}
		return s, false, nil
	}
	s, err = a.open(ctx, ed, o)
	return s, err == nil, err
}

// lookup returns the session open with the id; nil when there is none.
func (a *Agent) lookup(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// opening is what a session is opened with.
type opening struct {
	id       string
	resumeID string // the conversation it continues; "" for a new one
	forkOf   string // the conversation it starts as a copy of; "" for none
	cwd      string
	dirs     []string // additionalDirectories
	servers  []acp.MCPServer
}

// open adds a session and starts its goroutine. The session holds what
// it has for ed until the response to the request of ctx, which tells
// ed of the session, is queued.
func (a *Agent) open(ctx context.Context, ed *editor, o opening) (*session, error) {
	if err := a.checkDirs(o); err != nil {
		return nil, err
	}
	mode := a.modes()[0].ID
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, ErrClosed
	}
	if a.sessions[o.id] != nil {
		return nil, acp.Errorf(acp.CodeInvalidParams, "session %s is already open", o.id)
	}
	log := a.log.With("session", o.id)
	dirs := cleanDirs(o.cwd, o.dirs)
	s := &session{
		a: a, id: o.id, cwd: o.cwd, dirs: dirs, log: log,
		inbox: make(chan event), done: make(chan struct{}),
		ed:   ed,
		mode: mode, model: cmp.Or(a.cfg.Model, "default"),
	}
	conv, err := a.cli.NewConversation(ConversationConfig{
		SessionID:             o.id,
		ResumeID:              o.resumeID,
		ForkOf:                o.forkOf,
		Cwd:                   o.cwd,
		MCPServers:            o.servers,
		AdditionalDirectories: dirs,
		ExtraArgs:             a.cfg.ExtraArgs,
		Notices:               ed.acceptsNotices(),
		Client:                ed.capabilities(),
		Now:                   a.cfg.Clock.Now,
		Location:              a.cfg.Location,
		Zones:                 a.cfg.Zones,
		Logger:                log,
		Go:                    s.goWork,
	})
	if err != nil {
		return nil, err
	}
	s.conv = conv
	s.holdFrom(s.newHold(ctx, ed))
	s.listed = openSession{id: o.id, cwd: o.cwd, dirs: dirs, storedID: storedID(conv), touched: a.cfg.Clock.Now()}
	a.sessions[o.id] = s
	a.order = append(a.order, o.id)
	a.wg.Go(s.run)
	return s, nil
}

// checkDirs checks the directories a session is opened with: ACP requires
// absolute paths, and Config.CheckDir may ask more.
func (a *Agent) checkDirs(o opening) error {
	check := func(field, dir string) error {
		if !filepath.IsAbs(dir) {
			return acp.InvalidParam(field, "%s %q is not an absolute path", field, dir)
		}
		if a.cfg.CheckDir == nil {
			return nil
		}
		if err := a.cfg.CheckDir(dir); err != nil {
			return acp.InvalidParam(field, "%s %q: %v", field, dir, err)
		}
		return nil
	}
	if err := check("cwd", o.cwd); err != nil {
		return err
	}
	for i, d := range o.dirs {
		if err := check(fmt.Sprintf("additionalDirectories[%d]", i), d); err != nil {
			return err
		}
	}
	return a.checkServers(o.servers)
}

// checkServers refuses the editor's MCP servers of a transport the CLI
// does not take, naming the first.
func (a *Agent) checkServers(servers []acp.MCPServer) error {
	acc := a.info.Accepts
	for i, s := range servers {
		var transport, name string
		var ok bool
		switch s := s.(type) {
		case acp.MCPServerStdio:
			transport, name, ok = "stdio", s.Name, acc.MCPStdio
		case acp.MCPServerHTTP:
			transport, name, ok = "http", s.Name, acc.MCPHTTP
		case acp.MCPServerSSE:
			transport, name, ok = "sse", s.Name, acc.MCPSSE
		case acp.MCPServerACP:
			transport, name = "acp", s.Name
		case acp.UnknownMCPServer:
			transport = s.Type
		}
		if !ok {
			return acp.InvalidParam(fmt.Sprintf("mcpServers[%d]", i), "%s takes no MCP server of the %q transport (%q)", a.info.Name, transport, name)
		}
	}
	return nil
}

// checkPrompt refuses a prompt block of a kind the CLI does not take,
// naming the first: ACP requires every agent to take text and resource
// links alone.
func (a *Agent) checkPrompt(blocks []acp.ContentBlock) error {
	acc := a.info.Accepts
	for i, b := range blocks {
		var kind string
		var ok bool
		switch b := b.(type) {
		case acp.TextContent, acp.ResourceLink:
			ok = true
		case acp.ImageContent:
			kind, ok = "image", acc.Image
		case acp.AudioContent:
			kind, ok = "audio", acc.Audio
		case acp.EmbeddedResource:
			kind, ok = "resource", acc.EmbeddedContext
		case acp.UnknownContent:
			kind = b.Type
		}
		if !ok {
			return acp.InvalidParam(fmt.Sprintf("prompt[%d]", i), "%s takes no %q content in a prompt", a.info.Name, kind)
		}
	}
	return nil
}

// cleanDirs returns dirs without the repeats and cwd, which ACP lets an
// agent drop, keeping the order of the first of each; nil for none.
func cleanDirs(cwd string, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if d != cwd && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// session returns the session open with the id, or the error of a
// request for one that is not.
func (a *Agent) session(id string) (*session, error) {
	if err := refuseChild(id); err != nil {
		return nil, err
	}
	if s := a.lookup(id); s != nil {
		return s, nil
	}
	return nil, acp.Errorf(acp.CodeResourceNotFound, "no session %s", id)
}

func (a *Agent) close(ctx context.Context, p acp.CloseSessionParams) (acp.CloseSessionResult, error) {
	if err := refuseChild(p.SessionID); err != nil {
		return acp.CloseSessionResult{}, err
	}
	if !a.closeSession(p.SessionID) {
		return acp.CloseSessionResult{}, acp.Errorf(acp.CodeResourceNotFound, "no session %s", p.SessionID)
	}
	return acp.CloseSessionResult{}, nil
}

// closeSession closes the session with the id, and reports whether it
// was open.
func (a *Agent) closeSession(id string) bool {
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.order = slices.DeleteFunc(a.order, func(o string) bool { return o == id })
	a.mu.Unlock()
	if s == nil {
		return false
	}
	s.close()
	return true
}

// learn keeps the modes and the models a CLI listed; nil keeps those
// known.
func (a *Agent) learn(modes []acp.SessionMode, models []Model) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if modes != nil {
		a.listed = modes
	}
	if models != nil {
		a.models = models
	}
}

// The ids of the session config options.
const (
	configMode  = "mode"
	configModel = "model"
)

// modes returns the modes the Agent offers, the default first: those
// the CLI listed, or else its CLIInfo's.
func (a *Agent) modes() []acp.SessionMode {
	a.mu.Lock()
	modes := a.listed
	a.mu.Unlock()
	if modes == nil {
		modes = a.info.Modes
	}
	if a.cfg.AllowBypass || a.info.Bypass == "" {
		return modes
	}
	return slices.DeleteFunc(slices.Clone(modes), func(m acp.SessionMode) bool { return m.ID == a.info.Bypass })
}

// checkSetting checks the value of a mode or model setting before a
// session takes it; a [Tuner] checks its own.
func (a *Agent) checkSetting(key, value string) error {
	switch key {
	case configMode:
		if !slices.ContainsFunc(a.modes(), func(m acp.SessionMode) bool { return m.ID == value }) {
			return acp.Errorf(acp.CodeInvalidParams, "no mode %q", value)
		}
	case configModel:
		if !validModel(value) {
			return acp.Errorf(acp.CodeInvalidParams, "invalid model %q", value)
		}
	}
	return nil
}

// knownModels returns the models the CLI listed, or else CLIInfo's.
func (a *Agent) knownModels() []Model {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.models) == 0 {
		return a.info.Models
	}
	return a.models
}

// modelChoices returns the model option's values, current among them.
func (a *Agent) modelChoices(current string) []acp.SessionConfigSelectOption {
	models := a.knownModels()
	choices := make([]acp.SessionConfigSelectOption, 0, len(models)+1)
	for _, m := range models {
		choices = append(choices, acp.SessionConfigSelectOption{Value: m.ID, Name: m.Name, Description: m.Description})
	}
	if !slices.ContainsFunc(choices, func(c acp.SessionConfigSelectOption) bool { return c.Value == current }) {
		choices = append(choices, acp.SessionConfigSelectOption{Value: current, Name: current})
	}
	return choices
}

// notifyV1 sends ed updates, in ACP v1, for the session id: s's own or
// one of its children's. It logs what could not be sent, and holds them
// while ed has not been told of s.
func (s *session) notifyV1(ed *editor, id string, updates []acp.Update) {
	if s.holding(ed) {
		updates = slices.Clone(updates) // the caller's to reuse
		s.hold(ed, func() { s.notifyV1(ed, id, updates) })
		return
	}
	for _, u := range updates {
		err := acp.SessionUpdate.Notify(context.Background(), ed.connection(), acp.SessionNotification{SessionID: id, Update: u})
		if err != nil {
			notSent(s.log, "session update not sent", err, "session", id)
			return
		}
	}
}

// notifyUsage sends goose's usage update to an editor that accepts it.
func (s *session) notifyUsage(ed *editor, snap usage.Snapshot) {
	if !ed.acceptsGoose() {
		return
	}
	if s.holding(ed) {
		s.hold(ed, func() { s.notifyUsage(ed, snap) })
		return
	}
	err := goose.SessionUpdate.Notify(context.Background(), ed.connection(), goose.SessionNotification{SessionID: s.id, Update: goose.NewUsageUpdate(snap)})
	if err != nil {
		notSent(s.log, "goose usage update not sent", err)
	}
}

// notSent logs a message that could not be sent: at debug level when the
// connection has ended, which is how every editor leaves, as a warning
// otherwise.
func notSent(log *slog.Logger, msg string, err error, args ...any) {
	level := slog.LevelWarn
	if errors.Is(err, acp.ErrClosed) {
		level = slog.LevelDebug
	}
	log.Log(context.Background(), level, msg, append(args, "error", err)...)
}
