package codextest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acpkit/acpkit/codex"
)

// Render parses every line of a `codex exec --json` transcript with
// [codex.ParseLine] and describes the outcome as indented JSON: for each
// line that yields events or an error, its 1-based line number, the events
// (each with its Go type name) and the error text. It is the format of the
// golden files beside the transcripts in codex/testdata, so a test can
// compare what a program read with what the transcript holds.
//
// Render fails only when r does.
func Render(r io.Reader) ([]byte, error) {
	type event struct {
		Type  string      `json:"type"`
		Event codex.Event `json:"event"`
	}
	type line struct {
		Line   int     `json:"line"`
		Error  string  `json:"error,omitempty"`
		Events []event `json:"events,omitempty"`
	}
	out := []line{}
	br := bufio.NewReader(r)
	var events []codex.Event
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			var perr error
			events, perr = codex.ParseLine(text, events[:0])
			l := line{Line: n}
			if perr != nil {
				l.Error = perr.Error()
			}
			for _, e := range events {
				l.Events = append(l.Events, event{Type: strings.TrimPrefix(fmt.Sprintf("%T", e), "codex."), Event: e})
			}
			if l.Error != "" || len(l.Events) > 0 {
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
