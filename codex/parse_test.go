package codex_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []codex.Event
	}{
		{"blank", " \t\r\n", nil},
		{"unknown line type", `{"type":"request_user_input","id":"t","call_id":"c","questions":[]}`, nil},
		{"type not a string", `{"type":["thread.started"],"thread_id":"x"}`, nil},
		{"thread id not a string", `{"type":"thread.started","thread_id":7}`, []codex.Event{codex.ThreadStarted{}}},
		{"escaped member names", `{"\u0074ype":"thread.started","thread_\u0069d":"t\u0031"}`, []codex.Event{codex.ThreadStarted{ThreadID: "t1"}}},
		{"repeated type: last wins", `{"type":"turn.started","type":"thread.started","thread_id":"a"}`, []codex.Event{codex.ThreadStarted{ThreadID: "a"}}},
		{"agent message started: nothing", `{"type":"item.started","item":{"id":"item_0","type":"agent_message","text":"par"}}`, nil},
		{"reasoning updated: nothing", `{"type":"item.updated","item":{"id":"item_0","type":"reasoning","text":"par"}}`, nil},
		{"command exit code negative", `{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"c","aggregated_output":"o","exit_code":-9,"status":"failed"}}`,
			[]codex.Event{codex.CommandExecution{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindExecute, Command: "c", Output: "o", ExitCode: -9, HasExitCode: true, Status: codex.StatusFailed}}},
		{"command exit code with exponent", `{"type":"item.completed","item":{"id":"i","type":"command_execution","exit_code":1e0}}`,
			[]codex.Event{codex.CommandExecution{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindExecute}}},
		{"web search with two ids", `{"type":"item.completed","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"q","action":{"type":"search","query":"q"}}}`,
			[]codex.Event{codex.WebSearch{ItemID: "ws_1", Phase: codex.PhaseCompleted, Kind: codex.ToolKindSearch, Query: "q", ActionType: "search", Action: json.RawMessage(`{"type":"search","query":"q"}`)}}},
		{"web search action not an object", `{"type":"item.started","item":{"id":"ws_1","type":"web_search","action":"search"}}`,
			[]codex.Event{codex.WebSearch{ItemID: "ws_1", Phase: codex.PhaseStarted, Kind: codex.ToolKindSearch}}},
		{"mcp error and null result", `{"type":"item.completed","item":{"id":"i","type":"mcp_tool_call","server":"s","tool":"t","arguments":null,"result":null,"error":{"message":"boom","message":"bang"},"status":"failed"}}`,
			[]codex.Event{codex.MCPToolCall{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindOther, Server: "s", Tool: "t", Error: "bang", Status: codex.StatusFailed}}},
		{"web search opening a page", `{"type":"item.completed","item":{"id":"ws_2","type":"web_search","query":"","action":{"type":"open_page","url":"https://go.dev"}}}`,
			[]codex.Event{codex.WebSearch{ItemID: "ws_2", Phase: codex.PhaseCompleted, Kind: codex.ToolKindFetch, ActionType: "open_page", Action: json.RawMessage(`{"type":"open_page","url":"https://go.dev"}`)}}},
		{"file change that only deletes", `{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"a","kind":"delete"},{"path":"b","kind":"delete"}],"status":"completed"}}`,
			[]codex.Event{codex.FileChange{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindDelete,
				Changes: []codex.Change{{Path: "a", Kind: codex.ChangeDelete}, {Path: "b", Kind: codex.ChangeDelete}}, Status: codex.StatusCompleted}}},
		{"file change without changes", `{"type":"item.started","item":{"id":"i","type":"file_change","status":"in_progress"}}`,
			[]codex.Event{codex.FileChange{ItemID: "i", Phase: codex.PhaseStarted, Kind: codex.ToolKindEdit, Status: codex.StatusInProgress}}},
		{"todo list, not an array", `{"type":"item.started","item":{"id":"i","type":"todo_list","items":{}}}`,
			[]codex.Event{codex.TodoList{ItemID: "i", Phase: codex.PhaseStarted}}},
		{"todo list, empty", `{"type":"item.started","item":{"id":"i","type":"todo_list","items":[]}}`,
			[]codex.Event{codex.TodoList{ItemID: "i", Phase: codex.PhaseStarted, Items: []codex.TodoItem{}}}},
		{"changes with an object kind", `{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"p","kind":{"type":"update","move_path":"q"}}],"status":"completed"}}`,
			[]codex.Event{codex.FileChange{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindEdit, Changes: []codex.Change{{Path: "p", Kind: codex.ChangeUpdate, MovePath: "q"}}, Status: codex.StatusCompleted}}},
		{"changes with their text", `{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"/w/a","kind":{"type":"add"},"diff":"hi\n"},{"path":"/w/b","kind":{"type":"update","move_path":null},"diff":"@@ -1 +1 @@\n-a\n+b\n"}],"status":"completed"}}`,
			[]codex.Event{codex.FileChange{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindEdit, Status: codex.StatusCompleted, Changes: []codex.Change{
				{Path: "/w/a", Kind: codex.ChangeAdd, Diff: "hi\n"},
				{Path: "/w/b", Kind: codex.ChangeUpdate, Diff: "@@ -1 +1 @@\n-a\n+b\n", Hunks: []codex.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}}}},
			}}}},
		{"notice", `{"type":"item.completed","item":{"id":"item_9","type":"error","message":"careful"}}`,
			[]codex.Event{codex.Notice{ItemID: "item_9", Message: "careful"}}},
		{"retry", `{"type":"error","message":"Reconnecting... 3/5 (stream error: unexpected status 503 Service Unavailable (x))"}`,
			[]codex.Event{codex.Retry{Attempt: 3, MaxRetries: 5, Message: "stream error: unexpected status 503 Service Unavailable (x)", Status: 503}}},
		{"retry without reason", `{"type":"error","message":"Reconnecting... 1/1"}`,
			[]codex.Event{codex.Retry{Attempt: 1, MaxRetries: 1}}},
		{"retry counts not numbers", `{"type":"error","message":"Reconnecting... one/5 (x)"}`,
			[]codex.Event{codex.APIError{Message: "Reconnecting... one/5 (x)"}}},
		{"retry count too long", `{"type":"error","message":"Reconnecting... 1/99999999999999999999 (x)"}`,
			[]codex.Event{codex.APIError{Message: "Reconnecting... 1/99999999999999999999 (x)"}}},
		{"api error status", `{"type":"error","message":"unexpected status 429 Too Many Requests: slow down"}`,
			[]codex.Event{codex.APIError{Message: "unexpected status 429 Too Many Requests: slow down", Status: 429}}},
		{"status too short", `{"type":"error","message":"unexpected status 42"}`,
			[]codex.Event{codex.APIError{Message: "unexpected status 42"}}},
		{"status below 100", `{"type":"error","message":"unexpected status 042 x"}`,
			[]codex.Event{codex.APIError{Message: "unexpected status 042 x"}}},
		{"error without message", `{"type":"error"}`, []codex.Event{codex.APIError{}}},
		{"turn failed", `{"type":"turn.failed","error":{"message":"unexpected status 500 Internal Server Error"}}`,
			[]codex.Event{codex.TurnFailed{Message: "unexpected status 500 Internal Server Error", Status: 500}}},
		{"turn failed, error not an object", `{"type":"turn.failed","error":"x"}`, []codex.Event{codex.TurnFailed{}}},
		{"turn completed, usage not an object", `{"type":"turn.completed","usage":[1]}`, []codex.Event{codex.TurnCompleted{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := codex.ParseLine([]byte(tt.line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseLine(%s) mismatch (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// TestParseLineThreadID checks the thread id ParseLine returns: the
// thread_id a line carries, unescaped, as a slice of the line when it has
// no escapes; nil for a line without one.
func TestParseLineThreadID(t *testing.T) {
	tests := []struct {
		line, want string
		inLine     bool
	}{
		{`{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}`, "0199a213-81c0-7800-8aa1-bbab2a035a53", true},
		{`{"type":"thread.started","thread_id":"a\u002db"}`, "a-b", false},
		{`{"type":"thread.started","thread_id":""}`, "", false},
		{`{"type":"thread.started","thread_id":7}`, "", false},
		{`{"type":"turn.started"}`, "", false},
	}
	for _, tt := range tests {
		line := []byte(tt.line)
		_, id, err := codex.ParseLine(line, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(id) != tt.want || (id == nil) != (tt.want == "") {
			t.Errorf("ParseLine(%s) thread id %q, want %q", tt.line, id, tt.want)
		}
		if inLine := len(id) > 0 && bytes.Contains(line, id) && &line[bytes.Index(line, id)] == &id[0]; inLine != tt.inLine {
			t.Errorf("ParseLine(%s): the thread id is a slice of the line: %v, want %v", tt.line, inLine, tt.inLine)
		}
	}
}

func TestParseLineSyntaxError(t *testing.T) {
	tests := []struct {
		line   string
		length int
		offset int
	}{
		{"[DEBUG] token sk-secret", 23, 1},
		{`  {"type":"turn.started"`, 22, 22},
		{`["not an object"]`, 17, 0},
		{"{\"type\":\"\xff\"}", 12, 9},
	}
	for _, tt := range tests {
		prior := []codex.Event{codex.TurnStarted{}}
		got, _, err := codex.ParseLine([]byte(tt.line), prior)
		var se *codex.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("ParseLine(%q) error = %v, want a *SyntaxError", tt.line, err)
		}
		if diff := cmp.Diff([]any{tt.length, tt.offset, prior}, []any{se.Length, se.Offset, got}); diff != "" {
			t.Errorf("ParseLine(%q) [length offset events] mismatch (-want +got):\n%s", tt.line, diff)
		}
		if bytes.Contains([]byte(err.Error()), []byte("secret")) {
			t.Errorf("the error quotes the line: %v", err)
		}
	}
}

// TestParseLineCopies checks that no event aliases the line: overwriting
// the line after ParseLine changes none of them.
func TestParseLineCopies(t *testing.T) {
	for _, path := range parsetest.Transcripts(t, "testdata") {
		data := readFile(t, path)
		for _, line := range bytes.Split(data, []byte("\n")) {
			events, _, err := codex.ParseLine(line, nil)
			if err != nil {
				continue
			}
			want, _, err := codex.ParseLine(bytes.Clone(line), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range line {
				line[i] = 'x'
			}
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("%s: events changed with the line (-want +got):\n%s", path, diff)
			}
		}
	}
}

// TestErrorStatus checks which numbers in an error's text are its HTTP
// status: the one after "status" in each wording Codex uses, and no other
// number, whether the text comes as a retry's reason, an API error or a
// failed turn.
func TestErrorStatus(t *testing.T) {
	tests := []struct {
		msg  string
		want int
	}{
		// The CLI's wordings.
		{"unexpected status 401 Unauthorized: Incorrect API key provided: sk-test., url: http://127.0.0.1:43211/v1/responses, request id: req_b9e1", 401},
		{"exceeded retry limit, last status: 429 Too Many Requests", 429},
		{"exceeded retry limit, last status: 429 Too Many Requests, request id: req_0f3f", 429},
		{"exceeded retry limit, last status: 500 Internal Server Error", 500},
		{"stream error: unexpected status 503 Service Unavailable (x)", 503},
		{"unexpected status 599 <unknown status code>: ", 599},
		{"Status: 502 Bad Gateway", 502},
		{"HTTP status 404", 404},
		{"gave status 500.", 500},
		{"(status 500)", 500},
		{"unexpected status 404: status 500", 404}, // the first status counts
		{"exit status 2; then unexpected status 503 Service Unavailable", 503},
		// Numbers that are not a status.
		{"gave up after Reconnecting... 2/5", 0},
		{"Please try again in 11.054s.", 0},
		{"retry in 3s", 0},
		{"Limit 30000, Used 30000, Requested 1200.", 0},
		{"response body of 512 bytes", 0},
		{"HTTP 429 Too Many Requests", 0}, // no "status"
		{"exit status 2", 0},
		{"exit status 127", 0},
		{"process ended with Exit Status 255", 0},
		{"status 2", 0},
		{"status 42 seen", 0},
		{"status 4291", 0},
		{"status 429.5", 0},
		{"status 500,000 times", 0},
		{"status 404/5", 0},
		{"status 500-503", 0},
		{"status 500ms", 0},
		{"status 099 x", 0},
		{"status 600 x", 0},
		{"status 1e3", 0},
		{"substatus 500", 0},
		{"status_code 500", 0},
		{"status  500", 0},
		{"status:500", 0},
		{"status", 0},
		{"status:", 0},
		{"", 0},
	}
	for _, tt := range tests {
		msg := mustJSON(t, tt.msg)
		lines := []struct {
			line string
			want codex.Event
		}{
			{`{"type":"error","message":` + string(msg) + `}`, codex.APIError{Message: tt.msg, Status: tt.want}},
			{`{"type":"turn.failed","error":{"message":` + string(msg) + `}}`, codex.TurnFailed{Message: tt.msg, Status: tt.want}},
			{`{"type":"error","message":` + string(mustJSON(t, "Reconnecting... 1/5 ("+tt.msg+")")) + `}`,
				codex.Retry{Attempt: 1, MaxRetries: 5, Message: tt.msg, Status: tt.want}},
		}
		for _, l := range lines {
			got, _, err := codex.ParseLine([]byte(l.line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]codex.Event{l.want}, got); diff != "" {
				t.Errorf("ParseLine(%s) mismatch (-want +got):\n%s", l.line, diff)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
