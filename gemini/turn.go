package gemini

import (
	"cmp"
	"strings"

	"github.com/acpkit/acpkit/cli"
)

// Turn accumulates one run of the Gemini CLI: feed it the run's stdout line
// by line ([Turn.Feed]), or hand it the whole stream ([Turn.Events]), then
// tell it how the process ended ([Turn.Finish]). It returns the events to
// act on, and adds what single lines cannot say:
//
//   - the chunks of the assistant's answer joined into a [Text] when a
//     tool call, the result or the end of the run interrupts them;
//   - each [ToolResult]'s Name and Kind, from the [ToolUse] with its ID;
//   - the session id to resume with;
//   - the end of a run that printed no result: a resume of an unknown
//     session ([ResumeFailed]) told apart from any other failure
//     ([NoResult]);
//   - why the run failed ([Turn.Err]).
//
// A Turn is not safe for concurrent use. The zero value is a Turn for a new
// session.
type Turn struct {
	resumeID  string
	sessionID string
	started   bool // an init line was read
	done      bool // the final event has been returned
	result    Result
	hasResult bool
	final     Event // the final event, once done
	exit      ExitStatus
	exited    bool
	text      []byte // chunks not yet returned joined
	pending   bool   // text holds chunks, possibly empty ones
	tools     map[string]toolKind
	scratch   []Event
	lastError string // the message of the last Notice not a warning
}

// NewTurn returns a Turn for a run that resumes the session resumeID (the
// value passed as --resume), or for a new session when resumeID is empty.
// Until a line names another, [Turn.SessionID] is resumeID.
func NewTurn(resumeID string) *Turn {
	return &Turn{resumeID: resumeID, sessionID: resumeID}
}

// Feed parses one line of the run's output as [ParseLine] does, appends its
// events to events and returns the extended slice, with the additions the
// [Turn] documentation lists. After the [Result] has been returned, Feed
// ignores every further line.
//
// A line that is not JSON gives a [*SyntaxError] and changes nothing; the
// caller may log it and keep feeding lines.
func (t *Turn) Feed(line []byte, events []Event) ([]Event, error) {
	if t.done {
		return events, nil
	}
	parsed, sid, err := ParseLine(line, t.scratch[:0])
	t.scratch = parsed[:0]
	if err != nil {
		return events, err
	}
	if sid != nil && string(sid) != t.sessionID {
		t.sessionID = string(sid)
	}
	for i, e := range parsed {
		parsed[i] = nil // the scratch slice keeps no event alive
		switch e := e.(type) {
		case PartialText:
			t.text = append(t.text, e.Text...)
			t.pending = true
			events = append(events, e)
			continue
		case Notice:
			if e.Severity != "warning" {
				t.lastError = e.Message
			}
			events = append(events, e)
			continue
		}
		events = t.flush(events)
		switch e := e.(type) {
		case Init:
			t.started = true
		case ToolUse:
			if t.tools == nil {
				t.tools = map[string]toolKind{}
			}
			t.tools[e.ID] = toolKind{e.Name, e.Kind}
		case ToolResult:
			if k, ok := t.tools[e.ID]; ok {
				e.Name, e.Kind = k.name, k.kind
			}
			events = append(events, e)
			continue
		case Result:
			t.done, t.result, t.hasResult, t.final = true, e, true, e
			return append(events, e), nil
		}
		events = append(events, e)
	}
	return events, nil
}

// flush appends the chunks read so far as one Text.
func (t *Turn) flush(events []Event) []Event {
	if !t.pending {
		return events
	}
	events = append(events, Text{Text: string(t.text)})
	t.text = t.text[:0]
	t.pending = false
	return events
}

// Finish records the process's exit code (os.ProcessState.ExitCode: -1
// after a signal), to be called once its standard output has been read to
// the end. It appends to events what the run still owes and returns the
// extended slice: the unfinished answer as a [Text], and, when no
// [Result] was read, the final event: [ResumeFailed] when the run resumed
// a session, read no init line and exited with [ExitInput] (the CLI's
// answer to an unknown session), else [NoResult].
//
// Only the first call records the code; later calls append nothing.
func (t *Turn) Finish(code int, events []Event) []Event {
	if t.exited {
		return events
	}
	t.exit, t.exited = ExitStatus(code), true
	if t.done {
		return events
	}
	events = t.flush(events)
	t.done = true
	if t.resumeID != "" && !t.started && t.exit.Kind() == ExitInput {
		t.sessionID = t.resumeID
		t.final = ResumeFailed{SessionID: t.resumeID, Exit: t.exit}
	} else {
		t.final = NoResult{Exit: t.exit}
	}
	return append(events, t.final)
}

// SessionID returns the session's id: the last one a line carried, or the
// resumed id when none has. It is the id to pass to the next run's
// --resume.
func (t *Turn) SessionID() string { return t.sessionID }

// Done reports whether the final event has been returned.
func (t *Turn) Done() bool { return t.done }

// Result returns the run's result line; ok is false until it has been
// read, and for a run that printed none.
func (t *Turn) Result() (r Result, ok bool) { return t.result, t.hasResult }

// Exit returns the exit status given to [Turn.Finish]; ok is false before.
func (t *Turn) Exit() (s ExitStatus, ok bool) { return t.exit, t.exited }

// ResumeFailed reports whether the run ended because the resumed session
// does not exist.
func (t *Turn) ResumeFailed() bool {
	_, ok := t.final.(ResumeFailed)
	return ok
}

// Reasons a run fails, for errors.Is on the error [Turn.Err] returns.
// They are package cli's, the same errors in packages claude, codex and
// gemini.
var (
	// ErrResumeNotFound: the resumed session does not exist.
	ErrResumeNotFound = cli.ErrResumeNotFound
	// ErrMaxTurns: the session reached its maximum number of turns.
	ErrMaxTurns = cli.ErrMaxTurns
	// ErrAPI: a request to the model's API failed.
	ErrAPI = cli.ErrAPI
	// ErrNoResult: the process ended without a result line.
	ErrNoResult = cli.ErrNoResult
	// ErrFailed: the run failed for another reason, named by the
	// [*RunError]'s Type and Message.
	ErrFailed = cli.ErrFailed
)

// RunError says why a run failed: [cli.RunError], the same type in
// packages claude, codex and gemini. errors.Is matches it with one of
// [ErrResumeNotFound], [ErrMaxTurns], [ErrAPI], [ErrNoResult] and
// [ErrFailed]. This package fills it in so:
//
//   - Exit is the process's exit status, an [ExitStatus]; meaningful only
//     when Exited.
//   - Type is the result's error type; "" when the run printed no result
//     or the result has no error object.
//   - Message is the result's error message or, when the result gives
//     none or the run printed no result, the message of the run's last
//     error line that is not a warning (a [Notice]): the CLI may print
//     the reason only there, as for a model that returns empty replies.
//     It is "" when there is neither.
//   - Status is the HTTP status of the request that failed a run at the
//     API ([ErrAPI]), when its message carries the API's JSON error body
//     (see [APIError]); 0 otherwise, and for a run that failed otherwise.
//     The exit status may hold it too ([ExitStatus.HTTPStatus]).
type RunError = cli.RunError

// reasons are the reasons in this package's words, which begin a
// RunError's text.
var reasons = cli.Reasons{
	ErrResumeNotFound: "gemini: resumed session not found",
	ErrMaxTurns:       "gemini: maximum session turns reached",
	ErrAPI:            "gemini: API error",
	ErrNoResult:       "gemini: run ended without a result",
	ErrFailed:         "gemini: run failed",
}

// Err returns nil while the run has not failed, and otherwise a
// [*RunError] saying why: the result reports an error, the process exited
// with a failure status after a successful result, the resumed session was
// not found, or the process ended without a result. It is final once
// [Turn.Finish] has been called.
func (t *Turn) Err() error {
	var reason error
	var typ, msg string
	status := 0
	switch {
	case t.hasResult && t.result.Failed():
		typ, msg = t.result.ErrorType, cmp.Or(t.result.ErrorMessage, t.lastError)
		switch {
		case typ == "FatalTurnLimitedError" || t.exited && t.exit.Kind() == ExitMaxTurns:
			reason = ErrMaxTurns
		case strings.HasPrefix(msg, apiErrorPrefix) || t.exited && t.exit.Kind() == ExitAPIError:
			reason = ErrAPI
			if a, ok := apiError(msg); ok {
				status = a.Status
			}
		default:
			reason = ErrFailed
		}
	case t.hasResult:
		if !t.exited || t.exit.Kind() == ExitSuccess {
			return nil
		}
		reason = ErrFailed
	case t.ResumeFailed():
		reason = ErrResumeNotFound
	case t.done:
		msg = t.lastError
		reason = ErrNoResult
	default:
		return nil
	}
	e := reasons.RunError(reason, msg)
	e.Exit, e.Exited = t.exit, t.exited
	e.Type, e.Status = typ, status
	return e
}
