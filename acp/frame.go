package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// DefaultMaxLineLength is the longest line, in bytes and excluding its
// terminator, that a [FrameReader] accepts unless told otherwise: 32 MiB,
// room for a prompt carrying a large embedded resource.
const DefaultMaxLineLength = 32 << 20

// initialFrameBuffer is the size of a FrameReader's first buffer; it grows
// by doubling, up to the maximum line length, only when a line needs it.
const initialFrameBuffer = 64 << 10

// ErrLineTooLong is matched (with [errors.Is]) by the [*LineTooLongError]
// that [FrameReader.Next] returns for a line longer than its maximum.
var ErrLineTooLong = errors.New("acp: line too long")

// LineTooLongError reports a line longer than a [FrameReader]'s maximum. The
// line has been skipped entirely: the reader's next frame is the line after.
type LineTooLongError struct {
	// Length is the skipped line's length in bytes, excluding its terminator.
	Length int64
	// Max is the reader's maximum line length.
	Max int
}

// Error implements the error interface.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("acp: line of %d bytes exceeds the maximum of %d", e.Length, e.Max)
}

// Is reports whether target is [ErrLineTooLong].
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// maxEmptyReads is how many (0, nil) reads in a row a FrameReader accepts
// before reporting [io.ErrNoProgress], as bufio does.
const maxEmptyReads = 100

// A FrameReader splits a byte stream into frames, one per line, as ACP
// carries one JSON-RPC message per line. It does not look inside the lines:
// checking UTF-8 and JSON is [Classify]'s job.
//
// A line ends at "\n"; a "\r" just before it is part of the terminator. A
// last line without a terminator is still a frame, and a trailing "\r" at
// the end of input is dropped, as with [bufio.ScanLines]. Blank lines —
// empty, or made only of spaces, tabs and "\r", which is JSON's
// insignificant white space — carry no message and are skipped.
//
// A line longer than the maximum is skipped up to its terminator and
// reported as a [*LineTooLongError]; the reader goes on with the next line,
// so one oversized message does not end a connection. Memory stays bounded
// by the maximum however long the line is, which is also why a line of
// white space longer than the maximum is reported rather than skipped.
//
// A FrameReader is not safe for concurrent use.
type FrameReader struct {
	r   io.Reader
	max int

	buf   []byte // buf[start:end] is read but not yet returned
	start int
	end   int
	scan  int // buf[start:scan] is known to hold no '\n'

	skipping bool  // inside an oversized line, discarding up to its '\n'
	skipped  int64 // bytes of the oversized line discarded so far
	lastCR   bool  // the last discarded byte was '\r'

	err error // sticky error from r, returned once buffered lines are out
}

// NewFrameReader returns a FrameReader reading from r whose lines may be at
// most maxLine bytes long, terminator excluded. A maxLine of 0 or less means
// [DefaultMaxLineLength]. The reader's buffer starts small and grows only as
// long lines need it, never beyond maxLine plus two bytes.
func NewFrameReader(r io.Reader, maxLine int) *FrameReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineLength
	}
	return &FrameReader{r: r, max: maxLine}
}

// Next returns the next frame, without its terminator. It returns a
// [*LineTooLongError] for a line over the maximum, after which Next may be
// called again for the following line; [io.EOF] when the input ends; and
// any other error the underlying reader returns, which is sticky. A line cut
// short by such an error is not returned.
//
// The frame aliases the reader's buffer and is valid only until the next
// call to Next: copy what must outlive it.
func (fr *FrameReader) Next() ([]byte, error) {
	emptyReads := 0
	for {
		if i := bytes.IndexByte(fr.buf[fr.scan:fr.end], '\n'); i >= 0 {
			nl := fr.scan + i
			line := fr.buf[fr.start:nl]
			fr.start = nl + 1
			fr.scan = fr.start
			if fr.skipping {
				return nil, fr.endSkip(line, true)
			}
			line = dropCR(line)
			if len(line) > fr.max {
				return nil, &LineTooLongError{Length: int64(len(line)), Max: fr.max}
			}
			if isBlank(line) {
				continue
			}
			return line, nil
		}
		fr.scan = fr.end

		if fr.skipping {
			// Discard what is buffered, remembering only whether it ended
			// in '\r', which may belong to the terminator.
			if n := fr.end - fr.start; n > 0 {
				fr.skipped += int64(n)
				fr.lastCR = fr.buf[fr.end-1] == '\r'
			}
			fr.start, fr.end, fr.scan = 0, 0, 0
		} else if fr.end-fr.start > fr.max+1 {
			// More than the maximum and a '\r' without a newline: the line
			// is too long whatever follows. Drop it and skip to its end.
			fr.skipping = true
			fr.skipped = int64(fr.end - fr.start)
			fr.lastCR = fr.buf[fr.end-1] == '\r'
			fr.start, fr.end, fr.scan = 0, 0, 0
		}

		if fr.err != nil {
			return fr.atError()
		}

		fr.makeRoom()
		n, err := fr.r.Read(fr.buf[fr.end:])
		if n < 0 || n > len(fr.buf)-fr.end {
			n, err = 0, errors.New("acp: reader returned an invalid count")
		}
		fr.end += n
		if err != nil {
			fr.err = err
		} else if n == 0 {
			if emptyReads++; emptyReads >= maxEmptyReads {
				fr.err = io.ErrNoProgress
			}
		} else {
			emptyReads = 0
		}
	}
}

// atError is Next once every complete line before the read error is out.
func (fr *FrameReader) atError() ([]byte, error) {
	if fr.err != io.EOF {
		fr.start, fr.end, fr.scan = 0, 0, 0
		fr.skipping = false
		return nil, fr.err
	}
	// At EOF the unterminated rest of the input is the last line.
	line := fr.buf[fr.start:fr.end]
	fr.start, fr.end, fr.scan = 0, 0, 0
	if fr.skipping {
		return nil, fr.endSkip(line, false)
	}
	line = dropCR(line)
	if len(line) > fr.max {
		return nil, &LineTooLongError{Length: int64(len(line)), Max: fr.max}
	}
	if len(line) == 0 || isBlank(line) {
		return nil, io.EOF
	}
	return line, nil
}

// endSkip ends an oversized line whose last buffered part is tail; newline
// reports whether a '\n' terminated it.
func (fr *FrameReader) endSkip(tail []byte, newline bool) error {
	n := fr.skipped + int64(len(tail))
	cr := fr.lastCR
	if len(tail) > 0 {
		cr = tail[len(tail)-1] == '\r'
	}
	if cr && (newline || fr.err == io.EOF) {
		n-- // the '\r' belongs to the terminator
	}
	fr.skipping, fr.skipped, fr.lastCR = false, 0, false
	return &LineTooLongError{Length: n, Max: fr.max}
}

// makeRoom ensures buf[end:] has space to read into, moving the pending
// bytes to the front or growing the buffer up to max+2 bytes (a full line,
// '\r' and '\n').
func (fr *FrameReader) makeRoom() {
	if fr.end < len(fr.buf) {
		return
	}
	if fr.start > 0 {
		n := copy(fr.buf, fr.buf[fr.start:fr.end])
		fr.scan -= fr.start
		fr.start, fr.end = 0, n
		return
	}
	limit := fr.max + 2
	size := min(max(2*len(fr.buf), initialFrameBuffer), limit)
	buf := make([]byte, size)
	copy(buf, fr.buf[:fr.end])
	fr.buf = buf
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

// ErrNotJSON is returned by [FrameWriter.WriteFrame] for a message that is
// not a single valid JSON value.
var ErrNotJSON = errors.New("acp: message is not valid JSON")

// A FrameWriter writes messages to an [io.Writer], one per line. It is safe
// for concurrent use: messages are written whole, in the order of the calls,
// each with a single Write of the message and its "\n".
type FrameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewFrameWriter returns a FrameWriter writing to w.
func NewFrameWriter(w io.Writer) *FrameWriter {
	return &FrameWriter{w: w}
}

// WriteFrame writes msg followed by "\n". msg must be one valid JSON value
// in valid UTF-8, nested at most 10000 levels deep; anything else is refused
// with an error matching [ErrNotJSON] and nothing is written. White space outside strings (pretty-printing) is removed, so
// the message fits on one line. WriteFrame does not keep msg.
func (fw *FrameWriter) WriteFrame(msg []byte) error {
	if !jsonscan.Valid(msg) {
		return ErrNotJSON
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.buf = appendCompact(fw.buf[:0], msg)
	return fw.flush()
}

// writeLine writes line, which the caller guarantees is one line of compact
// JSON (encoding/json's output), followed by "\n", skipping the validation.
func (fw *FrameWriter) writeLine(line []byte) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.buf = append(fw.buf[:0], line...)
	return fw.flush()
}

func (fw *FrameWriter) flush() error {
	fw.buf = append(fw.buf, '\n')
	n, err := fw.w.Write(fw.buf)
	if err == nil && n != len(fw.buf) {
		err = io.ErrShortWrite
	}
	if cap(fw.buf) > initialFrameBuffer {
		fw.buf = nil // do not pin the memory of one huge message
	}
	return err
}

// appendCompact appends the valid JSON value src to dst without the white
// space outside its strings, copying runs rather than bytes.
func appendCompact(dst, src []byte) []byte {
	start := 0 // src[start:i] is still to be copied
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src); i++ {
				if c := src[i]; c == '\\' {
					i++ // valid JSON: an escape is never last
				} else if c == '"' {
					break
				}
			}
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
