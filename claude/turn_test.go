package claude_test

import (
	"errors"
	"os"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// feedFile runs a transcript through a Turn and returns the events' type
// names.
func feedFile(t *testing.T, turn *claude.Turn, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kinds []string
	for e, err := range turn.Events(f) {
		var se *claude.SyntaxError
		switch {
		case errors.As(err, &se):
		case err != nil:
			t.Fatal(err)
		default:
			kinds = append(kinds, kindOf(e))
		}
	}
	return kinds
}

func kindOf(e claude.Event) string {
	switch e.(type) {
	case claude.Heartbeat:
		return "Heartbeat"
	case claude.Text:
		return "Text"
	case claude.MessageUsage:
		return "MessageUsage"
	case claude.Result:
		return "Result"
	case claude.ResumeFailed:
		return "ResumeFailed"
	}
	return "other"
}

func TestTurnSession(t *testing.T) {
	const id = "7d1e4b2a-9c3f-4e8d-a5b6-0f2c1d3e4a5b"
	first := &claude.Turn{}
	if diff := cmp.Diff([]string{"Heartbeat", "Text", "MessageUsage", "Result"}, feedFile(t, first, "testdata/session/new.jsonl")); diff != "" {
		t.Errorf("first turn events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(id, first.SessionID()); diff != "" {
		t.Errorf("first turn session (-want +got):\n%s", diff)
	}

	// The resumed run starts with a hook line carrying a throwaway id; the
	// init and result lines bring the real one back.
	second := claude.NewTurn(first.SessionID())
	if diff := cmp.Diff([]string{"Heartbeat", "Heartbeat", "Text", "MessageUsage", "Result"}, feedFile(t, second, "testdata/session/resume.jsonl")); diff != "" {
		t.Errorf("second turn events (-want +got):\n%s", diff)
	}
	r, ok := second.Result()
	got := []any{second.SessionID(), second.Done(), ok, r.Text, second.ResumeFailed()}
	want := []any{id, true, true, "Your favourite colour is teal.", false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second turn [session done ok text resumeFailed] (-want +got):\n%s", diff)
	}
}

func TestTurnResumeFailed(t *testing.T) {
	const gone = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
	turn := claude.NewTurn(gone)
	var events []claude.Event
	// A line before the result that carries another id must not stick.
	events, err := turn.Feed([]byte(`{"type":"system","subtype":"hook_started","session_id":"ephemeral"}`), events)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile("testdata/resume_failed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	events, err = turn.Feed(f, events)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("got %d events, want 2: %#v", len(events), events)
	}
	rf, ok := events[1].(claude.ResumeFailed)
	if !ok {
		t.Fatalf("final event is %T, want ResumeFailed", events[1])
	}
	got := []any{rf.SessionID, rf.Result.Subtype, turn.SessionID(), turn.Done(), turn.ResumeFailed()}
	want := []any{gone, "error_during_execution", gone, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[event.SessionID subtype turn.SessionID done resumeFailed] (-want +got):\n%s", diff)
	}
}

func TestTurnStopsAfterResult(t *testing.T) {
	turn := &claude.Turn{}
	lines := []string{
		`{"type":"system","subtype":"init","session_id":"a"}`,
		`not json`,
		`{"type":"result","subtype":"success","result":"done","session_id":"b"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"late"}]},"session_id":"c"}`,
		`also not json`,
	}
	var kinds []string
	var errs int
	for _, l := range lines {
		events, err := turn.Feed([]byte(l), nil)
		if err != nil {
			errs++
		}
		for _, e := range events {
			kinds = append(kinds, kindOf(e))
		}
	}
	got := []any{kinds, errs, turn.SessionID()}
	want := []any{[]string{"Heartbeat", "Result"}, 1, "b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[events errors session] (-want +got):\n%s", diff)
	}
	if _, ok := (&claude.Turn{}).Result(); ok {
		t.Error("Result reported ok before the final event")
	}
}

// TestTurnQuietLineAllocatesNothing checks the promise that a line emitting
// nothing, repeating the known session id, costs no allocation.
func TestTurnQuietLineAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	turn := &claude.Turn{}
	if _, err := turn.Feed([]byte(`{"type":"system","subtype":"init","session_id":"5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19"}`), nil); err != nil {
		t.Fatal(err)
	}
	quiet := [][]byte{
		[]byte(`{"type":"stream_event","event":{"type":"message_stop"},"session_id":"5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19","parent_tool_use_id":null,"uuid":"0f5e"}`),
		[]byte(`{"type":"user","message":{"role":"user","content":"hi"},"session_id":"5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19"}`),
		[]byte(`{"type":"keep_alive","session_id":"5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19"}`),
		[]byte("   "),
	}
	events := make([]claude.Event, 0, 8)
	for _, line := range quiet {
		allocs := testing.AllocsPerRun(100, func() {
			events, _ = turn.Feed(line, events[:0])
		})
		if allocs != 0 {
			t.Errorf("Feed(%s) allocates %v times, want 0", line, allocs)
		}
	}
}

// TestTurnKeepsIDOverEmpty checks that a line with an empty session id
// does not erase the id to resume with.
func TestTurnKeepsIDOverEmpty(t *testing.T) {
	turn := claude.NewTurn("resumed")
	for _, line := range []string{
		`{"type":"system","subtype":"init","session_id":"a"}`,
		`{"type":"system","subtype":"status","session_id":""}`,
	} {
		if _, err := turn.Feed([]byte(line), nil); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff("a", turn.SessionID()); diff != "" {
		t.Errorf("SessionID mismatch (-want +got):\n%s", diff)
	}
}
