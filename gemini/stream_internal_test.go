package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEventsLongLines checks that a line over the limit is skipped and
// reported, reading going on with the next, and that nothing is reported
// after the result.
func TestEventsLongLines(t *testing.T) {
	long := `{"type":"message","role":"assistant","content":"` + strings.Repeat("x", 100) + `","delta":true}`
	input := `{"type":"init","session_id":"s"}` + "\n" + long + "\r\n" +
		`{"type":"result","status":"success"}` + "\n" + long + "\n"
	var got []any
	turn := NewTurn("")
	for e, err := range turn.events(strings.NewReader(input), 64) {
		var tl *LineTooLongError
		if errors.As(err, &tl) {
			got = append(got, *tl)
			continue
		}
		got = append(got, e)
	}
	want := []any{Init{}, LineTooLongError{Length: int64(len(long)), Max: 64}, Result{Status: "success"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
