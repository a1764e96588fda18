package acp

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/wire"
)

// DefaultMaxLineLength is the longest line, in bytes and excluding its
// terminator, that a [FrameReader] accepts unless told otherwise: 32 MiB,
// room for a prompt carrying a large embedded resource.
const DefaultMaxLineLength = 32 << 20

// frameWriterKeep is the largest buffer a FrameWriter keeps between
// messages: one huge message should not pin its memory.
const frameWriterKeep = 64 << 10

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
	lr *lines.Reader
}

// NewFrameReader returns a FrameReader reading from r whose lines may be at
// most maxLine bytes long, terminator excluded. A maxLine of 0 or less means
// [DefaultMaxLineLength]. The reader's buffer starts small and grows only as
// long lines need it, never beyond maxLine plus two bytes.
func NewFrameReader(r io.Reader, maxLine int) *FrameReader {
	return &FrameReader{lr: lines.NewReader(r, maxLineLength(maxLine))}
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
	frame, err := fr.lr.Next()
	if err != nil {
		return nil, frameError(err)
	}
	return frame, nil
}

// maxLineLength is the line limit that n, a maximum given to
// [NewFrameReader] or [ConnOptions], means: 0 or less is the default.
func maxLineLength(n int) int {
	if n <= 0 {
		return DefaultMaxLineLength
	}
	return n
}

// frameError gives an error from [lines.Reader.Next] this package's type.
func frameError(err error) error {
	if tooLong, ok := err.(*lines.TooLongError); ok {
		return &LineTooLongError{Length: tooLong.Length, Max: tooLong.Max}
	}
	return err
}

// ErrNotJSON is returned by [FrameWriter.WriteFrame] for a message that is
// not a single valid JSON value.
var ErrNotJSON = wire.ErrNotJSON

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
// with an error matching [ErrNotJSON] and nothing is written. White space
// outside strings (pretty-printing) is removed, so the message fits on one
// line. WriteFrame does not keep msg.
func (fw *FrameWriter) WriteFrame(msg []byte) error {
	if !jsonscan.Valid(msg) {
		return ErrNotJSON
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.buf = wire.AppendCompact(fw.buf[:0], msg)
	return fw.flush()
}

func (fw *FrameWriter) flush() error {
	fw.buf = append(fw.buf, '\n')
	n, err := fw.w.Write(fw.buf)
	if err == nil && n != len(fw.buf) {
		err = io.ErrShortWrite
	}
	if cap(fw.buf) > frameWriterKeep {
		fw.buf = nil
	}
	return err
}
