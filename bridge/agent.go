package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/usage"
)

// Process is a running CLI, as a [Starter] started it. The Agent reads
// Stdout to its end, then calls Wait once.
type Process interface {
	// Stdin is the CLI's standard input. Closing it asks the CLI to
	// finish and exit.
	Stdin() io.WriteCloser
	// Stdout is the CLI's standard output.
	Stdout() io.Reader
	// Signal sends s to the process and everything it started.
	Signal(s Signal) error
	// Wait waits for the process to exit and releases what it holds. Its
	// error describes an unsuccessful exit, for the log.
	Wait() error
}

// Signal is how the Agent stops a process that does not stop by itself.
type Signal int

// The signals an Agent sends: Interrupt (SIGINT) when the CLI does not
// end a cancelled turn in time, Terminate (SIGTERM) when it does not exit
// after its input was closed, Kill (SIGKILL) as the last resort.
const (
	Interrupt Signal = iota + 1
	Terminate
	Kill
)

// Starter starts the Agent's CLI with args (without the program name) in
// the directory dir, with its standard input and output as pipes.
type Starter func(dir string, args []string) (Process, error)

// Clock is the time source of an Agent: the current time, and timers for
// its timeouts. A program passes [time.Now] and a wrapper of
// [time.AfterFunc]; a test may pass a fake.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; stop cancels the
	// call and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Config configures an [Agent]. Start, NewSessionID and Clock are
// required.
type Config struct {
	// Start starts a CLI process.
	Start Starter
	// NewSessionID returns a fresh session id, a UUID: the CLI requires
	// one for --session-id.
	NewSessionID func() string
	// Clock gives the time and the timers.
	Clock Clock
	// CLI is the CLI that serves the sessions: [Claude] (when nil),
	// [Codex] or [Gemini].
	CLI *CLI
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
	Zones claude.ZoneResolver
	// Logger receives what the Agent skipped or failed at; nil is silent.
	Logger *slog.Logger
	// Info names the agent in the initialize result; nil means
	// "claude-acp".
	Info *acp.Implementation
}

// Agent is an ACP agent that serves each session with one long-lived
// Claude Code CLI in streaming-input mode. Register its handlers on an
// acp.Methods, serve them with an acp.Conn, and Close the Agent when the
// Conn has ended. Its methods are safe for concurrent use.
type Agent struct {
	cfg Config
	log *slog.Logger
	wg  sync.WaitGroup // every goroutine the Agent starts

	mu       sync.Mutex
	sessions map[string]session
	order    []string // session ids in the order they were opened
	caps     acp.ClientCapabilities
	models   json.RawMessage // the CLI's models, from its initialize answer
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
	return &Agent{cfg: cfg, log: log, sessions: map[string]session{}}, nil
}

// Register adds the Agent's handlers to m: initialize, session/new, load,
// resume, list, close, set_mode, set_config_option, prompt and cancel.
func (a *Agent) Register(m *acp.Methods) {
	acp.Initialize.Handle(m, a.initialize)
	acp.SessionNew.Handle(m, a.newSession)
	acp.SessionLoad.Handle(m, func(ctx context.Context, conn *acp.Conn, p acp.LoadSessionParams) (acp.LoadSessionResult, error) {
		return a.resume(p.SessionID, p.Cwd, p.MCPServers)
	})
	acp.SessionResume.Handle(m, func(ctx context.Context, conn *acp.Conn, p acp.ResumeSessionParams) (acp.LoadSessionResult, error) {
		return a.resume(p.SessionID, p.Cwd, p.MCPServers)
	})
	acp.SessionList.Handle(m, a.list)
	acp.SessionClose.Handle(m, a.close)
	acp.SessionSetMode.Handle(m, func(ctx context.Context, conn *acp.Conn, p acp.SetSessionModeParams) (acp.EmptyResult, error) {
		s, err := a.session(p.SessionID)
		if err != nil {
			return acp.EmptyResult{}, err
		}
		return acp.EmptyResult{}, s.setMode(ctx, conn, p.ModeID)
	})
	acp.SessionSetConfigOption.Handle(m, a.setConfigOption)
	acp.SessionPrompt.Handle(m, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		s, err := a.session(p.SessionID)
		if err != nil {
			return acp.PromptResult{}, err
		}
		return s.prompt(ctx, conn, p.Prompt)
	})
	acp.SessionCancel.Handle(m, func(ctx context.Context, conn *acp.Conn, p acp.SessionParams) {
		if s, err := a.session(p.SessionID); err == nil {
			s.cancel()
		}
	})
}

// Close stops every session's CLI (closing its input, then signalling it
// if it does not exit within the grace period) and waits until the
// processes have exited and the Agent's goroutines have ended.
func (a *Agent) Close() {
	a.mu.Lock()
	a.closed = true
	sessions := make([]session, 0, len(a.sessions))
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

func (a *Agent) initialize(ctx context.Context, conn *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	info := a.cfg.Info
	if info == nil {
		info = &acp.Implementation{Name: "claude-acp", Title: "Claude Code", Version: "0"}
	}
	return acp.InitializeResult{
		ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion),
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: &acp.SessionCapabilities{
				List: &acp.Capability{}, Resume: &acp.Capability{}, Close: &acp.Capability{},
			},
		},
		AgentInfo:   info,
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func (a *Agent) newSession(ctx context.Context, conn *acp.Conn, p acp.NewSessionParams) (acp.NewSessionResult, error) {
	s, err := a.open(a.cfg.NewSessionID(), "", p.Cwd, p.MCPServers)
	if err != nil {
		return acp.NewSessionResult{}, err
	}
	modes, options := s.common().state()
	return acp.NewSessionResult{SessionID: s.common().id, Modes: modes, ConfigOptions: options}, nil
}

// resume binds a session to a conversation the CLI keeps, without starting
// the CLI: a conversation it does not know fails the first prompt.
func (a *Agent) resume(id, cwd string, servers []acp.MCPServer) (acp.LoadSessionResult, error) {
	if id == "" {
		return acp.LoadSessionResult{}, acp.Errorf(acp.CodeInvalidParams, "sessionId is empty")
	}
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s == nil {
		var err error
		if s, err = a.open(id, id, cwd, servers); err != nil {
			return acp.LoadSessionResult{}, err
		}
	}
	modes, options := s.common().state()
	return acp.LoadSessionResult{Modes: modes, ConfigOptions: options}, nil
}

// open adds a session; resumeID is the conversation it continues, "" for
// a new one.
func (a *Agent) open(id, resumeID, cwd string, servers []acp.MCPServer) (session, error) {
	mcp, err := mcpConfig(servers)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, ErrClosed
	}
	if a.sessions[id] != nil {
		return nil, acp.Errorf(acp.CodeInvalidParams, "session %s is already open", id)
	}
	s := a.cli().open(&base{
		a: a, caps: a.caps, id: id, cwd: cwd, mcp: mcp, resumeID: resumeID,
		mode: a.modes()[0].ID, model: cmp.Or(a.cfg.Model, "default"),
		promptSlot: make(chan struct{}, 1),
	})
	a.sessions[id] = s
	a.order = append(a.order, id)
	return s, nil
}

func (a *Agent) session(id string) (session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, acp.Errorf(acp.CodeResourceNotFound, "no session %s", id)
}

func (a *Agent) list(ctx context.Context, conn *acp.Conn, p acp.ListSessionsParams) (acp.ListSessionsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := acp.ListSessionsResult{Sessions: []acp.SessionInfo{}}
	for _, id := range a.order {
		s := a.sessions[id]
		if cwd := s.common().cwd; p.Cwd == "" || p.Cwd == cwd {
			res.Sessions = append(res.Sessions, acp.SessionInfo{SessionID: id, Cwd: cwd})
		}
	}
	return res, nil
}

func (a *Agent) close(ctx context.Context, conn *acp.Conn, p acp.SessionParams) (acp.EmptyResult, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	delete(a.sessions, p.SessionID)
	a.order = slices.DeleteFunc(a.order, func(id string) bool { return id == p.SessionID })
	a.mu.Unlock()
	if s == nil {
		return acp.EmptyResult{}, acp.Errorf(acp.CodeResourceNotFound, "no session %s", p.SessionID)
	}
	s.close()
	return acp.EmptyResult{}, nil
}

func (a *Agent) setConfigOption(ctx context.Context, conn *acp.Conn, p acp.SetSessionConfigOptionParams) (acp.SetSessionConfigOptionResult, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return acp.SetSessionConfigOptionResult{}, err
	}
	switch p.ConfigID {
	case configMode:
		err = s.setMode(ctx, conn, p.Value)
	case configModel:
		err = s.setModel(ctx, conn, p.Value)
	default:
		err = acp.Errorf(acp.CodeInvalidParams, "no config option %q", p.ConfigID)
	}
	if err != nil {
		return acp.SetSessionConfigOptionResult{}, err
	}
	_, options := s.common().state()
	return acp.SetSessionConfigOptionResult{ConfigOptions: options}, nil
}

// clientCaps returns what the client declared in initialize.
func (a *Agent) clientCaps() acp.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

// learnModels keeps the models a CLI listed in its initialize answer.
func (a *Agent) learnModels(models json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.models = models
}

// The ids of the session config options.
const (
	configMode  = "mode"
	configModel = "model"
)

// modes returns the modes the Agent offers, the default first.
func (a *Agent) modes() []acp.SessionMode {
	c := a.cli()
	if a.cfg.AllowBypass || c.bypass == 0 {
		return c.modes
	}
	return c.modes[:len(c.modes)-1]
}

// cli returns the CLI the Agent drives.
func (a *Agent) cli() *CLI {
	if a.cfg.CLI == nil {
		return Claude
	}
	return a.cfg.CLI
}

// modelChoice is a value of the model config option.
type modelChoice struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// modelChoices returns the model option's values, current among them.
func (a *Agent) modelChoices(current string) []modelChoice {
	a.mu.Lock()
	raw := a.models
	a.mu.Unlock()
	var listed []struct {
		Value       string `json:"value"`
		DisplayName string `json:"displayName"`
		Description string `json:"description"`
	}
	choices := a.cli().models
	if json.Unmarshal(raw, &listed) == nil && len(listed) > 0 {
		choices = nil
		for _, m := range listed {
			if m.Value != "" {
				choices = append(choices, modelChoice{Value: m.Value, Name: cmp.Or(m.DisplayName, m.Value), Description: m.Description})
			}
		}
	}
	if !slices.ContainsFunc(choices, func(c modelChoice) bool { return c.Value == current }) {
		choices = append(slices.Clip(choices), modelChoice{Value: current, Name: current})
	}
	return choices
}

// mcpConfig renders the client's MCP servers as the CLI's --mcp-config
// JSON; "" when there are none.
func mcpConfig(servers []acp.MCPServer) (string, error) {
	if len(servers) == 0 {
		return "", nil
	}
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	pairs := func(nv []acp.NameValue) map[string]string {
		if len(nv) == 0 {
			return nil
		}
		m := make(map[string]string, len(nv))
		for _, p := range nv {
			m[p.Name] = p.Value
		}
		return m
	}
	all := map[string]server{}
	for _, s := range servers {
		switch s := s.(type) {
		case acp.MCPServerStdio:
			all[s.Name] = server{Type: "stdio", Command: s.Command, Args: s.Args, Env: pairs(s.Env)}
		case acp.MCPServerHTTP:
			all[s.Name] = server{Type: "http", URL: s.URL, Headers: pairs(s.Headers)}
		case acp.MCPServerSSE:
			all[s.Name] = server{Type: "sse", URL: s.URL, Headers: pairs(s.Headers)}
		default:
			return "", acp.Errorf(acp.CodeInvalidParams, "unsupported MCP server transport %T", s)
		}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": all})
	return string(b), err
}

// notify sends updates for a session, logging what could not be sent.
func (a *Agent) notify(conn *acp.Conn, id string, updates []acp.Update) {
	for _, u := range updates {
		err := acp.SessionUpdate.Notify(context.Background(), conn, acp.SessionNotification{SessionID: id, Update: u})
		if err != nil {
			a.log.Warn("session update not sent", "session", id, "error", err)
			return
		}
	}
}

// notifyUsage sends goose's usage update to a client that accepts it.
func (a *Agent) notifyUsage(conn *acp.Conn, id string, snap usage.Snapshot) {
	if !goose.AcceptsCustomNotifications(a.clientCaps()) {
		return
	}
	err := goose.SessionUpdate.Notify(context.Background(), conn, goose.SessionNotification{SessionID: id, Update: goose.NewUsageUpdate(snap)})
	if err != nil {
		a.log.Warn("goose usage update not sent", "session", id, "error", err)
	}
}
