package claude

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSessionEventsLineTooLong checks that a runaway line is reported and
// skipped, and the lines after it read.
func TestSessionEventsLineTooLong(t *testing.T) {
	s := NewSession(&bytes.Buffer{}, "")
	long := `{"type":"control_cancel_request","request_id":"` + strings.Repeat("x", 100) + `"}`
	stdout := long + "\n" + `{"type":"control_cancel_request","request_id":"c"}` + "\n"
	var got []any
	for e, err := range s.events(strings.NewReader(stdout), 64) {
		var tooLong *LineTooLongError
		if errors.As(err, &tooLong) {
			got = append(got, tooLong.Length)
			continue
		}
		got = append(got, e)
	}
	if diff := cmp.Diff([]any{int64(len(long)), ControlCancel{ID: "c"}}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestSessionSkippedLinesSayWhere checks that Feed and Events report a
// skipped line with its number and offset, as a Turn's do.
func TestSessionSkippedLinesSayWhere(t *testing.T) {
	stdout := "\n[DEBUG] x\n" + `{"type":"control_cancel_request","request_id":"c"}` + "\n" + strings.Repeat("y", 70) + "\n"
	var got []string
	for _, err := range NewSession(&bytes.Buffer{}, "").events(strings.NewReader(stdout), 64) {
		if le, ok := err.(*LineError); ok {
			got = append(got, fmt.Sprintf("%d@%d %T", le.Line, le.Offset, le.Err))
		}
	}
	s := NewSession(&bytes.Buffer{}, "")
	for line := range strings.Lines(stdout) {
		if _, err := s.Feed([]byte(line), nil); err != nil {
			le := err.(*LineError)
			got = append(got, fmt.Sprintf("Feed %d@%d %T", le.Line, le.Offset, le.Err))
		}
	}
	want := []string{"2@1 *claude.SyntaxError", "4@62 *claude.LineTooLongError", "Feed 2@1 *claude.SyntaxError", "Feed 4@62 *claude.SyntaxError"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped lines (-want +got):\n%s", diff)
	}
}
