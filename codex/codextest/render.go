package codextest

import (
	"io"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/fakecli"
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
	lines, err := fakecli.Lines(r, "codex", codex.ParseLine, nil)
	if err != nil {
		return nil, err
	}
	return fakecli.Encode(lines)
}
