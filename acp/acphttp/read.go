package acphttp

import (
	"bytes"
	"io"
	"math"

	"github.com/acpkit/acpkit/internal/lines"
)

// readMessage reads one message from r, a WebSocket message's reader or
// a body, into buf, keeping at most max bytes. A longer message is read
// to its end and discarded, so that the connection goes on, and reported
// as a *lines.TooLongError with its length and head, which the Conn
// answers as it answers a line too long: memory stays bounded by max,
// and time by the idle limit, which nothing read meanwhile resets. lr is
// the caller's, reused for each message so that reading one allocates
// nothing.
func readMessage(lr *io.LimitedReader, r io.Reader, buf *bytes.Buffer, max int) (*lines.TooLongError, error) {
	limit := int64(max)
	if limit < math.MaxInt64 {
		limit++
	}
	*lr = io.LimitedReader{R: r, N: limit}
	_, err := buf.ReadFrom(lr)
	lr.R = nil // keep no reader of a message past it
	if err != nil {
		return nil, err
	}
	if buf.Len() <= max {
		return nil, nil
	}
	tooLong := &lines.TooLongError{Max: max, Head: bytes.Clone(buf.Bytes()[:min(buf.Len(), lines.HeadLength)])}
	n, err := io.Copy(io.Discard, r)
	tooLong.Length = int64(buf.Len()) + n
	buf.Reset()
	if err != nil {
		return nil, err
	}
	return tooLong, nil
}

// readBody is readMessage for a body of its own.
func readBody(r io.Reader, max int) ([]byte, *lines.TooLongError, error) {
	var buf bytes.Buffer
	tooLong, err := readMessage(new(io.LimitedReader), r, &buf, max)
	return buf.Bytes(), tooLong, err
}
