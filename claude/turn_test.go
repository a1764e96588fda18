package claude_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
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

// TestTurnOutcomes checks how a run of `claude -p` ended, as Finish and
// Err tell it: the final event, the reason Err matches, and the
// RunError's words, type and status.
func TestTurnOutcomes(t *testing.T) {
	const (
		ok       = `{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"s1"}`
		maxTurns = `{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s1","errors":["Reached maximum number of turns (1)"]}`
		failed   = `{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s1","errors":["Tool failed"]}`
		apiLine  = `{"type":"assistant","message":{"content":[{"type":"text","text":"API Error: 529 Overloaded"}]},"error":"server_error","api_error_status":529,"api_error_type":"overloaded_error","session_id":"s1"}`
		apiRes   = `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","session_id":"s1","api_error_status":529,"api_error_type":"overloaded_error","terminal_reason":"api_error"}`
		notFound = `{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"x","errors":["No conversation found with session ID: r1"]}`
	)
	type outcome struct {
		Final, Reason, Message, Type string
		Status                       int
		Exit                         string
	}
	tests := []struct {
		name   string
		resume string
		lines  []string
		code   int
		want   outcome
	}{
		{"success", "", []string{ok}, 0, outcome{Final: "Result"}},
		{"success, then a failed exit", "", []string{ok}, 1, outcome{Final: "Result", Reason: "run failed", Exit: "exit status 1 (failure)"}},
		{"max turns", "", []string{maxTurns}, 1, outcome{Final: "Result", Reason: "maximum turns reached", Message: "Reached maximum number of turns (1)", Exit: "exit status 1 (failure)"}},
		{"failed", "", []string{failed}, 1, outcome{Final: "Result", Reason: "run failed", Message: "Tool failed", Exit: "exit status 1 (failure)"}},
		{"API error", "", []string{apiLine, apiRes}, 1, outcome{Final: "Result", Reason: "API error", Message: "API Error: 529 Overloaded", Type: "overloaded_error", Status: 529, Exit: "exit status 1 (failure)"}},
		{"resume not found", "r1", []string{notFound}, 1, outcome{Final: "ResumeFailed", Reason: "resumed conversation not found", Message: "No conversation found with session ID: r1", Exit: "exit status 1 (failure)"}},
		{"no result", "", []string{`{"type":"system","subtype":"init","session_id":"s1"}`}, -1, outcome{Final: "NoResult", Reason: "run ended without a result", Exit: "killed by a signal"}},
		{"no result after an API error", "", []string{apiLine}, 1, outcome{Final: "NoResult", Reason: "run ended without a result", Message: "API Error: 529 Overloaded", Type: "overloaded_error", Status: 529, Exit: "exit status 1 (failure)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := claude.NewTurn(tt.resume)
			var events []claude.Event
			for _, l := range tt.lines {
				var err error
				if events, err = turn.Feed([]byte(l), events); err != nil {
					t.Fatal(err)
				}
			}
			if err := turn.Err(); err != nil && !errors.Is(err, claude.ErrFailed) && !errors.Is(err, claude.ErrAPI) && !errors.Is(err, claude.ErrMaxTurns) && !errors.Is(err, claude.ErrResumeNotFound) {
				t.Errorf("Err() before Finish = %v", err)
			}
			events = turn.Finish(tt.code, events)
			if again := turn.Finish(0, nil); len(again) != 0 {
				t.Errorf("a second Finish appended %v", again)
			}
			var got outcome
			if len(events) > 0 {
				got.Final = strings.TrimPrefix(fmt.Sprintf("%T", events[len(events)-1]), "claude.")
			}
			err := turn.Err()
			for _, r := range []error{claude.ErrResumeNotFound, claude.ErrMaxTurns, claude.ErrAPI, claude.ErrNoResult, claude.ErrFailed} {
				if errors.Is(err, r) {
					got.Reason = strings.TrimPrefix(r.Error(), "claude: ")
				}
			}
			var re *claude.RunError
			if errors.As(err, &re) {
				got.Message, got.Type, got.Status = re.Message, re.Type, re.Status
				if re.Exited {
					got.Exit = re.Exit.String()
				}
				if !strings.Contains(re.Error(), got.Reason) {
					t.Errorf("Error() = %q", re.Error())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if s, ok := turn.Exit(); !ok || int(s) != tt.code {
				t.Errorf("Exit() = %v, %v", s, ok)
			}
		})
	}
	if got := claude.ExitStatus(7).String(); got != "exit status 7 (unknown)" {
		t.Errorf("ExitStatus(7) = %q", got)
	}
	if got := claude.ExitKind(9).String(); got != "ExitKind(9)" {
		t.Errorf("ExitKind(9) = %q", got)
	}
}
