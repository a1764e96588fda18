package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// This file serves ACP v2 (a draft; see package acpv2) beside v1: the
// same sessions, CLIs and translation, with v2's methods and prompt
// lifecycle. A v2 prompt is acknowledged once its turn starts (its user
// message inserted), with the user message's id; the turn's updates then
// follow, rendered by the session's v2Render, and an idle state update,
// with the stop reason (or "error" and the error), ends it. A prompt sent
// while a turn runs is held until its turn, as v1's waits; session/cancel
// answers the held ones -32800.

// methodsV2 is the editor's ACP v2 method table: initialize,
// session/new, resume (whose replayFrom replays a stored session as v1's
// session/load does), list, delete, close, set_config_option, prompt and
// cancel.
func (e *editor) methodsV2() acp.Methods {
	a := e.a
	var m acp.Methods
	handle(e, &m, acpv2.Initialize, e.initializeV2)
	handle(e, &m, acpv2.SessionNew, e.newSessionV2)
	handle(e, &m, acpv2.AuthLogin, func(ctx context.Context, p acpv2.LoginAuthParams) (acpv2.LoginAuthResult, error) {
		// The only method is a terminal one, which ACP forbids passing here.
		return acpv2.LoginAuthResult{}, acp.InvalidParam("methodId", "methodId %q: no authentication method runs through auth/login; run the terminal method", p.MethodID)
	})
	handle(e, &m, acpv2.AuthLogout, func(ctx context.Context, p acpv2.LogoutAuthParams) (acpv2.LogoutAuthResult, error) {
		_, err := a.logout(ctx, acp.LogoutParams{})
		return acpv2.LogoutAuthResult{}, err
	})
	handle(e, &m, acpv2.SessionResume, e.resumeV2)
	handle(e, &m, acpv2.SessionFork, func(ctx context.Context, p acpv2.ForkSessionParams) (acpv2.ForkSessionResult, error) {
		o, err := openingV2(p.SessionID, p.Cwd, p.AdditionalDirectories, p.MCPServers)
		if err != nil {
			return acpv2.ForkSessionResult{}, err
		}
		res, err := a.fork(ctx, e, o)
		return acpv2.ForkSessionResult{SessionID: res.SessionID, ConfigOptions: configOptionsV2(res.ConfigOptions)}, err
	})
	handle(e, &m, acpv2.SessionList, func(ctx context.Context, p acpv2.ListSessionsParams) (acpv2.ListSessionsResult, error) {
		res, err := a.list(ctx, acp.ListSessionsParams{Cwd: p.Cwd, Cursor: p.Cursor})
		out := acpv2.ListSessionsResult{Sessions: []acpv2.SessionInfo{}, NextCursor: res.NextCursor}
		for _, s := range res.Sessions {
			out.Sessions = append(out.Sessions, acpv2.SessionInfo{
				SessionID: s.SessionID, Cwd: s.Cwd, AdditionalDirectories: s.AdditionalDirectories, Title: s.Title, UpdatedAt: s.UpdatedAt, Meta: s.Meta,
			})
		}
		return out, err
	})
	handle(e, &m, acpv2.SessionDelete, func(ctx context.Context, p acpv2.DeleteSessionParams) (acpv2.DeleteSessionResult, error) {
		_, err := a.delete(ctx, acp.DeleteSessionParams{SessionID: p.SessionID})
		return acpv2.DeleteSessionResult{}, err
	})
	handle(e, &m, acpv2.SessionClose, func(ctx context.Context, p acpv2.CloseSessionParams) (acpv2.CloseSessionResult, error) {
		_, err := a.close(ctx, acp.CloseSessionParams{SessionID: p.SessionID})
		return acpv2.CloseSessionResult{}, err
	})
	handle(e, &m, acpv2.SessionSetConfigOption, func(ctx context.Context, p acpv2.SetSessionConfigOptionParams) (acpv2.SetSessionConfigOptionResult, error) {
		s, err := a.session(p.SessionID)
		if err != nil {
			return acpv2.SetSessionConfigOptionResult{}, err
		}
		v, err := s.set(ctx, e, p.ConfigID, p.Value)
		return acpv2.SetSessionConfigOptionResult{ConfigOptions: configOptionsV2(v.options)}, err
	})
	handle(e, &m, acpv2.SessionPrompt, e.promptV2)
	handleNotification(e, &m, acpv2.SessionCancel, func(ctx context.Context, p acpv2.CancelParams) {
		if s, err := a.session(p.SessionID); err == nil {
			s.cancel()
		}
	})
	return m
}

func (e *editor) initializeV2(ctx context.Context, p acpv2.InitializeParams) (acpv2.InitializeResult, error) {
	// v2 clients take notices without declaring it; the rest of v1's
	// client capabilities that the bridge uses are v2's too.
	caps := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
	if c := p.Capabilities; c != nil {
		caps.Auth.Terminal = c.Auth != nil && c.Auth.Terminal != nil
		if c.Elicitation != nil && c.Elicitation.Form != nil {
			caps.Elicitation = &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}
		}
	}
	e.declare(caps, true)
	a := e.a
	res := a.initialized(1)
	acc := a.info.Accepts
	sc := &acpv2.SessionCapabilities{
		Prompt: &acpv2.PromptCapabilities{
			Image:           given[acpv2.PromptImageCapabilities](acc.Image),
			Audio:           given[acpv2.PromptAudioCapabilities](acc.Audio),
			EmbeddedContext: given[acpv2.PromptEmbeddedContextCapabilities](acc.EmbeddedContext),
		},
		MCP: &acpv2.MCPCapabilities{
			Stdio: given[acpv2.MCPStdioCapabilities](acc.MCPStdio),
			HTTP:  given[acpv2.MCPHTTPCapabilities](acc.MCPHTTP),
		},
		AdditionalDirectories: &acpv2.SessionAdditionalDirectoriesCapabilities{},
	}
	if a.canLoad() {
		sc.Delete = &acpv2.SessionDeleteCapabilities{}
	}
	if a.info.Forks {
		sc.Fork = &acpv2.SessionForkCapabilities{}
	}
	info := res.AgentInfo
	var methods []acpv2.AuthMethod
	for _, m := range a.authMethods(caps.Auth.Terminal) {
		methods = append(methods, acpv2.AuthMethod{Type: acpv2.AuthMethodTerminal, MethodID: m.ID, Name: m.Name, Description: m.Description, Args: m.Args})
	}
	return acpv2.InitializeResult{
		ProtocolVersion: acpv2.ProtocolVersion,
		Info:            acpv2.Implementation{Name: info.Name, Title: info.Title, Version: info.Version, Meta: info.Meta},
		Capabilities:    &acpv2.AgentCapabilities{Session: sc},
		AuthMethods:     methods,
	}, nil
}

func (e *editor) newSessionV2(ctx context.Context, p acpv2.NewSessionParams) (acpv2.NewSessionResult, error) {
	o, err := openingV2(e.a.cfg.NewSessionID(), p.Cwd, p.AdditionalDirectories, p.MCPServers)
	if err != nil {
		return acpv2.NewSessionResult{}, err
	}
	s, err := e.a.open(ctx, e, o)
	if err != nil {
		return acpv2.NewSessionResult{}, err
	}
	v, err := s.describe()
	s.warm()
	return acpv2.NewSessionResult{SessionID: s.id, ConfigOptions: configOptionsV2(v.options)}, err
}

// resumeV2 is session/resume: with replayFrom, v1's session/load, which
// shows the stored conversation first; without, v1's session/resume. As
// the SDK's agents do, it reports the session's state before it answers.
func (e *editor) resumeV2(ctx context.Context, p acpv2.ResumeSessionParams) (acpv2.ResumeSessionResult, error) {
	a := e.a
	o, err := openingV2(p.SessionID, p.Cwd, p.AdditionalDirectories, p.MCPServers)
	if err != nil {
		return acpv2.ResumeSessionResult{}, err
	}
	var res acp.LoadSessionResult
	switch p.ReplayFrom.(type) {
	case nil:
		res, err = a.resume(ctx, e, o)
	case acpv2.ReplayFromStart:
		res, err = a.load(ctx, e, o)
	default:
		return acpv2.ResumeSessionResult{}, acp.Errorf(acp.CodeInvalidParams, "replayFrom: only start is supported")
	}
	if err != nil {
		return acpv2.ResumeSessionResult{}, err
	}
	s, err := a.session(o.id)
	if err != nil {
		return acpv2.ResumeSessionResult{}, err
	}
	s.reportState(e)
	return acpv2.ResumeSessionResult{ConfigOptions: configOptionsV2(res.ConfigOptions)}, nil
}

// given returns a v2 capability, {} for true and absent for false.
func given[T any](b bool) *T {
	if !b {
		return nil
	}
	return new(T)
}

// openingV2 is what a session is opened with, from v2's params, checked
// as v1's are.
func openingV2(id, cwd string, dirs []string, servers []acpv2.MCPServer) (opening, error) {
	if len(servers) == 0 {
		return opening{id: id, cwd: cwd, dirs: dirs}, nil
	}
	// v2's MCP servers are v1's, with one transport more (acp), which the
	// CLIs do not take: read as v1's, they are refused as v1's unknown
	// ones are.
	list := make([]json.RawMessage, len(servers))
	for i, s := range servers {
		var err error
		if list[i], err = mcpServerV1(s); err != nil {
			return opening{}, err
		}
	}
	raw, err := json.Marshal(struct {
		Cwd        string            `json:"cwd"`
		MCPServers []json.RawMessage `json:"mcpServers"`
	}{cwd, list})
	if err != nil {
		return opening{}, err
	}
	p, err := acp.DecodeParams[acp.NewSessionParams](raw)
	if err != nil {
		return opening{}, err
	}
	return opening{id: id, cwd: cwd, dirs: dirs, servers: p.MCPServers}, nil
}

// mcpServerV1 is a v2 MCP server in v1's JSON: the lists v2 lets an
// editor leave out (a stdio server's args and env, an HTTP server's
// headers), which v1 requires, given as empty.
func mcpServerV1(s acpv2.MCPServer) (json.RawMessage, error) {
	raw, err := json.Marshal(s)
	var lists []string
	switch s.(type) {
	case acpv2.MCPServerStdio:
		lists = []string{"args", "env"}
	case acpv2.MCPServerHTTP:
		lists = []string{"headers"}
	}
	if err != nil || lists == nil {
		return raw, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, err
	}
	for _, name := range lists {
		if _, ok := members[name]; !ok {
			members[name] = json.RawMessage("[]")
		}
	}
	return json.Marshal(members)
}

// promptV2 is v2's session/prompt: it answers once the prompt's turn has
// started, with the id of its user message, and the turn reports itself
// in updates.
func (e *editor) promptV2(ctx context.Context, p acpv2.PromptParams) (acpv2.PromptResult, error) {
	s, err := e.a.session(p.SessionID)
	if err != nil {
		return acpv2.PromptResult{}, err
	}
	blocks := contentBlocksV1(p.Prompt)
	if err := e.a.checkPrompt(blocks); err != nil {
		return acpv2.PromptResult{}, err
	}
	req := &promptReq{ed: e, blocks: blocks, reply: make(chan promptReply, 1), v2: &v2Prompt{ack: make(chan string, 1)}}
	if !s.post(prompt{req}) {
		return acpv2.PromptResult{}, s.closedError()
	}
	select {
	case id := <-req.v2.ack:
		return acpv2.PromptResult{MessageID: id}, nil
	case r := <-req.reply:
		return acpv2.PromptResult{}, heldError(r)
	case <-ctx.Done(): // withdrawn ($/cancel_request), or the connection ended
		s.post(abandon{req})
	}
	select {
	case id := <-req.v2.ack: // its turn came first, and was interrupted
		return acpv2.PromptResult{MessageID: id}, nil
	case r := <-req.reply:
		return acpv2.PromptResult{}, heldError(r)
	case <-s.done:
		return acpv2.PromptResult{}, s.closedError()
	}
}

// errHeldCancelled answers a v2 prompt withdrawn before its turn came.
var errHeldCancelled = acp.Errorf(acp.CodeRequestCancelled, "Request cancelled: the session's work was cancelled before this prompt's turn")

// heldError is the error a v2 prompt whose turn never started is answered
// with: why it did not start, or -32800 when it was cancelled.
func heldError(r promptReply) error {
	if r.err != nil {
		return r.err
	}
	return errHeldCancelled
}

// v2Prompt is what a v2 prompt adds to its promptReq.
type v2Prompt struct {
	ack       chan string // the user message's id, once inserted; buffered
	messageID string      // "" until the turn starts
}

// inserted starts the v2 prompt req's turn: its user message and the
// running state go to the editor, then its response. Nothing for a v1
// prompt, or for one already inserted whose turn goes on in a new CLI
// (the last one ended before the prompt reached it).
func (s *session) inserted(req *promptReq) {
	if req.v2 == nil || req.v2.messageID != "" {
		return
	}
	m := s.render().userMessage(req.blocks)
	req.v2.messageID = m.MessageID
	s.notifyV2(req.ed, m, acpv2.SessionStateUpdate{State: acpv2.RunningStateUpdate{}})
	req.v2.ack <- m.MessageID
}

// endV2 ends the turn of the v2 prompt req with the idle state, its stop
// reason, usage and error, and reports whether it did: a v2 prompt whose
// turn never started is answered instead.
func (s *session) endV2(req *promptReq, res acp.PromptResult, err error) bool {
	if req.v2 == nil || req.v2.messageID == "" {
		return false
	}
	idle := acpv2.IdleStateUpdate{StopReason: acpv2.StopReason(res.StopReason)}
	if res.Usage != nil {
		idle.Usage = convert[*acpv2.Usage](res.Usage)
	}
	if err != nil {
		var e *acp.Error
		if !errors.As(err, &e) {
			e = acp.Errorf(acp.CodeInternalError, "%v", err)
		}
		idle.StopReason, idle.Error = acpv2.StopReasonError, e
	}
	s.render().endMessages()
	s.notifyV2(req.ed, acpv2.SessionStateUpdate{State: idle})
	return true
}

// render returns the session's v2Render, made the first time.
func (s *session) render() *v2Render {
	if s.v2 == nil {
		s.v2 = &v2Render{nonce: nonce(s.a.cfg.NewSessionID())}
	}
	return s.v2
}

// nonce is the start of a fresh id: eight of its letters and digits.
func nonce(id string) string {
	id = strings.ReplaceAll(id, "-", "")
	return id[:min(8, len(id))]
}

// notify sends updates to ed in its version of ACP.
func (s *session) notify(ed *editor, updates []acp.Update) {
	if !ed.isV2() {
		s.notifyV1(ed, s.id, updates)
		return
	}
	var out []acpv2.Update
	for _, u := range updates {
		out = s.render().render(out, u)
	}
	s.notifyV2(ed, out...)
}

// notifyV2 sends v2 updates, logging what could not be sent, and holds
// them while ed has not been told of the session.
func (s *session) notifyV2(ed *editor, updates ...acpv2.Update) {
	if s.holding(ed) {
		updates = slices.Clone(updates)
		s.hold(ed, func() { s.notifyV2(ed, updates...) })
		return
	}
	for _, u := range updates {
		if err := acpv2.SessionUpdate.Notify(context.Background(), ed.connection(), acpv2.SessionNotification{SessionID: s.id, Update: u}); err != nil {
			notSent(s.log, "session update not sent", err)
			return
		}
	}
}

// requestPermission puts question q to ed, in its version: in v2, with
// a title of its own and the tool call as the subject.
func (s *session) requestPermission(ctx context.Context, ed *editor, q Question) (acp.PermissionOutcome, error) {
	conn := ed.connection()
	if !ed.isV2() {
		res, err := acp.SessionRequestPermission.Call(ctx, conn, acp.RequestPermissionParams{SessionID: s.id, ToolCall: q.ToolCall, Options: q.Options})
		return res.Outcome, err
	}
	res, err := acpv2.SessionRequestPermission.Call(ctx, conn, permissionV2(s.id, q))
	if err != nil {
		return acp.PermissionOutcome{}, err
	}
	o := res.Outcome
	if o.Outcome != acpv2.PermissionSelected {
		return acp.PermissionOutcome{Outcome: acp.PermissionCancelled}, nil
	}
	return acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: o.OptionID}, nil
}

// elicit puts form q to ed, in its version, tied to the session and to
// q's tool call.
func (s *session) elicit(ctx context.Context, ed *editor, q Question) (acp.CreateElicitationResult, error) {
	schema := q.Form.Schema
	p := acp.CreateElicitationParams{Message: q.Form.Message, Mode: acp.ElicitationForm, SessionID: s.id, ToolCallID: q.ToolCall.ToolCallID, RequestedSchema: &schema}
	if !ed.isV2() {
		return acp.ElicitationCreate.Call(ctx, ed.connection(), p)
	}
	res, err := acpv2.ElicitationCreate.Call(ctx, ed.connection(), convert[acpv2.CreateElicitationParams](p))
	if err != nil {
		return acp.CreateElicitationResult{}, err
	}
	return convert[acp.CreateElicitationResult](res), nil
}

// stateReport asks the session's goroutine to tell the v2 editor ed
// whether a turn runs. Sent by the goroutine that ends turns, the
// report cannot follow the idle update of a turn it saw running.
type stateReport struct {
	ed   *editor
	done chan struct{} // closed once the report is queued
}

func (stateReport) isEvent() {}

// reportState sends ed the session's state, idle or running, and returns
// once it is queued.
func (s *session) reportState(ed *editor) {
	done := make(chan struct{})
	if s.post(stateReport{ed, done}) {
		await(s, done)
	}
}

// send queues the report of st.
func (r stateReport) send(s *session, st state) {
	defer close(r.done)
	var update acpv2.StateUpdate = acpv2.IdleStateUpdate{}
	if inTurn(st) {
		update = acpv2.RunningStateUpdate{}
	}
	s.beforeResponse(r.ed, func() { s.notifyV2(r.ed, acpv2.SessionStateUpdate{State: update}) })
}

// inTurn reports whether st is a state with a turn under way.
func inTurn(st state) bool {
	switch st := st.(type) {
	case running, cancelling:
		return true
	case closing:
		return st.t != nil
	}
	return false
}
