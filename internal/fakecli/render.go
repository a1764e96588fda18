package fakecli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Line is one line of a transcript as a golden file shows it: its 1-based
// number, the session id when it differs from the previous one's, the
// parser's error and its events.
type Line[E any] struct {
	Line      int        `json:"line"`
	SessionID string     `json:"session_id,omitempty"`
	Error     string     `json:"error,omitempty"`
	Events    []Typed[E] `json:"events,omitempty"`
}

// Typed is an event with its Go type name, without the package's.
type Typed[E any] struct {
	Type  string `json:"type"`
	Event E      `json:"event"`
}

// Describe names the type of each event, dropping the prefix pkg+"."; nil
// for no events.
func Describe[E any](events []E, pkg string) []Typed[E] {
	var out []Typed[E]
	for _, e := range events {
		out = append(out, Typed[E]{Type: strings.TrimPrefix(fmt.Sprintf("%T", e), pkg+"."), Event: e})
	}
	return out
}

// Lines reads r line by line and describes what parse, a package's
// ParseLine, makes of each line that yields events, an error or a new
// session id; pkg is the package's name. Each line is also handed, with
// its number, to each, when it is not nil. Lines fails only when r does.
func Lines[E any](r io.Reader, pkg string, parse func(line []byte, events []E) ([]E, []byte, error), each func(n int, line []byte)) ([]Line[E], error) {
	out := []Line[E]{}
	br := bufio.NewReader(r)
	session := ""
	var events []E
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			var sid []byte
			var perr error
			events, sid, perr = parse(text, events[:0])
			l := Line[E]{Line: n, Events: Describe(events, pkg)}
			if perr != nil {
				l.Error = perr.Error()
			}
			if sid != nil && string(sid) != session {
				session = string(sid)
				l.SessionID = session
			}
			if l.Error != "" || l.SessionID != "" || len(l.Events) > 0 {
				out = append(out, l)
			}
			if each != nil {
				each(n, text)
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Encode writes v as a golden file holds it: indented JSON, without
// escaping HTML.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
