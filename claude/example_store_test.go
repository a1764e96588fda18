package claude_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/claude"
)

// A stored session, as Claude Code writes it (trimmed: real lines carry
// more members, and the CLI's bookkeeping lines between them).
const storedSession = `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-01T20:50:45.842Z","sessionId":"eaca3c35-d13e-4c1d-a95b-a66cef48d210","content":"Show notes.txt."}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Show notes.txt."},"uuid":"8e1b343b-0cc2-48d0-bda5-d8aad32b9d17","timestamp":"2026-12-01T20:50:45.970Z","cwd":"/home/dev/notes","sessionId":"eaca3c35-d13e-4c1d-a95b-a66cef48d210"}
{"parentUuid":"8e1b343b-0cc2-48d0-bda5-d8aad32b9d17","isSidechain":false,"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"cat notes.txt"}}]},"type":"assistant","uuid":"d9758c2c-e751-4187-9070-7344b8cc7044","timestamp":"2026-12-01T20:50:46.630Z","cwd":"/home/dev/notes","sessionId":"eaca3c35-d13e-4c1d-a95b-a66cef48d210"}
{"parentUuid":"d9758c2c-e751-4187-9070-7344b8cc7044","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"alpha\ngamma","is_error":false}]},"uuid":"b9077428-d68d-4a05-a50e-c091eb1a661a","timestamp":"2026-12-01T20:50:46.714Z","cwd":"/home/dev/notes","sessionId":"eaca3c35-d13e-4c1d-a95b-a66cef48d210"}
{"parentUuid":"b9077428-d68d-4a05-a50e-c091eb1a661a","isSidechain":false,"message":{"role":"assistant","content":[{"type":"text","text":"notes.txt holds alpha and gamma."}]},"type":"assistant","uuid":"7adc9b35-2ecf-427c-a332-d0441ddf8818","timestamp":"2026-12-01T20:50:46.765Z","cwd":"/home/dev/notes","sessionId":"eaca3c35-d13e-4c1d-a95b-a66cef48d210"}
{"type":"custom-title","customTitle":"Notes","sessionId":"eaca3c35-d13e-4c1d-a95b-a66cef48d210"}
{"type":"assistant","message":{"con`

func ExampleReadEntries() {
	for e, err := range claude.ReadEntries(strings.NewReader(storedSession)) {
		if err != nil {
			fmt.Println("skipped:", err) // the last line was cut short
			continue
		}
		if e.Prompt != nil && !e.Meta && !e.Sidechain {
			fmt.Println("person:", e.Prompt.Text())
		}
		for _, ev := range e.Events {
			switch ev := ev.(type) {
			case claude.Text:
				fmt.Println("agent:", ev.Text)
			case claude.ToolUse:
				fmt.Printf("tool call %s: %s %s\n", ev.ID, ev.Name, ev.Input)
			case claude.ToolResult:
				fmt.Printf("tool result %s: %q\n", ev.ToolUseID, ev.Text)
			}
		}
		if e.Title != "" {
			fmt.Println("title:", e.Title)
		}
	}
	// Output:
	// person: Show notes.txt.
	// tool call toolu_01: Bash {"command":"cat notes.txt"}
	// tool result toolu_01: "alpha\ngamma"
	// agent: notes.txt holds alpha and gamma.
	// title: Notes
	// skipped: claude: skipped line 7 (byte 1644): invalid stream-json line (35 bytes): unexpected end of input at offset 35
}
