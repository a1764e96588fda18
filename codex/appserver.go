package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"sync"

	"github.com/acpkit/acpkit/cli"
	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/lines"
)

// Errors of a [Session]. The first three are package cli's, the same
// errors as claude.Session gives.
var (
	// ErrNotPending is the error of an answer to a request the Session
	// does not hold: never read, already answered, or sent without a
	// usable id. Nothing is written.
	ErrNotPending = cli.ErrNotPending
	// ErrCancelled is the error of an answer to a request the server
	// settled itself ([RequestResolved]): dropping it is the right
	// outcome. Nothing is written.
	ErrCancelled = cli.ErrCancelled
	// ErrOutputEnded is the error of a request whose answer can no longer
	// come, the server's output having ended first, and the last error of
	// [Session.Events] when the output ends during a turn.
	ErrOutputEnded = cli.ErrOutputEnded
	// ErrNoActiveTurn is the error of [Session.Interrupt] for a thread
	// with no turn under way. Nothing is written.
	ErrNoActiveTurn = errors.New("codex: no turn under way in the thread")
	// ErrInvalidInput is wrapped by the error of a request or an answer
	// the Session refuses to send, such as a turn without input. Nothing
	// is written.
	ErrInvalidInput = errors.New("codex: invalid input for the app-server")
	// ErrBadAnswer is wrapped by the error of a request whose answer is
	// not the JSON object its method returns.
	ErrBadAnswer = errors.New("codex: malformed answer from the app-server")
)

// Session is the client side of one `codex app-server` process: a
// JSON-RPC peer on the process's standard input and output, one JSON
// object per line. It writes requests, notifications and answers to the
// server's standard input and reads the server's standard output
// ([Session.Feed], [Session.Events]), keeping what the conversation needs:
// the requests waiting for an answer in each direction, and the turn under
// way in each thread.
//
// The methods that send a request ([Session.Initialize],
// [Session.StartThread], [Session.StartTurn], …, [Session.Request]) wait
// for its answer, which arrives through the loop reading the server's
// output: one goroutine must range over [Session.Events] (or call Feed)
// meanwhile, and must not itself wait for an answer. That loop sees each
// answer as a [Response] too. The server's own requests
// ([CommandApproval], [FileChangeApproval], [Elicitation],
// [UnknownRequest]) come as events; each must be answered
// ([Session.Decide], [Session.Decline], …), from any goroutine, while the
// turn waits for it.
//
// A Session writes to the io.Writer it was made with and never reads or
// writes anything else; the caller owns the process. It is safe for
// concurrent use, but only one goroutine may feed it the server's output.
// Writes are serialized, one whole line at a time; a write that blocks
// holds up other writes, never the reading loop.
type Session struct {
	wmu   sync.Mutex // held while writing a line
	stdin io.Writer

	mu       sync.Mutex
	lastID   int64
	calls    map[int64]*call    // requests sent and not answered, by id
	requests map[string]Request // the server's requests waiting for an answer, by id
	resolved map[string]bool    // the server's requests it settled unanswered
	turns    map[string]string  // the turn under way, by thread id
	pending  []Pending          // requests waiting for an answer, both ways, in order
	ended    bool               // the server's output has ended
	lines    lines.Counter      // the lines given to Feed
}

// call is a request the Session sent.
type call struct {
	method   string
	threadID string        // for turn/start: the thread whose turn it starts
	answer   chan Response // nil once its caller stopped waiting
}

// Pending is a request waiting for its answer: one the client sent
// (FromCLI false; ID its id, "1"), or one the server sent (FromCLI true;
// ID its id's JSON text). Method is the request's method.
type Pending struct {
	ID      string
	Method  string
	FromCLI bool
}

// NewSession returns a Session that writes to stdin, the standard input
// of a `codex app-server` process. Start with [Session.Initialize].
func NewSession(stdin io.Writer) *Session {
	return &Session{
		stdin:    stdin,
		calls:    map[int64]*call{},
		requests: map[string]Request{},
		resolved: map[string]bool{},
		turns:    map[string]string{},
	}
}

// Pending returns the requests waiting for an answer, in the order they
// were sent or read. The slice is the caller's.
func (s *Session) Pending() []Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pending)
}

// ActiveTurn returns the id of the turn under way in the thread: from the
// answer to [Session.StartTurn] (or the server's turn/started) until its
// [TurnEnd]. ok is false when none is.
func (s *Session) ActiveTurn(threadID string) (turnID string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	turnID, ok = s.turns[threadID]
	return turnID, ok
}

// write writes one line to the server.
func (s *Session) write(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.stdin.Write(line); err != nil {
		return fmt.Errorf("codex: writing to the app-server: %w", err)
	}
	return nil
}

// encodeLine marshals v as one line, newline included, leaving <, > and &
// as they are.
func encodeLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return b.Bytes(), nil
}

// marshalJSON marshals v as encoding/json does, leaving <, > and & as
// they are.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Request sends a request of any method and waits for its answer: it
// returns the result, raw JSON, or the server's [*RPCError]. params is
// marshalled with encoding/json (a json.RawMessage as it is); nil sends
// none. The loop reading the server's output must run meanwhile (see
// [Session]).
//
// When ctx ends first, Request returns an error wrapping ctx's cause, and
// the answer, when it comes, is only reported as a [Response]. When the
// output ends first, it returns an error wrapping [ErrOutputEnded].
func (s *Session) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.request(ctx, method, params, "")
}

// request is Request; threadID names the thread of a turn/start.
func (s *Session) request(ctx context.Context, method string, params any, threadID string) (json.RawMessage, error) {
	if method == "" {
		return nil, fmt.Errorf("%w: empty method", ErrInvalidInput)
	}
	var raw json.RawMessage
	if params != nil {
		b, err := marshalJSON(params)
		if err != nil {
			return nil, fmt.Errorf("%w: %s params: %v", ErrInvalidInput, method, err)
		}
		raw = b
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("codex: %s not sent: %w", method, context.Cause(ctx))
	}
	c := &call{method: method, threadID: threadID, answer: make(chan Response, 1)}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, fmt.Errorf("codex: %s: %w", method, ErrOutputEnded)
	}
	s.lastID++
	id := s.lastID
	s.calls[id] = c
	s.pending = append(s.pending, Pending{ID: strconv.FormatInt(id, 10), Method: method})
	s.mu.Unlock()

	line, err := encodeLine(struct {
		ID     int64           `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	}{id, method, raw})
	if err == nil {
		err = s.write(line)
	}
	if err != nil {
		s.mu.Lock()
		delete(s.calls, id)
		s.unpend(strconv.FormatInt(id, 10), false)
		s.mu.Unlock()
		return nil, err
	}
	select {
	case r, ok := <-c.answer:
		switch {
		case !ok:
			return nil, fmt.Errorf("codex: %s: %w", method, ErrOutputEnded)
		case r.Err != nil:
			return nil, r.Err
		}
		return r.Result, nil
	case <-ctx.Done():
		s.mu.Lock()
		c.answer = nil // the answer is only reported
		s.mu.Unlock()
		return nil, fmt.Errorf("codex: no answer to %s: %w", method, context.Cause(ctx))
	}
}

// Notify sends a notification: params is marshalled as for
// [Session.Request].
func (s *Session) Notify(method string, params any) error {
	if method == "" {
		return fmt.Errorf("%w: empty method", ErrInvalidInput)
	}
	var raw json.RawMessage
	if params != nil {
		b, err := marshalJSON(params)
		if err != nil {
			return fmt.Errorf("%w: %s params: %v", ErrInvalidInput, method, err)
		}
		raw = b
	}
	line, err := encodeLine(struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	}{method, raw})
	if err != nil {
		return err
	}
	return s.write(line)
}

// requestInto sends a request and decodes its result into v.
func (s *Session) requestInto(ctx context.Context, method string, params, v any, threadID string) error {
	result, err := s.request(ctx, method, params, threadID)
	if err != nil {
		return err
	}
	if result = bytes.TrimSpace(result); len(result) == 0 || result[0] != '{' || !decodeWire(result, v) {
		return fmt.Errorf("%w: %s: the result is not an object", ErrBadAnswer, method)
	}
	return nil
}

// Decide answers an approval request with d: a [CommandApproval] or
// [FileChangeApproval] with {"decision": d}, and an [Elicitation] (an MCP
// tool's approval) with the action d stands for, accept, decline or
// cancel, remembering an acceptForSession for the session when the
// request allows it. Any other request, or a decision that is not one of
// the four, is refused with [ErrInvalidInput].
func (s *Session) Decide(r Request, d Decision) error {
	switch d {
	case DecisionAccept, DecisionAcceptForSession, DecisionDecline, DecisionCancel:
	default:
		return fmt.Errorf("%w: unknown decision %q", ErrInvalidInput, d)
	}
	switch r := r.(type) {
	case CommandApproval, FileChangeApproval:
		return s.Respond(r, wireApprovalResponse{d})
	case Elicitation:
		w := wireElicitationResponse{Action: string(d), Content: json.RawMessage("null")}
		if d == DecisionAcceptForSession {
			w.Action = string(DecisionAccept)
			if slices.Contains(r.Persist, "session") {
				w.Meta = json.RawMessage(`{"persist":"session"}`)
			}
		}
		return s.Respond(r, w)
	case nil:
		return fmt.Errorf("codex: nil request: %w", ErrNotPending)
	}
	return fmt.Errorf("%w: %s takes no decision", ErrInvalidInput, r.Method())
}

// Decline answers a request the caller does not serve, in the way that
// lets the server go on at once: an approval is declined (the model is
// told, and the turn goes on), an elicitation declined, and any other
// request answered with the JSON-RPC error "method not found".
func (s *Session) Decline(r Request) error {
	switch r.(type) {
	case CommandApproval, FileChangeApproval, Elicitation:
		return s.Decide(r, DecisionDecline)
	case nil:
		return fmt.Errorf("codex: nil request: %w", ErrNotPending)
	}
	return s.RespondError(r, -32601, "method not supported by this client: "+r.Method())
}

// Respond answers a request of the server with result, marshalled with
// encoding/json (a json.RawMessage as it is), which must give a JSON
// object.
func (s *Session) Respond(r Request, result any) error {
	if r == nil {
		return fmt.Errorf("codex: nil request: %w", ErrNotPending)
	}
	b, err := marshalJSON(result)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return fmt.Errorf("%w: the answer to %s is not a JSON object", ErrInvalidInput, r.Method())
	}
	return s.answer(r, func(id json.RawMessage) ([]byte, error) {
		return encodeLine(struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}{id, b})
	})
}

// RespondError answers a request of the server with a JSON-RPC error.
func (s *Session) RespondError(r Request, code int, message string) error {
	if r == nil {
		return fmt.Errorf("codex: nil request: %w", ErrNotPending)
	}
	if message == "" {
		return fmt.Errorf("%w: an error without a message", ErrInvalidInput)
	}
	type errObj struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	return s.answer(r, func(id json.RawMessage) ([]byte, error) {
		return encodeLine(struct {
			ID    json.RawMessage `json:"id"`
			Error errObj          `json:"error"`
		}{id, errObj{code, message}})
	})
}

// answer writes the answer to r that line makes of its id, if r still
// waits for one.
func (s *Session) answer(r Request, line func(id json.RawMessage) ([]byte, error)) error {
	id := r.RequestID()
	s.mu.Lock()
	if _, ok := s.requests[id]; !ok || id == "" {
		resolved := s.resolved[id]
		s.mu.Unlock()
		if resolved {
			return fmt.Errorf("codex: answering %s %s: %w", r.Method(), id, ErrCancelled)
		}
		return fmt.Errorf("codex: answering %s %s: %w", r.Method(), id, ErrNotPending)
	}
	b, err := line(json.RawMessage(id)) // the id's JSON text, as the Session read it
	if err != nil {
		s.mu.Unlock()
		return err
	}
	delete(s.requests, id)
	s.unpend(id, true)
	s.mu.Unlock()
	return s.write(b)
}

// unpend removes a pending request; s.mu is held.
func (s *Session) unpend(id string, fromCLI bool) {
	if i := slices.IndexFunc(s.pending, func(p Pending) bool { return p.ID == id && p.FromCLI == fromCLI }); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
	}
}

// Feed parses one line of the server's output, appends its events to
// events and returns the extended slice: the item events it shares with
// `codex exec` and the app-server's own, both listed on [Event]. A
// [Response] is also handed to the call waiting for it.
//
// A message that is not of the protocol, such as a JSON object without a
// method or an id, is an UnknownNotification with no Method and the line
// as its Params. A line that is not a JSON object gives a [*LineError]
// wrapping a [*SyntaxError] and changes nothing; the caller may log it and
// keep feeding lines. Blank lines give nothing. Feed never writes.
func (s *Session) Feed(line []byte, events []Event) ([]Event, error) {
	s.mu.Lock()
	n, offset := s.lines.Next(line)
	s.mu.Unlock()
	return s.feed(line, events, n, offset)
}

// feed is Feed for the line numbered n, starting at offset.
func (s *Session) feed(line []byte, events []Event, n, offset int64) ([]Event, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return events, nil
	}
	if off, why, ok := jsonscan.CheckObject(line); !ok {
		return events, &LineError{Line: n, Offset: offset, Err: &SyntaxError{Length: len(line), Offset: off, reason: why}}
	}
	var m wireMessage
	decodeWire(line, &m)
	var method string
	hasMethod := m.Method != nil && json.Unmarshal(m.Method, &method) == nil && method != ""
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case hasMethod && hasID:
		return append(events, s.serverRequest(idText(m.ID), method, m.Params)), nil
	case hasMethod:
		return s.notification(events, method, m.Params, m.EmittedAtMs), nil
	case hasID && (m.Result != nil || m.Error != nil):
		return append(events, s.response(m)), nil
	}
	return append(events, UnknownNotification{Params: compactJSON(line)}), nil
}

// Events returns the events of the server's output, read from r, in
// order, as [Session.Feed] returns them, for as long as the process runs.
//
// A line that cannot be used yields a nil Event and a [*LineError] that
// says where it is and wraps why, a [*SyntaxError] or a
// [*LineTooLongError]; reading goes on with the next line. An error from r
// itself is yielded next. When the output ends, the calls still waiting
// for an answer fail with [ErrOutputEnded], and if a turn was under way
// the sequence yields, last, an error wrapping ErrOutputEnded that names
// it: the process ended mid-turn.
//
// Events keeps no goroutine and reads r only while the loop asks for the
// next event. Only one Events loop, or Feed caller, should read a
// process's output; other goroutines may send requests and answers
// meanwhile. A loop stopped before the end of r leaves the calls waiting
// for an answer to their contexts.
func (s *Session) Events(r io.Reader) iter.Seq2[Event, error] {
	return s.events(r, MaxLineLength)
}

// events is Events with lines of at most maxLine bytes.
func (s *Session) events(r io.Reader, maxLine int) iter.Seq2[Event, error] {
	seq := lines.Events(r, maxLine, s.feed, func(err *lines.TooLongError, n, offset int64) error {
		return &LineError{Line: n, Offset: offset, Err: &LineTooLongError{Length: err.Length, Max: err.Max}}
	}, func() bool { return false })
	return func(yield func(Event, error) bool) {
		for e, err := range seq {
			if !yield(e, err) {
				return
			}
		}
		if err := s.endOutput(); err != nil {
			yield(nil, err)
		}
	}
}

// endOutput fails the calls still waiting for an answer, and returns an
// error naming the turns that were under way, if any.
func (s *Session) endOutput() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	for id, c := range s.calls {
		delete(s.calls, id)
		if c.answer != nil {
			close(c.answer)
		}
	}
	if len(s.turns) == 0 {
		return nil
	}
	threads := make([]string, 0, len(s.turns))
	for t := range s.turns {
		threads = append(threads, t)
	}
	slices.Sort(threads)
	t := threads[0]
	err := fmt.Errorf("codex: the app-server's output ended during turn %s of thread %s: %w", s.turns[t], t, ErrOutputEnded)
	clear(s.turns)
	return err
}
