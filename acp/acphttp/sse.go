package acphttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrMessageTooLarge is matched by the error a client's connection ends
// with when the server sends a message over DialOptions.MaxMessageBytes.
var ErrMessageTooLarge = errors.New("acphttp: message too large")

// An sseReader reads the data of Server-Sent Events, as the HTML
// standard's event stream format gives them: lines end in CRLF, LF or
// CR; a line starting with ':' is a comment; an event's "data" fields
// are joined with "\n" and the event ends at a blank line. Other fields
// (event, id, retry) are read and ignored: ACP uses none.
type sseReader struct {
	r      *bufio.Reader
	max    int // bytes of one event's data
	skipLF bool
	start  bool // at the start of the stream, where a BOM may be
	line   []byte
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4096), max: max, start: true}
}

// Next returns the data of the next event that has any, in a slice of
// its own. It returns io.EOF at the end of the stream (an event cut off
// by the end is dropped, as the standard says), and an error matching
// ErrMessageTooLarge for an event over the maximum, after which the
// stream is unusable.
func (s *sseReader) Next() ([]byte, error) {
	var data []byte
	have := false
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if have {
				return data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if string(name) != "data" {
			continue
		}
		n := len(value)
		if have {
			n++
		}
		if len(data)+n > s.max {
			return nil, fmt.Errorf("%w: an event of more than %d bytes", ErrMessageTooLarge, s.max)
		}
		if have {
			data = append(data, '\n')
		}
		data = append(data, value...)
		have = true
	}
}

// readLine returns the next line without its terminator; the slice is
// valid until the next call. A line longer than the maximum plus room
// for its field name fails.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	limit := s.max + len("data: ")
	if s.start {
		s.start = false
		// Peek waits for the BOM's three bytes, which may come in more
		// than one read.
		if b, _ := s.r.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
			s.r.Discard(3)
		}
	}
	for {
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); err != nil {
				return nil, err // a line cut off by the end is dropped
			}
		}
		chunk, _ := s.r.Peek(s.r.Buffered())
		if s.skipLF {
			s.skipLF = false
			if chunk[0] == '\n' {
				s.r.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(chunk, "\r\n")
		end := i
		if i < 0 {
			end = len(chunk)
		}
		if len(s.line)+end > limit {
			return nil, fmt.Errorf("%w: a line of more than %d bytes", ErrMessageTooLarge, limit)
		}
		s.line = append(s.line, chunk[:end]...)
		if i < 0 {
			s.r.Discard(end)
			continue
		}
		s.skipLF = chunk[i] == '\r'
		s.r.Discard(i + 1)
		return s.line, nil
	}
}
