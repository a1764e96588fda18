package bridge

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/usage"
)

// Codex is the OpenAI Codex CLI, one long-lived `codex app-server` per
// session (package codex's Session is its client): the editor answers its
// approvals of commands, file changes and MCP tool calls, session/cancel
// interrupts the turn and keeps the process, and the session's mode is
// the app-server's approval policy and sandbox, which the next turn
// takes. It needs Codex CLI 0.171.0 or later.
var Codex CLI = codexCLI{}

type codexCLI struct{}

// The modes of a Codex session.
const (
	codexReadOnly   = string(codex.SandboxReadOnly)
	codexAuto       = string(codex.SandboxWorkspaceWrite)
	codexFullAccess = string(codex.SandboxDangerFullAccess)
)

var codexInfo = CLIInfo{
	Name:    "Codex",
	Program: "codex",
	Tested:  codex.AppServerVersion,
	Modes: []acp.SessionMode{
		{ID: codexReadOnly, Name: "Read Only", Description: "Read files; ask before changing any or reaching the network"},
		{ID: codexAuto, Name: "Auto", Description: "Change files in the workspace; ask before anything outside it"},
		{ID: codexFullAccess, Name: "Full Access", Description: "Run everything without asking, without a sandbox"},
	},
	Bypass: codexFullAccess,
	Models: []Model{{ID: "default", Name: "Default"}},
	// The app-server takes images and text in a turn, and stdio and
	// streamable HTTP MCP servers in a thread's configuration; no SSE.
	Accepts: Accepts{Image: true, EmbeddedContext: true, MCPStdio: true, MCPHTTP: true},
	Forks:   true,
	SignIn:  []string{"login"},
	SignOut: []string{"logout"},
}

// codexRelease is the oldest release of the Codex CLI whose app-server
// the bridge speaks: the one it was written against and tested with.
const codexRelease = codex.AppServerVersion

func (codexCLI) Info() CLIInfo { return codexInfo }

func (codexCLI) NewConversation(c ConversationConfig) (Conversation, error) {
	mcp, err := codexMCPConfig(c.MCPServers)
	if err != nil {
		return nil, err
	}
	return &codexConversation{
		cfg: c, mcp: mcp, threadID: c.ResumeID, forkOf: c.ForkOf, effort: effortDefault,
		render: codexRender{notices: notices(c.Notices)},
		// A new thread counts from zero; another's totals come with its
		// first turn.
		tokens: codexTokens{known: c.ResumeID == "" && c.ForkOf == ""},
	}, nil
}

// codexConversation is a Codex thread, served by one app-server at a
// time. What outlives a process is here: the thread, the session's
// settings, the thread's token totals (which Codex counts over the whole
// thread) and the models the CLI listed.
type codexConversation struct {
	cfg      ConversationConfig
	mcp      json.RawMessage // the thread's config: {"mcp_servers": …}; nil for none
	threadID string          // the thread the session goes on with; "" until one started
	forkOf   string          // the thread the next process forks; "" once forked, or for none

	mode, model, effort string        // the session's settings, which each turn takes
	models              []codex.Model // model/list's, once a process listed them
	defaultModel        string        // the thread's own model, which "default" stands for

	proc    *codexProc // the process that runs; nil when none does
	turn    *codexTurn // the turn under way; nil outside one
	render  codexRender
	tokens  codexTokens
	limits  codexLimits
	scratch []codex.Event
	updates []acp.Update
}

// codexProc is one app-server process of the conversation.
type codexProc struct {
	sess   *codex.Session
	ctx    context.Context // ends once the process has exited
	cancel context.CancelFunc

	answered bool  // it answered initialize
	open     bool  // the thread is open in it
	failed   error // why it serves no turn; nil while it may
	// draining reports that a turn cancelled here still runs in the
	// app-server, whose events are dropped, and that the next turn waits
	// for its end.
	draining bool
	// model and effort are what the thread runs with, as the thread's
	// opening answer and the turns since set them.
	model, effort string
}

// codexTurn is a prompt, from Prompt to the end of its turn.
type codexTurn struct {
	input     []codex.Input
	sent      bool   // turn/start was sent
	started   bool   // turn/start's answer was taken (turnStarted)
	id        string // the app-server's id of the turn, once it answered turn/start
	cancelled bool   // session/cancel: the app-server is interrupted once it has the turn
	asked     map[string]codexQuestion
}

// codexQuestion is an approval request of the app-server's put to the
// editor, and the process it came from.
type codexQuestion struct {
	req  codex.Request
	sess *codex.Session
}

// CommandLine starts the app-server; the mode and model go to the thread
// and its turns.
func (c *codexConversation) CommandLine(mode, model string) []string {
	c.mode, c.model = mode, model
	return append([]string{"app-server"}, c.cfg.ExtraArgs...)
}

// Start opens the thread in the process just started, off the session's
// goroutine: initialize, model/list, then thread/start, resume or fork.
// A turn waiting for it starts once the thread is open.
func (c *codexConversation) Start(stdin io.WriteCloser) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &codexProc{sess: codex.NewSession(stdin), ctx: ctx, cancel: cancel}
	c.proc = p
	threadID, fork, opts := c.threadID, c.forkOf, c.threadOptions()
	c.cfg.Go(func() func(Host) {
		o := p.openThread(threadID, fork, opts)
		return func(h Host) { c.opened(h, p, o) }
	})
}

// threadOptions are the settings a thread opens with.
func (c *codexConversation) threadOptions() codex.ThreadOptions {
	policy, sandbox := codexPolicy(c.mode)
	return codex.ThreadOptions{Model: modelArg(c.model), ApprovalPolicy: policy, Sandbox: sandbox, Config: c.mcp, WithoutTurns: true}
}

// codexPolicy is the approval policy and sandbox of a mode.
func codexPolicy(mode string) (codex.ApprovalPolicy, codex.Sandbox) {
	switch mode {
	case codexFullAccess:
		return codex.ApprovalNever, codex.SandboxDangerFullAccess
	case codexAuto:
		return codex.ApprovalOnRequest, codex.SandboxWorkspaceWrite
	}
	return codex.ApprovalOnRequest, codex.SandboxReadOnly
}

// codexOpening is what opening a thread in a process gave.
type codexOpening struct {
	server codex.ServerInfo
	models []codex.Model // nil when model/list failed
	thread codex.ThreadResult
	err    error
}

// errCodexTooOld is the error of an app-server older than codexRelease.
type errCodexTooOld struct{ version string }

func (e errCodexTooOld) Error() string {
	return fmt.Sprintf("Codex CLI %s is too old: the bridge needs Codex CLI %s or later, whose `codex app-server` it speaks", e.version, codexRelease)
}

// openThread initializes the app-server and opens the session's thread
// in it: threadID resumed, or fork forked, or a new one. It runs off the
// session's goroutine, and touches nothing but p.sess.
func (p *codexProc) openThread(threadID, fork string, opts codex.ThreadOptions) (o codexOpening) {
	o.server, o.err = p.sess.Initialize(p.ctx, codex.ClientInfo{Name: "acpkit_bridge", Title: "acpkit bridge", Version: "1.0.0"}, codex.InitializeOptions{})
	if o.err != nil {
		return o
	}
	if v := o.server.Version; v != "" && olderRelease(v, codexRelease) {
		o.err = errCodexTooOld{v}
		return o
	}
	if list, err := p.sess.ListModels(p.ctx, codex.ModelListOptions{}); err == nil {
		o.models = list.Models
	}
	switch {
	case threadID != "":
		o.thread, o.err = p.sess.ResumeThread(p.ctx, threadID, opts)
	case fork != "":
		o.thread, o.err = p.sess.ForkThread(p.ctx, fork, opts)
	default:
		o.thread, o.err = p.sess.StartThread(p.ctx, opts)
	}
	return o
}

// olderRelease reports whether the release v ("0.170.2", "0.172.0-alpha.1")
// comes before min; a release that does not read as one does not.
func olderRelease(v, min string) bool {
	parse := func(s string) []int {
		s, _, _ = strings.Cut(s, "-")
		var out []int
		for _, f := range strings.Split(s, ".") {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil
			}
			out = append(out, n)
		}
		return out
	}
	a, b := parse(v), parse(min)
	if a == nil || b == nil {
		return false
	}
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// opened takes what opening the thread in p gave: the thread and the
// models, or why p serves no turn, which then fails the turn waiting.
func (c *codexConversation) opened(h Host, p *codexProc, o codexOpening) {
	if c.proc != p {
		return // the process has exited; its Exited said what matters
	}
	if o.err != nil {
		if !answeredError(o.err) {
			return // it is exiting: Exited ends the turn
		}
		p.failed = c.openError(o.err)
		c.cfg.Logger.Warn("Codex could not open the thread", "error", o.err)
		h.Retire() // the next prompt tries another process
		if c.turn != nil {
			c.endTurn(h, acp.PromptResult{}, p.failed)
		}
		return
	}
	t := o.thread
	p.open = true
	c.threadID, c.forkOf = t.Thread.ID, ""
	if o.models != nil {
		c.models = o.models
	}
	p.model, c.defaultModel = t.Model, t.Model
	p.effort = cmp.Or(t.ReasoningEffort, c.defaultEffort(t.Model)) // none named: the model's own
	h.Commands([]acp.AvailableCommand{}, c.bridgeModels())
	if c.turn != nil && !c.turn.sent {
		c.sendTurn(c.turn)
	}
}

// answeredError reports whether err, the error of a request to the
// app-server, is its answer (or one too old to take): any other says that
// the process is exiting, or gone, which its Exited deals with.
func answeredError(err error) bool {
	var rpc *codex.RPCError
	var old errCodexTooOld
	return errors.As(err, &rpc) || errors.As(err, &old) || errors.Is(err, codex.ErrBadAnswer)
}

// openError is the prompt's error for a thread that could not be opened.
func (c *codexConversation) openError(err error) error {
	var old errCodexTooOld
	switch {
	case errors.As(err, &old):
		return acp.Errorf(acp.CodeInternalError, "%v", err).WithData(ErrorData{Kind: KindCLIError})
	case errors.Is(err, codex.ErrResumeNotFound):
		id := cmp.Or(c.threadID, c.forkOf)
		return resumeNotFound("Codex", id)
	}
	return acp.Errorf(acp.CodeInternalError, "Codex could not open the thread: %v", err).WithData(ErrorData{Kind: KindCLIError})
}

// bridgeModels is the model option's values: the thread's own model as
// "default", then those model/list gave; nil when the CLI listed none.
func (c *codexConversation) bridgeModels() []Model {
	if len(c.models) == 0 {
		return nil
	}
	out := []Model{{ID: "default", Name: "Default"}}
	for _, m := range c.models {
		bm := Model{ID: m.ID, Name: cmp.Or(m.DisplayName, m.ID), Description: m.Description}
		out = append(out, bm)
		if m.ID == c.defaultModel || m.Model == c.defaultModel {
			out[0].Name = "Default (" + bm.Name + ")"
		}
	}
	return out
}

// modelInfo is what model/list said of model, "default" standing for the
// thread's own; false when it said nothing.
func (c *codexConversation) modelInfo(model string) (codex.Model, bool) {
	if model == "default" {
		model = c.defaultModel
	}
	for _, m := range c.models {
		if m.ID == model || m.Model == model {
			return m, true
		}
	}
	return codex.Model{}, false
}

// levels are the reasoning efforts m takes, as the effort option's.
func levels(m codex.Model) []effortLevel {
	out := make([]effortLevel, len(m.Efforts))
	for i, e := range m.Efforts {
		out[i] = effortLevel{id: e.Effort, description: e.Description}
	}
	return out
}

// Options is the effort option (Codex's reasoning effort), for a model
// that takes a choice of them. The next turn takes a change.
func (c *codexConversation) Options(model string) []acp.SessionConfigOption {
	m, ok := c.modelInfo(model)
	if !ok || len(m.Efforts) == 0 {
		return nil
	}
	return []acp.SessionConfigOption{effortOption(levels(m), c.effort, m.DefaultEffort)}
}

func (c *codexConversation) SetOption(id, value, model string) (func(context.Context) error, error) {
	if id != configEffort {
		return nil, acp.InvalidParam("configId", "no config option %q", id)
	}
	m, _ := c.modelInfo(model)
	return nil, checkEffort(model, value, levels(m))
}

func (c *codexConversation) OptionSet(id, value string) {
	if id == configEffort {
		c.effort = value
	}
}

func (c *codexConversation) Prompt(prompt []acp.ContentBlock) error {
	input, err := codexInput(prompt)
	if err != nil {
		return err
	}
	t := &codexTurn{input: input, asked: map[string]codexQuestion{}}
	c.turn = t
	c.render.reset()
	switch p := c.proc; {
	case p == nil || !p.open && p.failed == nil || p.draining:
		// It starts once the thread is open, or the cancelled turn over.
	case p.failed != nil:
		err := p.failed
		c.cfg.Go(func() func(Host) {
			return func(h Host) {
				if c.turn == t {
					c.endTurn(h, acp.PromptResult{}, err)
				}
			}
		})
	default:
		c.sendTurn(t)
	}
	return nil
}

// sendTurn sends turn/start for t, with the session's settings where the
// thread's differ.
func (c *codexConversation) sendTurn(t *codexTurn) {
	p := c.proc
	t.sent = true
	c.tokens.turnStarts()
	opts := c.turnOptions(p)
	threadID := c.threadID
	c.cfg.Go(func() func(Host) {
		turn, err := p.sess.StartTurn(p.ctx, threadID, t.input, opts)
		return func(h Host) { c.turnStarted(h, p, t, turn.ID, err) }
	})
}

// turnOptions are what the next turn takes: the mode's approval policy
// and sandbox, whose writable roots are the session's additional
// directories, and the model and effort where the thread's differ.
func (c *codexConversation) turnOptions(p *codexProc) codex.TurnOptions {
	policy, sandbox := codexPolicy(c.mode)
	o := codex.TurnOptions{ApprovalPolicy: policy, Sandbox: sandbox.Policy()}
	if o.Sandbox.Type == "workspaceWrite" {
		o.Sandbox.WritableRoots = c.cfg.AdditionalDirectories
	}
	model := cmp.Or(modelArg(c.model), c.defaultModel)
	if model != "" && model != p.model {
		o.Model, p.model = model, model
	}
	effort := c.effort
	if m, _ := c.modelInfo(model); checkEffort(model, effort, levels(m)) != nil || effort == effortDefault {
		effort = c.defaultEffort(model) // the model's own
	}
	if effort != "" && effort != p.effort {
		o.Effort, p.effort = effort, effort
	}
	return o
}

// defaultEffort is the effort model takes when none is chosen; "" when
// unknown.
func (c *codexConversation) defaultEffort(model string) string {
	for _, m := range c.models {
		if m.ID == model || m.Model == model {
			return m.DefaultEffort
		}
	}
	return ""
}

// turnStarted takes the answer to t's turn/start, which named the turn
// turnID: a turn refused ends with the app-server's error, and one
// cancelled meanwhile is interrupted now, if it still runs. Its end may
// have come before this answer, and the next turn started: that one is
// not interrupted.
func (c *codexConversation) turnStarted(h Host, p *codexProc, t *codexTurn, turnID string, err error) {
	if c.proc != p {
		return
	}
	switch {
	case err != nil && answeredError(err):
		c.cfg.Logger.Warn("Codex refused the turn", "error", err)
		if t.cancelled {
			c.drained()
		} else if c.turn == t {
			c.endTurn(h, acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "Codex refused the turn: %v", err).WithData(ErrorData{Kind: KindCLIError}))
		}
	case err != nil:
		// The process is exiting: Exited ends the turn.
	case t.cancelled:
		if active, ok := p.sess.ActiveTurn(c.threadID); ok && active == turnID {
			c.interrupt(p, turnID)
		}
	default:
		t.started, t.id = true, turnID
	}
}

// interrupt sends turn/interrupt for the turn turnID to p, off the
// session's goroutine; the turn ends with its turn/completed. It names
// the turn, where Session.Interrupt names the thread's active one, which
// may be the next turn by the time it is sent.
func (c *codexConversation) interrupt(p *codexProc, turnID string) {
	threadID := c.threadID
	c.cfg.Go(func() func(Host) {
		_, err := p.sess.Request(p.ctx, "turn/interrupt", map[string]string{"threadId": threadID, "turnId": turnID})
		if err != nil && p.ctx.Err() == nil {
			c.cfg.Logger.Warn("turn/interrupt failed", "error", err)
		}
		return nil
	})
}

// Interrupt cancels the turn: its open approvals are answered cancel, the
// app-server is sent turn/interrupt, and the prompt is answered cancelled
// at once. The app-server ends the turn a moment later; the next turn
// waits for that.
func (c *codexConversation) Interrupt() bool {
	t, p := c.turn, c.proc
	if t == nil {
		return false
	}
	t.cancelled = true
	for _, q := range t.asked {
		if err := q.sess.Decide(q.req, codex.DecisionCancel); err != nil && !errors.Is(err, codex.ErrCancelled) {
			c.cfg.Logger.Debug("approval not cancelled", "error", err)
		}
	}
	if p != nil && t.sent {
		p.draining = true
		if t.started {
			c.interrupt(p, t.id)
		}
	}
	c.cfg.Go(func() func(Host) {
		return func(h Host) {
			if c.turn == t {
				c.endTurn(h, acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil)
			}
		}
	})
	return true
}

// drained is the end of a cancelled turn in the app-server: the turn
// waiting for it starts.
func (c *codexConversation) drained() {
	p := c.proc
	p.draining = false
	if t := c.turn; t != nil && !t.sent && p.open {
		c.sendTurn(t)
	}
}

// endTurn ends the turn under way with the prompt's response.
func (c *codexConversation) endTurn(h Host, res acp.PromptResult, err error) {
	c.turn = nil
	h.EndTurn(res, err)
}

func (c *codexConversation) Line(h Host, line []byte) {
	p := c.proc
	events, err := p.sess.Feed(line, c.scratch[:0])
	c.scratch = events
	if err != nil {
		c.cfg.Logger.Warn("Codex output skipped", "error", err)
		return
	}
	for _, ev := range events {
		c.event(h, p, ev)
	}
}

// event handles one event of the app-server's.
func (c *codexConversation) event(h Host, p *codexProc, ev codex.Event) {
	t := c.turn
	live := t != nil && t.sent && !p.draining // the turn's events are its own
	switch ev := ev.(type) {
	case codex.Response:
		switch {
		case ev.Method == "initialize":
			p.answered = true
		case ev.Method == "turn/start" && live && ev.Err == nil:
			t.id, _ = p.sess.ActiveTurn(c.threadID)
		}
	case codex.CommandApproval, codex.FileChangeApproval, codex.Elicitation, codex.UnknownRequest:
		c.ask(h, p, ev.(codex.Request), live)
	case codex.RequestResolved:
		if t != nil && ev.Request != nil {
			if _, ok := t.asked[ev.RequestID]; ok {
				delete(t.asked, ev.RequestID)
				h.Withdraw(ev.RequestID)
			}
		}
	case codex.TurnEnd:
		switch {
		case p.draining:
			c.drained()
		case live:
			c.turnEnded(h, ev)
		}
	case codex.TokenUsage:
		turnID := ""
		if live {
			turnID = t.id
		}
		c.tokens.update(ev, turnID)
	case codex.RateLimits:
		c.updates = c.limits.update(c.updates[:0], ev, c.render.notices, live, c.cfg.Location)
		h.Notify(c.updates...)
	case codex.MCPServerStatus:
		if ev.Status == "failed" {
			c.updates = c.render.notices.add(c.updates[:0], acp.NoticeWarning, fmt.Sprintf("The MCP server %s failed to start: %s", ev.Name, ev.Error))
			h.Notify(c.updates...)
		}
	case codex.Warning:
		c.cfg.Logger.Info("Codex: "+ev.Message, "kind", ev.Method, "details", ev.Details)
	case codex.ErrorNotification:
		if live {
			c.updates = c.render.errorNotice(c.updates[:0], ev)
			h.Notify(c.updates...)
		}
	case codex.UnknownNotification:
		c.cfg.Logger.Debug("Codex notification skipped", "method", ev.Method)
	default:
		if live {
			c.updates = c.render.render(c.updates[:0], ev)
			h.Notify(c.updates...)
		}
	}
}

// The permission options of an approval: allow once, allow for the
// session, reject.
var codexOptions = []acp.PermissionOption{
	{OptionID: optionAllow, Name: "Allow", Kind: acp.PermissionAllowOnce},
	{OptionID: optionAllowAlways, Name: "Allow for this session", Kind: acp.PermissionAllowAlways},
	{OptionID: optionReject, Name: "Reject", Kind: acp.PermissionRejectOnce},
}

// ask puts an approval request to the editor, with the tool call it is
// about; a request outside a live turn, or of a kind the bridge does not
// serve, is declined at once, so that the app-server never waits.
func (c *codexConversation) ask(h Host, p *codexProc, r codex.Request, live bool) {
	var tc acp.PermissionToolCall
	ok := live
	switch r := r.(type) {
	case codex.CommandApproval:
		tc = c.render.commandApproval(r)
	case codex.FileChangeApproval:
		tc = c.render.fileChangeApproval(r)
	case codex.Elicitation:
		tc, ok = mcpApproval(r), ok && r.ApprovalKind == "mcp_tool_call"
	default:
		ok = false
	}
	if !ok {
		if err := p.sess.Decline(r); err != nil {
			c.cfg.Logger.Warn("Codex request not declined", "method", r.Method(), "error", err)
		}
		return
	}
	c.turn.asked[r.RequestID()] = codexQuestion{r, p.sess}
	h.Ask(Question{ID: r.RequestID(), ToolCall: tc, Options: codexOptions})
}

func (c *codexConversation) Answer(h Host, q Question, outcome acp.PermissionOutcome, err error) {
	t := c.turn
	if t == nil {
		return
	}
	aq, ok := t.asked[q.ID]
	if !ok {
		return
	}
	delete(t.asked, q.ID)
	d := codex.DecisionDecline
	switch {
	case err != nil:
		c.cfg.Logger.Warn("permission request failed", "error", err)
	case outcome.Outcome == acp.PermissionCancelled:
		d = codex.DecisionCancel
	case outcome.OptionID == optionAllow:
		d = codex.DecisionAccept
	case outcome.OptionID == optionAllowAlways:
		d = codex.DecisionAcceptForSession
	}
	if err := aq.sess.Decide(aq.req, d); err != nil && !errors.Is(err, codex.ErrCancelled) && !errors.Is(err, codex.ErrNotPending) {
		c.cfg.Logger.Warn("approval not written", "error", err)
	}
}

// turnEnded ends the turn with how the app-server ended it.
func (c *codexConversation) turnEnded(h Host, ev codex.TurnEnd) {
	res := acp.PromptResult{StopReason: acp.StopReasonEndTurn}
	rep, ok := c.tokens.turn()
	if ok {
		res.Usage = reportUsage(rep)
	}
	if u, ok := c.tokens.context(); ok {
		h.Notify(u)
	}
	var err error
	switch {
	case ev.Interrupted():
		res.StopReason = acp.StopReasonCancelled
	case ev.Turn.Status == codex.TurnStatusFailed:
		res.StopReason, err = "", c.turnError(ev)
	}
	c.endTurn(h, res, err)
}

// turnError is the prompt's error for a turn that failed: a usage or rate
// limit with when it resets, refused credentials as ACP's
// authentication-required error, another failed request to the model with
// its HTTP status, and a failure of the CLI's own.
func (c *codexConversation) turnError(ev codex.TurnEnd) error {
	var re *codex.RunError
	err := ev.Err()
	if !errors.As(err, &re) {
		return acp.Errorf(acp.CodeInternalError, "Codex failed the turn: %v", err).WithData(ErrorData{Kind: KindCLIError})
	}
	msg := cmp.Or(re.Message, "Codex failed the turn")
	if te := ev.Turn.Error; te != nil && te.Details != "" && te.Details != msg {
		msg += " (" + te.Details + ")"
	}
	data := ErrorData{Kind: KindCLIError}
	switch {
	case ev.Turn.Error.Limit():
		data = ErrorData{Kind: KindRateLimit, APIErrorStatus: re.Status, ResetsAtMs: c.limits.resetsAt()}
		if data.ResetsAtMs == 0 {
			now := c.cfg.Now().In(cmp.Or(c.cfg.Location, time.UTC))
			data.ResetsAtMs, _ = codex.ParseResetTime(re.Message, now, c.cfg.Zones)
		}
	case re.Type == "unauthorized":
		return authRequired("Codex", re.Message, re.Status)
	case errors.Is(err, codex.ErrAPI):
		data = ErrorData{Kind: KindAPIError, APIErrorStatus: re.Status}
	}
	return acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(data)
}

// Exited lets go of the process. A turn under way fails: the next prompt
// resumes the thread in a new process.
func (c *codexConversation) Exited(h Host, err error) {
	p := c.proc
	c.proc = nil
	if p != nil {
		p.cancel() // its requests waiting for an answer return
	}
	if c.turn == nil {
		return
	}
	var e error
	switch {
	case p != nil && !p.answered:
		e = acp.Errorf(acp.CodeInternalError, "Codex exited before it answered; the bridge needs Codex CLI %s or later, whose `codex app-server` it speaks: %v",
			codexRelease, cmp.Or[error](err, errors.New("exit status 0"))).WithData(ErrorData{Kind: KindCrash})
	case p != nil && p.failed != nil:
		e = p.failed
	default:
		msg := "Codex exited without finishing the turn"
		if err != nil {
			msg += ": " + err.Error()
		}
		e = acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(ErrorData{Kind: KindCrash})
	}
	c.endTurn(h, acp.PromptResult{}, e)
}

// SetMode and SetModel take effect with the next turn, which carries
// them.
func (c *codexConversation) SetMode(mode string) func(context.Context) error {
	c.mode = mode
	return nil
}

func (c *codexConversation) SetModel(model string) func(context.Context) error {
	c.model = model
	return nil
}

func (c *codexConversation) Usage() usage.Snapshot { return c.tokens.acc.Snapshot() }

// codexInput is an ACP prompt as the input of a turn: each run of text,
// resource links and embedded text resources one text, as the store
// keeps it and the replay reads it back (see promptText), and each image
// a data URL.
func codexInput(prompt []acp.ContentBlock) ([]codex.Input, error) {
	var out []codex.Input
	var text []acp.ContentBlock
	flush := func() error {
		if len(text) == 0 {
			return nil
		}
		s, err := promptText(text)
		if err != nil {
			return err
		}
		out, text = append(out, codex.TextInput(s)), nil
		return nil
	}
	for i, b := range prompt {
		img, ok := b.(acp.ImageContent)
		if !ok {
			text = append(text, b)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(img.MimeType, "image/") {
			return nil, acp.InvalidParam(fmt.Sprintf("prompt[%d]", i), "image of type %q is not supported", img.MimeType)
		}
		if _, err := base64.StdEncoding.DecodeString(img.Data); err != nil || img.Data == "" {
			return nil, acp.InvalidParam(fmt.Sprintf("prompt[%d]", i), "the image's data is not base64")
		}
		out = append(out, codex.ImageInput("data:"+img.MimeType+";base64,"+img.Data))
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, acp.Errorf(acp.CodeInvalidParams, "the prompt is empty")
	}
	return out, nil
}

// codexMCPConfig is the editor's MCP servers as a thread's configuration,
// {"mcp_servers": {name: …}}, as Codex's config.toml has them: a stdio
// server's command, args and env, an HTTP server's url and http_headers.
// nil for none.
func codexMCPConfig(servers []acp.MCPServer) (json.RawMessage, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	type server struct {
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"http_headers,omitempty"`
	}
	all := map[string]server{}
	for i, s := range servers {
		switch s := s.(type) {
		case acp.MCPServerStdio:
			all[s.Name] = server{Command: s.Command, Args: s.Args, Env: pairs(s.Env, func(v acp.EnvVariable) (string, string) { return v.Name, v.Value })}
		case acp.MCPServerHTTP:
			all[s.Name] = server{URL: s.URL, Headers: pairs(s.Headers, httpHeader)}
		default:
			return nil, acp.InvalidParam(fmt.Sprintf("mcpServers[%d]", i), "Codex takes no MCP server of type %T", s)
		}
	}
	return json.Marshal(map[string]any{"mcp_servers": all})
}
