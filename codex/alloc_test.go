package codex_test

import (
	"testing"

	"github.com/acpkit/acpkit/codex"
)

// TestQuietLinesAllocateNothing checks that the lines that carry nothing
// to copy, which come on every run, cost no allocation: the turn's start,
// a started agent message, and line types the package skips.
func TestQuietLinesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	quiet := [][]byte{
		[]byte(`{"type":"turn.started"}`),
		[]byte(`{"type":"item.started","item":{"id":"item_0","type":"agent_message","text":""}}`),
		[]byte(`{"type":"item.plan.delta","item_id":"item_3","delta":"1. Read the test"}`),
		[]byte("  \r\n"),
	}
	turn := codex.NewTurn("01a23170-f4e4-79a3-8053-87c2b8ccf99b")
	events := make([]codex.Event, 0, 4)
	for _, line := range quiet {
		allocs := testing.AllocsPerRun(100, func() {
			events, _ = turn.Feed(line, events[:0])
		})
		if allocs != 0 {
			t.Errorf("Feed(%s) allocates %v times, want 0", line, allocs)
		}
	}
}
