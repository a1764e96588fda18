package codex

// Turn accumulates one run of `codex exec --json`: feed it the run's
// standard output line by line ([Turn.Feed]) and tell it when the output
// ends ([Turn.End]), or hand it the whole stream ([Turn.Events]). It keeps
// the thread id to resume with, stops emitting once the run's final event
// has been returned, and reports a resume that the CLI refused as a
// [ResumeFailed] event.
//
// One run of the CLI is one turn: `codex exec` sends one prompt and exits.
// A Turn is not safe for concurrent use. The zero value is a Turn for a new
// thread.
type Turn struct {
	resumeID  string
	threadID  string
	started   bool   // a thread.started line was seen
	done      bool   // the final event has been returned
	ended     bool   // End was called
	final     Event  // the final event, once done
	lastError string // the last APIError's message
}

// NewTurn returns a Turn for a run that resumes the thread resumeID (the id
// passed to `codex exec resume`), or for a new thread when resumeID is
// empty. Until a line names another, [Turn.ThreadID] is resumeID.
func NewTurn(resumeID string) *Turn {
	return &Turn{resumeID: resumeID, threadID: resumeID}
}

// Feed parses one line of the run's output as [ParseLine] does, appends its
// event to events and returns the extended slice.
//
// After the final event (a [TurnCompleted] or [TurnFailed]) has been
// returned, or after [Turn.End], Feed ignores every further line.
//
// A line that is not JSON gives a [*SyntaxError] and changes nothing; the
// caller may log it and keep feeding lines.
func (t *Turn) Feed(line []byte, events []Event) ([]Event, error) {
	if t.done || t.ended {
		return events, nil
	}
	start := len(events)
	out, err := ParseLine(line, events)
	if err != nil {
		return events, err
	}
	for _, e := range out[start:] {
		switch e := e.(type) {
		case ThreadStarted:
			t.started = true
			if e.ThreadID != "" {
				t.threadID = e.ThreadID
			}
		case APIError:
			t.lastError = e.Message
		case TurnCompleted, TurnFailed:
			t.done, t.final = true, e
		}
	}
	return out, nil
}

// End tells the Turn that the run's output is over (the CLI closed its
// standard output) and appends the final event that the output implies, if
// any, to events: a [ResumeFailed] when the Turn resumes a thread and no
// "thread.started" line came, which is how the CLI refuses an unknown
// thread id. Later calls to End or [Turn.Feed] do nothing. [Turn.Events]
// calls End itself at the end of its reader.
func (t *Turn) End(events []Event) []Event {
	if t.done || t.ended {
		return events
	}
	t.ended = true
	if t.resumeID != "" && !t.started {
		t.done = true
		t.final = ResumeFailed{ThreadID: t.resumeID}
		events = append(events, t.final)
	}
	return events
}

// ThreadID returns the thread's id: the one the "thread.started" line
// carried, or the resumed id when none has. It is the id to pass to the
// next run's `codex exec resume`. An old CLI that does not know the
// resumed id may start a new thread instead; ThreadID then differs from
// the id given to [NewTurn], and the earlier conversation is not in it.
func (t *Turn) ThreadID() string { return t.threadID }

// Done reports whether the final event has been returned.
func (t *Turn) Done() bool { return t.done }

// Final returns the run's final event, a [TurnCompleted], [TurnFailed] or
// [ResumeFailed], once [Turn.Done] is true; ok is false before that.
func (t *Turn) Final() (e Event, ok bool) { return t.final, t.done }

// Failed reports whether the run failed, and why. It is true after a
// [TurnFailed] (why is its message, "" when the CLI gave none), after a
// [ResumeFailed], and after [Turn.End] when the output ended without a
// final event, the CLI having crashed or stopped on an error outside the
// turn (why is then the last [APIError]'s message, if any). It is false
// while the run may still succeed.
func (t *Turn) Failed() (why string, failed bool) {
	switch e := t.final.(type) {
	case TurnFailed:
		return e.Message, true
	case ResumeFailed:
		return "codex: the CLI did not resume thread " + e.ThreadID, true
	case nil:
		if !t.ended {
			return "", false
		}
		if t.lastError != "" {
			return t.lastError, true
		}
		return "codex: the output ended before the turn did", true
	}
	return "", false
}

// ResumeFailed reports whether the run ended with a [ResumeFailed] event.
func (t *Turn) ResumeFailed() bool {
	_, ok := t.final.(ResumeFailed)
	return ok
}
