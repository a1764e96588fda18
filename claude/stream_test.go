package claude_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// collect ranges over turn.Events(r) and describes what it yields.
func collect(turn *claude.Turn, r io.Reader) (events []claude.Event, errs []string) {
	for e, err := range turn.Events(r) {
		var se *claude.SyntaxError
		var tl *claude.LineTooLongError
		switch {
		case errors.As(err, &se):
			errs = append(errs, "syntax")
		case errors.As(err, &tl):
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
			var want []claude.Event
			var wantErrs []string
			byLine := &claude.Turn{}
			for line := range strings.Lines(string(data)) {
				events, err := byLine.Feed([]byte(line), nil)
				if err != nil {
					wantErrs = append(wantErrs, "syntax")
				}
				want = append(want, events...)
			}
			turn := &claude.Turn{}
			got, gotErrs := collect(turn, iotest.HalfReader(strings.NewReader(string(data))))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events mismatch (-Feed +Events):\n%s", diff)
			}
			if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
				t.Errorf("errors mismatch (-Feed +Events):\n%s", diff)
			}
			if diff := cmp.Diff(byLine.SessionID(), turn.SessionID()); diff != "" {
				t.Errorf("session id mismatch (-Feed +Events):\n%s", diff)
			}
		})
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestTurnEvents(t *testing.T) {
	long := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"` +
		strings.Repeat("x", 1<<20) + `"}]},"session_id":"s"}`
	stdout := `{"type":"system","subtype":"init","session_id":"s"}
[DEBUG] not JSON
` + long + `
{"type":"result","subtype":"success","result":"done","session_id":"s"}
{"type":"assistant","message":{"content":[{"type":"text","text":"after the end"}]}}
also not JSON, never reported
`
	r := &countingReader{r: strings.NewReader(stdout)}
	turn := &claude.Turn{}
	events, errs := collect(turn, io.MultiReader(r, iotest.ErrReader(errors.New("pipe closed"))))
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, kindOf(e))
	}
	got := []any{kinds, errs, len(events[1].(claude.ToolResult).Text), r.n, turn.Done()}
	want := []any{
		[]string{"Heartbeat", "other", "Result"},
		[]string{"syntax", "pipe closed"},
		1 << 20,
		len(stdout), // read to the end after the result
		true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[kinds errors resultLen bytesRead done] mismatch (-want +got):\n%s", diff)
	}
}

func TestTurnEventsStopsWhenAsked(t *testing.T) {
	stdout := strings.Repeat(`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`+"\n", 3)
	n := 0
	for range (&claude.Turn{}).Events(strings.NewReader(stdout)) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("got %d events, want the loop to stop at 3", n)
	}
}

// TestTurnEventsQuietLinesAllocateNothing checks that the cost of Events is
// per stream, not per line, for lines that emit nothing.
func TestTurnEventsQuietLinesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const quiet = `{"type":"stream_event","event":{"type":"message_stop"},"session_id":"5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19"}` + "\n"
	allocs := func(lines int) float64 {
		stdout := strings.Repeat(quiet, lines)
		return testing.AllocsPerRun(20, func() {
			for range (&claude.Turn{}).Events(strings.NewReader(stdout)) {
			}
		})
	}
	few, many := allocs(10), allocs(1000)
	if many != few {
		t.Errorf("Events allocates %v times for 10 quiet lines and %v for 1000, want the same", few, many)
	}
}

// TestPartialToolInputAddsUp checks, on a streamed tool call, that the
// input pieces of the block a PartialToolUse starts make up the input of
// the complete ToolUse that follows.
func TestPartialToolInputAddsUp(t *testing.T) {
	f, err := os.Open("testdata/partial_tool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	started := map[int]string{} // block index → tool use id
	pieces := map[string]string{}
	var complete []claude.ToolUse
	for e, err := range (&claude.Turn{}).Events(f) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := e.(type) {
		case claude.PartialToolUse:
			started[e.Index] = e.ID
		case claude.PartialToolInput:
			id, ok := started[e.Index]
			if !ok {
				t.Fatalf("input piece for block %d, which no PartialToolUse started", e.Index)
			}
			pieces[id] += e.JSON
		case claude.ToolUse:
			complete = append(complete, e)
		}
	}
	if len(complete) == 0 {
		t.Fatal("no ToolUse in the transcript")
	}
	for _, call := range complete {
		var streamed, final any
		if err := json.Unmarshal([]byte(pieces[call.ID]), &streamed); err != nil {
			t.Fatalf("pieces of %s: %v", call.ID, err)
		}
		if err := json.Unmarshal(call.Input, &final); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(final, streamed); diff != "" {
			t.Errorf("streamed input of %s (-ToolUse +pieces):\n%s", call.ID, diff)
		}
	}
}
