package claudetest

import (
	"io"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/fakecli"
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
	lines, err := fakecli.Lines(r, "claude", claude.Parser{ReportUnknown: true}.ParseLine, nil)
	if err != nil {
		return nil, err
	}
	return fakecli.Encode(lines)
}
