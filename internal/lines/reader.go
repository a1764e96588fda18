package lines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// initialBuffer is the size of a Reader's first buffer; it grows by
// doubling, up to the maximum line length, only when a line needs it.
const initialBuffer = 64 << 10

// keepBuffer is the largest buffer a Reader keeps once the long line that
// needed it has been returned or skipped: a larger one goes back to the
// garbage collector, so that one long line does not hold memory for the
// life of the reader.
const keepBuffer = 1 << 20

// HeadLength is how many bytes of a line too long to read a [TooLongError]
// keeps, enough for the members that come first, such as a JSON-RPC id.
const HeadLength = 256

// maxEmptyReads is how many (0, nil) reads in a row a Reader accepts before
// reporting [io.ErrNoProgress], as bufio does.
const maxEmptyReads = 100

// errBadCount is returned for a Read that claims more bytes than it was
// given room for, or fewer than none.
var errBadCount = errors.New("io.Reader returned an invalid count")

// TooLongError reports a line longer than a [Reader]'s maximum. The line
// has been skipped entirely: the reader's next line is the one after.
type TooLongError struct {
	// Length is the skipped line's length in bytes, excluding its
	// terminator. It is an int64 because the line was never held whole.
	Length int64
	// Max is the reader's maximum line length.
	Max int
	// Head is the line's first bytes, at most [HeadLength] of them; the
	// error owns it.
	Head []byte
}

// Error implements the error interface.
func (e *TooLongError) Error() string {
	return fmt.Sprintf("line of %d bytes exceeds the maximum of %d", e.Length, e.Max)
}

// A Reader splits a byte stream into lines. It does not look inside them.
//
// A line ends at "\n"; a "\r" just before it is part of the terminator. A
// last line without a terminator is still a line, and a trailing "\r" at
// the end of input is dropped, as with [bufio.ScanLines]. Blank lines —
// empty, or made only of spaces, tabs and "\r", which is JSON's
// insignificant white space — are skipped.
//
// A line longer than the maximum is skipped up to its terminator and
// reported as a [*TooLongError]; the reader goes on with the next line.
// Memory stays bounded by the maximum however long the line is, which is
// also why a line of white space longer than the maximum is reported rather
// than skipped.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	r   io.Reader
	max int

	buf   []byte // buf[start:end] is read but not yet returned
	start int
	end   int
	scan  int // buf[start:scan] is known to hold no '\n'

	skipping bool   // inside an oversized line, discarding up to its '\n'
	skipped  int64  // bytes of the oversized line discarded so far
	lastCR   bool   // the last discarded byte was '\r'
	head     []byte // the oversized line's first bytes

	err error // sticky error from r, returned once buffered lines are out

	lines    int64 // lines consumed, blank and oversized ones included
	next     int64 // byte offset of the first line not yet consumed
	lastLine int64 // Pos of the line last returned or reported
	lastOff  int64
}

// NewReader returns a Reader reading from r whose lines may be at most
// maxLine bytes long, terminator excluded; a negative maxLine counts as 0.
// The buffer starts small and grows only as long lines need it, never
// beyond maxLine plus two bytes.
func NewReader(r io.Reader, maxLine int) *Reader {
	// Capped so that maxLine+2, the largest buffer, cannot overflow.
	return &Reader{r: r, max: min(max(maxLine, 0), math.MaxInt-2)}
}

// Next returns the next line that is not blank, without its terminator. It
// returns a [*TooLongError] for a line over the maximum, after which Next
// may be called again for the following line; [io.EOF] when the input
// ends; and any other error the underlying reader returns, which is sticky.
// A line cut short by such an error is not returned.
//
// The line aliases the reader's buffer and is valid only until the next
// call to Next: copy what must outlive it.
func (lr *Reader) Next() ([]byte, error) {
	lr.shrink()
	emptyReads := 0
	for {
		if i := bytes.IndexByte(lr.buf[lr.scan:lr.end], '\n'); i >= 0 {
			nl := lr.scan + i
			line := lr.buf[lr.start:nl]
			lr.consume(int64(nl + 1 - lr.start))
			lr.start = nl + 1
			lr.scan = lr.start
			if lr.skipping {
				return nil, lr.endSkip(line, true)
			}
			line = dropCR(line)
			if len(line) > lr.max {
				return nil, &TooLongError{Length: int64(len(line)), Max: lr.max, Head: head(line)}
			}
			if isBlank(line) {
				continue
			}
			return line, nil
		}
		lr.scan = lr.end

		if lr.skipping {
			// Discard what is buffered, remembering only whether it ended
			// in '\r', which may belong to the terminator.
			if n := lr.end - lr.start; n > 0 {
				lr.skipped += int64(n)
				lr.lastCR = lr.buf[lr.end-1] == '\r'
			}
			lr.start, lr.end, lr.scan = 0, 0, 0
		} else if lr.end-lr.start > lr.max+1 {
			// More than the maximum and a '\r' without a newline: the line
			// is too long whatever follows. Drop it and skip to its end.
			lr.skipping = true
			lr.skipped = int64(lr.end - lr.start)
			lr.lastCR = lr.buf[lr.end-1] == '\r'
			lr.head = head(lr.buf[lr.start:lr.end])
			lr.start, lr.end, lr.scan = 0, 0, 0
		}

		if lr.err != nil {
			return lr.atError()
		}

		lr.makeRoom()
		n, err := lr.r.Read(lr.buf[lr.end:])
		if n < 0 || n > len(lr.buf)-lr.end {
			n, err = 0, errBadCount
		}
		lr.end += n
		if err != nil {
			lr.err = err
		} else if n == 0 {
			if emptyReads++; emptyReads >= maxEmptyReads {
				lr.err = io.ErrNoProgress
			}
		} else {
			emptyReads = 0
		}
	}
}

// atError is Next once every complete line before the read error is out.
func (lr *Reader) atError() ([]byte, error) {
	if lr.err != io.EOF {
		lr.start, lr.end, lr.scan = 0, 0, 0
		lr.skipping, lr.head = false, nil
		return nil, lr.err
	}
	// At EOF the unterminated rest of the input is the last line.
	line := lr.buf[lr.start:lr.end]
	if len(line) > 0 || lr.skipping {
		lr.consume(int64(len(line)))
	}
	lr.start, lr.end, lr.scan = 0, 0, 0
	if lr.skipping {
		return nil, lr.endSkip(line, false)
	}
	line = dropCR(line)
	if len(line) > lr.max {
		return nil, &TooLongError{Length: int64(len(line)), Max: lr.max, Head: head(line)}
	}
	if len(line) == 0 || isBlank(line) {
		return nil, io.EOF
	}
	return line, nil
}

// consume records that the line starting at lr.next, of which n bytes
// (terminator included) are still buffered, has been consumed: whatever
// Next does with it, Pos now names it.
func (lr *Reader) consume(n int64) {
	if lr.skipping {
		n += lr.skipped
	}
	lr.lines++
	lr.lastLine, lr.lastOff = lr.lines, lr.next
	lr.next += n
}

// Max returns the longest line the Reader accepts, in bytes excluding the
// terminator.
func (lr *Reader) Max() int { return lr.max }

// Pos returns the position of the line that the last call to Next returned
// or reported as a [*TooLongError]: its 1-based number and the byte offset
// of its first byte in the input. Blank lines count, and an oversized
// line counts as one. Before the first line, Pos returns 0, 0.
func (lr *Reader) Pos() (line, offset int64) { return lr.lastLine, lr.lastOff }

// endSkip ends an oversized line whose last buffered part is tail; newline
// reports whether a '\n' terminated it.
func (lr *Reader) endSkip(tail []byte, newline bool) error {
	n := lr.skipped + int64(len(tail))
	cr := lr.lastCR
	if len(tail) > 0 {
		cr = tail[len(tail)-1] == '\r'
	}
	if cr && (newline || lr.err == io.EOF) {
		n-- // the '\r' belongs to the terminator
	}
	h := lr.head
	lr.skipping, lr.skipped, lr.lastCR, lr.head = false, 0, false, nil
	return &TooLongError{Length: n, Max: lr.max, Head: h}
}

// head returns a copy of line's first bytes, at most HeadLength of them.
func head(line []byte) []byte {
	return bytes.Clone(line[:min(len(line), HeadLength)])
}

// shrink gives a buffer grown past keepBuffer back, once what it holds
// fits a small one: the caller no longer holds the last line returned,
// which aliased it.
func (lr *Reader) shrink() {
	if len(lr.buf) <= keepBuffer || lr.end-lr.start > initialBuffer {
		return
	}
	buf := make([]byte, initialBuffer)
	n := copy(buf, lr.buf[lr.start:lr.end])
	lr.scan -= lr.start
	lr.buf, lr.start, lr.end = buf, 0, n
}

// makeRoom ensures buf[end:] has space to read into, moving the pending
// bytes to the front or growing the buffer up to max+2 bytes (a full line,
// '\r' and '\n').
func (lr *Reader) makeRoom() {
	if lr.end < len(lr.buf) {
		return
	}
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.scan -= lr.start
		lr.start, lr.end = 0, n
		return
	}
	limit := lr.max + 2
	size := min(max(2*len(lr.buf), initialBuffer), limit)
	buf := make([]byte, size)
	copy(buf, lr.buf[:lr.end])
	lr.buf = buf
}

func dropCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// isBlank reports whether line holds only JSON white space other than
// newlines. A JSON message starts with '{', so this costs one comparison.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
