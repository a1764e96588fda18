package bridge_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude"
)

// A ClaudeTranslator turns each line's events into session updates, and the end
// of the turn into the prompt's response.
func ExampleClaudeTranslator() {
	lines := []string{
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/src/main.go"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"It is a main package."}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"It is a main package."}`,
	}
	var tr bridge.ClaudeTranslator
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, line := range lines {
		events, _, err := claude.ParseLine([]byte(line), nil)
		if err != nil {
			fmt.Println(err)
			continue
		}
		var updates []acp.Update
		for _, ev := range events {
			updates = tr.Translate(updates, ev, now)
		}
		for _, u := range updates {
			b, _ := json.Marshal(u)
			fmt.Println(string(b))
		}
	}
	res, err := tr.End(false, "", nil, now)
	fmt.Println(res.StopReason, err)
	// Output:
	// {"sessionUpdate":"tool_call","toolCallId":"toolu_1","title":"Read /src/main.go","kind":"read","status":"pending","locations":[{"path":"/src/main.go"}],"rawInput":{"file_path":"/src/main.go"}}
	// {"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"package main"}}],"rawOutput":"package main"}
	// {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"It is a main package."}}
	// end_turn <nil>
}
