package gemini_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/gemini"
)

// A session file, as the Gemini CLI writes it (trimmed: real records carry
// more members). The model's message is written twice, the second time
// with its tool call, and a resume rewrote the list with a $set.
const storedSession = `{"sessionId":"70c7e5f7-d9a6-4069-95ce-50e60472dd03","projectHash":"cd7a","startTime":"2026-12-01T21:07:04.044Z","lastUpdated":"2026-12-01T21:07:04.044Z","kind":"main"}
{"$set":{"messages":[{"id":"d049","timestamp":"2026-12-01T21:07:04.045Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}]}}
{"id":"4ae2","timestamp":"2026-12-01T21:07:04.150Z","type":"user","content":[{"text":"Run echo hi."}]}
{"id":"0089","timestamp":"2026-12-01T21:07:04.416Z","type":"gemini","content":"","thoughts":[]}
{"id":"0089","timestamp":"2026-12-01T21:07:04.416Z","type":"gemini","content":"","thoughts":[],"toolCalls":[{"id":"call_0","name":"run_shell_command","args":{"command":"echo hi"},"status":"success","resultDisplay":"hi"}]}
{"id":"e7d2","timestamp":"2026-12-01T21:07:04.762Z","type":"user","content":[{"functionResponse":{"id":"call_0","name":"run_shell_command","response":{"output":"Output: hi"}}}]}
{"id":"c750","timestamp":"2026-12-01T21:07:04.875Z","type":"gemini","content":"The command printed: hi","thoughts":[]}
{"$set":{"lastUpdated":"2026-12-01T21:07:04.875Z"}}
{"$set":{"summary":"Echo in the shell"}}
{"id":"c75`

func ExampleConversation() {
	var c gemini.Conversation
	for e, err := range gemini.ReadEntries(strings.NewReader(storedSession)) {
		if err != nil {
			fmt.Println("skipped:", err) // the last line was cut short
			continue
		}
		c.Apply(e)
	}
	fmt.Println(c.Summary)
	for _, m := range c.Messages() {
		if m.Prompt != nil && !m.Meta {
			fmt.Println("person:", m.Prompt.Text())
		}
		for _, ev := range m.Events {
			switch ev := ev.(type) {
			case gemini.Text:
				fmt.Println("agent:", ev.Text)
			case gemini.ToolUse:
				fmt.Printf("tool call %s: %s %s\n", ev.ID, ev.Name, ev.Input)
			case gemini.ToolResult:
				fmt.Printf("tool result %s: %s %q\n", ev.ID, ev.Status, ev.Output)
			}
		}
	}
	// Output:
	// skipped: gemini: skipped line 10 (byte 1156): invalid stream-json line (10 bytes): unexpected end of input at offset 10
	// Echo in the shell
	// person: Run echo hi.
	// tool call call_0: run_shell_command {"command":"echo hi"}
	// tool result call_0: success "hi"
	// agent: The command printed: hi
}
