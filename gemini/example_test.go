package gemini_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpkit/acpkit/gemini"
)

func ExampleParseLine() {
	line := []byte(`{"type":"tool_use","timestamp":"2026-12-01T11:58:00.854Z","tool_name":"run_shell_command",` +
		`"tool_id":"run_shell_command_1","parameters":{"command":"go test ./..."}}`)
	events, _, err := gemini.ParseLine(line, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range events {
		if e, ok := e.(gemini.ToolUse); ok {
			fmt.Printf("%s (%s): %s\n", e.Name, e.Kind, e.Input)
		}
	}

	// The init line carries the session id.
	_, sessionID, _ := gemini.ParseLine([]byte(`{"type":"init","session_id":"acec2297","model":"auto"}`), nil)
	fmt.Printf("session %s\n", sessionID)

	// A line that is not JSON is reported without its content.
	_, _, err = gemini.ParseLine([]byte("Loaded cached credentials."), nil)
	var syntaxErr *gemini.SyntaxError
	fmt.Println(errors.As(err, &syntaxErr), syntaxErr.Length, syntaxErr.Offset)
	// Output:
	// run_shell_command (execute): {"command":"go test ./..."}
	// session acec2297
	// true 26 0
}

func ExampleTurn() {
	stdout := `{"type":"init","timestamp":"2026-12-01T11:58:00.630Z","session_id":"9775d6bb","model":"auto"}
{"type":"message","timestamp":"2026-12-01T11:58:00.631Z","role":"user","content":"Run echo hi."}
{"type":"tool_use","timestamp":"2026-12-01T11:58:00.854Z","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"echo hi"}}
{"type":"tool_result","timestamp":"2026-12-01T11:58:01.094Z","tool_id":"t1","status":"success","output":"hi"}
{"type":"message","timestamp":"2026-12-01T11:58:01.121Z","role":"assistant","content":"The command printed: ","delta":true}
{"type":"message","timestamp":"2026-12-01T11:58:01.122Z","role":"assistant","content":"hi","delta":true}
{"type":"result","timestamp":"2026-12-01T11:58:01.136Z","status":"success","stats":{"total_tokens":23947,"duration_ms":506,"tool_calls":1}}
`
	turn := gemini.NewTurn("")
	for e, err := range turn.Events(strings.NewReader(stdout)) {
		if err != nil {
			fmt.Println("skipped:", err)
			continue
		}
		switch e := e.(type) {
		case gemini.ToolResult:
			fmt.Printf("%s %s: %q\n", e.Name, e.Status, e.Output)
		case gemini.Text: // the chunks, joined
			fmt.Printf("text: %q\n", e.Text)
		case gemini.Result:
			fmt.Println("done in", e.Duration, "with", e.ToolCalls, "tool call")
		}
	}
	turn.Finish(0, nil) // the process's exit code
	fmt.Println("next --resume:", turn.SessionID(), "error:", turn.Err())
	// Output:
	// run_shell_command success: "hi"
	// text: "The command printed: hi"
	// done in 506ms with 1 tool call
	// next --resume: 9775d6bb error: <nil>
}

// A resumed session that no longer exists prints nothing: only the exit
// status tells.
func ExampleTurn_Finish() {
	turn := gemini.NewTurn("0badc0de")
	for range turn.Events(strings.NewReader("")) {
	}
	for _, e := range turn.Finish(42, nil) {
		fmt.Printf("%T\n", e)
	}
	fmt.Println(errors.Is(turn.Err(), gemini.ErrResumeNotFound))
	// Output:
	// gemini.ResumeFailed
	// true
}

func ExampleExitStatus() {
	for _, code := range []int{0, 53, 173} {
		switch s := gemini.ExitStatus(code); s.Kind() {
		case gemini.ExitSuccess:
			fmt.Println("ok")
		case gemini.ExitMaxTurns:
			fmt.Println("out of turns")
		case gemini.ExitAPIError:
			fmt.Println("API error, HTTP", s.HTTPStatus())
		}
	}
	// Output:
	// ok
	// out of turns
	// API error, HTTP 429
}

func ExampleParseResetTime() {
	message := "[API Error: You exceeded your current quota.\nSuggested retry after 3s.]"
	now := time.Date(2026, 12, 1, 11, 59, 14, 0, time.UTC)
	ms, err := gemini.ParseResetTime(message, now, nil)
	fmt.Println(time.UnixMilli(ms).UTC().Format(time.TimeOnly), err)

	_, err = gemini.ParseResetTime("You have exhausted your daily quota on this model.", now, nil)
	fmt.Println(err)
	// Output:
	// 11:59:17 <nil>
	// gemini: limit without a reset time
}

func ExampleCommandLine() {
	args, stdin := gemini.CommandLine(gemini.Options{Resume: "latest", ApprovalMode: "auto_edit"}, "-v: what does it do?")
	fmt.Printf("gemini %s < %q\n", strings.Join(args, " "), stdin)
	// Output:
	// gemini --output-format=stream-json --resume=latest --approval-mode=auto_edit < "-v: what does it do?"
}

func ExampleStderr() {
	stderr := `Ripgrep is not available. Falling back to GrepTool.
Attempt 1 failed: You exceeded your current quota.
Suggested retry after 3s.. Retrying after 5756ms...
Attempt 2 failed: You exceeded your current quota.
Suggested retry after 3s.. Max attempts reached
`
	var s gemini.Stderr
	for line := range strings.Lines(stderr) {
		if r, ok := s.Feed([]byte(line)); ok {
			fmt.Printf("attempt %d failed, retrying in %v: %q\n", r.Attempt, r.Delay, r.Message)
		}
	}
	// Output:
	// attempt 1 failed, retrying in 5.756s: "You exceeded your current quota.\nSuggested retry after 3s."
}
