package claude

import (
	"io"
	"iter"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/cli"
	"github.com/acpkit/acpkit/internal/lines"
)

// MaxLineLength is the longest line, in bytes without its terminator, that
// [Turn.Events] reads. Real lines, even tool results that carry images,
// stay far below it; it bounds the memory a runaway line can take.
const MaxLineLength = 64 << 20

// ErrLineTooLong is matched (with [errors.Is]) by the [*LineTooLongError]
// that [Turn.Events] yields for a line longer than [MaxLineLength]. It is
// [cli.ErrLineTooLong], which every CLI package's LineTooLongError matches.
var ErrLineTooLong = cli.ErrLineTooLong

// LineTooLongError reports a line longer than the maximum. The line has
// been skipped whole, not kept.
type LineTooLongError struct {
	// Length is the skipped line's length in bytes, excluding its
	// terminator ("\n" or "\r\n"). It is an int64 because the line was
	// never held whole.
	Length int64
	// Max is the maximum line length, [MaxLineLength] for [Turn.Events].
	Max int
}

// Error implements the error interface.
func (e *LineTooLongError) Error() string {
	return "claude: line of " + strconv.FormatInt(e.Length, 10) + " bytes exceeds the maximum of " + strconv.Itoa(e.Max)
}

// Is reports whether target is [ErrLineTooLong].
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// LineError reports a line of the CLI's output that [Turn.Feed] or
// [Turn.Events] skipped, and where it was, so that a log can say "line 17
// skipped". Err is why: a [*SyntaxError] or a [*LineTooLongError], which
// [errors.As] and [errors.Is] find through it.
type LineError struct {
	// Line is the line's 1-based number in the output, blank lines
	// included.
	Line int64
	// Offset is the byte offset of the line's first byte in the output.
	Offset int64
	Err    error
}

// Error says which line was skipped and why, without quoting it.
func (e *LineError) Error() string {
	msg := "claude: skipped line " + strconv.FormatInt(e.Line, 10) + " (byte " + strconv.FormatInt(e.Offset, 10) + ")"
	if e.Err == nil {
		return msg
	}
	return msg + ": " + strings.TrimPrefix(e.Err.Error(), "claude: ")
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// Events returns the events of a run whose output is read from r (the
// CLI's standard output), in order, as [Turn.Feed] returns them.
//
// A line that cannot be used yields a nil Event and a [*LineError] that
// says where it is and wraps why, a [*SyntaxError] or a
// [*LineTooLongError]; reading goes on with the next line. Blank lines,
// for which Feed returns nothing, are skipped. An error from r itself is
// yielded last; a line it cuts short is not fed.
// The sequence ends at the end of r: after the final event it goes on
// reading, and yields nothing more, so that the CLI never blocks on a full
// pipe. A caller that stops the loop early takes that duty over.
//
// Events keeps no goroutine and reads r only while the loop asks for the
// next event. Like [Turn] itself, it is not safe for concurrent use.
func (t *Turn) Events(r io.Reader) iter.Seq2[Event, error] {
	return t.events(r, MaxLineLength)
}

// events is Events with lines of at most maxLine bytes, so that tests can
// reach the limit without a 64 MiB line.
func (t *Turn) events(r io.Reader, maxLine int) iter.Seq2[Event, error] {
	return readEvents(r, maxLine, t.feed, func() bool { return t.done })
}

// readEvents is the loop behind [Turn.Events] and [Session.Events]: it
// reads r's lines, of at most maxLine bytes, hands each to feed with its
// line number and offset, and yields the events or the error feed
// returns. A line too long is yielded as a *LineError, unless quiet
// reports that nothing more is to be yielded.
func readEvents(r io.Reader, maxLine int, feed func(line []byte, events []Event, n, offset int64) ([]Event, error), quiet func() bool) iter.Seq2[Event, error] {
	return lines.Events(r, maxLine, feed, func(err *lines.TooLongError, n, offset int64) error {
		return &LineError{Line: n, Offset: offset, Err: &LineTooLongError{Length: err.Length, Max: err.Max}}
	}, quiet)
}
