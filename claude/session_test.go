package claude_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// newSession returns a Session writing into a buffer.
func newSession() (*claude.Session, *bytes.Buffer) {
	var stdin bytes.Buffer
	return claude.NewSession(&stdin, ""), &stdin
}

// feed feeds lines to s and returns every event.
func feed(t *testing.T, s *claude.Session, lines ...string) []claude.Event {
	t.Helper()
	var all []claude.Event
	for _, l := range lines {
		events, err := s.Feed([]byte(l), nil)
		if err != nil {
			t.Fatalf("Feed(%s): %v", l, err)
		}
		all = append(all, events...)
	}
	return all
}

func TestSessionWrites(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G'}
	tests := []struct {
		name string
		call func(s *claude.Session) error
		want string
	}{
		{"text turn", func(s *claude.Session) error { return s.SendText("a <b> & \"c\"\nd") },
			`{"type":"user","message":{"role":"user","content":"a <b> & \"c\"\nd"},"parent_tool_use_id":null,"session_id":"default"}`},
		{"blocks", func(s *claude.Session) error {
			return s.Send(claude.TextBlock("look"), claude.ImageBlock("image/png", png),
				claude.RawBlock(json.RawMessage("{\n \"type\": \"document\", \"x\": 1}")))
		}, `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},` +
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}},` +
			`{"type":"document","x":1}]},"parent_tool_use_id":null,"session_id":"default"}`},
		{"initialize", func(s *claude.Session) error { _, err := s.Initialize(claude.InitializeOptions{}); return err },
			`{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}`},
		{"initialize with hooks", func(s *claude.Session) error {
			_, err := s.Initialize(claude.InitializeOptions{Hooks: map[claude.HookEvent][]claude.HookMatcher{
				claude.HookPreToolUse: {{Matcher: "Bash", CallbackIDs: []string{"hook_0", "hook_1"}, Timeout: 30 * time.Second}},
				claude.HookStop:       {{CallbackIDs: []string{"hook_2"}, Timeout: 1500 * time.Millisecond}},
				claude.HookPreCompact: nil, // no matchers: not sent
			}})
			return err
		}, `{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":{` +
			`"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0","hook_1"],"timeout":30}],` +
			`"Stop":[{"matcher":null,"hookCallbackIds":["hook_2"],"timeout":1.5}]}}}`},
		{"initialize with only empty hooks", func(s *claude.Session) error {
			_, err := s.Initialize(claude.InitializeOptions{Hooks: map[claude.HookEvent][]claude.HookMatcher{claude.HookStop: {}}})
			return err
		}, `{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}`},
		{"initialize with every member", func(s *claude.Session) error {
			_, err := s.Initialize(claude.InitializeOptions{
				Hooks:                  map[claude.HookEvent][]claude.HookMatcher{"FutureEvent": {{Matcher: "x"}}},
				SDKMCPServers:          []string{"tools", "db"},
				JSONSchema:             json.RawMessage("{\n  \"type\": \"object\",\n  \"required\": [\"answer\"]\n}"),
				SystemPrompt:           "You review <code>.",
				AppendSystemPrompt:     "Be brief.",
				Agents:                 map[string]json.RawMessage{"reviewer": json.RawMessage(`{"description":"Reviews code","prompt":"Review it."}`)},
				Skills:                 []string{"pdf"},
				ExcludeDynamicSections: true,
				ForwardSubagentText:    true,
				PromptSuggestions:      true,
				AgentProgressSummaries: true,
				Extra:                  map[string]json.RawMessage{"zeta": json.RawMessage(` [1, 2] `), "alpha": json.RawMessage(`"<a>"`), "nil": nil},
			})
			return err
		}, `{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize",` +
			`"hooks":{"FutureEvent":[{"matcher":"x","hookCallbackIds":[]}]},"sdkMcpServers":["tools","db"],` +
			`"jsonSchema":{"type":"object","required":["answer"]},"systemPrompt":"You review <code>.","appendSystemPrompt":"Be brief.",` +
			`"agents":{"reviewer":{"description":"Reviews code","prompt":"Review it."}},"skills":["pdf"],` +
			`"excludeDynamicSections":true,"forwardSubagentText":true,"promptSuggestions":true,"agentProgressSummaries":true,` +
			`"alpha":"<a>","nil":null,"zeta":[1,2]}}`},
		{"interrupt", func(s *claude.Session) error { _, err := s.Interrupt(); return err },
			`{"type":"control_request","request_id":"req_1","request":{"subtype":"interrupt"}}`},
		{"permission mode", func(s *claude.Session) error { _, err := s.SetPermissionMode("plan"); return err },
			`{"type":"control_request","request_id":"req_1","request":{"subtype":"set_permission_mode","mode":"plan"}}`},
		{"model", func(s *claude.Session) error { _, err := s.SetModel("claude-haiku-4-5"); return err },
			`{"type":"control_request","request_id":"req_1","request":{"subtype":"set_model","model":"claude-haiku-4-5"}}`},
		{"default model", func(s *claude.Session) error { _, err := s.SetModel(""); return err },
			`{"type":"control_request","request_id":"req_1","request":{"subtype":"set_model","model":null}}`},
		{"any request", func(s *claude.Session) error {
			_, err := s.Call("rewind_files", json.RawMessage(`{ "user_message_id" : "u1" }`))
			return err
		}, `{"type":"control_request","request_id":"req_1","request":{"subtype":"rewind_files","user_message_id":"u1"}}`},
		{"any request, empty params", func(s *claude.Session) error { _, err := s.Call("mcp_status", json.RawMessage(`{}`)); return err },
			`{"type":"control_request","request_id":"req_1","request":{"subtype":"mcp_status"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, stdin := newSession()
			if err := tt.call(s); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want+"\n", stdin.String()); diff != "" {
				t.Errorf("line mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionRefusesInvalidInput(t *testing.T) {
	perm := claude.PermissionRequest{ID: "p1", Input: json.RawMessage(`[1]`)}
	tests := []struct {
		name string
		call func(s *claude.Session) error
	}{
		{"empty text", func(s *claude.Session) error { return s.SendText("") }},
		{"no blocks", func(s *claude.Session) error { return s.Send() }},
		{"zero block", func(s *claude.Session) error { return s.Send(claude.Block{}) }},
		{"empty text block", func(s *claude.Session) error { return s.Send(claude.TextBlock("")) }},
		{"image without data", func(s *claude.Session) error { return s.Send(claude.ImageBlock("image/png", nil)) }},
		{"image without type", func(s *claude.Session) error { return s.Send(claude.ImageBlock("", []byte{1})) }},
		{"raw block not JSON", func(s *claude.Session) error { return s.Send(claude.RawBlock(json.RawMessage(`{"type":`))) }},
		{"raw block not an object", func(s *claude.Session) error { return s.Send(claude.RawBlock(json.RawMessage(`"text"`))) }},
		{"raw block without type", func(s *claude.Session) error { return s.Send(claude.RawBlock(json.RawMessage(`{"text":"x"}`))) }},
		{"raw block with a numeric type", func(s *claude.Session) error { return s.Send(claude.RawBlock(json.RawMessage(`{"type":1}`))) }},
		{"empty mode", func(s *claude.Session) error { _, err := s.SetPermissionMode(""); return err }},
		{"hooks for an empty event", initialize(claude.InitializeOptions{Hooks: map[claude.HookEvent][]claude.HookMatcher{"": {{CallbackIDs: []string{"h"}}}}})},
		{"hook with an empty callback id", initialize(claude.InitializeOptions{Hooks: map[claude.HookEvent][]claude.HookMatcher{claude.HookStop: {{CallbackIDs: []string{""}}}}})},
		{"hook with a negative timeout", initialize(claude.InitializeOptions{Hooks: map[claude.HookEvent][]claude.HookMatcher{claude.HookStop: {{CallbackIDs: []string{"h"}, Timeout: -time.Second}}}})},
		{"schema not JSON", initialize(claude.InitializeOptions{JSONSchema: json.RawMessage(`{"type":`)})},
		{"schema not an object", initialize(claude.InitializeOptions{JSONSchema: json.RawMessage(`true`)})},
		{"empty schema", initialize(claude.InitializeOptions{JSONSchema: json.RawMessage{}})},
		{"agent not an object", initialize(claude.InitializeOptions{Agents: map[string]json.RawMessage{"a": json.RawMessage(`"x"`)}})},
		{"extra member the options model", initialize(claude.InitializeOptions{Extra: map[string]json.RawMessage{"jsonSchema": json.RawMessage(`{}`)}})},
		{"extra subtype", initialize(claude.InitializeOptions{Extra: map[string]json.RawMessage{"subtype": json.RawMessage(`"x"`)}})},
		{"extra member not JSON", initialize(claude.InitializeOptions{Extra: map[string]json.RawMessage{"x": json.RawMessage(`{`)}})},
		{"extra member empty", initialize(claude.InitializeOptions{Extra: map[string]json.RawMessage{"x": {}}})},
		{"empty subtype", func(s *claude.Session) error { _, err := s.Call("", nil); return err }},
		{"params not an object", func(s *claude.Session) error { _, err := s.Call("x", json.RawMessage(`[]`)); return err }},
		{"params with a subtype", func(s *claude.Session) error { _, err := s.Call("x", json.RawMessage(`{"subtype":"y"}`)); return err }},
		{"allow with input not an object", func(s *claude.Session) error { return s.Allow(perm, nil) }},
		{"allow with a bad update", func(s *claude.Session) error {
			return s.Allow(perm, json.RawMessage(`{}`), claude.PermissionUpdate{Type: "setMode"})
		}},
		{"empty error", func(s *claude.Session) error { return s.RespondError(perm, "") }},
		{"payload not an object", func(s *claude.Session) error { return s.Respond(perm, json.RawMessage(`true`)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, stdin := newSession()
			feed(t, s, `{"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":[1]}}`)
			err := tt.call(s)
			if !errors.Is(err, claude.ErrInvalidInput) {
				t.Errorf("err = %v, want ErrInvalidInput", err)
			}
			if stdin.Len() != 0 {
				t.Errorf("wrote %q", stdin.String())
			}
			// The request is still waiting for a valid answer.
			if diff := cmp.Diff([]claude.Pending{{ID: "p1", Subtype: "can_use_tool", FromCLI: true}}, s.Pending()); diff != "" {
				t.Errorf("pending mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// initialize returns a call of Initialize with opts.
func initialize(opts claude.InitializeOptions) func(s *claude.Session) error {
	return func(s *claude.Session) error { _, err := s.Initialize(opts); return err }
}

func TestSessionRequestIDsAreUnique(t *testing.T) {
	s, _ := newSession()
	seen := map[string]bool{}
	for i := range 50 {
		var id string
		var err error
		switch i % 4 {
		case 0:
			id, err = s.Initialize(claude.InitializeOptions{})
		case 1:
			id, err = s.Interrupt()
		case 2:
			id, err = s.SetModel("m")
		case 3:
			id, err = s.Call("mcp_status", nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if seen[id] {
			t.Fatalf("id %q used twice", id)
		}
		seen[id] = true
	}
	if got := len(s.Pending()); got != 50 {
		t.Errorf("%d requests pending, want 50", got)
	}
}

const (
	canUseTool = `{"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Bash",` +
		`"display_name":"Bash","title":"Claude wants to run touch x","input":{"command":"touch x"},"description":"Create x",` +
		`"decision_reason":"asked","agent_id":"a1",` +
		`"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x *"},{"toolName":"Read"}],"behavior":"allow","destination":"localSettings"},` +
		`{"type":"addDirectories","directories":["/w",1],"destination":"session"},{"type":"setMode","mode":"acceptEdits","destination":"session"},"junk"],` +
		`"blocked_path":"/w/x","tool_use_id":"toolu_1"}}`
	mcpMessage  = `{"type":"control_request","request_id":"m1","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":7,"method":"tools/list"}}}`
	mcpNotify   = `{"type":"control_request","request_id":"m2","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}}`
	hookRequest = `{"type":"control_request","request_id":"h1","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"hook_event_name":"PreToolUse"},"tool_use_id":"toolu_1"}}`
	newRequest  = `{"type":"control_request","request_id":"u1","request":{"subtype":"elicitation","question":"?"}}`
)

func TestSessionReadsRequests(t *testing.T) {
	tests := []struct {
		line string
		want claude.Event
	}{
		{canUseTool, claude.PermissionRequest{
			ID: "p1", ToolName: "Bash", Input: json.RawMessage(`{"command":"touch x"}`), ToolUseID: "toolu_1",
			Suggestions: []claude.PermissionUpdate{
				{Type: "addRules", Destination: "localSettings", Behavior: "allow",
					Rules: []claude.PermissionRule{{ToolName: "Bash", RuleContent: "touch x *"}, {ToolName: "Read"}},
					Raw:   json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x *"},{"toolName":"Read"}],"behavior":"allow","destination":"localSettings"}`)},
				{Type: "addDirectories", Destination: "session", Directories: []string{"/w"},
					Raw: json.RawMessage(`{"type":"addDirectories","directories":["/w",1],"destination":"session"}`)},
				{Type: "setMode", Destination: "session", Mode: "acceptEdits",
					Raw: json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`)},
			},
			BlockedPath: "/w/x", DisplayName: "Bash", Title: "Claude wants to run touch x", Description: "Create x",
			DecisionReason: "asked", AgentID: "a1",
		}},
		{mcpMessage, claude.MCPRequest{ID: "m1", ServerName: "calc", Message: json.RawMessage(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)}},
		{hookRequest, claude.HookRequest{ID: "h1", CallbackID: "hook_0", Input: json.RawMessage(`{"hook_event_name":"PreToolUse"}`), ToolUseID: "toolu_1"}},
		{newRequest, claude.UnknownRequest{ID: "u1", Subtype: "elicitation", Raw: json.RawMessage(`{"subtype":"elicitation","question":"?"}`)}},
		{`{"type":"control_request","request_id":"x","request":"can_use_tool"}`,
			claude.UnknownRequest{ID: "x", Raw: json.RawMessage(`"can_use_tool"`)}},
		{`{"type":"control_request","request":{"subtype":"can_use_tool","tool_name":"Read"}}`,
			claude.PermissionRequest{ToolName: "Read"}},
		// The last of a repeated member wins, at every level.
		{`{"type":"control_request","request_id":"a","request_id":"b","request":{"subtype":"mcp_message","subtype":"hook_callback","callback_id":"c"}}`,
			claude.HookRequest{ID: "b", CallbackID: "c"}},
		{`{"type":"control_cancel_request","request_id":"gone"}`, claude.ControlCancel{ID: "gone"}},
		{`{"type":"control_response","response":{"subtype":"success","request_id":"r9","response":{"a":1}}}`,
			claude.ControlResponse{ID: "r9", Payload: json.RawMessage(`{"a":1}`)}},
		{`{"type":"control_response","response":{"subtype":"success","request_id":"r9"}}`, claude.ControlResponse{ID: "r9"}},
		{`{"type":"control_response","response":{"subtype":"success","request_id":"r9","response":[1]}}`,
			claude.ControlResponse{ID: "r9", Payload: json.RawMessage(`[1]`)}},
		{`{"type":"control_response","response":{"subtype":"error","request_id":"r9","error":"no","error_code":"bad"}}`,
			claude.ControlResponse{ID: "r9", Err: &claude.ControlError{Message: "no", Code: "bad"}}},
		{`{"type":"control_response","response":{"subtype":"error","request_id":"r9","error":{"why":1}}}`,
			claude.ControlResponse{ID: "r9", Err: &claude.ControlError{Message: `{"why":1}`}}},
		{`{"type":"control_response","response":{"subtype":"partial","request_id":"r9"}}`,
			claude.ControlResponse{ID: "r9", Err: &claude.ControlError{Message: `unexpected response subtype "partial"`}}},
		{`{"type":"control_response","response":null}`,
			claude.ControlResponse{Err: &claude.ControlError{Message: `unexpected response subtype ""`}}},
	}
	for _, tt := range tests {
		s, _ := newSession()
		got := feed(t, s, tt.line)
		if diff := cmp.Diff([]claude.Event{tt.want}, got); diff != "" {
			t.Errorf("Feed(%s) mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestSessionAnswers checks the line each answer writes, and that the
// answered request is no longer pending.
func TestSessionAnswers(t *testing.T) {
	tests := []struct {
		name    string
		request string
		answer  func(s *claude.Session, r claude.Request) error
		want    string
	}{
		{"allow with the CLI's input", canUseTool, func(s *claude.Session, r claude.Request) error {
			return s.Allow(r.(claude.PermissionRequest), nil)
		}, `{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"allow","updatedInput":{"command":"touch x"}}}}`},
		{"allow with changed input and a rule", canUseTool, func(s *claude.Session, r claude.Request) error {
			p := r.(claude.PermissionRequest)
			return s.Allow(p, json.RawMessage(`{"command": "touch y"}`), p.Suggestions[2])
		}, `{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"allow","updatedInput":{"command":"touch y"},` +
			`"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}`},
		{"deny", canUseTool, func(s *claude.Session, r claude.Request) error {
			return s.Deny(r.(claude.PermissionRequest), "not x", false)
		}, `{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"deny","message":"not x"}}}`},
		{"deny and interrupt", canUseTool, func(s *claude.Session, r claude.Request) error {
			return s.Deny(r.(claude.PermissionRequest), "stop", true)
		}, `{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"deny","message":"stop","interrupt":true}}}`},
		{"error", hookRequest, func(s *claude.Session, r claude.Request) error { return s.RespondError(r, "hook failed") },
			`{"type":"control_response","response":{"subtype":"error","request_id":"h1","error":"hook failed"}}`},
		{"hook output", hookRequest, func(s *claude.Session, r claude.Request) error {
			return s.Respond(r, json.RawMessage(`{"continue":true}`))
		}, `{"type":"control_response","response":{"subtype":"success","request_id":"h1","response":{"continue":true}}}`},
		{"decline a permission", canUseTool, func(s *claude.Session, r claude.Request) error { return s.Decline(r) },
			`{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"deny",` +
				`"message":"This client does not grant tool permissions; the tool was not run."}}}`},
		{"decline an MCP request", mcpMessage, func(s *claude.Session, r claude.Request) error { return s.Decline(r) },
			`{"type":"control_response","response":{"subtype":"success","request_id":"m1","response":{"mcp_response":{"jsonrpc":"2.0","id":7,` +
				`"error":{"code":-32601,"message":"no MCP server named \"calc\" in this client"}}}}}`},
		{"decline an MCP notification", mcpNotify, func(s *claude.Session, r claude.Request) error { return s.Decline(r) },
			`{"type":"control_response","response":{"subtype":"success","request_id":"m2","response":{"mcp_response":{"jsonrpc":"2.0","result":{}}}}}`},
		{"decline a hook", hookRequest, func(s *claude.Session, r claude.Request) error { return s.Decline(r) },
			`{"type":"control_response","response":{"subtype":"success","request_id":"h1","response":{}}}`},
		{"decline a new subtype", newRequest, func(s *claude.Session, r claude.Request) error { return s.Decline(r) },
			`{"type":"control_response","response":{"subtype":"error","request_id":"u1","error":"Unsupported control request subtype: elicitation"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, stdin := newSession()
			r := feed(t, s, tt.request)[0].(claude.Request)
			if err := tt.answer(s, r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want+"\n", stdin.String()); diff != "" {
				t.Errorf("line mismatch (-want +got):\n%s", diff)
			}
			if p := s.Pending(); len(p) != 0 {
				t.Errorf("still pending: %v", p)
			}
			// A second answer is refused and writes nothing.
			stdin.Reset()
			if err := s.Decline(r); !errors.Is(err, claude.ErrNotPending) || stdin.Len() != 0 {
				t.Errorf("second answer: err %v, wrote %q", err, stdin.String())
			}
		})
	}
}

func TestSessionNotPending(t *testing.T) {
	s, stdin := newSession()
	for _, r := range []claude.Request{
		claude.UnknownRequest{ID: "never-read"},
		claude.PermissionRequest{}, // no id: cannot be answered
		nil,
	} {
		if err := s.Decline(r); !errors.Is(err, claude.ErrNotPending) {
			t.Errorf("Decline(%#v) = %v, want ErrNotPending", r, err)
		}
		if err := s.Respond(r, json.RawMessage(`{}`)); !errors.Is(err, claude.ErrNotPending) {
			t.Errorf("Respond(%#v) = %v, want ErrNotPending", r, err)
		}
		if err := s.RespondError(r, "x"); !errors.Is(err, claude.ErrNotPending) {
			t.Errorf("RespondError(%#v) = %v, want ErrNotPending", r, err)
		}
	}
	if stdin.Len() != 0 {
		t.Errorf("wrote %q", stdin.String())
	}
}

// TestSessionInterruptWithPendingPermission is the CLI's behaviour when an
// interrupt comes while it waits for a permission: it answers the
// interrupt, withdraws the permission request, and ends the turn; a late
// answer is then never sent, and the process takes the next turn.
func TestSessionInterruptWithPendingPermission(t *testing.T) {
	s, stdin := newSession()
	if err := s.SendText("touch x"); err != nil {
		t.Fatal(err)
	}
	id, err := s.Interrupt()
	if err != nil {
		t.Fatal(err)
	}
	events := feed(t, s,
		`{"type":"system","subtype":"init","session_id":"s1","model":"m"}`,
		canUseTool,
	)
	perm := events[1].(claude.PermissionRequest)
	wantPending := []claude.Pending{{ID: id, Subtype: "interrupt"}, {ID: "p1", Subtype: "can_use_tool", FromCLI: true}}
	if diff := cmp.Diff(wantPending, s.Pending()); diff != "" {
		t.Errorf("pending mismatch (-want +got):\n%s", diff)
	}
	events = feed(t, s,
		`{"type":"control_response","response":{"subtype":"success","request_id":"`+id+`","response":{"still_queued":[]}}}`,
		`{"type":"control_cancel_request","request_id":"p1"}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_tools","result_index":0,"session_id":"s1"}`,
	)
	want := []claude.Event{
		claude.ControlResponse{ID: id, Subtype: "interrupt", Payload: json.RawMessage(`{"still_queued":[]}`)},
		claude.ControlCancel{ID: "p1", Request: perm},
		claude.Result{Subtype: "error_during_execution", IsError: true, TerminalReason: "aborted_tools"},
		claude.TurnEnd{Index: 0, TerminalReason: "aborted_tools"},
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if !events[3].(claude.TurnEnd).Interrupted() {
		t.Error("TurnEnd.Interrupted() = false after aborted_tools")
	}
	stdin.Reset()
	if err := s.Allow(perm, nil); !errors.Is(err, claude.ErrCancelled) {
		t.Errorf("late Allow: %v, want ErrCancelled", err)
	}
	if stdin.Len() != 0 || len(s.Pending()) != 0 || s.InTurn() {
		t.Errorf("after the turn: wrote %q, pending %v, in turn %v", stdin.String(), s.Pending(), s.InTurn())
	}
	// The process is usable: the next turn is counted from the CLI's index.
	if err := s.SendText("again"); err != nil {
		t.Fatal(err)
	}
	if !s.InTurn() {
		t.Error("InTurn() = false after SendText")
	}
	events = feed(t, s, `{"type":"result","subtype":"success","is_error":false,"result":"ok","result_index":1,"terminal_reason":"completed","session_id":"s1"}`)
	if diff := cmp.Diff(claude.TurnEnd{Index: 1, TerminalReason: "completed"}, events[1]); diff != "" {
		t.Errorf("second turn mismatch (-want +got):\n%s", diff)
	}
	last, ok := s.LastTurn()
	if !ok || last.Interrupted() || s.SessionID() != "s1" {
		t.Errorf("LastTurn() = %v, %v; SessionID() = %q", last, ok, s.SessionID())
	}
}

func TestSessionControlErrors(t *testing.T) {
	s, _ := newSession()
	id, err := s.SetPermissionMode("bypassPermissions")
	if err != nil {
		t.Fatal(err)
	}
	events := feed(t, s, `{"type":"control_response","response":{"subtype":"error","request_id":"`+id+
		`","error":"Cannot set permission mode","error_code":"bypass_not_launched"}}`)
	resp := events[0].(claude.ControlResponse)
	var ce *claude.ControlError
	if !errors.As(error(resp.Err), &ce) || ce.Code != "bypass_not_launched" {
		t.Fatalf("Err = %v", resp.Err)
	}
	want := "claude: control request set_permission_mode failed: Cannot set permission mode (bypass_not_launched)"
	if got := resp.Err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&claude.ControlError{Message: "m"}).Error(); got != "claude: control request failed: m" {
		t.Errorf("Error() without subtype or code = %q", got)
	}
}

func TestSessionResultIndexFallback(t *testing.T) {
	s := claude.NewSession(&bytes.Buffer{}, "resumed")
	if s.SessionID() != "resumed" {
		t.Errorf("SessionID() = %q before any line", s.SessionID())
	}
	if _, ok := s.LastTurn(); ok {
		t.Error("LastTurn() ok before any turn")
	}
	var ends []claude.Event
	for _, e := range feed(t, s, `{"type":"result","subtype":"success"}`, `{"type":"result","subtype":"success"}`) {
		if te, ok := e.(claude.TurnEnd); ok {
			ends = append(ends, te)
		}
	}
	if diff := cmp.Diff([]claude.Event{claude.TurnEnd{Index: 0}, claude.TurnEnd{Index: 1}}, ends); diff != "" {
		t.Errorf("TurnEnd mismatch (-want +got):\n%s", diff)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestSessionWriteError(t *testing.T) {
	s := claude.NewSession(failingWriter{}, "")
	if _, err := s.Initialize(claude.InitializeOptions{}); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Initialize() = %v, want the write error", err)
	}
	if err := s.SendText("hi"); err == nil || s.InTurn() {
		t.Errorf("SendText() = %v on a broken pipe, InTurn() = %v", err, s.InTurn())
	}
	if p := s.Pending(); len(p) != 0 {
		t.Errorf("a request that was never written is pending: %v", p)
	}
}

func TestSessionEvents(t *testing.T) {
	s, _ := newSession()
	stdout := "not json\n" + canUseTool + "\n\n" + `{"type":"result","subtype":"success","result_index":0}` + "\n"
	var got []string
	for e, err := range s.Events(strings.NewReader(stdout)) {
		if err != nil {
			var se *claude.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("unexpected error %v", err)
			}
			got = append(got, "error")
			continue
		}
		got = append(got, strings.TrimPrefix(fmt.Sprintf("%T", e), "claude."))
	}
	if diff := cmp.Diff([]string{"error", "PermissionRequest", "Result", "TurnEnd"}, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

// lineWriter records the lines written to it, and fails the test on a
// Write that is not exactly one whole line.
type lineWriter struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') != len(p)-1 {
		w.t.Errorf("a Write of %q is not one line", p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, string(p))
	return len(p), nil
}

// TestSessionConcurrentUse answers each of the CLI's requests from several
// goroutines at once, while others send turns and requests and one feeds
// the CLI's output: each request is answered exactly once, every line is
// written whole, and request ids stay unique.
func TestSessionConcurrentUse(t *testing.T) {
	const n = 20
	w := &lineWriter{t: t}
	s := claude.NewSession(w, "")
	var requests []claude.Request
	for i := range n {
		requests = append(requests, feed(t, s, strings.Replace(canUseTool, `"p1"`, `"p`+strconv.Itoa(i)+`"`, 1))[0].(claude.Request))
	}
	var wg sync.WaitGroup
	var answered atomic.Int32
	ids := make(chan string, n)
	for i := range n {
		for range 3 {
			wg.Go(func() {
				if err := s.Decline(requests[i]); err == nil {
					answered.Add(1)
				} else if !errors.Is(err, claude.ErrNotPending) {
					t.Error(err)
				}
			})
		}
		wg.Go(func() {
			id, err := s.Initialize(claude.InitializeOptions{})
			if err != nil {
				t.Error(err)
			}
			ids <- id
		})
		wg.Go(func() {
			if err := s.SendText("turn " + strconv.Itoa(i)); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			feed(t, s, `{"type":"system","subtype":"init","session_id":"s"}`, `{"type":"result","subtype":"success"}`)
			s.Pending()
			s.InTurn()
		})
	}
	testwait.Do(t, "the goroutines using the Session", wg.Wait)
	close(ids)
	unique := map[string]bool{}
	for id := range ids {
		unique[id] = true
	}
	got := []int{int(answered.Load()), len(unique), len(w.lines)}
	if diff := cmp.Diff([]int{n, n, 3 * n}, got); diff != "" {
		t.Errorf("[answers, unique ids, lines] mismatch (-want +got):\n%s", diff)
	}
	if p := s.Pending(); len(p) != n { // the initialize requests
		t.Errorf("%d pending, want %d", len(p), n)
	}
}

// chanWriter hands each line written to it to a channel.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// requestID returns the request_id of a control request line.
func requestID(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.RequestID == "" {
		t.Fatalf("not a control request: %q (%v)", line, err)
	}
	return m.RequestID
}

func TestSessionRequest(t *testing.T) {
	type outcome struct {
		payload json.RawMessage
		err     error
	}
	tests := []struct {
		name    string
		answer  func(id string) string // the CLI's line, "" for none
		cancel  bool                   // cancel the call's context instead
		check   func(t *testing.T, o outcome)
		pending int // requests still pending afterwards
	}{
		{"success", func(id string) string {
			return `{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":{"mode":"plan"}}}`
		}, false, func(t *testing.T, o outcome) {
			if o.err != nil || string(o.payload) != `{"mode":"plan"}` {
				t.Errorf("Request() = %s, %v; want the payload", o.payload, o.err)
			}
		}, 0},
		{"refused", func(id string) string {
			return `{"type":"control_response","response":{"subtype":"error","request_id":"` + id + `","error":"Invalid mode","error_code":"invalid_mode"}}`
		}, false, func(t *testing.T, o outcome) {
			var ce *claude.ControlError
			if !errors.As(o.err, &ce) || ce.Code != "invalid_mode" || ce.Subtype != "set_permission_mode" {
				t.Errorf("Request() = %s, %v; want the refusal", o.payload, o.err)
			}
		}, 0},
		{"cancelled", nil, true, func(t *testing.T, o outcome) {
			if !errors.Is(o.err, context.Canceled) {
				t.Errorf("Request() = %s, %v; want context.Canceled", o.payload, o.err)
			}
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			written := make(chanWriter, 1)
			s := claude.NewSession(written, "")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan outcome, 1)
			go func() {
				payload, err := s.Request(ctx, "set_permission_mode", json.RawMessage(`{"mode":"plan"}`))
				done <- outcome{payload, err}
			}()
			id := requestID(t, testwait.For(t, written, "the request's line"))
			if tt.cancel {
				cancel()
			} else {
				feed(t, s, tt.answer(id))
			}
			tt.check(t, testwait.For(t, done, "Request to return"))
			if p := s.Pending(); len(p) != tt.pending {
				t.Errorf("Pending() = %v, want %d", p, tt.pending)
			}
		})
	}
}

// TestSessionRequestOutputEnded checks that a Request waiting when the
// Events loop reaches the end of the output fails, and so does one made
// after.
func TestSessionRequestOutputEnded(t *testing.T) {
	written := make(chanWriter, 2)
	s := claude.NewSession(written, "")
	out, outW := io.Pipe()
	loop := make(chan struct{})
	go func() {
		defer close(loop)
		for range s.Events(out) {
		}
	}()
	failed := make(chan error, 1)
	go func() {
		_, err := s.Request(context.Background(), "mcp_status", nil)
		failed <- err
	}()
	testwait.For(t, written, "the request's line")
	outW.Close()
	if err := testwait.For(t, failed, "the waiting Request to fail"); !errors.Is(err, claude.ErrOutputEnded) {
		t.Errorf("waiting Request() = %v, want ErrOutputEnded", err)
	}
	testwait.For(t, loop, "the Events loop to end")
	if _, err := s.Request(testwait.Context(t), "mcp_status", nil); !errors.Is(err, claude.ErrOutputEnded) {
		t.Errorf("Request() after the end = %v, want ErrOutputEnded", err)
	}
	if _, err := claude.NewSession(failingWriter{}, "").Request(testwait.Context(t), "mcp_status", nil); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Request() = %v, want the write error", err)
	}
}
