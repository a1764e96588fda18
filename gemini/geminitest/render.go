package geminitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acpkit/acpkit/gemini"
)

// Render describes, as indented JSON, what the gemini package reads from a
// stream-json transcript: under "lines", every line that yields events, an
// error or a new session id, as [gemini.ParseLine] returns them (with
// 1-based line numbers and each event's Go type name); under "turn", what a
// [gemini.Turn] resuming resumeID ("" for a new session) returns for the
// whole transcript followed by [gemini.Turn.Finish] with exit, and its
// session id and error afterwards. It is the format of the golden files in
// gemini/testdata, so a test can compare what a program read with what the
// transcript holds.
//
// Render fails only when r does.
func Render(r io.Reader, resumeID string, exit int) ([]byte, error) {
	type line struct {
		Line      int     `json:"line"`
		SessionID string  `json:"session_id,omitempty"`
		Error     string  `json:"error,omitempty"`
		Events    []event `json:"events,omitempty"`
	}
	type turn struct {
		Events    []event `json:"events"`
		Skipped   []int   `json:"skipped_lines,omitempty"`
		SessionID string  `json:"session_id"`
		Err       string  `json:"err,omitempty"`
	}
	out := struct {
		Lines []line `json:"lines"`
		Turn  turn   `json:"turn"`
	}{Lines: []line{}, Turn: turn{Events: []event{}}}
	t := gemini.NewTurn(resumeID)
	br := bufio.NewReader(r)
	session := ""
	var events, fed []gemini.Event
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			var sid []byte
			var perr error
			events, sid, perr = gemini.ParseLine(text, events[:0])
			l := line{Line: n, Events: describe(events)}
			if perr != nil {
				l.Error = perr.Error()
			}
			if sid != nil && string(sid) != session {
				session = string(sid)
				l.SessionID = session
			}
			if l.Error != "" || l.SessionID != "" || len(l.Events) > 0 {
				out.Lines = append(out.Lines, l)
			}
			var ferr error
			fed, ferr = t.Feed(text, fed[:0])
			if ferr != nil {
				out.Turn.Skipped = append(out.Turn.Skipped, n)
			}
			out.Turn.Events = append(out.Turn.Events, describe(fed)...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out.Turn.Events = append(out.Turn.Events, describe(t.Finish(exit, nil))...)
	out.Turn.SessionID = t.SessionID()
	if err := t.Err(); err != nil {
		out.Turn.Err = err.Error()
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

// event is an event with its type name, as Render shows it.
type event struct {
	Type  string       `json:"type"`
	Event gemini.Event `json:"event"`
}

func describe(events []gemini.Event) []event {
	var out []event
	for _, e := range events {
		out = append(out, event{Type: strings.TrimPrefix(fmt.Sprintf("%T", e), "gemini."), Event: e})
	}
	return out
}
