package claude

import (
	"cmp"

	"github.com/acpkit/acpkit/cli"
	"github.com/acpkit/acpkit/internal/lines"
)

// Turn accumulates one run of `claude -p`: feed it the run's stdout line by
// line ([Turn.Feed]), or hand it the whole stream ([Turn.Events]), then
// tell it how the process ended ([Turn.Finish]). It returns the events to
// act on, and adds what single lines cannot say:
//
//   - the session id to resume with, the last one a line carried;
//   - a failed resume, as a [ResumeFailed] event in place of the result;
//   - the end of a run that printed no result ([NoResult]);
//   - why the run failed ([Turn.Err]).
//
// A Turn is not safe for concurrent use. The zero value is a Turn for a new
// conversation.
type Turn struct {
	// ReportUnknown makes Feed and Events report the lines this package
	// does not model as [Unknown] events, as [Parser.ReportUnknown] does.
	// Set it before the first line.
	ReportUnknown bool

	resumeID  string
	sessionID string
	done      bool // the final event has been returned
	result    Result
	hasResult bool
	apiErr    *APIError // the run's last API error line; nil for none
	exit      ExitStatus
	exited    bool
	lines     lineCounter // the lines given to Feed
}

// NewTurn returns a Turn for a run that resumes the conversation resumeID
// (the value passed as --resume), or for a new conversation when resumeID
// is empty. Until a line names another, [Turn.SessionID] is resumeID.
func NewTurn(resumeID string) *Turn {
	return &Turn{resumeID: resumeID, sessionID: resumeID}
}

// Feed parses one line of the run's output as [ParseLine] does (with
// ReportUnknown, as a [Parser] with it does), appends its events to events
// and returns the extended slice.
//
// After the final event (a [Result] or [ResumeFailed]) has been returned,
// Feed ignores every further line. A result that says the resumed
// conversation does not exist is returned as [ResumeFailed] instead of a
// [Result], and the session id goes back to the resumed one: the id the CLI
// printed for the failed attempt names no conversation.
//
// A line that is not JSON gives a [*LineError] wrapping a [*SyntaxError]
// and changes nothing; the caller may log it and keep feeding lines. Feed
// numbers the lines by counting its calls, and computes their offsets by
// adding up their lengths, counting a "\n" after a line given without one.
func (t *Turn) Feed(line []byte, events []Event) ([]Event, error) {
	n, offset := t.lines.next(line)
	return t.feed(line, events, n, offset)
}

// lineCounter numbers the lines given to Feed (see [lines.Counter]).
type lineCounter struct{ lines.Counter }

// next counts line and returns its number and offset.
func (c *lineCounter) next(line []byte) (n, offset int64) { return c.Next(line) }

// feed is Feed for the line numbered n, starting at offset.
func (t *Turn) feed(line []byte, events []Event, n, offset int64) ([]Event, error) {
	if t.done {
		return events, nil
	}
	start := len(events)
	out, sid, err := Parser{ReportUnknown: t.ReportUnknown}.ParseLine(line, events)
	if err != nil {
		return events, &LineError{Line: n, Offset: offset, Err: err}
	}
	for i := start; i < len(out); i++ {
		if e, ok := out[i].(APIError); ok {
			t.apiErr = &e
		}
		r, ok := out[i].(Result)
		if !ok {
			continue
		}
		t.done, t.hasResult = true, true
		t.result = r
		out = out[:i+1]
		if r.ResumeNotFound() {
			out[i] = ResumeFailed{SessionID: t.resumeID, Result: r}
			t.sessionID = t.resumeID
			return out, nil
		}
		break
	}
	if sid != nil && string(sid) != t.sessionID {
		t.sessionID = string(sid)
	}
	return out, nil
}

// SessionID returns the conversation's session id: the last one a line
// carried, or the resumed id when none has (or when the resume failed).
// It is the id to pass to the next run's --resume.
func (t *Turn) SessionID() string { return t.sessionID }

// Finish records the process's exit code (os.ProcessState.ExitCode: -1
// after a signal), to be called once its standard output has been read to
// the end. When no result was read, it appends the final event,
// [NoResult], to events and returns the extended slice.
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
	t.done = true
	return append(events, NoResult{Exit: t.exit})
}

// Done reports whether the final event has been returned.
func (t *Turn) Done() bool { return t.done }

// Result returns the run's result line; ok is false until one was read.
// For a failed resume it is the CLI's error result.
func (t *Turn) Result() (r Result, ok bool) { return t.result, t.hasResult }

// Exit returns the exit status given to [Turn.Finish]; ok is false before.
func (t *Turn) Exit() (s ExitStatus, ok bool) { return t.exit, t.exited }

// ResumeFailed reports whether the run ended because the resumed
// conversation does not exist.
func (t *Turn) ResumeFailed() bool { return t.hasResult && t.result.ResumeNotFound() }

// Err returns nil while the run has not failed, and otherwise a
// [*RunError] saying why: the result reports a failure (see
// [Result.Err]), the process exited with a failure status after a
// successful result, or it ended without a result. It is final once
// [Turn.Finish] has been called.
func (t *Turn) Err() error {
	var e *RunError
	switch err := t.result.Err(t.apiErr); {
	case !t.hasResult && t.exited:
		e = reasons.RunError(ErrNoResult, "")
		if t.apiErr != nil {
			e.Type, e.Message, e.Status = t.apiErr.Type, t.apiErr.Text, t.apiErr.Status
		}
	case !t.hasResult:
		return nil
	case err != nil:
		e = err.(*RunError)
	case t.exited && t.exit.Kind() != ExitSuccess:
		e = reasons.RunError(ErrFailed, "")
	default:
		return nil
	}
	e.Exit, e.Exited = t.exit, t.exited
	return e
}

// Reasons a run fails, for errors.Is on the error [Turn.Err] and
// [Result.Err] return. They are package cli's, the same errors in
// packages claude, codex and gemini.
var (
	// ErrResumeNotFound: the resumed conversation does not exist.
	ErrResumeNotFound = cli.ErrResumeNotFound
	// ErrMaxTurns: the run reached its maximum number of agentic turns
	// (--max-turns).
	ErrMaxTurns = cli.ErrMaxTurns
	// ErrAPI: a request to the model's API failed, a usage or rate limit
	// included (see [ParseResetTime]).
	ErrAPI = cli.ErrAPI
	// ErrAuth: the API refused the CLI's credentials, or it has none
	// (an assistant API error line of kind "authentication_failed", or
	// HTTP 401): "Invalid API key", "Not logged in". It is an ErrAPI too.
	ErrAuth = cli.ErrAuth
	// ErrNoResult: the process ended without a result line.
	ErrNoResult = cli.ErrNoResult
	// ErrFailed: the run failed for another reason, named by the
	// [*RunError]'s Message.
	ErrFailed = cli.ErrFailed
)

// RunError says why a run failed: [cli.RunError], the same type in
// packages claude, codex and gemini. errors.Is matches it with one of
// [ErrResumeNotFound], [ErrMaxTurns], [ErrAPI], [ErrNoResult] and
// [ErrFailed]. This package fills it in so:
//
//   - Exit is the process's exit status, a [ExitStatus]; Exited is set
//     only by [Turn.Err].
//   - Type is the API error's type ("api_error_type": "rate_limit_error",
//     "overloaded_error", …) for a run that failed at the API or ended
//     without a result after an API error; "" when none is named.
//   - Message is the CLI's own words: the API error line's text for a run
//     that failed at the API, else the result's errors joined, or its
//     text; "" when there are none.
//   - Status is the HTTP status of the request that failed the run, for a
//     run that failed at the API ([ErrAPI]) or ended without a result
//     after an API error ([ErrNoResult]); 0 when none is named.
type RunError = cli.RunError

// reasons are the reasons in this package's words, which begin a
// RunError's text.
var reasons = cli.Reasons{
	ErrResumeNotFound: "claude: resumed conversation not found",
	ErrMaxTurns:       "claude: maximum turns reached",
	ErrAPI:            "claude: API error",
	ErrAuth:           "claude: credentials refused",
	ErrNoResult:       "claude: run ended without a result",
	ErrFailed:         "claude: run failed",
}

// Err returns nil for a result that reports success, and otherwise a
// [*RunError] saying why the run failed: the resumed conversation does not
// exist ([ErrResumeNotFound]), the run reached its turn limit
// ([ErrMaxTurns]), the API failed ([ErrAPI], or [ErrAuth] when it
// refused the credentials: apiErr, the run's last
// [APIError] line, is not nil, or the result names an API error), or it
// failed otherwise ([ErrFailed]). apiErr, nil for none, says more about an
// API failure than the result does. [Session] users call it on the result
// of each turn; [Turn.Err] calls it for a run of `claude -p`.
func (r Result) Err(apiErr *APIError) error {
	switch {
	case r.ResumeNotFound():
		return reasons.RunError(ErrResumeNotFound, joinErrors(r))
	case r.Subtype == "error_max_turns":
		return reasons.RunError(ErrMaxTurns, joinErrors(r))
	case apiErr != nil || r.TerminalReason == "api_error" || r.APIErrorStatus != 0:
		reason := ErrAPI
		if r.APIErrorStatus == 401 || apiErr != nil && (apiErr.Kind == "authentication_failed" || apiErr.Status == 401) {
			reason = ErrAuth
		}
		e := reasons.RunError(reason, r.Text)
		e.Type, e.Status = r.APIErrorType, r.APIErrorStatus
		if apiErr != nil {
			e.Message = apiErr.Text
			e.Status = cmp.Or(apiErr.Status, e.Status)
			e.Type = cmp.Or(apiErr.Type, e.Type)
		}
		return e
	case r.Failed():
		return reasons.RunError(ErrFailed, joinErrors(r))
	}
	return nil
}
