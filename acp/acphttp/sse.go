package acphttp

import (
	"bufio"
	"bytes"
	"io"
	"math"

	"github.com/acpkit/acpkit/internal/lines"
)

// An sseReader reads the data of Server-Sent Events, as the HTML
// standard's event stream format gives them: lines end in CRLF, LF or
// CR; a line starting with ':' is a comment; an event's "data" fields
// are joined with "\n" and the event ends at a blank line. Other fields
// (event, id, retry) are read and ignored: ACP uses none.
type sseReader struct {
	r      *bufio.Reader
	max    int // bytes of one event's data
	skipLF bool
	start  bool   // at the start of the stream, where a BOM may be
	line   []byte // the start of the line last read
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4096), max: max, start: true}
}

// Next returns the data of the next event that has any, in a slice of
// its own. It returns io.EOF at the end of the stream (an event cut off
// by the end is dropped, as the standard says). An event whose data is
// over the maximum is skipped to its end and reported as a
// *lines.TooLongError, with its length and the head of its data; Next
// then goes on with the next event. Memory stays bounded by the maximum.
func (s *sseReader) Next() ([]byte, error) {
	var data []byte
	have := false
	var over *lines.TooLongError // set once the event's data is too long
	for {
		line, n, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			switch {
			case over != nil:
				return nil, over
			case have:
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
		// The field's whole value: line holds only the line's start.
		size := n - int64(len(line)-len(value))
		if have {
			size++ // the "\n" joining it to the data before
		}
		switch {
		case over != nil:
			over.Length += size
			over.Head = appendHead(over.Head, value, have)
		case int64(len(data))+size > int64(s.max):
			head := bytes.Clone(data[:min(len(data), lines.HeadLength)])
			over = &lines.TooLongError{Length: int64(len(data)) + size, Max: s.max, Head: appendHead(head, value, have)}
			data = nil
		default:
			if have {
				data = append(data, '\n')
			}
			data = append(data, value...)
		}
		have = true
	}
}

// appendHead appends to head, the first bytes of an event's data, as
// much as fits in lines.HeadLength of the field value that follows: the
// "\n" that joins it to the data before, if any, then the value.
func appendHead(head, value []byte, joined bool) []byte {
	if joined && len(head) < lines.HeadLength {
		head = append(head, '\n')
	}
	return append(head, value[:min(len(value), lines.HeadLength-len(head))]...)
}

// readLine returns the start of the next line, without its terminator,
// and the line's length, 0 for a blank line. It keeps no more than the
// maximum (or lines.HeadLength if more) plus room for the field's name:
// the rest of a longer line is read and counted, not kept. The slice is valid until the next call.
func (s *sseReader) readLine() (line []byte, n int64, err error) {
	s.line = s.line[:0]
	keep := max(s.max, lines.HeadLength) // the head of a long line, too
	if keep < math.MaxInt-len("data: ") {
		keep += len("data: ")
	}
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
				return nil, 0, err // a line cut off by the end is dropped
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
		if room := keep - len(s.line); room > 0 {
			s.line = append(s.line, chunk[:min(end, room)]...)
		}
		n += int64(end)
		if i < 0 {
			s.r.Discard(end)
			continue
		}
		s.skipLF = chunk[i] == '\r'
		s.r.Discard(i + 1)
		return s.line, n, nil
	}
}
