package claude

// Turn accumulates one run of `claude -p`: feed it the run's stdout line by
// line ([Turn.Feed]), or hand it the whole stream ([Turn.Events]), and it
// returns the events to act on. It remembers the last session
// id seen, stops emitting once the run's final event has been returned, and
// turns a failed resume into a [ResumeFailed] event.
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
	done      bool
	result    Result
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

// lineCounter numbers the lines given to Feed, one per call, and finds
// their offsets by adding up their lengths, counting a "\n" after a line
// given without one.
type lineCounter struct {
	n      int64 // lines counted
	offset int64 // offset of the next line
}

// next counts line and returns its number and offset.
func (c *lineCounter) next(line []byte) (n, offset int64) {
	c.n++
	offset = c.offset
	c.offset += int64(len(line))
	if len(line) == 0 || line[len(line)-1] != '\n' {
		c.offset++
	}
	return c.n, offset
}

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
		r, ok := out[i].(Result)
		if !ok {
			continue
		}
		t.done = true
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

// Done reports whether the final event has been returned.
func (t *Turn) Done() bool { return t.done }

// Result returns the run's result line once [Turn.Done] is true; ok is
// false before that. For a failed resume it is the CLI's error result.
func (t *Turn) Result() (r Result, ok bool) { return t.result, t.done }

// ResumeFailed reports whether the run ended because the resumed
// conversation does not exist.
func (t *Turn) ResumeFailed() bool { return t.done && t.result.ResumeNotFound() }
