package bridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/usage"
	"github.com/tidwall/gjson"
)

// This file serves sessions with an agent that speaks ACP itself, on its
// standard input and output: one process per session, which the session
// supervises as it does any CLI's. The bridge is the agent's client: it
// opens the agent's session when the process starts, passes the prompts
// on, and the agent's updates, permission questions and requests for the
// editor back, through the session's Host. What acpkit gives every agent
// (the remote transports, ACP v2, one handler per editor, goose's usage)
// comes from the Agent around it, and the supervision from the session:
// a crashed or idle agent is started again and its session loaded or
// resumed.

// ACPAgentInfo describes an agent that speaks ACP on its standard input
// and output, for [ACPAgent].
type ACPAgentInfo struct {
	// Name names the agent to a person, in messages; "" means "ACP
	// agent".
	Name string
	// Program is the agent's program, as found in PATH, which the
	// program's [Starter] runs.
	Program string
	// Args are the arguments the agent is started with, before
	// [Config.ExtraArgs].
	Args []string
	// Accepts is what the agent takes from an editor, which initialize
	// advertises before any agent has started: the program knows its
	// agent. Every ACP agent takes the editor's stdio MCP servers, and
	// MCPStdio is taken as set.
	Accepts Accepts
}

// ACPAgent returns a CLI whose sessions are served by an agent that
// speaks ACP on its standard input and output, one process per session
// (so that one session's crash or hang is no other's, and the session's
// supervision applies as it is). The bridge is the agent's client:
//
//   - when the process starts, it initializes the agent, telling it what
//     the session's editor declared it takes, and opens the agent's
//     session: session/new, or, for a session that goes on (after an
//     idle stop, a crash, or session/resume), session/resume, or
//     session/load with the agent's replay left out, the editor having
//     seen the conversation already; an agent that can neither, or that
//     cannot open again a session its earlier process began, starts a
//     new conversation, saying so;
//   - it passes prompts, cancels and mode and model changes on (through
//     session/set_config_option when the agent offers the option, else
//     session/set_mode, or the older session/set_model), and the agent's
//     modes and models to the editor as the session's;
//   - it passes the agent's updates of a turn on, every tool call
//     announced before its permission question and ended, failed, when
//     rejected, cancelled or left open at the turn's end; outside a turn
//     only the agent's commands, mode, options, title and usage;
//   - it puts the agent's permission questions to the editor, and relays
//     its requests for the editor's files, terminals and elicitations
//     ([Host.Relay]);
//   - it answers a prompt with the agent's answer and usage, or with an
//     *acp.Error: the agent's own for authentication, invalid params, a
//     missing resource or a cancelled request, and otherwise -32603 with
//     [ErrorData] (kind cli_error, or crash when the agent exits).
//
// The agent's configuration options other than its mode and model are
// not offered. The bridge keeps no store of the agent's sessions:
// session/list shows the sessions opened here, session/load is not
// offered, and session/resume goes on only with a session the Agent
// holds (its agent started again as above if it was stopped), refusing
// any other id -32002 (resource not found, [KindResumeNotFound], naming
// it) at session/resume itself. The bridge's session ids are its own,
// not the agent's, so no agent could resume one, whatever it advertises;
// resume stays advertised, since it works for the sessions held, from
// any of the Agent's connections, before any agent has started.
func ACPAgent(info ACPAgentInfo) CLI {
	info.Accepts.MCPStdio = true
	return acpCLI{
		info: CLIInfo{
			Name:    cmp.Or(info.Name, "ACP agent"),
			Program: info.Program,
			Modes:   []acp.SessionMode{{ID: "default", Name: "Default", Description: "The agent's own"}},
			Models:  []Model{{ID: "default", Name: "Default"}},
			Accepts: info.Accepts,
		},
		args:    slices.Clone(info.Args),
		dialect: plainACP{},
	}
}

// acpCLI is an agent that speaks ACP, with its dialect.
type acpCLI struct {
	info    CLIInfo
	args    []string
	dialect dialect
}

func (a acpCLI) Info() CLIInfo { return a.info }

// NewConversation refuses a session that goes on with a conversation
// (session/resume of a session the Agent does not hold): the bridge's
// session ids are its own, not the agent's, and it keeps no record of
// the agent's sessions, so none is found. It says so at once, rather
// than accept the session and fail its first prompt.
func (a acpCLI) NewConversation(c ConversationConfig) (Conversation, error) {
	if c.ResumeID != "" {
		return nil, resumeNotFound(a.info.Name, c.ResumeID)
	}
	return newACPConversation(c, a), nil
}

// dialect is what an agent says or takes differently from ACP, or
// beyond it, and how the bridge mends it. plainACP is ACP's own.
type dialect interface {
	// args returns the arguments the agent's command line adds, before
	// the program's ExtraArgs, and whether they give the agent the
	// session's additional directories.
	args(c ConversationConfig) (args []string, dirs bool)
	// update mends an update of the agent's during a turn: it returns
	// those to send instead (none to drop it), and may tell the Host
	// what the update says.
	update(h Host, t *acpTurn, u acp.Update) []acp.Update
	// promptError is the prompt's answer for the agent's error e.
	promptError(e *acp.Error, c ConversationConfig) error
	// openError is the answer for the agent's error e to session/load or
	// session/resume of the agent's session id.
	openError(e *acp.Error, name, id string) error
	// relayed mends the editor's answer to a request relayed for the
	// agent.
	relayed(method string, result json.RawMessage, err error) (json.RawMessage, error)
	// usage reads the usage of a turn the agent's prompt answer reports.
	usage(res acp.PromptResult) (usage.Report, bool)
	// contextUsed returns the tokens in the context after the turn res
	// answers, for a usage_update; false when it does not say.
	contextUsed(res acp.PromptResult) (uint64, bool)
}

// plainACP is the dialect of an agent that speaks ACP as it is.
type plainACP struct{}

func (plainACP) args(ConversationConfig) ([]string, bool) { return nil, false }

func (plainACP) update(h Host, t *acpTurn, u acp.Update) []acp.Update { return []acp.Update{u} }

func (plainACP) promptError(e *acp.Error, c ConversationConfig) error {
	switch e.Code {
	case acp.CodeAuthRequired, acp.CodeInvalidParams, acp.CodeInvalidRequest, acp.CodeMethodNotFound, acp.CodeResourceNotFound, acp.CodeRequestCancelled:
		return e
	}
	return acp.Errorf(acp.CodeInternalError, "%s", errorText(e)).WithData(ErrorData{Kind: KindCLIError})
}

func (plainACP) openError(e *acp.Error, name, id string) error {
	if e.Code == acp.CodeResourceNotFound {
		return resumeNotFound(name, id)
	}
	return plainACP{}.promptError(e, ConversationConfig{})
}

func (plainACP) relayed(method string, result json.RawMessage, err error) (json.RawMessage, error) {
	return result, err
}

func (plainACP) usage(res acp.PromptResult) (usage.Report, bool) {
	u := res.Usage
	if u == nil {
		return usage.Report{}, false
	}
	rep := usage.Report{Input: usage.CountOf(u.InputTokens), Output: usage.CountOf(u.OutputTokens), Total: usage.CountOf(u.TotalTokens)}
	if u.CachedReadTokens != nil {
		rep.CacheRead = usage.CountOf(*u.CachedReadTokens)
	}
	if u.CachedWriteTokens != nil {
		rep.CacheWrite = usage.CountOf(*u.CachedWriteTokens)
	}
	return rep, true
}

func (plainACP) contextUsed(acp.PromptResult) (uint64, bool) { return 0, false }

// errorText is what an agent's error says: its message, or the details
// its data gives when the message says nothing ("Internal error").
func errorText(e *acp.Error) string {
	if d := gjson.GetBytes(e.Data, "details"); d.Type == gjson.String && d.Str != "" {
		if e.Message == "" || e.Message == "Internal error" {
			return d.Str
		}
		return e.Message + ": " + d.Str
	}
	return e.Message
}

// acpConversation is a session served by an ACP agent, one process at a
// time.
type acpConversation struct {
	cfg  ConversationConfig
	cli  acpCLI
	name string

	// What outlives a process.
	agentID     string // the agent's session id; "" before one named it
	named       bool   // agentID was named by one of this session's processes
	startedOver bool   // the session went on in a new conversation of the agent's: ResumeID no longer holds
	mode, model string // the session's, as the Agent last gave them
	agentMode   string // the mode the agent is in; "" when it has none
	agentModel  string // the model the agent runs; "" when unknown
	firstModel  string // the agent's own choice, which "default" stands for
	modeOption  string // the id of the agent's mode config option; "" for none
	modelOption string // the id of the agent's model config option; "" for none
	setModel    bool   // the agent takes session/set_model
	listedModes []acp.SessionMode
	acc         usage.Accumulator
	gen         int // processes started, naming their questions apart

	peer  *acpPeer         // the process that runs; nil when none
	turn  *acpTurn         // the turn under way; nil between turns
	asked map[string]asked // the agent's permission questions put to the editor, by question id
}

// acpTurn is a turn of an ACP agent's.
type acpTurn struct {
	prompt    []acp.ContentBlock // until it is sent
	sent      bool
	cancelled bool                          // session/cancel was sent, or is due
	tools     map[string]acp.ToolCallStatus // the tool calls announced, and their status
	order     []string                      // their ids, in order
}

// asked is a permission question of the agent's put to the editor.
type asked struct {
	peer    *acpPeer
	id      acp.ID // the agent's request
	tool    string // the tool call's id
	options []acp.PermissionOption
}

func newACPConversation(c ConversationConfig, cli acpCLI) *acpConversation {
	return &acpConversation{cfg: c, cli: cli, name: cli.info.Name}
}

// peerState is where the process's session stands.
type peerState int

const (
	peerOpening peerState = iota // initialize, then the session's opening
	peerSyncing                  // a loaded session's replay is drained
	peerReady                    // the session takes prompts
	peerFailed                   // the session could not be opened
)

// acpPeer is the bridge's side of one process of an ACP agent: a
// JSON-RPC peer on its standard input and output, one message a line.
type acpPeer struct {
	w      io.Writer
	gen    int
	state  peerState
	caps   acp.AgentCapabilities
	lastID int64
	calls  map[int64]func(h Host, result json.RawMessage, err *acp.Error)
	relays map[string]func() // the agent's requests relayed to the editor, by id
}

// call sends a request, whose answer comes to done during a Line.
func (p *acpPeer) call(method string, params any, done func(h Host, result json.RawMessage, err *acp.Error)) error {
	p.lastID++
	line, err := acp.MarshalRequest(acp.IntID(p.lastID), method, params)
	if err != nil {
		return err
	}
	p.calls[p.lastID] = done
	return p.write(line)
}

func (p *acpPeer) notify(method string, params any) error {
	line, err := acp.MarshalNotification(method, params)
	if err != nil {
		return err
	}
	return p.write(line)
}

func (p *acpPeer) respond(id acp.ID, result any) error {
	line, err := acp.MarshalResponse(id, result)
	if err != nil {
		return err
	}
	return p.write(line)
}

// respondError answers the agent's request id with err, as the *acp.Error
// it is or wraps, or else -32603 with its words.
func (p *acpPeer) respondError(id acp.ID, err error) error {
	var e *acp.Error
	if !errors.As(err, &e) {
		e = acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	line, merr := acp.MarshalErrorResponse(id, e)
	if merr != nil {
		return merr
	}
	return p.write(line)
}

func (p *acpPeer) write(line []byte) error {
	_, err := p.w.Write(append(line, '\n'))
	return err
}

func (c *acpConversation) CommandLine(mode, model string) []string {
	c.mode, c.model = mode, model
	more, _ := c.cli.dialect.args(c.cfg)
	args := append(slices.Clone(c.cli.args), more...)
	return append(args, c.cfg.ExtraArgs...)
}

// Start initializes the agent, then opens its session.
func (c *acpConversation) Start(stdin io.WriteCloser) {
	c.gen++
	c.peer = &acpPeer{w: stdin, gen: c.gen, calls: map[int64]func(Host, json.RawMessage, *acp.Error){}, relays: map[string]func(){}}
	caps := acp.ClientCapabilities{FS: c.cfg.Client.FS, Terminal: c.cfg.Client.Terminal, Elicitation: c.cfg.Client.Elicitation}
	if c.cfg.Notices {
		caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
	}
	p := c.peer
	c.send(p.call(acp.Initialize.Name, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion, ClientCapabilities: caps}, func(h Host, raw json.RawMessage, e *acp.Error) {
		if e != nil {
			c.failOpen(h, p, c.cli.dialect.promptError(e, c.cfg))
			return
		}
		res, err := acp.DecodeResult[acp.InitializeResult](raw)
		if err != nil {
			c.failOpen(h, p, acp.Errorf(acp.CodeInternalError, "%s answered initialize wrongly: %v", c.name, err).WithData(ErrorData{Kind: KindCLIError}))
			return
		}
		if res.ProtocolVersion != acp.ProtocolVersion {
			c.failOpen(h, p, acp.Errorf(acp.CodeInternalError, "%s speaks ACP version %d, not %d", c.name, res.ProtocolVersion, acp.ProtocolVersion).WithData(ErrorData{Kind: KindCLIError}))
			return
		}
		p.caps = res.AgentCapabilities
		c.open(h, p)
	}))
}

// send logs a write to the agent that failed: its process has exited,
// and the Agent sees to the turn when it learns so.
func (c *acpConversation) send(err error) {
	if err != nil {
		c.cfg.Logger.Debug("not written to "+c.name, "error", err)
	}
}

// open opens the agent's session: a new one, or the one the session goes
// on with.
func (c *acpConversation) open(h Host, p *acpPeer) {
	servers := c.cfg.MCPServers
	if servers == nil {
		servers = []acp.MCPServer{}
	}
	var dirs []string
	if sc := p.caps.SessionCapabilities; sc != nil && sc.AdditionalDirectories != nil {
		dirs = c.cfg.AdditionalDirectories
	} else if _, byArgs := c.cli.dialect.args(c.cfg); len(c.cfg.AdditionalDirectories) > 0 && !byArgs {
		c.cfg.Logger.Warn(c.name + " takes no additional directories: they are left out")
	}
	id := c.continued()
	sc := p.caps.SessionCapabilities
	switch {
	case id == "":
		c.send(p.call(acp.SessionNew.Name, acp.NewSessionParams{Cwd: c.cfg.Cwd, AdditionalDirectories: dirs, MCPServers: servers}, c.opened(p, "", false)))
	case sc != nil && sc.Resume != nil:
		c.send(p.call(acp.SessionResume.Name, acp.ResumeSessionParams{SessionID: id, Cwd: c.cfg.Cwd, AdditionalDirectories: dirs, MCPServers: servers}, c.opened(p, id, false)))
	case p.caps.LoadSession:
		c.send(p.call(acp.SessionLoad.Name, acp.LoadSessionParams{SessionID: id, Cwd: c.cfg.Cwd, AdditionalDirectories: dirs, MCPServers: servers}, c.opened(p, id, true)))
	case c.named:
		c.startOver(h, p, c.name+" cannot resume a session: it starts a new conversation.")
	default:
		c.failOpen(h, p, resumeNotFound(c.name, id))
	}
}

// startOver opens a new session of the agent's in place of the one it
// cannot go on with, which its own earlier process began, and tells the
// editor why: the conversation the agent knows starts again.
func (c *acpConversation) startOver(h Host, p *acpPeer, why string) {
	h.Notify(c.notice(acp.NoticeWarning, why))
	c.agentID, c.named, c.startedOver = "", false, true
	c.open(h, p)
}

// continued returns the agent's session the session goes on with: the
// one its processes opened, or else the one the editor named; "" for a
// new one.
func (c *acpConversation) continued() string {
	if c.agentID != "" || c.startedOver {
		return c.agentID
	}
	return c.cfg.ResumeID
}

// notice is a notice for the editor, or agent text for one that takes
// none.
func (c *acpConversation) notice(sev acp.NoticeSeverity, msg string) acp.Update {
	if c.cfg.Notices {
		return acp.Notice{Severity: sev, Title: msg}
	}
	return acp.AgentMessageChunk{Content: acp.TextContent{Text: msg + "\n\n"}}
}

// opened returns what takes the agent's answer to the opening of its
// session id ("" for a new one); loaded reports that it was loaded.
func (c *acpConversation) opened(p *acpPeer, id string, loaded bool) func(Host, json.RawMessage, *acp.Error) {
	return func(h Host, raw json.RawMessage, e *acp.Error) {
		if e != nil {
			err := c.cli.dialect.promptError(e, c.cfg)
			switch {
			case id != "" && c.named:
				c.startOver(h, p, fmt.Sprintf("%s could not open this session again (%s): it starts a new conversation.", c.name, errorText(e)))
				return
			case id != "":
				err = c.cli.dialect.openError(e, c.name, id)
			}
			c.failOpen(h, p, err)
			return
		}
		var res struct {
			SessionID     string                    `json:"sessionId"`
			Modes         *acp.SessionModeState     `json:"modes"`
			ConfigOptions []acp.SessionConfigOption `json:"configOptions"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || id == "" && res.SessionID == "" {
			c.failOpen(h, p, acp.Errorf(acp.CodeInternalError, "%s opened no session: %s", c.name, raw).WithData(ErrorData{Kind: KindCLIError}))
			return
		}
		c.agentID, c.named = cmp.Or(id, res.SessionID), true
		c.learn(h, res.Modes, res.ConfigOptions, gjson.GetBytes(raw, "models"))
		c.apply(h, p)
		if !loaded {
			c.ready(h, p)
			return
		}
		// An agent may replay the loaded conversation after its answer
		// (Gemini CLI does). Any request's answer comes after that
		// replay, which the editor has seen already and is left out:
		// the session takes prompts once one has come.
		p.state = peerSyncing
		c.send(p.call(syncMethod, struct{}{}, func(h Host, _ json.RawMessage, _ *acp.Error) { c.ready(h, p) }))
	}
}

// syncMethod is the request whose answer tells that an agent has
// finished replaying a loaded session: an extension's, which an agent
// that does not know it answers -32601, as JSON-RPC requires.
const syncMethod = "_acpkit/sync"

// failOpen gives up on the process p, whose session could not be
// opened: the turn waiting for it fails with err, and the process is
// stopped, so that the next prompt tries again in another.
func (c *acpConversation) failOpen(h Host, p *acpPeer, err error) {
	if p != c.peer {
		return
	}
	p.state = peerFailed
	h.Retire()
	if c.turn == nil {
		c.cfg.Logger.Warn(c.name+" opened no session", "error", err)
		return
	}
	c.endTurn(h, acp.PromptResult{}, err)
}

// ready lets the session take prompts, and sends the one waiting.
func (c *acpConversation) ready(h Host, p *acpPeer) {
	if p != c.peer || p.state == peerFailed {
		return
	}
	p.state = peerReady
	switch t := c.turn; {
	case t == nil:
	case t.cancelled:
		c.endTurn(h, acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil)
	default:
		c.sendPrompt()
	}
}

// learn keeps the modes and models the agent listed, in its own terms or
// as config options, and offers them to the editor.
func (c *acpConversation) learn(h Host, modes *acp.SessionModeState, options []acp.SessionConfigOption, models gjson.Result) {
	var listedModels []Model
	if modes != nil {
		c.listedModes, c.agentMode = modes.AvailableModes, modes.CurrentModeID
	}
	for _, o := range options {
		if o.Type != acp.ConfigOptionSelect {
			continue
		}
		values := slices.Clone(o.Options.Options)
		for _, g := range o.Options.Groups {
			values = append(values, g.Options...)
		}
		switch o.Category {
		case acp.ConfigCategoryMode:
			c.modeOption, c.agentMode, c.listedModes = o.ID, o.CurrentValue, nil
			for _, v := range values {
				c.listedModes = append(c.listedModes, acp.SessionMode{ID: v.Value, Name: v.Name, Description: v.Description})
			}
		case acp.ConfigCategoryModel:
			c.modelOption, c.agentModel, listedModels = o.ID, o.CurrentValue, []Model{}
			for _, v := range values {
				listedModels = append(listedModels, Model{ID: v.Value, Name: v.Name, Description: v.Description})
			}
		}
	}
	if c.modelOption == "" && models.IsObject() {
		c.setModel, c.agentModel, listedModels = true, models.Get("currentModelId").Str, []Model{}
		for _, m := range models.Get("availableModels").Array() {
			if id := m.Get("modelId").Str; id != "" {
				listedModels = append(listedModels, Model{ID: id, Name: cmp.Or(m.Get("name").Str, id), Description: m.Get("description").Str})
			}
		}
	}
	if c.firstModel == "" {
		c.firstModel = c.agentModel
	}
	if listedModels != nil {
		own := Model{ID: "default", Name: "Default", Description: c.name + "'s own choice"}
		if c.firstModel != "" {
			own.Description += " (" + c.firstModel + ")"
		}
		listedModels = append([]Model{own}, slices.DeleteFunc(listedModels, func(m Model) bool { return m.ID == "default" })...)
	}
	var listed []acp.SessionMode
	if len(c.listedModes) > 0 {
		listed = c.listedModes
	}
	h.Offer(listed, listedModels)
}

// hasMode reports whether the agent listed mode.
func (c *acpConversation) hasMode(mode string) bool {
	return slices.ContainsFunc(c.listedModes, func(m acp.SessionMode) bool { return m.ID == mode })
}

// apply switches the agent that has just opened its session to the
// session's mode and model. A session whose mode the agent does not list
// takes the agent's.
func (c *acpConversation) apply(h Host, p *acpPeer) {
	switch {
	case c.agentMode == "" || c.mode == c.agentMode:
	case !c.hasMode(c.mode):
		c.mode = c.agentMode
		h.ModeChanged(c.agentMode)
	default:
		mode := c.mode
		c.send(c.switchTo(p, configMode, mode, func(h Host, e *acp.Error) {
			if e != nil {
				c.cfg.Logger.Warn(c.name+" kept its mode", "mode", mode, "error", errorText(e))
				c.mode = c.agentMode
				h.ModeChanged(c.agentMode)
			}
		}))
	}
	if target := c.modelTarget(c.model); target != "" && target != c.agentModel && (c.modelOption != "" || c.setModel) {
		c.send(c.switchTo(p, configModel, target, func(h Host, e *acp.Error) {
			if e != nil {
				c.cfg.Logger.Warn(c.name+" kept its model", "model", target, "error", errorText(e))
			}
		}))
	}
}

// modelTarget is the agent's model that the session's model names.
func (c *acpConversation) modelTarget(model string) string {
	if model == "default" {
		return c.firstModel
	}
	return model
}

// switchTo asks the agent to switch its mode (key configMode) or its
// model to value: through its config option for it when it offers one,
// else session/set_mode or the older session/set_model. done takes the
// answer.
func (c *acpConversation) switchTo(p *acpPeer, key, value string, done func(Host, *acp.Error)) error {
	option, current := c.modeOption, &c.agentMode
	if key == configModel {
		option, current = c.modelOption, &c.agentModel
	}
	answer := func(h Host, _ json.RawMessage, e *acp.Error) {
		if e == nil {
			*current = value
		}
		done(h, e)
	}
	switch {
	case option != "":
		return p.call(acp.SessionSetConfigOption.Name, acp.SetSessionConfigOptionParams{SessionID: c.agentID, ConfigID: option, Value: value}, answer)
	case key == configMode:
		return p.call(acp.SessionSetMode.Name, acp.SetSessionModeParams{SessionID: c.agentID, ModeID: value}, answer)
	}
	return p.call(acp.SessionSetModel.Name, acp.SetSessionModelParams{SessionID: c.agentID, ModelID: value}, answer)
}

func (c *acpConversation) Prompt(prompt []acp.ContentBlock) error {
	c.turn = &acpTurn{prompt: prompt, tools: map[string]acp.ToolCallStatus{}}
	if p := c.peer; p != nil && p.state == peerReady {
		c.sendPrompt()
	}
	return nil
}

// sendPrompt sends the turn's prompt to the agent, whose session is
// ready.
func (c *acpConversation) sendPrompt() {
	t, p := c.turn, c.peer
	t.sent = true
	c.send(p.call(acp.SessionPrompt.Name, acp.PromptParams{SessionID: c.agentID, Prompt: t.prompt}, func(h Host, raw json.RawMessage, e *acp.Error) {
		if c.turn != t {
			return
		}
		if e != nil {
			c.endTurn(h, acp.PromptResult{}, c.cli.dialect.promptError(e, c.cfg))
			return
		}
		res, err := acp.DecodeResult[acp.PromptResult](raw)
		if err != nil {
			c.endTurn(h, acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "%s answered the prompt wrongly: %v", c.name, err).WithData(ErrorData{Kind: KindCLIError}))
			return
		}
		c.turnUsage(h, &res)
		c.endTurn(h, res, nil)
	}))
	t.prompt = nil
}

// turnUsage adds the usage the agent reports for a turn to the
// session's, and tells the editor how full the context is.
func (c *acpConversation) turnUsage(h Host, res *acp.PromptResult) {
	rep, ok := c.cli.dialect.usage(*res)
	if !ok {
		return
	}
	c.acc.Add(rep)
	if res.Usage == nil {
		res.Usage = reportUsage(rep)
	}
	if used, ok := c.cli.dialect.contextUsed(*res); ok && used > 0 {
		u, _ := c.acc.Snapshot().ACPUpdate()
		u.Used = used
		h.Notify(u)
	}
}

// endTurn ends the turn with the prompt's answer, ending its tool calls
// left open first.
func (c *acpConversation) endTurn(h Host, res acp.PromptResult, err error) {
	t := c.turn
	c.turn = nil
	var updates []acp.Update
	for _, id := range t.order {
		if s := t.tools[id]; s != acp.ToolCallStatusCompleted && s != acp.ToolCallStatusFailed {
			updates = append(updates, acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusFailed})
		}
	}
	h.Notify(updates...)
	h.EndTurn(res, err)
}

// Interrupt cancels the turn: it sends session/cancel, and answers the
// agent's permission questions cancelled, as ACP asks of a client; a
// prompt not sent yet is not.
func (c *acpConversation) Interrupt() bool {
	t, p := c.turn, c.peer
	if t == nil || p == nil {
		return false
	}
	t.cancelled = true
	if !t.sent {
		return true
	}
	c.send(p.notify(acp.SessionCancel.Name, acp.CancelParams{SessionID: c.agentID}))
	for qid, a := range c.asked {
		delete(c.asked, qid)
		if a.peer == p {
			c.send(p.respond(a.id, acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}))
		}
	}
	return true
}

func (c *acpConversation) Line(h Host, line []byte) {
	p := c.peer
	if p == nil {
		return
	}
	m := acp.Classify(line)
	switch m.Kind {
	case acp.KindResponse:
		n, err := strconv.ParseInt(m.ID.String(), 10, 64)
		done := p.calls[n]
		if err != nil || done == nil {
			c.cfg.Logger.Warn(c.name+" answered a request it was not sent", "id", m.ID.String())
			return
		}
		delete(p.calls, n)
		done(h, m.Result, m.Err)
	case acp.KindNotification:
		c.notification(h, p, m)
	case acp.KindRequest:
		c.request(h, p, m)
	default:
		c.cfg.Logger.Warn(c.name+" wrote a line that is not JSON-RPC; skipped", "error", m.Err, "line", truncate(line, 200))
		if !m.ID.IsAbsent() && !m.ID.IsNull() {
			c.send(p.respondError(m.ID.Clone(), m.Err))
		}
	}
}

// truncate returns the first n bytes of b, for a log.
func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// notification takes a notification of the agent's.
func (c *acpConversation) notification(h Host, p *acpPeer, m acp.Message) {
	switch m.Method {
	case acp.SessionUpdate.Name:
		n, err := acp.DecodeParams[acp.SessionNotification](m.Params)
		switch {
		case err != nil:
			c.cfg.Logger.Warn(c.name+" sent an update that cannot be read; skipped", "error", err)
		case n.SessionID != c.continued():
			c.cfg.Logger.Warn(c.name+" sent an update for a session it was not given; skipped", "session", n.SessionID)
		default:
			c.update(h, p, n.Update)
		}
	case acp.CancelRequest.Name:
		id := gjson.GetBytes(m.Params, "requestId").Raw
		if cancel := p.relays[id]; cancel != nil {
			cancel() // its answer, -32800, comes through the relay
			return
		}
		qid := c.questionID(p, id)
		if a, ok := c.asked[qid]; ok {
			delete(c.asked, qid)
			h.Withdraw(qid)
			c.send(p.respondError(a.id, acp.Errorf(acp.CodeRequestCancelled, "cancelled")))
		}
	default:
		c.cfg.Logger.Debug(c.name+" sent a notification the bridge does not take", "method", m.Method)
	}
}

// update takes an update of the agent's session.
func (c *acpConversation) update(h Host, p *acpPeer, u acp.Update) {
	switch u := u.(type) {
	case acp.AvailableCommandsUpdate:
		h.Commands(u.AvailableCommands, nil)
		return
	case acp.CurrentModeUpdate:
		c.agentMode, c.mode = u.CurrentModeID, u.CurrentModeID
		h.ModeChanged(u.CurrentModeID)
		return
	case acp.ConfigOptionUpdate:
		before := c.agentMode
		c.learn(h, nil, u.ConfigOptions, gjson.Result{})
		if c.agentMode != before && c.agentMode != "" {
			c.mode = c.agentMode
			h.ModeChanged(c.agentMode)
		}
		return
	case acp.Notice:
		if c.cfg.Notices {
			h.Notify(u)
		}
		return
	case acp.SessionInfoUpdate, acp.UsageUpdate:
		h.Notify(u)
		return
	}
	t := c.turn
	if t == nil || !t.sent || p.state != peerReady {
		// A loaded session's replay, which the editor has seen, or what
		// the agent says of no turn.
		return
	}
	for _, u := range c.cli.dialect.update(h, t, u) {
		switch u := u.(type) {
		case acp.ToolCall:
			t.track(u.ToolCallID, cmp.Or(u.Status, acp.ToolCallStatusPending))
		case acp.ToolCallUpdate:
			t.track(u.ToolCallID, u.Status)
		}
		h.Notify(u)
	}
}

// track records a tool call's status ("" keeps it).
func (t *acpTurn) track(id string, status acp.ToolCallStatus) {
	if _, ok := t.tools[id]; !ok {
		t.order = append(t.order, id)
		t.tools[id] = acp.ToolCallStatusPending
	}
	if status != "" {
		t.tools[id] = status
	}
}

// questionID names the agent's request id as a question of the process p.
func (c *acpConversation) questionID(p *acpPeer, id string) string {
	return strconv.Itoa(p.gen) + "/" + id
}

// request takes a request of the agent's.
func (c *acpConversation) request(h Host, p *acpPeer, m acp.Message) {
	id := m.ID.Clone()
	if sid := gjson.GetBytes(m.Params, "sessionId"); sid.Exists() && sid.Str != c.continued() {
		c.send(p.respondError(id, acp.Errorf(acp.CodeInvalidParams, "no session %s", sid.Raw)))
		return
	}
	switch method := m.Method; {
	case method == acp.SessionRequestPermission.Name:
		c.permission(h, p, id, m.Params)
	case method == acp.FSReadTextFile.Name, method == acp.FSWriteTextFile.Name, method == acp.ElicitationCreate.Name,
		strings.HasPrefix(method, "terminal/"), strings.HasPrefix(method, "_"):
		key := id.String()
		p.relays[key] = h.Relay(method, bytes.Clone(m.Params), func(result json.RawMessage, err error) {
			delete(p.relays, key)
			result, err = c.cli.dialect.relayed(method, result, err)
			if err != nil {
				c.send(p.respondError(id, err))
				return
			}
			c.send(p.respond(id, result))
		})
	default:
		c.send(p.respondError(id, acp.Errorf(acp.CodeMethodNotFound, "Method not found: %s", method)))
	}
}

// permission puts the agent's permission question to the editor, after
// announcing the tool call it is about if the agent has not.
func (c *acpConversation) permission(h Host, p *acpPeer, id acp.ID, params []byte) {
	r, err := acp.DecodeParams[acp.RequestPermissionParams](params)
	if err != nil {
		c.send(p.respondError(id, err))
		return
	}
	tc := r.ToolCall
	if t := c.turn; t != nil && t.cancelled {
		// It crossed session/cancel: ACP has the client answer it
		// cancelled, as Interrupt answered those asked before. The
		// session takes no answer of the editor's for a cancelled turn.
		c.send(p.respond(id, acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}))
		return
	}
	qid := c.questionID(p, id.String())
	if t := c.turn; t != nil && t.sent {
		if _, ok := t.tools[tc.ToolCallID]; !ok {
			h.Notify(acp.ToolCall{
				ToolCallID: tc.ToolCallID, Title: tc.Title, Kind: tc.Kind, Status: acp.ToolCallStatusPending,
				Content: tc.Content, Locations: tc.Locations, RawInput: tc.RawInput,
			})
			t.track(tc.ToolCallID, acp.ToolCallStatusPending)
		}
	}
	if c.asked == nil {
		c.asked = map[string]asked{}
	}
	c.asked[qid] = asked{peer: p, id: id, tool: tc.ToolCallID, options: r.Options}
	h.Ask(Question{ID: qid, ToolCall: tc, Options: r.Options})
}

func (c *acpConversation) Answer(h Host, q Question, outcome acp.PermissionOutcome, err error) {
	a, ok := c.asked[q.ID]
	delete(c.asked, q.ID)
	if !ok || a.peer != c.peer {
		return
	}
	if err != nil {
		c.cfg.Logger.Warn("permission request failed", "error", err)
		c.send(a.peer.respondError(a.id, acp.Errorf(acp.CodeInternalError, "the editor could not be asked: %v", err)))
		return
	}
	c.send(a.peer.respond(a.id, acp.RequestPermissionResult{Outcome: outcome}))
	if t := c.turn; t != nil && rejected(outcome, a.options) {
		if s, ok := t.tools[a.tool]; ok && s != acp.ToolCallStatusCompleted && s != acp.ToolCallStatusFailed {
			t.track(a.tool, acp.ToolCallStatusFailed)
			h.Notify(acp.ToolCallUpdate{ToolCallID: a.tool, Status: acp.ToolCallStatusFailed})
		}
	}
}

// rejected reports whether outcome refuses the tool call: cancelled, or
// an option of a reject kind.
func rejected(outcome acp.PermissionOutcome, options []acp.PermissionOption) bool {
	if outcome.Outcome != acp.PermissionSelected {
		return true
	}
	i := slices.IndexFunc(options, func(o acp.PermissionOption) bool { return o.OptionID == outcome.OptionID })
	return i >= 0 && (options[i].Kind == acp.PermissionRejectOnce || options[i].Kind == acp.PermissionRejectAlways)
}

func (c *acpConversation) Exited(h Host, err error) {
	c.peer, c.asked = nil, nil
	if c.turn == nil {
		return
	}
	msg := c.name + " exited without finishing the turn"
	if err != nil {
		msg += ": " + err.Error()
	}
	c.endTurn(h, acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(ErrorData{Kind: KindCrash}))
}

func (c *acpConversation) SetMode(mode string) func(context.Context) error {
	p := c.peer
	if p == nil || p.state != peerReady || mode == c.agentMode || !c.hasMode(mode) {
		c.mode = mode
		return nil
	}
	return c.confirm(p, configMode, mode, func() { c.mode = mode })
}

func (c *acpConversation) SetModel(model string) func(context.Context) error {
	p, target := c.peer, c.modelTarget(model)
	switch {
	case p == nil || p.state != peerReady || target == "" || target == c.agentModel:
		c.model = model
		return nil
	case c.modelOption == "" && !c.setModel:
		return func(context.Context) error {
			return acp.Errorf(acp.CodeInvalidParams, "%s offers no choice of model", c.name)
		}
	}
	return c.confirm(p, configModel, target, func() { c.model = model })
}

// confirm asks the agent to switch its mode or model (key) to target,
// and returns a function that waits for the answer: nil, once set has
// recorded the session's new setting, or why the agent refused.
func (c *acpConversation) confirm(p *acpPeer, key, target string, set func()) func(context.Context) error {
	answer := make(chan error, 1)
	err := c.switchTo(p, key, target, func(h Host, e *acp.Error) {
		if e != nil {
			answer <- acp.Errorf(acp.CodeInvalidParams, "%s refused: %s", c.name, errorText(e))
			return
		}
		set()
		answer <- nil
	})
	return func(ctx context.Context) error {
		if err != nil {
			return err
		}
		select {
		case err := <-answer:
			return err
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func (c *acpConversation) Usage() usage.Snapshot { return c.acc.Snapshot() }
