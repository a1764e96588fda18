package gemini_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// collect ranges over turn.Events(r) and describes what it yields.
func collect(turn *gemini.Turn, r io.Reader) (events []gemini.Event, errs []string) {
	for e, err := range turn.Events(r) {
		var se *gemini.SyntaxError
		switch {
		case errors.As(err, &se):
			errs = append(errs, "syntax")
		case errors.Is(err, gemini.ErrLineTooLong):
			errs = append(errs, "too long")
		case err != nil:
			errs = append(errs, err.Error())
		default:
			events = append(events, e)
		}
	}
	return events, errs
}

// TestTurnEventsMatchesFeed checks that Events yields, for every
// transcript, what feeding its lines one by one returns.
func TestTurnEventsMatchesFeed(t *testing.T) {
	for _, path := range transcripts(t) {
		t.Run(path, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want []gemini.Event
			var wantErrs []string
			byLine := gemini.NewTurn(resumeID(path))
			for line := range strings.Lines(string(data)) {
				events, err := byLine.Feed([]byte(line), nil)
				if err != nil {
					wantErrs = append(wantErrs, "syntax")
				}
				want = append(want, events...)
			}
			turn := gemini.NewTurn(resumeID(path))
			got, gotErrs := collect(turn, iotest.HalfReader(strings.NewReader(string(data))))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events mismatch (-Feed +Events):\n%s", diff)
			}
			if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
				t.Errorf("errors mismatch (-Feed +Events):\n%s", diff)
			}
			if turn.SessionID() != byLine.SessionID() || turn.Done() != byLine.Done() {
				t.Errorf("Events left session %q done %v; Feed %q %v", turn.SessionID(), turn.Done(), byLine.SessionID(), byLine.Done())
			}
		})
	}
}

// TestTurnEventsReadError checks that a read error is yielded last, after
// the complete lines before it, and that the line it cuts short is lost.
func TestTurnEventsReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(`{"type":"init","session_id":"s"}`+"\n"+`{"type":"message","role":"assistant","content":"cut`), iotest.ErrReader(boom))
	turn := gemini.NewTurn("")
	events, errs := collect(turn, r)
	if diff := cmp.Diff([]any{[]gemini.Event{gemini.Init{}}, []string{"boom"}}, []any{events, errs}); diff != "" {
		t.Errorf("[events errors] mismatch (-want +got):\n%s", diff)
	}
}

// TestTurnEventsStop checks that a loop may stop early.
func TestTurnEventsStop(t *testing.T) {
	data, err := os.ReadFile("testdata/multi-part.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	turn := gemini.NewTurn("")
	n := 0
	for range turn.Events(strings.NewReader(string(data))) {
		if n++; n == 3 {
			break
		}
	}
	if n != 3 || turn.Done() {
		t.Errorf("stopped after %d events, done %v", n, turn.Done())
	}
}

func TestLineTooLongError(t *testing.T) {
	err := error(&gemini.LineTooLongError{Length: 1 << 30, Max: gemini.MaxLineLength})
	if !errors.Is(err, gemini.ErrLineTooLong) || errors.Is(err, io.EOF) {
		t.Errorf("errors.Is does not match ErrLineTooLong alone")
	}
	if got, want := err.Error(), "gemini: stream-json line of 1073741824 bytes is longer than the maximum of 67108864"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
