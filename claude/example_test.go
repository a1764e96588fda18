package claude_test

import (
	"errors"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // so that time.LoadLocation works without a zone database

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/usage"
)

func ExampleParseLine() {
	line := []byte(`{"type":"assistant","message":{"id":"msg_01","content":[` +
		`{"type":"text","text":"Running the tests."},` +
		`{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"go test ./..."}}]},` +
		`"parent_tool_use_id":null,"session_id":"5f2c8a4e"}`)

	events, sessionID, err := claude.ParseLine(line, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("session %s\n", sessionID)
	for _, e := range events {
		switch e := e.(type) {
		case claude.Text:
			fmt.Printf("text: %s\n", e.Text)
		case claude.ToolUse:
			fmt.Printf("tool: %s %s\n", e.Name, e.Input)
		}
	}

	// A line that is not JSON is reported without its content.
	_, _, err = claude.ParseLine([]byte("[DEBUG] secret token abc123"), nil)
	var syntaxErr *claude.SyntaxError
	fmt.Println(errors.As(err, &syntaxErr), syntaxErr.Length, syntaxErr.Offset)
	// Output:
	// session 5f2c8a4e
	// text: Running the tests.
	// tool: Bash {"command":"go test ./..."}
	// true 27 1
}

func ExampleTurn() {
	stdout := `{"type":"system","subtype":"init","session_id":"7d1e4b2a","model":"claude-sonnet-4-5"}
Sandbox: network access denied
{"type":"assistant","message":{"content":[{"type":"text","text":"Your favourite colour is teal."}]},"session_id":"7d1e4b2a"}
{"type":"result","subtype":"success","is_error":false,"result":"Your favourite colour is teal.","num_turns":1,"session_id":"7d1e4b2a","usage":{"input_tokens":3,"output_tokens":9}}
`
	turn := claude.NewTurn("7d1e4b2a") // resuming this conversation
	var events []claude.Event
	for line := range strings.Lines(stdout) {
		var err error
		events, err = turn.Feed([]byte(line), events[:0])
		if err != nil {
			fmt.Println(err)
			continue
		}
		for _, e := range events {
			switch e := e.(type) {
			case claude.Heartbeat:
				fmt.Println("started", e.Model)
			case claude.Text:
				fmt.Println("text:", e.Text)
			case claude.Result:
				fmt.Printf("done: failed=%v usage=%s\n", e.Failed(), e.Usage)
			case claude.ResumeFailed:
				fmt.Println("conversation gone:", e.SessionID)
			}
		}
	}
	fmt.Println("next --resume:", turn.SessionID())
	// Output:
	// started claude-sonnet-4-5
	// claude: skipped line 2 (byte 87): invalid stream-json line (30 bytes): invalid character at offset 0
	// text: Your favourite colour is teal.
	// done: failed=false usage={"input_tokens":3,"output_tokens":9}
	// next --resume: 7d1e4b2a
}

func ExampleTurn_Events() {
	// In a program, stdout is the CLI's standard output pipe.
	stdout := strings.NewReader(`{"type":"system","subtype":"init","session_id":"7d1e4b2a","model":"claude-sonnet-4-5"}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}}]},"session_id":"7d1e4b2a"}
[DEBUG] a log line on stdout
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"go.mod\nmain.go"}]},"session_id":"7d1e4b2a"}
{"type":"result","subtype":"success","is_error":false,"result":"Two files.","session_id":"7d1e4b2a"}
`)
	turn := &claude.Turn{}
	for e, err := range turn.Events(stdout) {
		if err != nil {
			fmt.Println(err) // a bad line; reading goes on
			continue
		}
		switch e := e.(type) {
		case claude.ToolUse:
			fmt.Printf("%s %s\n", e.Name, e.Input)
		case claude.ToolResult:
			fmt.Printf("result: %q\n", e.Text)
		case claude.Result:
			fmt.Println("done:", e.Text)
		}
	}
	fmt.Println("next --resume:", turn.SessionID())
	// Output:
	// Bash {"command":"ls"}
	// claude: skipped line 3 (byte 231): invalid stream-json line (28 bytes): invalid character at offset 1
	// result: "go.mod\nmain.go"
	// done: Two files.
	// next --resume: 7d1e4b2a
}

// The result of a resumed run reports the session so far and the run
// itself; the usage package reads both from the Result, exactly, after the
// line is gone.
func ExampleResult_usage() {
	// The last line of `claude -p --resume a096a09b … --output-format stream-json --verbose`.
	line := []byte(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"a096a09b",` +
		`"total_cost_usd":0.0967893,"usage":{"input_tokens":4350,"cache_creation_input_tokens":0,"cache_read_input_tokens":17396,"output_tokens":16},` +
		`"modelUsage":{"claude-sonnet-4-5":{"inputTokens":8686,"outputTokens":32,"cacheReadInputTokens":17396,"cacheCreationInputTokens":17342,"costUSD":0.0967893}},` +
		`"model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":4350,"outputTokens":16,"cacheReadInputTokens":17396,"cacheCreationInputTokens":0,"costUSD":0.0185088}}}`)
	turn := claude.NewTurn("a096a09b")
	if _, err := turn.Feed(line, nil); err != nil {
		panic(err)
	}
	r, _ := turn.Result()
	fmt.Println("session cost:", r.TotalCostUSD, "dollars")

	res, err := usage.FromClaudeResult(r)
	if err != nil {
		panic(err)
	}
	pico, _ := res.Run.Cost.Get()
	fmt.Printf("this run: %v input tokens, %v output, $%.7f\n", res.Run.Input, res.Run.Output, usage.USD(pico))
	// Output:
	// session cost: 0.0967893 dollars
	// this run: 21746 input tokens, 16 output, $0.0185088
}

// A usage limit's reset time is on the line that reports it: read it from
// the structured fields, and from the words only when a line has none.
func ExampleAPIError() {
	stdout := `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour","unifiedWindows":{"five_hour":{"utilization":1,"resetsAt":1796054400,"status":"rejected"},"seven_day":{"utilization":0.41,"resetsAt":1796400000,"status":"allowed"}}},"session_id":"a3366949"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your 5-hour limit · resets 4pm (UTC)"}]},"session_id":"a3366949","timestamp":"2026-11-30T13:48:45.722Z","error":"rate_limit","api_error_status":429,"api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour"}},"api_error_type":"rate_limit_error"}
`
	for e, err := range (&claude.Turn{}).Events(strings.NewReader(stdout)) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		switch e := e.(type) {
		case claude.RateLimit:
			for _, w := range e.Windows {
				fmt.Printf("%s: %s, %.0f%% used\n", w.Name, w.Status, *w.Utilization*100)
			}
		case claude.APIError:
			var resets int64
			if e.RateLimit != nil {
				resets = e.RateLimit.ResetsAt // exact, in epoch milliseconds
			}
			if resets == 0 { // an older CLI: only the words
				resets, _ = claude.ParseResetTime(e.Text, time.UnixMilli(e.Timestamp), time.LoadLocation)
			}
			fmt.Println(e.Status, e.Code, "until", time.UnixMilli(resets).UTC().Format(time.RFC3339))
		}
	}
	// Output:
	// five_hour: rejected, 100% used
	// seven_day: allowed, 41% used
	// 429 usage_limit_reached until 2026-11-30T16:00:00Z
}

func ExampleParseResetTime() {
	// An APIError's text, and the time its line was written
	// (time.UnixMilli(e.Timestamp)): 17:30 in New York.
	text := "You've hit your limit · resets 8pm (America/New_York)"
	written := time.Date(2026, 5, 12, 21, 30, 0, 0, time.UTC)

	ms, err := claude.ParseResetTime(text, written, time.LoadLocation)
	fmt.Println(time.UnixMilli(ms).UTC().Format(time.RFC3339), err)

	// Without a resolver only UTC resolves, and the error says which zone
	// did not, unlike a text that names no reset time at all.
	_, err = claude.ParseResetTime(text, written, nil)
	var zoneErr *claude.ZoneError
	fmt.Println(errors.As(err, &zoneErr), zoneErr.Zone)
	_, err = claude.ParseResetTime("Claude AI usage limit reached|0", written, time.LoadLocation)
	fmt.Println(errors.Is(err, claude.ErrNoResetTime))
	// Output:
	// 2026-05-13T00:00:00Z <nil>
	// true America/New_York
	// true
}

func ExampleCommandLine() {
	args, stdin := claude.CommandLine(claude.Options{
		Resume:       "7d1e4b2a-9c3f-4e8d-a5b6-0f2c1d3e4a5b",
		Model:        "sonnet",
		MaxTurns:     5,
		AllowedTools: []string{"Read", "Bash(git log:*)"},
	}, "--help me write a test")
	fmt.Println(strings.Join(args, "\n"))
	fmt.Printf("stdin: %s\n", stdin)
	// Output:
	// -p
	// --output-format
	// stream-json
	// --verbose
	// --resume=7d1e4b2a-9c3f-4e8d-a5b6-0f2c1d3e4a5b
	// --model=sonnet
	// --max-turns=5
	// --allowedTools=Read,Bash(git log:*)
	// stdin: --help me write a test
}
