package claude_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
)

// sessionLines are the CLI's lines of the interrupt transcript: stream
// events, control responses, assistant, user and result lines.
func sessionLines(b *testing.B) ([][]byte, int64) {
	b.Helper()
	f, err := os.Open("testdata/control/interrupt.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	records, err := claudetest.ReadRecords(f)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	var size int64
	for _, r := range records {
		if r.Dir == claudetest.DirOut {
			lines = append(lines, []byte(r.Line))
			size += int64(len(r.Line))
		}
	}
	return lines, size
}

// BenchmarkSessionFeed reads the lines through a Session; compare it with
// BenchmarkSessionFeedBaseline, ParseLine alone on the same lines, for
// what the control protocol costs.
func BenchmarkSessionFeed(b *testing.B) {
	lines, size := sessionLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	s := claude.NewSession(&bytes.Buffer{}, "")
	events := make([]claude.Event, 0, 16)
	for b.Loop() {
		for _, line := range lines {
			var err error
			if events, err = s.Feed(line, events[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkSessionFeedBaseline(b *testing.B) {
	lines, size := sessionLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	events := make([]claude.Event, 0, 16)
	for b.Loop() {
		for _, line := range lines {
			var err error
			if events, _, err = claude.ParseLine(line, events[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
