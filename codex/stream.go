package codex

import (
	"io"
	"iter"
	"strconv"

	"github.com/acpkit/acpkit/cli"
	"github.com/acpkit/acpkit/internal/lines"
)

// MaxLineLength is the longest line, in bytes without its terminator, that
// [Turn.Events] reads. Real lines, even a command's whole output, stay far
// below it; it bounds the memory a runaway line can take.
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
	return "codex: line of " + strconv.FormatInt(e.Length, 10) + " bytes exceeds the maximum of " + strconv.Itoa(e.Max)
}

// Is reports whether target is [ErrLineTooLong].
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// Events returns the events of a run whose output is read from r (the
// CLI's standard output), in order, as [Turn.Feed] returns them. Call
// [Turn.Finish] with the process's exit code after the loop, for the
// events that only the end of the run can give.
//
// A line that cannot be used yields a nil Event and its error, a
// [*SyntaxError] or a [*LineTooLongError], and reading goes on with the
// next line. Blank lines are skipped. An error from r itself is yielded
// last; a line it cuts short is not fed. The sequence ends at the end of
// r: after the final
// event it goes on reading, and yields nothing more, so that the CLI never
// blocks on a full pipe. A caller that stops the loop early takes that
// duty over.
//
// Events keeps no goroutine and reads r only while the loop asks for the
// next event. Like [Turn] itself, it is not safe for concurrent use.
func (t *Turn) Events(r io.Reader) iter.Seq2[Event, error] {
	return t.events(r, MaxLineLength)
}

// events is Events with lines of at most maxLine bytes, so that tests can
// reach the limit without a 64 MiB line.
func (t *Turn) events(r io.Reader, maxLine int) iter.Seq2[Event, error] {
	feed := func(line []byte, events []Event, _, _ int64) ([]Event, error) { return t.Feed(line, events) }
	return lines.Events(r, maxLine, feed, func(err *lines.TooLongError, _, _ int64) error {
		return &LineTooLongError{Length: err.Length, Max: err.Max}
	}, func() bool { return t.done })
}
