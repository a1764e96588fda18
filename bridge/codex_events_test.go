package bridge_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// Lines of a scripted app-server, in the shapes of the captures
// (../codex/testdata/appserver), for what the captures lack.
const (
	cxThread = "01a23b10-0000-7000-8000-000000000001"
	cxTurn   = "01a23b10-0000-7000-8000-0000000000t1"
)

// cxOpen answers the bridge's opening of the thread in a scripted
// app-server p: initialize, model/list, thread/start.
func cxOpen(t *testing.T, p *script) {
	t.Helper()
	answer := func(method, result string) {
		synctest.Wait()
		p.write(`{"id":` + p.cxRequest(method) + `,"result":` + result + `}`)
	}
	answer("initialize", `{"userAgent":"acpkit_bridge/0.171.0 (Debian 12.0.0; x86_64) dumb (acpkit_bridge; 1.0.0)","codexHome":"/home/u/.codex","platformFamily":"unix","platformOs":"linux"}`)
	answer("model/list", `{"data":[{"id":"gpt-5.5","model":"gpt-5.5","displayName":"GPT-5.5","description":"Frontier","hidden":false,"isDefault":true,"defaultReasoningEffort":"medium","supportedReasoningEfforts":[{"reasoningEffort":"low","description":"Fast"},{"reasoningEffort":"medium","description":"Balanced"},{"reasoningEffort":"high","description":"Deep"}],"inputModalities":["text","image"]}],"nextCursor":null}`)
	answer("thread/start", `{"thread":{"id":"`+cxThread+`","sessionId":"`+cxThread+`","preview":"","ephemeral":false,"model":"gpt-5.5","status":{"type":"idle"},"cwd":"/work","cliVersion":"0.171.0","source":"vscode","turns":[]},"model":"gpt-5.5","modelProvider":"openai","cwd":"/work","approvalPolicy":"on-request","sandbox":{"type":"readOnly","networkAccess":false},"reasoningEffort":null}`)
	synctest.Wait()
}

// cxRequest returns the id of the last request of method the bridge wrote
// to the scripted app-server p, as JSON.
func (s *script) cxRequest(method string) string {
	s.t.Helper()
	ls := s.lines()
	for i := len(ls) - 1; i >= 0; i-- {
		if gjson.Get(ls[i], "method").String() == method && gjson.Get(ls[i], "id").Exists() {
			return gjson.Get(ls[i], "id").Raw
		}
	}
	s.t.Fatalf("no %s request in %q", method, ls)
	return ""
}

// cxNote is a notification of the app-server's in the turn.
func cxNote(method, params string) string {
	return `{"method":"` + method + `","params":{"threadId":"` + cxThread + `","turnId":"` + cxTurn + `",` + params + `},"emittedAtMs":1796287300000}`
}

// cxItem is an item notification of the turn.
func cxItem(phase, item string) string { return cxNote("item/"+phase, `"item":`+item) }

// cxStartTurn answers turn/start.
func cxStartTurn(t *testing.T, p *script) {
	t.Helper()
	synctest.Wait()
	p.write(`{"id":`+p.cxRequest("turn/start")+`,"result":{"turn":{"id":"`+cxTurn+`","items":[],"itemsView":"notLoaded","status":"inProgress","error":null}}}`,
		cxNote("turn/started", `"turn":{"id":"`+cxTurn+`","items":[],"status":"inProgress"}`))
}

// cxEndTurn ends the turn completed.
func cxEndTurn(p *script, total string) {
	p.write(cxNote("thread/tokenUsage/updated", `"tokenUsage":{"total":`+total+`,"last":`+total+`,"modelContextWindow":258400}`),
		`{"method":"turn/completed","params":{"threadId":"`+cxThread+`","turn":{"id":"`+cxTurn+`","items":[],"itemsView":"summary","status":"completed","error":null}},"emittedAtMs":1796287300000}`)
}

// TestCodexEvents checks how the kinds of event the captures lack reach
// the editor: a command's live output, a web search, an MCP tool call that
// fails and the approval of one, a plan, a file change that updates and
// deletes files, a rate limit nearly used, an MCP server that failed to
// start; and that the writable roots of Auto mode are the session's
// additional directories.
func TestCodexEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		notices := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
		e := newEnv(t, bridge.Config{CLI: bridge.Codex}, notices)
		defer e.close()
		s, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", AdditionalDirectories: []string{"/lib"}})
		must(t, err)
		p := e.process()
		cxOpen(t, p)
		_, err = acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: s.SessionID, ModeID: "workspace-write"})
		must(t, err)
		ch := e.promptAsync(bg, s.SessionID, "work")
		cxStartTurn(t, p)
		if got := gjson.Get(p.lines()[len(p.lines())-1], "params.sandboxPolicy").Raw; got != `{"type":"workspaceWrite","writableRoots":["/lib"]}` {
			t.Errorf("turn/start's sandbox policy is %s, want the additional directory writable", got)
		}
		p.write(
			`{"method":"mcpServer/startupStatus/updated","params":{"threadId":"`+cxThread+`","name":"docs","status":"failed","error":"spawn ENOENT"},"emittedAtMs":1796287300000}`,
			cxItem("started", `{"type":"commandExecution","id":"cmd1","command":"/bin/bash -lc 'go test'","cwd":"/work","status":"inProgress","commandActions":[{"type":"unknown","command":"go test"}],"aggregatedOutput":null,"exitCode":null}`),
			cxNote("item/commandExecution/outputDelta", `"itemId":"cmd1","delta":"ok  a\n"`),
			cxNote("item/commandExecution/outputDelta", `"itemId":"cmd1","delta":"ok  b\n"`),
			cxItem("completed", `{"type":"commandExecution","id":"cmd1","command":"/bin/bash -lc 'go test'","cwd":"/work","status":"completed","commandActions":[{"type":"unknown","command":"go test"}],"aggregatedOutput":"ok  a\nok  b\n","exitCode":0}`),
			cxItem("started", `{"type":"webSearch","id":"ws1","query":"","action":null}`),
			cxItem("completed", `{"type":"webSearch","id":"ws1","query":"acp spec","action":{"type":"search","query":"acp spec"}}`),
			cxNote("turn/plan/updated", `"explanation":null,"plan":[{"step":"Read","status":"completed"},{"step":"Write","status":"inProgress"},{"step":"Test","status":"pending"}]`),
			cxItem("completed", `{"type":"mcpToolCall","id":"mcp1","server":"docs","tool":"get","status":"failed","arguments":{"page":1},"result":null,"error":{"message":"no such page"}}`),
			`{"id":7,"method":"mcpServer/elicitation/request","params":{"threadId":"`+cxThread+`","turnId":"`+cxTurn+`","serverName":"docs","mode":"form","_meta":{"codex_approval_kind":"mcp_tool_call","persist":["session","always"],"tool_name":"delete","tool_params":{"page":2}},"message":"Allow the docs MCP server to run tool \"delete\"?","requestedSchema":{"type":"object","properties":{}}}}`,
			cxItem("started", `{"type":"fileChange","id":"fc1","changes":[{"path":"/work/a.txt","kind":{"type":"update","move_path":null},"diff":"@@ -1,2 +1,2 @@\n one\n-two\n+three\n"},{"path":"/work/old.txt","kind":{"type":"delete"},"diff":"bye\n"}],"status":"inProgress"}`),
			cxItem("completed", `{"type":"fileChange","id":"fc1","changes":[{"path":"/work/a.txt","kind":{"type":"update","move_path":null},"diff":"@@ -1,2 +1,2 @@\n one\n-two\n+three\n"},{"path":"/work/old.txt","kind":{"type":"delete"},"diff":"bye\n"}],"status":"completed"}`),
			`{"method":"account/rateLimits/updated","params":{"rateLimits":{"limitId":"codex","primary":{"usedPercent":93,"windowDurationMins":300,"resetsAt":1796295600},"secondary":{"usedPercent":41,"windowDurationMins":10080,"resetsAt":1796641200},"planType":"plus","rateLimitReachedType":null}},"emittedAtMs":1796287300000}`,
		)
		synctest.Wait()
		cxEndTurn(p, `{"totalTokens":30,"inputTokens":20,"cachedInputTokens":5,"outputTokens":10,"reasoningOutputTokens":0}`)
		a := got(t, ch)
		stopReason(t, a, acp.StopReasonEndTurn)
		want := []string{
			"available_commands_update", "config_option_update", // the thread is open
			"current_mode_update", "config_option_update",
			"notice The MCP server docs failed to start: spawn ENOENT",
			"tool_call cmd1 in_progress go test",
			"tool_call_update cmd1 in_progress ok  a\n",
			"tool_call_update cmd1 in_progress ok  a\nok  b\n",
			"tool_call_update cmd1 completed go test ok  a\nok  b\n",
			"tool_call ws1 in_progress Search the web",
			"tool_call_update ws1 completed Search the web for \"acp spec\"",
			"plan [Read completed] [Write in_progress] [Test pending]",
			"tool_call_update mcp1 failed docs: get no such page",
			"tool_call fc1 in_progress Edit /work/a.txt, /work/old.txt",
			"tool_call_update fc1 completed Edit /work/a.txt, /work/old.txt",
			"notice You have used 93% of your Codex 5-hour limit; it resets Thu Dec 3 at 11:00 AM UTC.",
			"usage_update",
		}
		if diff := cmp.Diff(want, e.summarize(true)); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
		if a.res.Usage == nil || a.res.Usage.InputTokens != 20 || a.res.Usage.OutputTokens != 10 {
			t.Errorf("the turn's usage is %+v", a.res.Usage)
		}
		// The MCP tool's approval asked about the call it names, and the
		// editor's allow went back as accept.
		e.mu.Lock()
		asked := e.asked
		e.mu.Unlock()
		if len(asked) != 1 || asked[0].ToolCall.Title != "docs: delete" || string(asked[0].ToolCall.RawInput) != `{"page":2}` {
			t.Errorf("the editor was asked %+v", asked)
		}
		if got := p.lines(); !strings.Contains(strings.Join(got, "\n"), `{"id":7,"result":{"action":"accept","content":null}}`) {
			t.Errorf("the app-server got %q, want the MCP approval accepted", got)
		}
		// The file change's diffs: the update's hunk, the deleted text.
		fc := lastUpdate(e.updatesOf(), "fc1").(acp.ToolCallUpdate)
		var diffs []string
		for _, c := range fc.Content {
			if d, ok := c.(acp.ToolCallDiff); ok {
				old := "<nil>"
				if d.OldText != nil {
					old = *d.OldText
				}
				diffs = append(diffs, fmt.Sprintf("%s %q -> %q", d.Path, old, d.NewText))
			}
		}
		if diff := cmp.Diff([]string{`/work/a.txt "one\ntwo" -> "one\nthree"`, `/work/old.txt "bye\n" -> ""`}, diffs); diff != "" {
			t.Errorf("the file change's diffs (-want +got):\n%s", diff)
		}
	})
}

// updatesOf returns what the editor got.
func (e *env) updatesOf() []acp.Update {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.Update(nil), e.updates...)
}

// TestCodexTurnFailures checks the prompt's error for each way the
// app-server fails a turn, with the ErrorData kinds Claude Code's turns
// give: credentials refused (ACP's auth_required), a usage limit whose
// reset time only its words give, another failed request to the model,
// and a failure of the CLI's own.
func TestCodexTurnFailures(t *testing.T) {
	tests := []struct {
		name, error string
		code        int
		data        bridge.ErrorData
	}{
		{"unauthorized", `{"message":"Your access token could not be refreshed.","codexErrorInfo":"unauthorized","additionalDetails":null}`,
			acp.CodeAuthRequired, bridge.ErrorData{Kind: bridge.KindAuthRequired, APIErrorStatus: 401}},
		{"usage limit in words", `{"message":"You've hit your usage limit. Try again at 3:00 PM.","codexErrorInfo":"usageLimitExceeded","additionalDetails":null}`,
			acp.CodeInternalError, bridge.ErrorData{Kind: bridge.KindRateLimit, APIErrorStatus: 429, ResetsAtMs: time.Date(2000, 1, 1, 15, 0, 0, 0, time.UTC).UnixMilli()}},
		{"overloaded", `{"message":"The server is overloaded.","codexErrorInfo":{"serverOverloaded":{"httpStatusCode":503}},"additionalDetails":null}`,
			acp.CodeInternalError, bridge.ErrorData{Kind: bridge.KindAPIError, APIErrorStatus: 503}},
		{"sandbox", `{"message":"The sandbox could not start.","codexErrorInfo":"sandboxError","additionalDetails":null}`,
			acp.CodeInternalError, bridge.ErrorData{Kind: bridge.KindCLIError}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{CLI: bridge.Codex, Location: time.UTC}, acp.ClientCapabilities{})
				defer e.close()
				sid := e.newSession()
				p := e.process()
				cxOpen(t, p)
				ch := e.promptAsync(bg, sid, "work")
				cxStartTurn(t, p)
				p.write(`{"method":"turn/completed","params":{"threadId":"` + cxThread + `","turn":{"id":"` + cxTurn + `","items":[],"itemsView":"notLoaded","status":"failed","error":` + tt.error + `}},"emittedAtMs":1796287300000}`)
				a := got(t, ch)
				var ae *acp.Error
				if !errors.As(a.err, &ae) || ae.Code != tt.code {
					t.Fatalf("the prompt was answered %+v, %v; want error %d", a.res, a.err, tt.code)
				}
				var data bridge.ErrorData
				json.Unmarshal(ae.Data, &data)
				if diff := cmp.Diff(tt.data, data); diff != "" {
					t.Errorf("the error's data (-want +got):\n%s", diff)
				}
			})
		})
	}
}
