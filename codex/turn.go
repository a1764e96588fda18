package codex

import (
	"cmp"

	"github.com/acpkit/acpkit/cli"
)

// Turn accumulates one run of `codex exec --json`: feed it the run's
// standard output line by line ([Turn.Feed]), or hand it the whole stream
// ([Turn.Events]), then tell it how the process ended ([Turn.Finish]). It
// returns the events to act on, and adds what single lines cannot say:
//
//   - the thread id to resume with, which the CLI prints only on the
//     first line;
//   - the end of a run that printed neither "turn.completed" nor
//     "turn.failed": a resume the CLI refused ([ResumeFailed]) told apart
//     from any other failure ([NoResult]);
//   - why the run failed ([Turn.Err]).
//
// One run of the CLI is one turn: `codex exec` sends one prompt and exits.
// A Turn is not safe for concurrent use. The zero value is a Turn for a new
// thread.
type Turn struct {
	resumeID    string
	threadID    string
	started     bool  // a thread.started line was read
	done        bool  // the final event has been returned
	final       Event // the final event, once done
	exit        ExitStatus
	exited      bool
	apiErr      APIError // the last APIError, when hasAPIErr
	hasAPIErr   bool
	retryStatus int // the HTTP status the last Retry named
}

// NewTurn returns a Turn for a run that resumes the thread resumeID (the id
// passed to `codex exec resume`), or for a new thread when resumeID is
// empty. Until a line names another, [Turn.ThreadID] is resumeID.
func NewTurn(resumeID string) *Turn {
	return &Turn{resumeID: resumeID, threadID: resumeID}
}

// Feed parses one line of the run's output as [ParseLine] does, appends its
// event to events and returns the extended slice. After the final event
// (a [TurnCompleted] or [TurnFailed], or what [Turn.Finish] adds) has been
// returned, Feed ignores every further line.
//
// A line that is not JSON gives a [*SyntaxError] and changes nothing; the
// caller may log it and keep feeding lines.
func (t *Turn) Feed(line []byte, events []Event) ([]Event, error) {
	if t.done {
		return events, nil
	}
	start := len(events)
	out, id, err := ParseLine(line, events)
	if err != nil {
		return events, err
	}
	if id != nil && string(id) != t.threadID {
		t.threadID = string(id)
	}
	for _, e := range out[start:] {
		switch e := e.(type) {
		case ThreadStarted:
			t.started = true
		case Retry:
			t.retryStatus = e.Status
		case APIError:
			t.apiErr, t.hasAPIErr = e, true
		case TurnCompleted, TurnFailed:
			t.done, t.final = true, e
		}
	}
	return out, nil
}

// Finish records the process's exit code (os.ProcessState.ExitCode: -1
// after a signal), to be called once its standard output has been read to
// the end. When no final line was read, it appends the final event to
// events and returns the extended slice: [ResumeFailed] when the run
// resumed a thread, read no "thread.started" line and exited with
// [ExitFailure] (how the CLI refuses an unknown thread), else [NoResult].
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
	if t.resumeID != "" && !t.started && t.exit.Kind() == ExitFailure {
		t.final = ResumeFailed{ThreadID: t.resumeID, Exit: t.exit}
	} else {
		t.final = NoResult{Exit: t.exit}
	}
	return append(events, t.final)
}

// ThreadID returns the thread's id: the one the "thread.started" line
// carried, or the resumed id when none has. It is the id to pass to the
// next run's `codex exec resume`. An old CLI that does not know the
// resumed id may start a new thread instead; ThreadID then differs from
// the id given to [NewTurn], and the earlier conversation is not in it.
func (t *Turn) ThreadID() string { return t.threadID }

// Done reports whether the final event has been returned.
func (t *Turn) Done() bool { return t.done }

// Final returns the run's final event, a [TurnCompleted], [TurnFailed],
// [ResumeFailed] or [NoResult], once [Turn.Done] is true; ok is false
// before that.
func (t *Turn) Final() (e Event, ok bool) { return t.final, t.done }

// Exit returns the exit status given to [Turn.Finish]; ok is false before.
func (t *Turn) Exit() (s ExitStatus, ok bool) { return t.exit, t.exited }

// ResumeFailed reports whether the run ended with [ResumeFailed].
func (t *Turn) ResumeFailed() bool {
	_, ok := t.final.(ResumeFailed)
	return ok
}

// Reasons a run fails, for errors.Is on the error [Turn.Err] returns.
// They are package cli's, the same errors in packages claude, codex and
// gemini.
var (
	// ErrResumeNotFound: the CLI would not resume the thread; it names no
	// thread the CLI has (see [ResumeNotFound] for its own words).
	ErrResumeNotFound = cli.ErrResumeNotFound
	// ErrAPI: a request to the model's API failed, a usage or rate limit
	// included (see [ParseResetTime]): the turn failed after an
	// [APIError], or with a message that names an HTTP status or a limit.
	// The [*RunError]'s Status is the HTTP status, when the CLI named one.
	ErrAPI = cli.ErrAPI
	// ErrNoResult: the process ended without its turn's final line.
	ErrNoResult = cli.ErrNoResult
	// ErrFailed: the run failed for another reason, named by the
	// [*RunError]'s Message.
	ErrFailed = cli.ErrFailed
)

// RunError says why a run failed: [cli.RunError], the same type in
// packages claude, codex and gemini. errors.Is matches it with one of
// [ErrResumeNotFound], [ErrAPI], [ErrNoResult] and [ErrFailed]. This
// package fills it in so:
//
//   - Exit is the process's exit status, an [ExitStatus]; meaningful only
//     when Exited.
//   - Type is the error's type as the CLI names it: `codex exec` names
//     none, so it is ""; for a turn of a [Session], the [TurnError]'s
//     Kind ([TurnEnd.Err]).
//   - Message is the CLI's own words: the message of the [TurnFailed], or
//     of the last [APIError] when there is no TurnFailed or it has no
//     message; "" when there are none.
//   - Status is the HTTP status of the request that failed the run, for a
//     run that failed at the API ([ErrAPI]) or ended without the end of
//     its turn ([ErrNoResult]): the one the [TurnFailed] names, else the
//     last [APIError]'s, else the last [Retry]'s (what the last attempt
//     got, when the CLI's final words name no status). It is 0 when none
//     names one, and for a run that failed otherwise.
type RunError = cli.RunError

// reasons are the reasons in this package's words, which begin a
// RunError's text.
var reasons = cli.Reasons{
	ErrResumeNotFound: "codex: resumed thread not found",
	ErrAPI:            "codex: API error",
	ErrNoResult:       "codex: run ended without the end of its turn",
	ErrFailed:         "codex: run failed",
}

// Err returns nil while the run has not failed, and otherwise a
// [*RunError] saying why: the turn failed, the process exited with a
// failure status after the turn completed, the resume was refused, or the
// process ended without the end of its turn. It is final once
// [Turn.Finish] has been called.
func (t *Turn) Err() error {
	var e *RunError
	switch f := t.final.(type) {
	case TurnFailed:
		// The CLI reports a request that failed for good as an APIError
		// first, often in words that name no status or limit.
		msg := cmp.Or(f.Message, t.apiErr.Message)
		e = reasons.RunError(ErrFailed, msg)
		if f.Status != 0 || isLimit(f.Message) || t.hasAPIErr {
			e = reasons.RunError(ErrAPI, msg)
			e.Status = cmp.Or(f.Status, t.apiErr.Status, t.retryStatus)
		}
	case TurnCompleted:
		if !t.exited || t.exit.Kind() == ExitSuccess {
			return nil
		}
		e = reasons.RunError(ErrFailed, "")
	case ResumeFailed:
		e = reasons.RunError(ErrResumeNotFound, "")
	case NoResult:
		e = reasons.RunError(ErrNoResult, t.apiErr.Message)
		e.Status = cmp.Or(t.apiErr.Status, t.retryStatus)
	default:
		return nil
	}
	e.Exit, e.Exited = t.exit, t.exited
	return e
}
