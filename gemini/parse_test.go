package gemini_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    []gemini.Event
		session string
	}{
		{"blank", " \t", nil, ""},
		{"init", `{"type":"init","timestamp":"t","session_id":"s-1","model":"auto"}`,
			[]gemini.Event{gemini.Init{Model: "auto"}}, "s-1"},
		{"init without model", `{"type":"init","session_id":""}`, []gemini.Event{gemini.Init{}}, ""},
		{"session id not a string", `{"type":"init","session_id":7}`, []gemini.Event{gemini.Init{}}, ""},
		{"escaped session id", `{"type":"init","session_id":"s\u002d1"}`, []gemini.Event{gemini.Init{}}, "s-1"},
		{"user", `{"type":"message","role":"user","content":"hi\n\n"}`, []gemini.Event{gemini.UserMessage{Text: "hi\n\n"}}, ""},
		{"delta", `{"type":"message","role":"assistant","content":"He","delta":true}`, []gemini.Event{gemini.PartialText{Text: "He"}}, ""},
		{"whole message", `{"type":"message","role":"assistant","content":"Hello"}`, []gemini.Event{gemini.Text{Text: "Hello"}}, ""},
		{"delta false", `{"type":"message","role":"assistant","content":"Hello","delta":false}`, []gemini.Event{gemini.Text{Text: "Hello"}}, ""},
		{"delta not a bool", `{"type":"message","role":"assistant","content":"Hello","delta":"yes"}`, []gemini.Event{gemini.Text{Text: "Hello"}}, ""},
		{"content not a string", `{"type":"message","role":"assistant","content":["x"],"delta":true}`, []gemini.Event{gemini.PartialText{}}, ""},
		{"other role", `{"type":"message","role":"system","content":"x"}`, nil, ""},
		{"no role", `{"type":"message","content":"x"}`, nil, ""},
		{"tool use", `{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls"}}`,
			[]gemini.Event{gemini.ToolUse{ID: "t1", Name: "run_shell_command", Kind: gemini.ToolKindExecute, Input: json.RawMessage(`{"command":"ls"}`)}}, ""},
		{"tool use without parameters", `{"type":"tool_use","tool_name":"mcp_x","tool_id":"t2"}`,
			[]gemini.Event{gemini.ToolUse{ID: "t2", Name: "mcp_x", Kind: gemini.ToolKindOther}}, ""},
		{"tool result error", `{"type":"tool_result","tool_id":"t1","status":"error","output":"o","error":{"type":"file_not_found","message":"gone"}}`,
			[]gemini.Event{gemini.ToolResult{ID: "t1", Status: gemini.ToolError, Output: "o", ErrorType: "file_not_found", ErrorMessage: "gone"}}, ""},
		{"tool result error not an object", `{"type":"tool_result","tool_id":"t1","status":"error","error":"x"}`,
			[]gemini.Event{gemini.ToolResult{ID: "t1", Status: gemini.ToolError}}, ""},
		{"notice", `{"type":"error","severity":"warning","message":"Loop detected"}`,
			[]gemini.Event{gemini.Notice{Severity: "warning", Message: "Loop detected"}}, ""},
		{"result", `{"type":"result","status":"success","stats":{"duration_ms":236,"tool_calls":2,"total_tokens":5}}`,
			[]gemini.Event{gemini.Result{Status: "success", Duration: 236 * time.Millisecond, ToolCalls: 2,
				Stats: json.RawMessage(`{"duration_ms":236,"tool_calls":2,"total_tokens":5}`)}}, ""},
		{"result with odd stats", `{"type":"result","status":"success","stats":{"duration_ms":-5,"tool_calls":1e30}}`,
			[]gemini.Event{gemini.Result{Status: "success", ToolCalls: math.MaxInt,
				Stats: json.RawMessage(`{"duration_ms":-5,"tool_calls":1e30}`)}}, ""},
		{"result stats not an object", `{"type":"result","status":"error","stats":[1]}`,
			[]gemini.Event{gemini.Result{Status: "error"}}, ""},
		{"api error with a JSON body", `{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":503,\"message\":\"busy\"}}]"}}`,
			[]gemini.Event{
				gemini.APIError{Status: 503, Message: `[API Error: {"error":{"code":503,"message":"busy"}}]`},
				gemini.Result{Status: "error", ErrorType: "unknown", ErrorMessage: `[API Error: {"error":{"code":503,"message":"busy"}}]`},
			}, ""},
		{"api error body followed by text", `{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":400}}]\nSee [docs]"}}`,
			[]gemini.Event{
				gemini.APIError{Status: 400, Message: "[API Error: {\"error\":{\"code\":400}}]\nSee [docs]"},
				gemini.Result{Status: "error", ErrorType: "unknown", ErrorMessage: "[API Error: {\"error\":{\"code\":400}}]\nSee [docs]"},
			}, ""},
		{"api error code out of range", `{"type":"result","status":"error","error":{"message":"[API Error: {\"error\":{\"code\":7}}]"}}`,
			[]gemini.Event{
				gemini.APIError{Message: `[API Error: {"error":{"code":7}}]`},
				gemini.Result{Status: "error", ErrorMessage: `[API Error: {"error":{"code":7}}]`},
			}, ""},
		{"api error as text", `{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: quota]"}}`,
			[]gemini.Event{
				gemini.APIError{Message: "[API Error: quota]"},
				gemini.Result{Status: "error", ErrorType: "unknown", ErrorMessage: "[API Error: quota]"},
			}, ""},
		{"repeated names: the last wins", `{"type":"init","session_id":"a","type":"message","role":"user","content":"x","role":"assistant","session_id":"b"}`,
			[]gemini.Event{gemini.Text{Text: "x"}}, "b"},
		{"unknown type", `{"type":"heartbeat","session_id":"s"}`, nil, "s"},
		{"no type", `{"session_id":"s"}`, nil, "s"},
		{"type not a string", `{"type":1}`, nil, ""},
		{"escaped member name", `{"typ\u0065":"init","model":"m"}`, []gemini.Event{gemini.Init{Model: "m"}}, ""},
		{"surrounding space", " {\"type\":\"init\"}\r\n", []gemini.Event{gemini.Init{}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prior := []gemini.Event{gemini.Notice{Message: "prior"}}
			got, sid, err := gemini.ParseLine([]byte(tt.line), prior)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got[1:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			if string(sid) != tt.session {
				t.Errorf("session id %q, want %q", sid, tt.session)
			}
		})
	}
}

func TestParseLineErrors(t *testing.T) {
	tests := []struct {
		line        string
		len, offset int
	}{
		{"Loaded cached credentials.", 26, 0},
		{`{"type":"init"`, 14, 14},
		{`[1,2]`, 5, 0},
		{`"text"`, 6, 0},
		{"{\"a\":\"\xff\"}", 9, 6},
		{`{"a":1} {"b":2}`, 15, 8},
	}
	for _, tt := range tests {
		events, sid, err := gemini.ParseLine([]byte(tt.line), nil)
		var se *gemini.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseLine(%q) error = %v, want a *SyntaxError", tt.line, err)
			continue
		}
		if events != nil || sid != nil || se.Length != tt.len || se.Offset != tt.offset {
			t.Errorf("ParseLine(%q) = %v, %q, SyntaxError{Length:%d Offset:%d}; want nothing, Length %d, Offset %d",
				tt.line, events, sid, se.Length, se.Offset, tt.len, tt.offset)
		}
	}
}

// TestParseLineCopies checks that events and the session id outlive the
// line only as documented: events copy, the session id aliases.
func TestParseLineCopies(t *testing.T) {
	line := []byte(`{"type":"tool_use","session_id":"s-1","tool_name":"grep_x","tool_id":"t1","parameters":{"p":"v"}}`)
	events, sid, err := gemini.ParseLine(line, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := gemini.ToolUse{ID: "t1", Name: "grep_x", Kind: gemini.ToolKindOther, Input: json.RawMessage(`{"p":"v"}`)}
	for i := range line {
		line[i] = 'x'
	}
	if diff := cmp.Diff([]gemini.Event{want}, events); diff != "" {
		t.Errorf("events changed with the line (-want +got):\n%s", diff)
	}
	if string(sid) != "xxx" {
		t.Errorf("session id %q does not alias the line", sid)
	}
}

func TestToolKindOf(t *testing.T) {
	got := map[string]gemini.ToolKind{}
	for _, name := range []string{"run_shell_command", "read_file", "read_many_files", "list_directory", "glob",
		"search_file_content", "grep_search", "replace", "write_file", "web_fetch", "google_web_search",
		"save_memory", "write_todos", "mcp_github_create_issue", ""} {
		got[name] = gemini.ToolKindOf(name)
	}
	want := map[string]gemini.ToolKind{
		"run_shell_command": "execute", "read_file": "read", "read_many_files": "read",
		"list_directory": "search", "glob": "search", "search_file_content": "search", "grep_search": "search",
		"replace": "edit", "write_file": "edit", "web_fetch": "fetch", "google_web_search": "search",
		"save_memory": "think", "write_todos": "think", "mcp_github_create_issue": "other", "": "other",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolKindOf mismatch (-want +got):\n%s", diff)
	}
}
