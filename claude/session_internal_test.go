package claude

import (
	"bytes"
	"errors"
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
