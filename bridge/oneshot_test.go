package bridge_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// summary sums up each update the editor got: its kind, and the tool
// call's id, status and title or the text, where it has them, and a
// plan's entries.
func (e *env) summary() []string { return e.summarize(false) }

// summarize is summary, with a tool call's text output too when output.
func (e *env) summarize(output bool) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, u := range e.updates {
		b, _ := json.Marshal(u)
		m := gjson.ParseBytes(b)
		s := m.Get("sessionUpdate").String()
		for _, f := range []string{"toolCallId", "status", "title"} {
			if v := m.Get(f).String(); v != "" {
				s += " " + v
			}
		}
		if t := m.Get("content.text").String(); t != "" {
			s += " " + t
		}
		for _, c := range m.Get("content").Array() {
			if t := c.Get("content.text").String(); output && t != "" {
				s += " " + t
			}
		}
		for _, en := range m.Get("entries").Array() {
			s += fmt.Sprintf(" [%s %s]", en.Get("content"), en.Get("status"))
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
