package bridge_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// TestCodexEvents checks how each kind of Codex item reaches the editor,
// and that the turn's mode change goes to the next turn's process.
func TestCodexEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		notices := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
		e := newEnv(t, bridge.Config{CLI: bridge.Codex, AllowBypass: true}, notices)
		e.stayAtEOF = true
		defer e.close()
		sid, ch, p := e.begin("work")
		if _, err := acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: sid, ModeID: "danger-full-access"}); err != nil {
			t.Fatal(err)
		}
		p.write(
			`{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}`,
			`{"type":"turn.started"}`,
			`{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"status":"in_progress"}}`,
			`{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[]},"status":"completed"}}`,
			`{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"get","arguments":{},"error":{"message":"no such page"},"status":"failed"}}`,
			`{"type":"item.started","item":{"id":"item_3","type":"todo_list","items":[{"text":"Read","completed":true},{"text":"Write","completed":false}]}}`,
			`{"type":"item.completed","item":{"id":"item_4","type":"error","message":"Falling back to the default model."}}`,
			`{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion)"}`,
			`{"type":"item.completed","item":{"id":"item_5","type":"web_search","query":"acp spec","action":{"type":"search"}}}`,
			`not json`,
			`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":5}}`,
		)
		p.exit(0)
		a := got(t, ch)
		stopReason(t, a, acp.StopReasonEndTurn)
		want := []string{
			"current_mode_update", "config_option_update",
			"tool_call item_1 in_progress docs: search",
			"tool_call_update item_1 completed docs: search",
			"tool_call_update item_2 failed docs: get",
			"plan [Read completed] [Write pending]",
			"notice Falling back to the default model.",
			"notice stream disconnected before completion",
			"tool_call_update item_5 completed Search the web for \"acp spec\"",
		}
		if diff := cmp.Diff(want, e.summary()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
		if a.res.Usage == nil || a.res.Usage.InputTokens != 10 || a.res.Usage.OutputTokens != 5 {
			t.Errorf("the turn's usage is %+v", a.res.Usage)
		}

		second := e.promptAsync(bg, sid, "more")
		p2 := e.process()
		if !hasArg(p2.args, "--sandbox=danger-full-access") {
			t.Errorf("the next turn's CLI was started with %q, want the new mode", p2.args)
		}
		p2.write(`{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}`, `{"type":"turn.started"}`,
			`{"type":"turn.completed","usage":{"input_tokens":30,"cached_input_tokens":2,"output_tokens":9}}`)
		p2.exit(0)
		a = got(t, second)
		if a.res.Usage == nil || a.res.Usage.InputTokens != 20 || a.res.Usage.OutputTokens != 4 {
			t.Errorf("the second turn's usage is %+v, want the difference of the thread's totals", a.res.Usage)
		}
	})
}

// A Codex thread the CLI does not have fails the turn as a resume not
// found, naming the thread.
func TestCodexResumeNotFound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: bridge.Codex}, acp.ClientCapabilities{})
		e.stayAtEOF = true
		defer e.close()
		const id = "0199a213-81c0-7800-8aa1-000000000000"
		if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: id, Cwd: "/work"}); err != nil {
			t.Fatal(err)
		}
		ch := e.promptAsync(bg, id, "go on")
		p := e.process()
		p.stderr("Error: No saved session found with ID " + id + "\n")
		synctest.Wait()
		p.exit(1)
		a := got(t, ch)
		var ae *acp.Error
		if !errors.As(a.err, &ae) || ae.Code != acp.CodeResourceNotFound || !strings.Contains(ae.Message, id) {
			t.Errorf("the prompt was answered %+v, %v; want resource not found", a.res, a.err)
		}
	})
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
