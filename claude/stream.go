package claude

import (
	"bufio"
	"io"
	"iter"
	"strconv"
)

// MaxLineSize is the longest line, in bytes without its newline, that
// [Turn.Events] reads. Real lines, even tool results that carry images,
// stay far below it; it bounds the memory a runaway line can take.
const MaxLineSize = 64 << 20

// LineTooLongError reports a line longer than [MaxLineSize]. The line is
// skipped, not kept: Len is its length in bytes, without its newline.
type LineTooLongError struct {
	Len int
}

func (e *LineTooLongError) Error() string {
	return "claude: stream-json line of " + strconv.Itoa(e.Len) + " bytes is longer than MaxLineSize"
}

// Events returns the events of a run whose output is read from r (the
// CLI's standard output), in order, as [Turn.Feed] returns them.
//
// A line that cannot be used yields a nil Event and its error, a
// [*SyntaxError] or a [*LineTooLongError], and reading goes on with the
// next line. An error from r itself is yielded last. The sequence ends at
// the end of r: after the final event it goes on reading, and yields
// nothing more, so that the CLI never blocks on a full pipe. A caller that
// stops the loop early takes that duty over.
//
// Events keeps no goroutine and reads r only while the loop asks for the
// next event. Like [Turn] itself, it is not safe for concurrent use.
func (t *Turn) Events(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		lines := lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxLineSize}
		var events []Event
		for {
			line, err := lines.next()
			switch err.(type) {
			case nil:
			case *LineTooLongError: // skipped whole; the next line is intact
				if !yield(nil, err) {
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

// lineReader splits a stream into lines of at most max bytes, skipping
// longer ones whole, so that one bad line never costs the lines after it.
type lineReader struct {
	br  *bufio.Reader
	buf []byte // a line that spans several reads of br
	max int
	err error // the error that ended the input, returned from then on
}

// next returns the next line without its newline. The line aliases
// buffers that the following call reuses. A final line without a newline
// is returned before the end of input; then err is io.EOF, or the error
// the reader failed with.
func (lr *lineReader) next() ([]byte, error) {
	if lr.err != nil {
		return nil, lr.err
	}
	lr.buf = lr.buf[:0]
	size := 0
	for {
		chunk, err := lr.br.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		size += len(chunk)
		switch {
		case size > lr.max:
			// Keep counting, never storing, to the end of the line.
		case complete && len(lr.buf) == 0:
			return chunk, nil // the whole line is in br's buffer
		default:
			lr.buf = append(lr.buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !complete {
			lr.err = err
		}
		switch {
		case size > lr.max:
			return nil, &LineTooLongError{Len: size}
		case complete || size > 0:
			return lr.buf, nil
		}
		return nil, err
	}
}
