package geminitest

import (
	"io"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/internal/fakecli"
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
	type turn struct {
		Events    []event `json:"events"`
		Skipped   []int   `json:"skipped_lines,omitempty"`
		SessionID string  `json:"session_id"`
		Err       string  `json:"err,omitempty"`
	}
	out := struct {
		Lines []fakecli.Line[gemini.Event] `json:"lines"`
		Turn  turn                         `json:"turn"`
	}{Turn: turn{Events: []event{}}}
	t := gemini.NewTurn(resumeID)
	var fed []gemini.Event
	lines, err := fakecli.Lines(r, "gemini", gemini.ParseLine, func(n int, line []byte) {
		var ferr error
		fed, ferr = t.Feed(line, fed[:0])
		if ferr != nil {
			out.Turn.Skipped = append(out.Turn.Skipped, n)
		}
		out.Turn.Events = append(out.Turn.Events, describe(fed)...)
	})
	if err != nil {
		return nil, err
	}
	out.Lines = lines
	out.Turn.Events = append(out.Turn.Events, describe(t.Finish(exit, nil))...)
	out.Turn.SessionID = t.SessionID()
	if err := t.Err(); err != nil {
		out.Turn.Err = err.Error()
	}
	return fakecli.Encode(out)
}

// event is an event with its type name, as Render shows it.
type event = fakecli.Typed[gemini.Event]

func describe(events []gemini.Event) []event { return fakecli.Describe(events, "gemini") }
