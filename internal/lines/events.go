package lines

import (
	"io"
	"iter"
)

// Events is the loop behind the parsers' Turn.Events: it reads r's lines,
// of at most maxLine bytes, hands each to feed with its 1-based number
// and byte offset, and yields the events feed returns, or its error. A
// line too long is skipped and yielded as tooLong's error for it, unless
// quiet reports that nothing more is to be yielded. An error from r is
// yielded last; io.EOF ends the sequence quietly.
//
// Events drops its reference to each event once yielded, and keeps no
// goroutine: it reads r only while the loop asks for the next event.
func Events[E any](r io.Reader, maxLine int,
	feed func(line []byte, events []E, n, offset int64) ([]E, error),
	tooLong func(err *TooLongError, n, offset int64) error,
	quiet func() bool,
) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		var zero E
		lr := NewReader(r, maxLine)
		var events []E
		for {
			line, err := lr.Next()
			n, offset := lr.Pos()
			switch err := err.(type) {
			case nil:
			case *TooLongError: // skipped whole; the next line is intact
				if quiet() {
					continue
				}
				if !yield(zero, tooLong(err, n, offset)) {
					return
				}
				continue
			default: // the end of r
				if err != io.EOF {
					yield(zero, err)
				}
				return
			}
			events, err = feed(line, events[:0], n, offset)
			if err != nil {
				if !yield(zero, err) {
					return
				}
				continue
			}
			for i, e := range events {
				events[i] = zero
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}
