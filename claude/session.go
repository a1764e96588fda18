package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"sync"

	"github.com/acpkit/acpkit/cli"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// Errors of answering a request of the CLI that is not waiting for one.
// Nothing is written then.
// They are package cli's, the same errors as codex.Session's.
var (
	// ErrNotPending is the error of an answer to a request the Session
	// does not hold: never read, already answered, or sent without an id.
	ErrNotPending = cli.ErrNotPending
	// ErrCancelled is the error of an answer to a request the CLI withdrew
	// ([ControlCancel]): the answer is not needed, and dropping it is the
	// right outcome.
	ErrCancelled = cli.ErrCancelled
)

// ErrOutputEnded is the error of a [Session.Request] whose answer can no
// longer come: the CLI's output, read by [Session.Events], ended first.
// It is [cli.ErrOutputEnded].
var ErrOutputEnded = cli.ErrOutputEnded

// Session is the client side of one long-lived CLI process in
// streaming-input mode (see [SessionCommandLine]): it writes user turns,
// control requests and answers to the CLI's standard input, and reads the
// CLI's standard output ([Session.Feed], [Session.Events]), keeping what
// the conversation needs: the session id, the requests still waiting for
// an answer in each direction, and where the current turn stands.
//
// A Session writes to the io.Writer it was made with and never reads or
// writes anything else; the caller owns the process. It is safe for
// concurrent use, and is meant to be used that way: one goroutine feeds it
// the CLI's output while others send turns and answer permission
// requests. Writes are serialized, one whole line at a time; a write that
// blocks holds up other writes, never Feed.
//
// The CLI may send its own requests before it answers [Session.Initialize]
// (it does so for MCP servers), so the reading loop must never wait for a
// [ControlResponse] before reading on: answer requests as they come.
type Session struct {
	wmu   sync.Mutex // held while writing a line
	stdin io.Writer

	mu        sync.Mutex
	lastID    uint64
	sessionID string
	pending   []Pending
	waiters   map[string]chan ControlResponse // Request calls, by request id
	ended     bool                            // Events read the output to its end
	requests  map[string]Request              // the CLI's requests waiting for an answer
	cancelled map[string]bool                 // the CLI's requests it withdrew unanswered
	running   bool
	turns     int
	last      TurnEnd

	lines lineCounter // the lines given to Feed
}

// Pending is a control request waiting for its answer: one the client sent
// (FromCLI false), or one the CLI sent (FromCLI true). Subtype is the
// request's subtype: "initialize", "can_use_tool", "mcp_message", ….
type Pending struct {
	ID      string
	Subtype string
	FromCLI bool
}

// NewSession returns a Session that writes to stdin, the CLI's standard
// input. resumeID is the session id the process was started to resume,
// or "" for a new conversation; it is [Session.SessionID] until a line
// names another.
func NewSession(stdin io.Writer, resumeID string) *Session {
	return &Session{
		stdin:     stdin,
		sessionID: resumeID,
		waiters:   map[string]chan ControlResponse{},
		requests:  map[string]Request{},
		cancelled: map[string]bool{},
	}
}

// SessionID returns the conversation's session id: the last one a line
// carried, or the resumed id when none has. Pass it to --resume to go on
// with the conversation in another process.
func (s *Session) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// Pending returns the requests waiting for an answer, in the order they
// were sent or read. The slice is the caller's.
func (s *Session) Pending() []Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pending)
}

// InTurn reports whether a turn is under way: from [Session.Send] or
// [Session.SendText] (or the CLI's init line, which starts every turn)
// until the turn's [Result]. A turn that failed or was interrupted ends
// like any other, and the process takes the next turn.
func (s *Session) InTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// LastTurn returns the [TurnEnd] of the most recent turn; ok is false until
// a turn has ended.
func (s *Session) LastTurn() (t TurnEnd, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.turns > 0
}

// write writes one line to the CLI.
func (s *Session) write(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.stdin.Write(line); err != nil {
		return fmt.Errorf("claude: writing to the CLI: %w", err)
	}
	return nil
}

// SendText writes a user turn whose content is text. The CLI queues a turn
// sent while another is under way.
func (s *Session) SendText(text string) error {
	line, err := userText(text)
	if err != nil {
		return err
	}
	return s.sendTurn(line)
}

// Send writes a user turn made of content blocks, such as text and
// images.
func (s *Session) Send(blocks ...Block) error {
	line, err := userBlocks(blocks)
	if err != nil {
		return err
	}
	return s.sendTurn(line)
}

func (s *Session) sendTurn(line []byte) error {
	s.mu.Lock()
	was := s.running
	s.running = true
	s.mu.Unlock()
	err := s.write(line)
	if err != nil {
		s.mu.Lock()
		s.running = was // the turn never reached the CLI
		s.mu.Unlock()
	}
	return err
}

// Initialize sends the initialize request, which the official SDKs send
// first, with the members opts sets (hooks, in-process MCP servers, a JSON
// schema for the answer, …), and returns its id. The CLI answers with a
// [ControlResponse] whose Payload lists its commands, models, account and
// more. Options the CLI cannot accept are refused with an error wrapping
// [ErrInvalidInput], and nothing is written.
func (s *Session) Initialize(opts InitializeOptions) (id string, err error) {
	params, err := opts.params()
	if err != nil {
		return "", err
	}
	return s.send("initialize", params, nil)
}

// Interrupt asks the CLI to stop the current turn and returns the
// request's id. The CLI answers at once, then ends the turn with a
// [Result] and a [TurnEnd] whose TerminalReason says what was cut short,
// withdrawing any permission request still pending ([ControlCancel]). The
// process stays usable.
func (s *Session) Interrupt() (id string, err error) {
	return s.send("interrupt", nil, nil)
}

// SetPermissionMode asks the CLI to switch to mode ("default",
// "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto", …) and
// returns the request's id. The CLI refuses a mode it does not know, and
// bypassPermissions in a process not started with it, with a
// [ControlResponse] whose Err says why.
func (s *Session) SetPermissionMode(mode string) (id string, err error) {
	if mode == "" {
		return "", fmt.Errorf("%w: empty permission mode", ErrInvalidInput)
	}
	params, err := marshalLine(struct {
		Mode string `json:"mode"`
	}{mode})
	if err != nil {
		return "", err
	}
	return s.send("set_permission_mode", params, nil)
}

// SetModel asks the CLI to use model for the following turns, or its
// default model when model is "", and returns the request's id.
func (s *Session) SetModel(model string) (id string, err error) {
	var m *string
	if model != "" {
		m = &model
	}
	params, err := marshalLine(struct {
		Model *string `json:"model"`
	}{m})
	if err != nil {
		return "", err
	}
	return s.send("set_model", params, nil)
}

// Call sends a control request of any subtype ("mcp_status",
// "get_context_usage", …) and returns its id. params, a JSON object or
// nil, holds the request's members besides its subtype.
func (s *Session) Call(subtype string, params json.RawMessage) (id string, err error) {
	return s.send(subtype, params, nil)
}

// Request sends a control request as [Session.Call] does and waits for
// the CLI's answer: it returns the response's payload (nil when the CLI
// sent none), or the [*ControlError] of a refusal. Feed, or an Events
// loop, must be reading the CLI's output on another goroutine meanwhile:
// that is where the answer arrives, as a [ControlResponse] like any other.
//
// When ctx ends first, Request returns ctx's error and the answer, when it
// comes, is only reported as an event. When an Events loop reaches the end
// of the output first, Request returns [ErrOutputEnded]; a caller that
// feeds lines itself should pass a ctx that ends with the process.
func (s *Session) Request(ctx context.Context, subtype string, params json.RawMessage) (json.RawMessage, error) {
	answer := make(chan ControlResponse, 1)
	id, err := s.send(subtype, params, answer)
	if err != nil {
		return nil, err
	}
	select {
	case r, ok := <-answer:
		switch {
		case !ok:
			return nil, ErrOutputEnded
		case r.Err != nil:
			return nil, r.Err
		}
		return r.Payload, nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.waiters, id)
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}

// send writes a control request; answer, when not nil, receives its
// answer, or is closed when the output ends first.
func (s *Session) send(subtype string, params json.RawMessage, answer chan ControlResponse) (string, error) {
	body, err := requestBody(subtype, params)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if answer != nil && s.ended {
		s.mu.Unlock()
		return "", ErrOutputEnded
	}
	s.lastID++
	id := "req_" + strconv.FormatUint(s.lastID, 10)
	s.pending = append(s.pending, Pending{ID: id, Subtype: subtype})
	if answer != nil {
		s.waiters[id] = answer
	}
	s.mu.Unlock()
	line, err := requestLine(id, body)
	if err == nil {
		err = s.write(line)
	}
	if err != nil {
		s.mu.Lock()
		s.unpend(id, false)
		delete(s.waiters, id)
		s.mu.Unlock()
		return "", err
	}
	return id, nil
}

// Allow answers a permission request: the tool may run, with input (a JSON
// object) as its arguments, or with the arguments the CLI sent when input
// is nil. updates, often some of r.Suggestions, are applied as well, so
// that the CLI need not ask again.
func (s *Session) Allow(r PermissionRequest, input json.RawMessage, updates ...PermissionUpdate) error {
	if input == nil {
		input = r.Input
	}
	in, err := object(input, "tool input")
	if err != nil {
		return err
	}
	body := struct {
		Behavior           string            `json:"behavior"`
		UpdatedInput       json.RawMessage   `json:"updatedInput"`
		UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
	}{Behavior: "allow", UpdatedInput: in}
	for i, u := range updates {
		raw, err := object(u.Raw, "permission update "+strconv.Itoa(i))
		if err != nil {
			return err
		}
		body.UpdatedPermissions = append(body.UpdatedPermissions, raw)
	}
	return s.respond(r, body)
}

// Deny answers a permission request: the tool does not run, and message
// becomes its error result, which the model reads. With interrupt, the
// CLI also ends the turn (TerminalReason "aborted_tools").
func (s *Session) Deny(r PermissionRequest, message string, interrupt bool) error {
	return s.respond(r, struct {
		Behavior  string `json:"behavior"`
		Message   string `json:"message"`
		Interrupt bool   `json:"interrupt,omitempty"`
	}{"deny", message, interrupt})
}

// Respond answers a request of the CLI with success and payload, a JSON
// object: the hook output of a [HookRequest], {"mcp_response": …} for an
// [MCPRequest], or whatever a newer request expects.
func (s *Session) Respond(r Request, payload json.RawMessage) error {
	if r == nil {
		return fmt.Errorf("claude: %w: nil request", ErrNotPending)
	}
	line, err := successLine(r.RequestID(), payload)
	if err != nil {
		return err
	}
	return s.answer(r.RequestID(), line)
}

// RespondError answers a request of the CLI with an error whose text is
// message.
func (s *Session) RespondError(r Request, message string) error {
	if r == nil {
		return fmt.Errorf("claude: %w: nil request", ErrNotPending)
	}
	line, err := errorLine(r.RequestID(), message)
	if err != nil {
		return err
	}
	return s.answer(r.RequestID(), line)
}

// declineMessage is what the model reads when [Session.Decline] denies a
// tool.
const declineMessage = "This client does not grant tool permissions; the tool was not run."

// Decline answers a request the caller does not serve, in the way that
// lets the CLI go on at once: a permission request is denied, a hook
// callback gets an empty output (no opinion), an MCP message a JSON-RPC
// "method not found" error, and any other request the error the CLI itself
// gives for a subtype it does not support.
func (s *Session) Decline(r Request) error {
	switch r := r.(type) {
	case PermissionRequest:
		return s.Deny(r, declineMessage, false)
	case HookRequest:
		return s.Respond(r, json.RawMessage(`{}`))
	case MCPRequest:
		return s.Respond(r, mcpDecline(r))
	case nil:
		return fmt.Errorf("claude: %w: nil request", ErrNotPending)
	case UnknownRequest:
		return s.RespondError(r, "Unsupported control request subtype: "+r.Subtype)
	}
	return s.RespondError(r, "Unsupported control request") // unreachable: Request is closed
}

// mcpDecline is the answer to an MCP message for a server the client does
// not host: an error response to a request, an empty result to a
// notification (which has no id).
func mcpDecline(r MCPRequest) json.RawMessage {
	var id gjson.Result
	if json.Valid(r.Message) {
		id = members.Get(gjson.ParseBytes(r.Message), "id")
	}
	if !id.Exists() {
		return json.RawMessage(`{"mcp_response":{"jsonrpc":"2.0","result":{}}}`)
	}
	msg, _ := json.Marshal("no MCP server named " + strconv.Quote(r.ServerName) + " in this client")
	return json.RawMessage(`{"mcp_response":{"jsonrpc":"2.0","id":` + id.Raw +
		`,"error":{"code":-32601,"message":` + string(msg) + `}}}`)
}

// respond writes a success answer to r with body marshalled as its
// payload.
func (s *Session) respond(r PermissionRequest, body any) error {
	payload, err := marshalLine(body)
	if err != nil {
		return err
	}
	line, err := successLine(r.ID, payload)
	if err != nil {
		return err
	}
	return s.answer(r.ID, line)
}

// answer writes line, the answer to the CLI's request id, if the request
// is still waiting for one.
func (s *Session) answer(id string, line []byte) error {
	s.mu.Lock()
	if _, ok := s.requests[id]; !ok {
		cancelled := s.cancelled[id]
		s.mu.Unlock()
		if cancelled {
			return fmt.Errorf("answering request %q: claude: %w", id, ErrCancelled)
		}
		return fmt.Errorf("answering request %q: claude: %w", id, ErrNotPending)
	}
	delete(s.requests, id)
	s.unpend(id, true)
	s.mu.Unlock()
	return s.write(line)
}

// unpend removes a pending request; s.mu is held.
func (s *Session) unpend(id string, fromCLI bool) (Pending, bool) {
	i := slices.IndexFunc(s.pending, func(p Pending) bool { return p.ID == id && p.FromCLI == fromCLI })
	if i < 0 {
		return Pending{}, false
	}
	p := s.pending[i]
	s.pending = slices.Delete(s.pending, i, i+1)
	return p, true
}

// Feed parses one line of the CLI's output, appends its events to events
// and returns the extended slice. Lines other than control messages are
// read as [ParseLine] reads them, and a [Result] is followed by the
// [TurnEnd] of its turn. Control messages become [PermissionRequest],
// [MCPRequest], [HookRequest] or [UnknownRequest] (each of which must be
// answered), [ControlResponse] (matched to the request it answers) or
// [ControlCancel]; Feed records them in [Session.Pending].
//
// A line that is not JSON gives a [*LineError] wrapping a [*SyntaxError]
// and changes nothing; the caller may log it and keep feeding lines. Feed
// numbers the lines as [Turn.Feed] does. Feed never writes.
func (s *Session) Feed(line []byte, events []Event) ([]Event, error) {
	s.mu.Lock()
	n, offset := s.lines.next(line)
	s.mu.Unlock()
	return s.feed(line, events, n, offset)
}

// feed is Feed for the line numbered n, starting at offset.
func (s *Session) feed(line []byte, events []Event, n, offset int64) ([]Event, error) {
	start := len(events)
	out, sid, err := ParseLine(line, events)
	if err != nil {
		return events, &LineError{Line: n, Offset: offset, Err: err}
	}
	added := out[start:]
	_, isResult := lastEvent(added).(Result)
	var c controlLine
	if len(added) == 0 || isResult {
		// Validated by ParseLine; the other lines need no second look.
		c = readControlLine(bytes.TrimSpace(line))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sid != nil && string(sid) != s.sessionID {
		s.sessionID = string(sid)
	}
	for _, e := range added {
		if h, ok := e.(Heartbeat); ok && h.Subtype == "init" {
			s.running = true
		}
	}
	if isResult {
		s.last = c.turnEnd(s.turns)
		s.turns++
		s.running = false
		return append(out, s.last), nil
	}
	if len(added) == 0 {
		if e, ok := c.event(); ok {
			out = append(out, s.track(e))
		}
	}
	return out, nil
}

func lastEvent(events []Event) Event {
	if len(events) == 0 {
		return nil
	}
	return events[len(events)-1]
}

// track records a control event; s.mu is held.
func (s *Session) track(e Event) Event {
	switch e := e.(type) {
	case ControlResponse:
		if p, ok := s.unpend(e.ID, false); ok {
			e.Subtype = p.Subtype
			if e.Err != nil {
				e.Err.Subtype = p.Subtype
			}
		}
		if w := s.waiters[e.ID]; w != nil {
			delete(s.waiters, e.ID)
			w <- e
		}
		return e
	case ControlCancel:
		if r, ok := s.requests[e.ID]; ok {
			e.Request = r
			delete(s.requests, e.ID)
			s.unpend(e.ID, true)
			s.cancelled[e.ID] = true
		}
		return e
	case Request:
		id := e.RequestID()
		if id == "" {
			return e
		}
		if _, dup := s.requests[id]; dup {
			s.unpend(id, true) // the CLI asked again: the newer one counts
		}
		s.requests[id] = e
		delete(s.cancelled, id)
		s.pending = append(s.pending, Pending{ID: id, Subtype: requestSubtype(e), FromCLI: true})
	}
	return e
}

// requestSubtype names a request's subtype.
func requestSubtype(r Request) string {
	switch r := r.(type) {
	case PermissionRequest:
		return "can_use_tool"
	case MCPRequest:
		return "mcp_message"
	case HookRequest:
		return "hook_callback"
	case UnknownRequest:
		return r.Subtype
	}
	return ""
}

// Events returns the events of the CLI's output, read from r, in order, as
// [Session.Feed] returns them, for as long as the process runs.
//
// A line that cannot be used yields a nil Event and a [*LineError] that
// says where it is and wraps why, a [*SyntaxError] or a
// [*LineTooLongError]; reading goes on with the next line. An error from r
// itself is yielded last; a line it cuts short is not fed. The sequence
// ends at the end of r, when the process has closed its output.
//
// Events keeps no goroutine and reads r only while the loop asks for the
// next event. Only one Events loop, or Feed caller, should read a
// process's output; other goroutines may write meanwhile.
func (s *Session) Events(r io.Reader) iter.Seq2[Event, error] {
	return s.events(r, MaxLineLength)
}

// events is Events with lines of at most maxLine bytes.
func (s *Session) events(r io.Reader, maxLine int) iter.Seq2[Event, error] {
	events := readEvents(r, maxLine, s.feed, func() bool { return false })
	return func(yield func(Event, error) bool) {
		for e, err := range events {
			if !yield(e, err) {
				return
			}
		}
		s.endOutput()
	}
}

// endOutput fails the Request calls still waiting: their answers cannot
// come any more.
func (s *Session) endOutput() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	for id, w := range s.waiters {
		delete(s.waiters, id)
		close(w)
	}
}
