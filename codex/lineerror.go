package codex

import (
	"strconv"
	"strings"
)

// LineError reports a line of a stored session that [ReadEntries] skipped,
// or of an app-server's output that [Session.Events] or [Session.Feed]
// did, and where it was, so that a log can say "line 17 skipped". Err is why:
// a [*SyntaxError] or a [*LineTooLongError], which [errors.As] and
// [errors.Is] find through it.
type LineError struct {
	// Line is the line's 1-based number in the file, blank lines
	// included.
	Line int64
	// Offset is the byte offset of the line's first byte in the file.
	Offset int64
	Err    error
}

// Error says which line was skipped and why, without quoting it.
func (e *LineError) Error() string {
	msg := "codex: skipped line " + strconv.FormatInt(e.Line, 10) + " (byte " + strconv.FormatInt(e.Offset, 10) + ")"
	if e.Err == nil {
		return msg
	}
	return msg + ": " + strings.TrimPrefix(e.Err.Error(), "codex: ")
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }
