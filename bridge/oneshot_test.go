package bridge_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// summary sums up each update the editor got: its kind, and the tool
// call's id, status and title or the text, where it has them.
func (e *env) summary() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, u := range e.updates {
		b, _ := json.Marshal(u)
		var m struct {
			SessionUpdate, ToolCallID, Status, Title string
			Content                                  json.RawMessage
			Entries                                  []struct{ Content, Status string }
		}
		json.Unmarshal(b, &m)
		s := m.SessionUpdate
		for _, f := range []string{m.ToolCallID, m.Status, m.Title} {
			if f != "" {
				s += " " + f
			}
		}
		var text struct{ Text string }
		if json.Unmarshal(m.Content, &text) == nil && text.Text != "" {
			s += " " + text.Text
		}
		for _, en := range m.Entries {
			s += fmt.Sprintf(" [%s %s]", en.Content, en.Status)
		}
		out = append(out, s)
	}
	return out
}

// TestGeminiEvents checks how Gemini CLI's lines reach the editor, for a
// client that takes no notices.
func TestGeminiEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: bridge.Gemini}, acp.ClientCapabilities{})
		e.stayAtEOF = true
		defer e.close()
		_, ch, p := e.begin("work")
		if diff := cmp.Diff([]string{"--output-format=stream-json", "--skip-trust"}, p.args); diff != "" {
			t.Errorf("command line (-want +got):\n%s", diff)
		}
		p.write(
			`{"type":"init","session_id":"9775d6bb-e238-4068-94e5-d4b9b10aadc3","model":"auto"}`,
			`{"type":"message","role":"assistant","content":"Reading."}`,
			`{"type":"tool_use","tool_name":"read_file","tool_id":"read_1","parameters":{"absolute_path":"/work/a.go"}}`,
			`{"type":"tool_result","tool_id":"read_1","status":"error","output":"","error":{"type":"ENOENT","message":"no such file"}}`,
			`{"type":"error","severity":"warning","message":"Loop detected"}`,
			`{"type":"message","role":"assistant","content":"Done","delta":true}`,
			`{"type":"result","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"cached":5,"input":15,"duration_ms":100,"tool_calls":1}}`,
		)
		p.exit(0)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		want := []string{
			"agent_message_chunk Reading.",
			"tool_call read_1 in_progress read_file: /work/a.go",
			"tool_call_update read_1 failed",
			"agent_message_chunk Done",
		}
		if diff := cmp.Diff(want, e.summary()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
	})
}
