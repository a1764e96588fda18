package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/usage"
)

// defaultModel is the model a new session reports until session/set_model
// changes it.
const defaultModel = "echo-1"

// contextWindow is the context window the agent claims, in tokens. The echo
// agent counts one word as one token.
const contextWindow = 128_000

// errSessionCancelled is the cause a prompt's context is cancelled with when
// the client sends session/cancel, to tell it apart from $/cancel_request.
var errSessionCancelled = errors.New("session/cancel")

// agent is the echo agent's state for one connection. Request handlers run
// concurrently (acp.Conn starts one goroutine per request), so everything
// below mu is guarded by it.
type agent struct {
	delay time.Duration // waited before each echoed word
	log   *slog.Logger
	// checkDir checks a session's directory, already known to be
	// absolute; nil checks nothing more. The program requires an existing
	// directory (main.go); the in-process tests name directories that
	// need not exist.
	checkDir func(dir string) error

	mu sync.Mutex
	// gooseNotify is set when the client declared
	// clientCapabilities._meta.goose.customNotifications in initialize:
	// only then may the agent send _goose/unstable/session/update.
	gooseNotify bool
	sessions    map[string]*session
	lastID      int // numbers sessions, runs and messages

	// turns counts the ACP v2 turns running on goroutines of their own,
	// which end with the connection (agent_v2.go).
	turns sync.WaitGroup
}

// session is one conversation.
type session struct {
	id    string
	cwd   string
	model string
	run   *run              // the prompt running, nil when idle
	usage usage.Accumulator // its usage so far
	// turn is the ACP v2 prompt in progress, from its insertion until its
	// idle update is sent, held are those waiting for it to end, in the
	// order they came, and history is the conversation, for replay
	// (agent_v2.go).
	turn    *turnV2
	held    []*heldPrompt
	history []message
	// reporting is held, before mu, by whoever changes where the v2 turn
	// stands and reports it, and by a resume reading that and reporting
	// it: the client then sees the states in the order they changed.
	reporting sync.Mutex
}

// run is one prompt turn: the chunks still to echo and how to stop it.
type run struct {
	id     string
	cancel context.CancelCauseFunc
	queue  []chunk // the prompt's words, then those of accepted steers
	input  int     // words received: the prompt's and the steers'
}

// chunk is one agent_message_chunk to send.
type chunk struct {
	text      string
	messageID string
}

func newAgent(delay time.Duration, log *slog.Logger) *agent {
	return &agent{delay: delay, log: log, sessions: make(map[string]*session)}
}

// methods is the agent's method table for acp.NewConn. Each handler gets
// its params decoded and checked. A method missing here is answered -32601
// by the Conn; an unknown notification is ignored.
func (a *agent) methods() acp.Methods {
	var m acp.Methods
	acp.Initialize.Handle(&m, a.initialize)
	acp.SessionNew.Handle(&m, a.newSession)
	acp.SessionPrompt.Handle(&m, a.prompt)
	acp.SessionSetModel.Handle(&m, a.setModel)
	acp.SessionCancel.Handle(&m, a.cancel)
	steer.Handle(&m, a.steer)
	return m
}

// newID returns a fresh id such as "run-3". Call with mu held.
func (a *agent) newID(prefix string) string {
	a.lastID++
	return fmt.Sprintf("%s-%d", prefix, a.lastID)
}

// initialize answers with protocol version 1 and the agent's capabilities:
// prompts of text and resource links only (the defaults), no session/load.
func (a *agent) initialize(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
	a.mu.Lock()
	a.gooseNotify = goose.AcceptsCustomNotifications(p.ClientCapabilities)
	a.mu.Unlock()
	return acp.InitializeResult{
		ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion),
		AgentInfo:       &acp.Implementation{Name: "echo-agent", Title: "Echo agent", Version: version},
	}, nil
}

// newSession creates a session. The echo agent uses no MCP server, so
// mcpServers is accepted (absent counts as empty) and ignored.
func (a *agent) newSession(_ context.Context, _ *acp.Conn, p acp.NewSessionParams) (acp.NewSessionResult, error) {
	if err := a.checkCwd(p.Cwd); err != nil {
		return acp.NewSessionResult{}, err
	}
	for i, s := range p.MCPServers {
		// Every agent takes stdio servers; the echo agent advertises no
		// other transport, and has no use for any server.
		if _, ok := s.(acp.MCPServerStdio); !ok {
			return acp.NewSessionResult{}, acp.InvalidParam(fmt.Sprintf("mcpServers[%d]", i), "the echo agent takes stdio MCP servers only")
		}
	}
	return acp.NewSessionResult{SessionID: a.addSession(p.Cwd)}, nil
}

// checkCwd checks a session's cwd: ACP requires an absolute path, and
// checkDir may ask more.
func (a *agent) checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return acp.InvalidParam("cwd", "cwd %q is not an absolute path", cwd)
	}
	if a.checkDir != nil {
		if err := a.checkDir(cwd); err != nil {
			return acp.InvalidParam("cwd", "cwd %q: %v", cwd, err)
		}
	}
	return nil
}

// addSession creates a session in cwd and returns its id.
func (a *agent) addSession(cwd string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := &session{id: a.newID("sess"), cwd: cwd, model: defaultModel}
	a.sessions[s.id] = s
	return s.id
}

// setModel is the legacy session/set_model: the model the session reports
// in its usage updates from now on.
func (a *agent) setModel(_ context.Context, _ *acp.Conn, p acp.SetSessionModelParams) (acp.SetSessionModelResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.session(p.SessionID)
	if err != nil {
		return acp.SetSessionModelResult{}, err
	}
	s.model = p.ModelID
	return acp.SetSessionModelResult{}, nil
}

// session returns the session named id, or the -32002 error to reply with.
// Call with mu held.
func (a *agent) session(id string) (*session, error) {
	if s, ok := a.sessions[id]; ok {
		return s, nil
	}
	return nil, acp.Errorf(acp.CodeResourceNotFound, "Session not found: %s", id).
		WithData(struct {
			SessionID string `json:"sessionId"`
		}{id})
}

// prompt runs one turn: it announces the run, echoes the prompt one word
// per session/update, reports usage, and answers with the stop reason.
func (a *agent) prompt(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
	for i, b := range p.Prompt {
		switch b.(type) {
		case acp.TextContent, acp.ResourceLink: // the baseline, which it advertises no more than
		default:
			return acp.PromptResult{}, acp.InvalidParam(fmt.Sprintf("prompt[%d]", i), "the echo agent takes text and resource links only")
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s, r, err := a.startRun(p, cancel)
	if err != nil {
		return acp.PromptResult{}, err
	}

	// Notifications sent with conn.Notify before this handler returns reach
	// the client before the response, in the order sent.
	a.notify(ctx, conn, s.id, acp.SessionInfoUpdate{Meta: gooseMeta(goose.Meta{ActiveRunID: &r.id})})
	echoed, err := a.echo(runCtx, s, r, func(c chunk) error {
		return acp.SessionUpdate.Notify(runCtx, conn, acp.SessionNotification{
			SessionID: s.id,
			Update:    acp.AgentMessageChunk{Content: acp.TextContent{Text: c.text}, MessageID: c.messageID},
		})
	})
	a.endRun(s, r)
	none := "" // sent as null: no run is active
	a.notify(ctx, conn, s.id, acp.SessionInfoUpdate{Meta: gooseMeta(goose.Meta{ActiveRunID: &none})})

	// Usage is reported after every turn, cancelled ones included. It is
	// sent with the request's context, not the run's, which session/cancel
	// has ended.
	a.mu.Lock()
	std, gooseUsage := s.addTurn(r.input, echoed)
	gooseNotify := a.gooseNotify
	a.mu.Unlock()
	if gooseNotify {
		if err := goose.SessionUpdate.Notify(ctx, conn, goose.SessionNotification{SessionID: s.id, Update: gooseUsage}); err != nil {
			a.notSent("goose usage update not sent", s.id, err)
		}
	}
	a.notify(ctx, conn, s.id, std)

	cause := context.Cause(runCtx)
	switch {
	case errors.Is(cause, errSessionCancelled):
		// session/cancel stopped the run before its last word, whether
		// echo noticed while waiting or found the run gone between words
		// (and so returned no error).
		return acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil
	case err == nil:
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	case errors.Is(cause, acp.ErrClosed):
		// The end of the input, after which the Conn cancels running
		// requests but still sends their responses.
		return acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil
	}
	// $/cancel_request for this very request (given the context's error,
	// the Conn answers -32800), or a session/update that could not be sent.
	return acp.PromptResult{}, err
}

// startRun makes r the session's running prompt, or returns the error to
// reply with: -32002 for an unknown session, -32602 when a prompt is already
// running there.
func (a *agent) startRun(p acp.PromptParams, cancel context.CancelCauseFunc) (*session, *run, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, nil, err
	}
	if s.run != nil {
		return nil, nil, acp.Errorf(acp.CodeInvalidParams, "Session %s is busy: prompt %s is running", s.id, s.run.id).
			WithData(struct {
				SessionID   string `json:"sessionId"`
				ActiveRunID string `json:"activeRunId"`
			}{s.id, s.run.id})
	}
	s.run = a.newRun(a.newID("run"), promptWords(p.Prompt), cancel)
	return s, s.run, nil
}

// newRun returns the run named id, echoing words. Call with mu held.
func (a *agent) newRun(id string, words []string, cancel context.CancelCauseFunc) *run {
	r := &run{id: id, cancel: cancel, input: len(words)}
	r.queue = chunks(words, a.newID("msg"))
	return r
}

// echo sends the run's chunks one at a time with send, waiting a.delay
// before each, until the queue is empty or ctx ends. It returns how many
// it sent.
func (a *agent) echo(ctx context.Context, s *session, r *run, send func(chunk) error) (int, error) {
	sent := 0
	for {
		c, ok := a.nextChunk(s, r)
		if !ok {
			return sent, nil
		}
		if err := sleep(ctx, a.delay); err != nil {
			return sent, err
		}
		if err := send(c); err != nil {
			return sent, err
		}
		sent++
	}
}

// nextChunk pops the run's next chunk. When the queue is empty it ends the
// run in the same critical section, so a steer either lands in the queue in
// time to be echoed or is refused because no prompt is running.
func (a *agent) nextChunk(s *session, r *run) (chunk, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s.run != r || len(r.queue) == 0 {
		if s.run == r {
			s.run = nil
		}
		return chunk{}, false
	}
	c := r.queue[0]
	r.queue = r.queue[1:]
	return c, true
}

// endRun marks the session idle if r is still its running prompt.
func (a *agent) endRun(s *session, r *run) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s.run == r {
		s.run = nil
	}
}

// cancel handles the session/cancel notification: the session's running
// prompt, if any, stops and answers "cancelled". It runs on the Conn's
// reading goroutine, so it only flags the run and returns at once.
func (a *agent) cancel(_ context.Context, _ *acp.Conn, p acp.CancelParams) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[p.SessionID]
	if !ok || s.run == nil {
		a.log.Debug("session/cancel with no prompt running", "session", p.SessionID)
		return
	}
	s.run.cancel(errSessionCancelled)
	s.run = nil // the session is idle now: steers are refused, a new prompt may start
}

// steer is goose's _goose/unstable/session/steer as the echo agent reads
// it: with steerRequest in place of goose.SteerParams, so that a steer
// without a valid expectedRunId still reaches the handler, whose refusal
// names the session's running prompt.
var steer = acp.Method[steerRequest, goose.SteerResult]{Name: goose.SessionSteer.Name}

// steerRequest is goose.SteerParams read leniently: an absent or mistyped
// expectedRunId reads as "" (and the rest of the params as absent), while
// any other decoding error is the -32602 goose.SteerParams gives.
type steerRequest struct {
	goose.SteerParams
}

// UnmarshalJSON decodes the params with acp.DecodeParams.
func (p *steerRequest) UnmarshalJSON(data []byte) error {
	// The session id is decoded on its own: a steer without a valid
	// expectedRunId fails to decode as goose.SteerParams.
	sp, err := acp.DecodeParams[struct {
		SessionID string `json:"sessionId" acp:"required"`
	}](data)
	if err != nil {
		return err
	}
	full, err := acp.DecodeParams[goose.SteerParams](data)
	if field, _ := acp.InvalidField(err); err != nil && field != "expectedRunId" {
		return err
	}
	full.SessionID = sp.SessionID
	p.SteerParams = full
	return nil
}

// steer handles goose's _goose/unstable/session/steer: the steer's words
// join the running prompt's queue and are echoed before that prompt ends.
// It is refused with -32602 when no prompt runs, when expectedRunId is
// missing or not the running prompt's, or when the steer has no words;
// the error's data names the expected and the actual run ids, each left
// out when unknown.
func (a *agent) steer(ctx context.Context, conn *acp.Conn, p steerRequest) (goose.SteerResult, error) {
	res, err := a.queueSteer(p.SteerParams)
	if err != nil {
		return goose.SteerResult{}, err
	}
	// Tells the client which message will carry the steer's echo. The
	// running prompt may already be echoing it: the client matches them by
	// messageId, not by order.
	queued, _ := json.Marshal(res) // a struct of strings always encodes
	a.notify(ctx, conn, p.SessionID, acp.SessionInfoUpdate{Meta: gooseMeta(goose.Meta{QueuedSteer: queued})})
	return res, nil
}

// queueSteer adds the steer's words to the queue of the session's running
// prompt, or returns the error to reply with.
func (a *agent) queueSteer(p goose.SteerParams) (goose.SteerResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.session(p.SessionID)
	if err != nil {
		return goose.SteerResult{}, err
	}
	var actual string
	if s.run != nil {
		actual = s.run.id
	}
	refuse := func(format string, args ...any) (goose.SteerResult, error) {
		return goose.SteerResult{}, acp.Errorf(acp.CodeInvalidParams, "Steer refused: "+format, args...).
			WithData(struct {
				ExpectedRunID string `json:"expectedRunId,omitempty"`
				ActualRunID   string `json:"actualRunId,omitempty"`
			}{p.ExpectedRunID, actual})
	}
	words := promptWords(p.Prompt)
	switch {
	case s.run == nil:
		return refuse("no prompt is running in session %s", s.id)
	case p.ExpectedRunID == "":
		return refuse("expectedRunId is required (the running prompt is %s)", actual)
	case p.ExpectedRunID != actual:
		return refuse("run %s is not running (the running prompt is %s)", p.ExpectedRunID, actual)
	case len(words) == 0:
		return refuse("the prompt has no text")
	}
	res := goose.SteerResult{RunID: actual, MessageID: a.newID("msg")}
	s.run.queue = append(s.run.queue, chunks(words, res.MessageID)...)
	s.run.input += len(words)
	return res, nil
}

// notify sends a session/update, logging a failure: the connection is
// closing or the client stopped reading, and the caller carries on to
// answer its request, which is all that can be done.
func (a *agent) notify(ctx context.Context, conn *acp.Conn, sessionID string, u acp.Update) {
	if err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: sessionID, Update: u}); err != nil {
		a.notSent("session update not sent", sessionID, err)
	}
}

// notSent logs an update that could not be sent: at debug level when the
// connection has ended, which is how every client leaves, as a warning
// otherwise.
func (a *agent) notSent(msg, sessionID string, err error) {
	level := slog.LevelWarn
	if errors.Is(err, acp.ErrClosed) {
		level = slog.LevelDebug
	}
	a.log.Log(context.Background(), level, msg, "session", sessionID, "error", err)
}

// promptWords returns the words of the prompt's text blocks. Other blocks
// (resource links, and any the client should not have sent) are skipped.
func promptWords(prompt acp.ContentBlocks) []string {
	var words []string
	for _, b := range prompt {
		if t, ok := b.(acp.TextContent); ok {
			words = append(words, strings.Fields(t.Text)...)
		}
	}
	return words
}

// chunks turns words into one chunk each, every word but the first with a
// leading space, so that a client that concatenates the chunks of a message
// gets the words separated by single spaces.
func chunks(words []string, messageID string) []chunk {
	out := make([]chunk, len(words))
	for i, w := range words {
		if i > 0 {
			w = " " + w
		}
		out[i] = chunk{text: w, messageID: messageID}
	}
	return out
}

// sleep waits for d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gooseMeta returns m as an update's _meta.
func gooseMeta(m goose.Meta) json.RawMessage {
	meta, _ := m.Marshal() // fails only for a QueuedSteer that is not JSON
	return meta
}
