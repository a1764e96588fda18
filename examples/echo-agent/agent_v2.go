package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// This file is the echo agent in ACP v2 (a draft; see package acpv2): the
// same sessions and echo as agent.go's, with v2's prompt lifecycle. A
// prompt is acknowledged once its user message is inserted, with that
// message's id; the turn then runs on its own goroutine and reports
// itself in updates (the user message, running, the echoed words under
// one message id, usage, and idle with the stop reason). A prompt sent
// while another is in progress is held, and inserted when that one ends,
// in the order received, its updates following the idle of the one
// before; session/cancel cancels the turn and answers the held prompts
// -32800.

// errHeldCancelled answers a held prompt that session/cancel or
// session/close withdrew.
var errHeldCancelled = acp.Errorf(acp.CodeRequestCancelled, "Request cancelled: the session's work was cancelled before this prompt's turn")

// errEmptyPrompt answers a prompt without content, which ACP v2 lets an
// agent refuse without inserting it.
var errEmptyPrompt = acp.Errorf(acp.CodeInvalidParams, "Invalid params: the prompt is empty")

// turnV2 is one v2 prompt's turn: its run, named by the id of its user
// message, and that message's content.
type turnV2 struct {
	*run
	prompt acpv2.ContentBlocks
	ended  chan struct{} // closed once the turn has ended, its idle sent
}

// heldPrompt is a v2 prompt waiting for its turn.
type heldPrompt struct {
	turn *turnV2    // its turn, made when it was held
	done chan error // nil when its turn comes, errHeldCancelled when withdrawn
}

// message is one message of a session's history.
type message struct {
	user    bool
	id      string
	content acpv2.ContentBlocks
}

// methodsV2 is the agent's v2 method table. A session here has the baseline
// ACP v2 asks of an agent that declares sessions: new, list, resume (with
// replay), close, prompt and cancel.
func (a *agent) methodsV2() acp.Methods {
	var m acp.Methods
	acpv2.Initialize.Handle(&m, a.initializeV2)
	acpv2.SessionNew.Handle(&m, a.newSessionV2)
	acpv2.SessionList.Handle(&m, a.listSessionsV2)
	acpv2.SessionResume.Handle(&m, a.resumeSessionV2)
	acpv2.SessionClose.Handle(&m, a.closeSessionV2)
	acpv2.SessionPrompt.Handle(&m, a.promptV2)
	acpv2.SessionCancel.Handle(&m, a.cancelV2)
	return m
}

func (a *agent) initializeV2(context.Context, *acp.Conn, acpv2.InitializeParams) (acpv2.InitializeResult, error) {
	return acpv2.InitializeResult{
		ProtocolVersion: acpv2.ProtocolVersion,
		Info:            acpv2.Implementation{Name: "echo-agent", Title: "Echo agent", Version: version},
		Capabilities:    &acpv2.AgentCapabilities{Session: &acpv2.SessionCapabilities{MCP: &acpv2.MCPCapabilities{Stdio: &acpv2.MCPStdioCapabilities{}}}},
	}, nil
}

func (a *agent) newSessionV2(_ context.Context, _ *acp.Conn, p acpv2.NewSessionParams) (acpv2.NewSessionResult, error) {
	if err := a.checkCwd(p.Cwd); err != nil {
		return acpv2.NewSessionResult{}, err
	}
	if err := checkServersV2(p.MCPServers); err != nil {
		return acpv2.NewSessionResult{}, err
	}
	return acpv2.NewSessionResult{SessionID: a.addSession(p.Cwd)}, nil
}

// listSessionsV2 lists the sessions of this process in one page, those
// in the params' cwd when it names one.
func (a *agent) listSessionsV2(_ context.Context, _ *acp.Conn, p acpv2.ListSessionsParams) (acpv2.ListSessionsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := acpv2.ListSessionsResult{Sessions: []acpv2.SessionInfo{}}
	for _, s := range a.sessions {
		if p.Cwd == "" || p.Cwd == s.cwd {
			out.Sessions = append(out.Sessions, acpv2.SessionInfo{SessionID: s.id, Cwd: s.cwd})
		}
	}
	slices.SortFunc(out.Sessions, func(x, y acpv2.SessionInfo) int { return strings.Compare(x.SessionID, y.SessionID) })
	return out, nil
}

// resumeSessionV2 resumes a session of this process (the echo agent keeps
// none on disk), replaying its messages when replayFrom asks, then
// reporting its state, as every successful resume does.
func (a *agent) resumeSessionV2(ctx context.Context, conn *acp.Conn, p acpv2.ResumeSessionParams) (acpv2.ResumeSessionResult, error) {
	if err := a.checkCwd(p.Cwd); err != nil {
		return acpv2.ResumeSessionResult{}, err
	}
	if err := checkServersV2(p.MCPServers); err != nil {
		return acpv2.ResumeSessionResult{}, err
	}
	a.mu.Lock()
	s, err := a.session(p.SessionID)
	a.mu.Unlock()
	if err != nil {
		return acpv2.ResumeSessionResult{}, err
	}
	// No turn starts or ends between reading the state and reporting it.
	s.reporting.Lock()
	defer s.reporting.Unlock()
	a.mu.Lock()
	history, busy := slices.Clone(s.history), s.turn != nil
	a.mu.Unlock()
	if _, ok := p.ReplayFrom.(acpv2.ReplayFromStart); ok {
		for _, m := range history {
			if m.user {
				a.notifyV2(ctx, conn, s.id, acpv2.UserMessage{MessageID: m.id, Content: m.content})
			} else {
				a.notifyV2(ctx, conn, s.id, acpv2.AgentMessage{MessageID: m.id, Content: m.content})
			}
		}
	}
	var state acpv2.StateUpdate = acpv2.IdleStateUpdate{}
	if busy {
		state = acpv2.RunningStateUpdate{}
	}
	a.notifyV2(ctx, conn, s.id, acpv2.SessionStateUpdate{State: state})
	return acpv2.ResumeSessionResult{}, nil
}

// closeSessionV2 cancels the session's work, as session/cancel does,
// forgets the session, and answers once the turn it cancelled has sent
// its idle update.
func (a *agent) closeSessionV2(ctx context.Context, _ *acp.Conn, p acpv2.CloseSessionParams) (acpv2.CloseSessionResult, error) {
	a.mu.Lock()
	s, err := a.session(p.SessionID)
	if err != nil {
		a.mu.Unlock()
		return acpv2.CloseSessionResult{}, err
	}
	a.cancelLocked(s)
	delete(a.sessions, s.id)
	turn := s.turn
	a.mu.Unlock()
	if turn != nil {
		select {
		case <-turn.ended:
		case <-ctx.Done():
			return acpv2.CloseSessionResult{}, ctx.Err()
		}
	}
	return acpv2.CloseSessionResult{}, nil
}

// promptV2 inserts the prompt's user message once the session has no
// other prompt in progress, acknowledges it with the message's id, and
// runs its turn on its own goroutine.
func (a *agent) promptV2(ctx context.Context, conn *acp.Conn, p acpv2.PromptParams) (acpv2.PromptResult, error) {
	if len(p.Prompt) == 0 {
		return acpv2.PromptResult{}, errEmptyPrompt
	}
	for i, b := range p.Prompt {
		switch b.(type) {
		case acpv2.TextContent, acpv2.ResourceLink: // the baseline, which it advertises no more than
		default:
			return acpv2.PromptResult{}, acp.InvalidParam(fmt.Sprintf("prompt[%d]", i), "the echo agent takes text and resource links only")
		}
	}
	// The turn ends when it is done, when session/cancel or session/close
	// cancels it, or when the connection ends.
	turnCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	s, r, err := a.awaitTurn(ctx, p, cancel)
	if err != nil {
		cancel(err)
		return acpv2.PromptResult{}, err
	}
	// After the idle of the turn before, which holds reporting until sent.
	s.reporting.Lock()
	a.notifyV2(ctx, conn, s.id, acpv2.UserMessage{MessageID: r.id, Content: r.prompt})
	a.notifyV2(ctx, conn, s.id, acpv2.SessionStateUpdate{State: acpv2.RunningStateUpdate{}})
	s.reporting.Unlock()
	a.turns.Add(1)
	go func() {
		defer a.turns.Done()
		defer cancel(nil)
		go func() {
			select {
			case <-conn.Done():
				cancel(acp.ErrClosed)
			case <-turnCtx.Done():
			}
		}()
		a.runTurnV2(turnCtx, conn, s, r)
	}()
	return acpv2.PromptResult{MessageID: r.id}, nil
}

// awaitTurn returns the session and the prompt's turn, which cancel
// cancels, once the session has no other prompt in progress; the turn's
// user message is then inserted into the session's history. Otherwise it
// returns the error to answer the prompt with: -32002 for an unknown
// session, -32800 when session/cancel or the client withdraws it first.
func (a *agent) awaitTurn(ctx context.Context, p acpv2.PromptParams, cancel context.CancelCauseFunc) (*session, *turnV2, error) {
	a.mu.Lock()
	s, err := a.session(p.SessionID)
	if err != nil {
		a.mu.Unlock()
		return nil, nil, err
	}
	// The user message's id names the turn.
	r := &turnV2{run: a.newRun(a.newID("msg-user"), textWordsV2(p.Prompt), cancel), prompt: p.Prompt, ended: make(chan struct{})}
	if s.turn == nil {
		a.startTurnLocked(s, r)
		a.mu.Unlock()
		return s, r, nil
	}
	h := &heldPrompt{turn: r, done: make(chan error, 1)}
	s.held = append(s.held, h)
	a.mu.Unlock()
	select {
	case err := <-h.done:
		return s, r, err
	case <-ctx.Done():
	}
	// Withdrawn by the client ($/cancel_request), unless its turn came
	// meanwhile: then the turn, its user message never acknowledged, goes
	// to the next prompt.
	a.mu.Lock()
	defer a.mu.Unlock()
	if i := slices.Index(s.held, h); i >= 0 {
		s.held = slices.Delete(s.held, i, i+1)
	} else if err := <-h.done; err == nil {
		s.history = s.history[:len(s.history)-1]
		a.passTurnLocked(s)
		close(r.ended)
	}
	return nil, nil, ctx.Err()
}

// startTurnLocked makes r the session's turn and running prompt, its user
// message inserted into the history. Call with mu held.
func (a *agent) startTurnLocked(s *session, r *turnV2) {
	s.turn, s.run = r, r.run
	s.history = append(s.history, message{user: true, id: r.id, content: r.prompt})
}

// runTurnV2 echoes the turn's words, then reports usage and the idle
// state that ends the turn, and passes the session to the next held
// prompt.
func (a *agent) runTurnV2(ctx context.Context, conn *acp.Conn, s *session, r *turnV2) {
	var text strings.Builder
	var messageID string
	echoed, _ := a.echo(ctx, s, r.run, func(c chunk) error {
		text.WriteString(c.text)
		messageID = c.messageID
		return acpv2.SessionUpdate.Notify(ctx, conn, acpv2.SessionNotification{
			SessionID: s.id,
			Update:    acpv2.AgentMessageChunk{MessageID: c.messageID, Content: acpv2.TextContent{Text: c.text}},
		})
	})
	a.endRun(s, r.run)
	reason := acpv2.StopReasonEndTurn
	if errors.Is(context.Cause(ctx), errSessionCancelled) {
		reason = acpv2.StopReasonCancelled
	}

	// The turn ends, and the next begins, before its idle update is sent,
	// so that a client acting on the idle finds the session idle; the
	// next turn's updates wait for reporting.
	s.reporting.Lock()
	defer s.reporting.Unlock()
	a.mu.Lock()
	std, _ := s.addTurn(r.input, echoed)
	if echoed > 0 {
		s.history = append(s.history, message{id: messageID, content: acpv2.ContentBlocks{acpv2.TextContent{Text: text.String()}}})
	}
	a.passTurnLocked(s)
	a.mu.Unlock()

	// Sent with a context the turn's end does not cancel: the idle update
	// reports that end.
	report := context.WithoutCancel(ctx)
	a.notifyV2(report, conn, s.id, acpv2.UsageUpdate{Used: std.Used, Size: std.Size})
	a.notifyV2(report, conn, s.id, acpv2.SessionStateUpdate{State: acpv2.IdleStateUpdate{StopReason: reason}})
	close(r.ended)
}

// passTurnLocked ends the session's turn and gives the next to the first
// held prompt. Its caller closes the ended turn's ended once it has sent
// what it must. Call with mu held.
func (a *agent) passTurnLocked(s *session) {
	s.turn, s.run = nil, nil
	if len(s.held) > 0 {
		h := s.held[0]
		s.held = s.held[1:]
		a.startTurnLocked(s, h.turn)
		h.done <- nil
	}
}

// cancelV2 handles session/cancel: the turn in progress stops, its idle
// update saying "cancelled", and the held prompts are answered -32800.
func (a *agent) cancelV2(_ context.Context, _ *acp.Conn, p acpv2.CancelParams) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[p.SessionID]; ok {
		a.cancelLocked(s)
	}
}

// cancelLocked cancels the session's work. Call with mu held.
func (a *agent) cancelLocked(s *session) {
	for _, h := range s.held {
		h.done <- errHeldCancelled
	}
	s.held = nil
	if s.run != nil && s.run.cancel != nil {
		s.run.cancel(errSessionCancelled)
		s.run = nil
	}
}

// checkServersV2 refuses MCP servers of a transport other than stdio,
// the one the echo agent advertises.
func checkServersV2(servers []acpv2.MCPServer) error {
	for i, s := range servers {
		if _, ok := s.(acpv2.MCPServerStdio); !ok {
			return acp.InvalidParam(fmt.Sprintf("mcpServers[%d]", i), "the echo agent takes stdio MCP servers only")
		}
	}
	return nil
}

// notifyV2 sends a v2 session/update, logging a failure, as notify does.
func (a *agent) notifyV2(ctx context.Context, conn *acp.Conn, sessionID string, u acpv2.Update) {
	if err := acpv2.SessionUpdate.Notify(ctx, conn, acpv2.SessionNotification{SessionID: sessionID, Update: u}); err != nil {
		a.notSent("session update not sent", sessionID, err)
	}
}

// textWordsV2 returns the words of the prompt's text blocks.
func textWordsV2(prompt acpv2.ContentBlocks) []string {
	var words []string
	for _, b := range prompt {
		if t, ok := b.(acpv2.TextContent); ok {
			words = append(words, strings.Fields(t.Text)...)
		}
	}
	return words
}
