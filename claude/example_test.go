package claude_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

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

// The result event keeps what the usage package needs, so the line itself
// need not be kept: the token usage of the run, the per-model usage, and the
// cost exactly as the CLI wrote it.
func ExampleResult_usage() {
	line := []byte(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"7d1e4b2a",` +
		`"total_cost_usd":0.0342,"usage":{"input_tokens":12,"cache_creation_input_tokens":1520,"cache_read_input_tokens":28422,"output_tokens":311},` +
		`"modelUsage":{"claude-sonnet-4-5":{"inputTokens":12,"outputTokens":311,"cacheReadInputTokens":28422,"cacheCreationInputTokens":1520,"costUSD":0.0342}}}`)
	turn := claude.NewTurn("")
	if _, err := turn.Feed(line, nil); err != nil {
		panic(err)
	}
	r, ok := turn.Result()
	if !ok {
		panic("no result")
	}
	run, err := usage.FromAnthropic(r.Usage)
	if err != nil {
		panic(err)
	}
	fmt.Println("run input:", run.Input, "output:", run.Output)

	session, err := usage.FromClaudeResult(r.TotalCostUSD.String(), r.ModelUsage)
	if err != nil {
		panic(err)
	}
	for _, m := range session.Models {
		fmt.Println(m.Model, "input:", m.InclusiveInput())
	}
	pico, _ := session.TotalCost.Get()
	fmt.Println("cost:", r.TotalCostUSD, "dollars =", pico, "picodollars")
	// Output:
	// run input: 29954 output: 311
	// claude-sonnet-4-5 input: 29954
	// cost: 0.0342 dollars = 34200000000 picodollars
}

func ExampleParseResetTime() {
	// Tests and examples use fixed zones; programs can pass
	// time.LoadLocation.
	zones := func(name string) (*time.Location, error) {
		if name == "America/New_York" {
			return time.FixedZone("EDT", -4*3600), nil
		}
		return nil, fmt.Errorf("unknown zone %q", name)
	}
	now := time.Date(2026, 5, 12, 21, 30, 0, 0, time.UTC) // 17:30 in New York

	for _, text := range []string{
		"You've hit your limit · resets 8pm (America/New_York)",
		"Claude AI usage limit reached|1778598000",
		"Claude AI usage limit reached|0",
		"5-hour limit reached ∙ resets 3am",
	} {
		ms, ok := claude.ParseResetTime(text, now, zones)
		if !ok {
			fmt.Println("unknown")
			continue
		}
		fmt.Println(time.UnixMilli(ms).UTC().Format(time.RFC3339))
	}
	// Output:
	// 2026-05-13T00:00:00Z
	// 2026-05-12T15:00:00Z
	// unknown
	// 2026-05-13T03:00:00Z
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
