package claudetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acpkit/acpkit/claude"
)

// Render parses every line of a stream-json transcript with
// [claude.Parser.ParseLine], reporting unknown lines as [claude.Unknown]
// events, and describes the outcome as indented JSON: for each
// line that yields events, an error or a new session id, its 1-based line
// number, the events (each with its Go type name), the error text, and the
// session id when it differs from the previous one. It is the format of the
// golden files beside the transcripts in claude/testdata, so a test can
// compare what a program read with what the transcript holds.
//
// Render fails only when r does.
func Render(r io.Reader) ([]byte, error) {
	type event struct {
		Type  string       `json:"type"`
		Event claude.Event `json:"event"`
	}
	type line struct {
		Line      int     `json:"line"`
		SessionID string  `json:"session_id,omitempty"`
		Error     string  `json:"error,omitempty"`
		Events    []event `json:"events,omitempty"`
	}
	out := []line{}
	br := bufio.NewReader(r)
	session := ""
	var events []claude.Event
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			var sid []byte
			var perr error
			events, sid, perr = claude.Parser{ReportUnknown: true}.ParseLine(text, events[:0])
			l := line{Line: n}
			if perr != nil {
				l.Error = perr.Error()
			}
			if sid != nil && string(sid) != session {
				session = string(sid)
				l.SessionID = session
			}
			for _, e := range events {
				l.Events = append(l.Events, event{Type: strings.TrimPrefix(fmt.Sprintf("%T", e), "claude."), Event: e})
			}
			if l.Error != "" || l.SessionID != "" || len(l.Events) > 0 {
				out = append(out, l)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
