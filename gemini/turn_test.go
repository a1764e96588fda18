package gemini_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// feedAll feeds every line, then Finish(exit), and returns the events, or
// "error" for each line refused.
func feedAll(turn *gemini.Turn, stdout string, exit int) []any {
	var out []any
	for line := range strings.Lines(stdout) {
		events, err := turn.Feed([]byte(line), nil)
		if err != nil {
			out = append(out, "error")
		}
		for _, e := range events {
			out = append(out, e)
		}
	}
	for _, e := range turn.Finish(exit, nil) {
		out = append(out, e)
	}
	return out
}

func TestTurn(t *testing.T) {
	const (
		init1   = `{"type":"init","session_id":"s-1","model":"auto"}` + "\n"
		chunkA  = `{"type":"message","role":"assistant","content":"A","delta":true}` + "\n"
		chunkB  = `{"type":"message","role":"assistant","content":"B","delta":true}` + "\n"
		empty   = `{"type":"message","role":"assistant","content":"","delta":true}` + "\n"
		warning = `{"type":"error","severity":"warning","message":"w"}` + "\n"
		use     = `{"type":"tool_use","tool_name":"read_file","tool_id":"t1"}` + "\n"
		res     = `{"type":"tool_result","tool_id":"t1","status":"success","output":"x"}` + "\n"
		orphan  = `{"type":"tool_result","tool_id":"t9","status":"error"}` + "\n"
		success = `{"type":"result","status":"success"}` + "\n"
		maxed   = `{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"max"}}` + "\n"
		apiErr  = `{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":401}}]"}}` + "\n"
		other   = `{"type":"result","status":"error","error":{"type":"FatalToolExecutionError","message":"disk full"}}` + "\n"
	)
	tests := []struct {
		name    string
		resume  string
		stdout  string
		exit    int
		want    []any
		session string
		err     error // the sentinel Err matches; nil for success
	}{
		{"chunks joined before a tool call and at the result", "",
			init1 + chunkA + warning + chunkB + use + res + chunkA + success, 0,
			[]any{gemini.Init{Model: "auto"}, gemini.PartialText{Text: "A"}, gemini.Notice{Severity: "warning", Message: "w"},
				gemini.PartialText{Text: "B"}, gemini.Text{Text: "AB"},
				gemini.ToolUse{ID: "t1", Name: "read_file", Kind: gemini.ToolKindRead},
				gemini.ToolResult{ID: "t1", Name: "read_file", Kind: gemini.ToolKindRead, Status: gemini.ToolSuccess, Output: "x"},
				gemini.PartialText{Text: "A"}, gemini.Text{Text: "A"}, gemini.Result{Status: "success"}},
			"s-1", nil},
		{"an empty chunk still makes a Text", "", empty + success, 0,
			[]any{gemini.PartialText{}, gemini.Text{}, gemini.Result{Status: "success"}}, "", nil},
		{"a tool result without its call", "", orphan + success, 0,
			[]any{gemini.ToolResult{ID: "t9", Status: gemini.ToolError}, gemini.Result{Status: "success"}}, "", nil},
		{"lines after the result are ignored", "", success + chunkA + "garbage\n", 0,
			[]any{gemini.Result{Status: "success"}}, "", nil},
		{"garbage is refused and reading goes on", "", "garbage\n" + init1 + success, 0,
			[]any{"error", gemini.Init{Model: "auto"}, gemini.Result{Status: "success"}}, "s-1", nil},
		{"max turns", "", init1 + maxed, 53,
			[]any{gemini.Init{Model: "auto"}, gemini.Result{Status: "error", ErrorType: "FatalTurnLimitedError", ErrorMessage: "max"}},
			"s-1", gemini.ErrMaxTurns},
		{"API error", "", init1 + apiErr, 145,
			[]any{gemini.Init{Model: "auto"}, gemini.APIError{Status: 401, Message: `[API Error: {"error":{"code":401}}]`},
				gemini.Result{Status: "error", ErrorType: "unknown", ErrorMessage: `[API Error: {"error":{"code":401}}]`}},
			"s-1", gemini.ErrAPI},
		{"other failure", "", other, 54,
			[]any{gemini.Result{Status: "error", ErrorType: "FatalToolExecutionError", ErrorMessage: "disk full"}}, "", gemini.ErrFailed},
		{"success then a failing exit", "", success, 1, []any{gemini.Result{Status: "success"}}, "", gemini.ErrFailed},
		{"unknown resume", "s-0", "", 42,
			[]any{gemini.ResumeFailed{SessionID: "s-0", Exit: 42}}, "s-0", gemini.ErrResumeNotFound},
		{"resume that started, then crashed with 42", "s-0", init1 + chunkA, 42,
			[]any{gemini.Init{Model: "auto"}, gemini.PartialText{Text: "A"}, gemini.Text{Text: "A"}, gemini.NoResult{Exit: 42}},
			"s-1", gemini.ErrNoResult},
		{"new session refused as bad input", "", "", 42, []any{gemini.NoResult{Exit: 42}}, "", gemini.ErrNoResult},
		{"resume killed by a signal", "s-0", "", -1, []any{gemini.NoResult{Exit: -1}}, "s-0", gemini.ErrNoResult},
		{"untrusted folder", "", "", 55, []any{gemini.NoResult{Exit: 55}}, "", gemini.ErrNoResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := gemini.NewTurn(tt.resume)
			got := feedAll(turn, tt.stdout, tt.exit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			err := turn.Err()
			if tt.err == nil && err != nil || tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("Err() = %v, want %v", err, tt.err)
			}
			var re *gemini.RunError
			if err != nil && (!errors.As(err, &re) || !re.Exited || re.Exit != gemini.ExitStatus(tt.exit)) {
				t.Errorf("Err() = %#v, want a *RunError with exit %d", err, tt.exit)
			}
			exit, ok := turn.Exit()
			if diff := cmp.Diff([]any{tt.session, true, gemini.ExitStatus(tt.exit), true, tt.err == gemini.ErrResumeNotFound},
				[]any{turn.SessionID(), turn.Done(), exit, ok, turn.ResumeFailed()}); diff != "" {
				t.Errorf("[SessionID Done Exit ok ResumeFailed] mismatch (-want +got):\n%s", diff)
			}
			if more := turn.Finish(0, nil); len(more) != 0 {
				t.Errorf("a second Finish returned %v", more)
			}
			if exit, _ := turn.Exit(); exit != gemini.ExitStatus(tt.exit) {
				t.Errorf("a second Finish changed the exit status to %v", exit)
			}
		})
	}
}

// TestTurnBeforeFinish checks what a Turn says while the run goes on.
func TestTurnBeforeFinish(t *testing.T) {
	var turn gemini.Turn // the zero value is ready
	events, err := turn.Feed([]byte(`{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"m"}}`), nil)
	if err != nil || len(events) != 1 {
		t.Fatalf("Feed = %v, %v", events, err)
	}
	r, ok := turn.Result()
	_, exited := turn.Exit()
	var re *gemini.RunError
	if !errors.As(turn.Err(), &re) || re.Exited || !errors.Is(re, gemini.ErrMaxTurns) || !ok || r.ErrorType != "FatalTurnLimitedError" || exited {
		t.Errorf("Err() = %v, Result() = %v, %v, exited %v", turn.Err(), r, ok, exited)
	}
	if got := re.Error(); got != "gemini: maximum session turns reached: m" {
		t.Errorf("Error() = %q", got)
	}
	fresh := gemini.NewTurn("s-1")
	if fresh.Err() != nil || fresh.Done() || fresh.SessionID() != "s-1" {
		t.Errorf("a fresh Turn: Err %v, Done %v, SessionID %q", fresh.Err(), fresh.Done(), fresh.SessionID())
	}
	if _, ok := fresh.Result(); ok {
		t.Error("a fresh Turn has a result")
	}
}

func TestExitStatus(t *testing.T) {
	var got []string
	for _, code := range []int{0, 1, 2, 41, 42, 44, 52, 53, 54, 55, 130, 143, 144, 145, 173, 244, 255, 256, -1} {
		s := gemini.ExitStatus(code)
		got = append(got, fmt.Sprintf("%d %d %s", code, s.HTTPStatus(), s))
	}
	want := []string{
		"0 0 exit status 0 (success)",
		"1 0 exit status 1 (failure)",
		"2 0 exit status 2 (unknown)",
		"41 0 exit status 41 (authentication failed)",
		"42 0 exit status 42 (bad input)",
		"44 0 exit status 44 (sandbox error)",
		"52 0 exit status 52 (invalid settings)",
		"53 0 exit status 53 (max turns reached)",
		"54 0 exit status 54 (fatal tool error)",
		"55 0 exit status 55 (untrusted folder)",
		"130 0 exit status 130 (cancelled)",
		"143 0 exit status 143 (unknown)",
		"144 400 exit status 144 (API error, HTTP 400)",
		"145 401 exit status 145 (API error, HTTP 401)",
		"173 429 exit status 173 (API error, HTTP 429)",
		"244 500 exit status 244 (API error, HTTP 500)",
		"255 511 exit status 255 (API error, HTTP 511)",
		"256 0 exit status 256 (unknown)",
		"-1 0 killed by a signal",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if s := gemini.ExitKind(200).String(); s != "ExitKind(200)" {
		t.Errorf("ExitKind(200).String() = %q", s)
	}
}

// TestTurnCopy checks that a Turn copied by value in the middle of an
// answer, and used from then on through the copy, goes on working.
func TestTurnCopy(t *testing.T) {
	turn := gemini.NewTurn("")
	chunk := []byte(`{"type":"message","role":"assistant","content":"A","delta":true}`)
	if _, err := turn.Feed(chunk, nil); err != nil {
		t.Fatal(err)
	}
	copied := *turn
	if _, err := copied.Feed(chunk, nil); err != nil {
		t.Fatal(err)
	}
	want := []gemini.Event{gemini.Text{Text: "AA"}, gemini.NoResult{}}
	if diff := cmp.Diff(want, copied.Finish(0, nil)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestTurnErrReason checks the reason a failed run's error gives: the
// result's own, else the last error line's, as when the model returns
// empty replies and the CLI prints an error line, then a result with
// status "error" and no error object, and exits 0.
func TestTurnErrReason(t *testing.T) {
	const (
		empty   = `{"type":"error","timestamp":"2026-03-02T10:00:01.000Z","severity":"error","message":"Model stream ended with empty response text."}` + "\n"
		warning = `{"type":"error","timestamp":"2026-03-02T10:00:00.000Z","severity":"warning","message":"Loop detected, stopping execution"}` + "\n"
		bare    = `{"type":"error","message":"no severity"}` + "\n"
		failed  = `{"type":"result","timestamp":"2026-03-02T10:00:02.000Z","status":"error","stats":{"total_tokens":0}}` + "\n"
		other   = `{"type":"result","status":"error","error":{"type":"FatalToolExecutionError","message":"disk full"}}` + "\n"
		api     = `{"type":"error","severity":"error","message":"[API Error: {\"error\":{\"code\":503,\"message\":\"overloaded\"}}]"}` + "\n"
	)
	tests := []struct {
		name   string
		stdout string
		exit   int
		reason error
		msg    string
		text   string // Error()
		status int    // the RunError's Status
	}{
		{"empty replies", empty + failed, 0, gemini.ErrFailed, "Model stream ended with empty response text.",
			"gemini: run failed: Model stream ended with empty response text. (exit status 0 (success))", 0},
		{"the last error line", `{"type":"error","severity":"error","message":"first"}` + "\n" + empty + failed, 0, gemini.ErrFailed,
			"Model stream ended with empty response text.", "", 0},
		{"a warning is no reason", empty + warning + failed, 0, gemini.ErrFailed, "Model stream ended with empty response text.", "", 0},
		{"only a warning", warning + failed, 0, gemini.ErrFailed, "", "gemini: run failed (exit status 0 (success))", 0},
		{"an error line without a severity", bare + failed, 0, gemini.ErrFailed, "no severity", "", 0},
		{"the result's own reason wins", empty + other, 54, gemini.ErrFailed, "disk full", "", 0},
		{"an API error line", api + failed, 0, gemini.ErrAPI, `[API Error: {"error":{"code":503,"message":"overloaded"}}]`, "", 503},
		{"no result after an error line", empty, 1, gemini.ErrNoResult, "Model stream ended with empty response text.",
			"gemini: run ended without a result: Model stream ended with empty response text. (exit status 1 (failure))", 0},
		{"no failure", empty + `{"type":"result","status":"success"}` + "\n", 0, nil, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := gemini.NewTurn("")
			feedAll(turn, tt.stdout, tt.exit)
			err := turn.Err()
			if tt.reason == nil {
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				return
			}
			var re *gemini.RunError
			if !errors.Is(err, tt.reason) || !errors.As(err, &re) {
				t.Fatalf("Err() = %v, want a *RunError matching %v", err, tt.reason)
			}
			if re.Message != tt.msg {
				t.Errorf("Message = %q, want %q", re.Message, tt.msg)
			}
			if re.Status != tt.status {
				t.Errorf("Status = %d, want %d", re.Status, tt.status)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("Error() = %q, want %q", err.Error(), tt.text)
			}
		})
	}
}
