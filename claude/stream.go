package claude

import (
	"io"
	"iter"
	"math"
	"strconv"

	"github.com/acpkit/acpkit/internal/lines"
)

// MaxLineSize is the longest line, in bytes without its terminator, that
// [Turn.Events] reads. Real lines, even tool results that carry images,
// stay far below it; it bounds the memory a runaway line can take.
const MaxLineSize = 64 << 20

// LineTooLongError reports a line longer than [MaxLineSize]. The line is
// skipped, not kept: Len is its length in bytes, without its terminator
// ("\n" or "\r\n").
type LineTooLongError struct {
	Len int
}

// Error implements the error interface.
func (e *LineTooLongError) Error() string {
	return "claude: stream-json line of " + strconv.Itoa(e.Len) + " bytes is longer than MaxLineSize"
}

// Events returns the events of a run whose output is read from r (the
// CLI's standard output), in order, as [Turn.Feed] returns them.
//
// A line that cannot be used yields a nil Event and its error, a
// [*SyntaxError] or a [*LineTooLongError], and reading goes on with the
// next line. Blank lines, for which Feed returns nothing, are skipped. An
// error from r itself is yielded last; a line it cuts short is not fed.
// The sequence ends at the end of r: after the final event it goes on
// reading, and yields nothing more, so that the CLI never blocks on a full
// pipe. A caller that stops the loop early takes that duty over.
//
// Events keeps no goroutine and reads r only while the loop asks for the
// next event. Like [Turn] itself, it is not safe for concurrent use.
func (t *Turn) Events(r io.Reader) iter.Seq2[Event, error] {
	return t.events(r, MaxLineSize)
}

// events is Events with lines of at most maxLine bytes, so that tests can
// reach the limit without a 64 MiB line.
func (t *Turn) events(r io.Reader, maxLine int) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		lr := lines.NewReader(r, maxLine)
		var events []Event
		for {
			line, err := lr.Next()
			switch err := err.(type) {
			case nil:
			case *lines.TooLongError: // skipped whole; the next line is intact
				if t.done {
					continue // nothing is yielded after the final event
				}
				if !yield(nil, &LineTooLongError{Len: int(min(err.Length, math.MaxInt))}) {
					return
				}
				continue
			default: // the end of r
				if err != io.EOF {
					yield(nil, err)
				}
				return
			}
			events, err = t.Feed(line, events[:0])
			if err != nil {
				if !yield(nil, err) {
					return
				}
				continue
			}
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}
