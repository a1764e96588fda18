package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/internal/wire"
	"github.com/google/go-cmp/cmp"
)

// paramsOf returns the params member of a line built by a Marshal function.
func paramsOfLine(t *testing.T, line []byte) json.RawMessage {
	t.Helper()
	var env struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		t.Fatal(err)
	}
	return env.Params
}

func TestSessionUpdateRoundTrip(t *testing.T) {
	for _, tc := range sampleUpdates() {
		t.Run(tc.name, func(t *testing.T) {
			line, err := sessionUpdateLine("sess-1", tc.update)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeParams[SessionNotification](paramsOfLine(t, line))
			if err != nil {
				t.Fatal(err)
			}
			want := SessionNotification{SessionID: "sess-1", Update: tc.update}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContentBlockRoundTrip(t *testing.T) {
	for _, tc := range sampleBlocks() {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.block)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeContentBlock(raw, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.block, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnknownKeptByteForByte(t *testing.T) {
	// Odd spacing and member order must survive: the raw bytes are kept.
	rawBlock := `{ "data": 1,  "type" : "hologram" }`
	blocks, err := DecodeParams[PromptParams]([]byte(`{"sessionId":"s","prompt":[` + rawBlock + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := ContentBlocks{UnknownContent{Type: "hologram", Raw: json.RawMessage(rawBlock)}}
	if diff := cmp.Diff(want, blocks.Prompt); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	out, err := blocks.Prompt[0].(UnknownContent).MarshalJSON()
	if err != nil || string(out) != rawBlock {
		t.Errorf("MarshalJSON = %q, %v; want %q", out, err, rawBlock)
	}

	rawUpdate := `{"sessionUpdate":"future_thing","z":{"a" :1}}`
	u, err := decodeSessionUpdate([]byte(rawUpdate))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Update(UnknownUpdate{Kind: "future_thing", Raw: json.RawMessage(rawUpdate)}), u); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	out, err = u.(UnknownUpdate).MarshalJSON()
	if err != nil || string(out) != rawUpdate {
		t.Errorf("MarshalJSON = %q, %v; want %q", out, err, rawUpdate)
	}
}

func TestDecodeSessionUpdateDetails(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want Update
	}{
		{"session info null clears", `{"sessionUpdate":"session_info_update","title":null}`, SessionInfoUpdate{Title: ptrOf("")}},
		{"session info absent unchanged", `{"sessionUpdate":"session_info_update"}`, SessionInfoUpdate{}},
		{"tool call update absent lists stay nil", `{"sessionUpdate":"tool_call_update","toolCallId":"c"}`, ToolCallUpdate{ToolCallID: "c"}},
		{"tool call update empty lists clear", `{"sessionUpdate":"tool_call_update","toolCallId":"c","content":[],"locations":[]}`,
			ToolCallUpdate{ToolCallID: "c", Content: []ToolCallContent{}, Locations: []ToolCallLocation{}}},
		{"unknown tool content kept", `{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","content":[{"type":"x","v":1}]}`,
			ToolCall{ToolCallID: "c", Title: "t", Content: []ToolCallContent{UnknownToolCallContent{Type: "x", Raw: json.RawMessage(`{"type":"x","v":1}`)}}}},
		{"unknown enum values kept", `{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","kind":"teleport","status":"paused"}`,
			ToolCall{ToolCallID: "c", Title: "t", Kind: "teleport", Status: "paused"}},
		{"unknown members ignored", `{"sessionUpdate":"current_mode_update","currentModeId":"ask","extra":{"deep":[1]}}`, CurrentModeUpdate{CurrentModeID: "ask"}},
		{"duplicate member last wins", `{"sessionUpdate":"current_mode_update","currentModeId":"ask","currentModeId":"code"}`, CurrentModeUpdate{CurrentModeID: "code"}},
		{"duplicate discriminator last wins", `{"sessionUpdate":"nope","sessionUpdate":"current_mode_update","currentModeId":"ask"}`, CurrentModeUpdate{CurrentModeID: "ask"}},
		{"usage without cost", `{"sessionUpdate":"usage_update","used":0,"size":0}`, UsageUpdate{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeSessionUpdate([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// wantInvalidField checks that err is an invalid-params *Error naming field.
func wantInvalidField(t *testing.T, err error, field string) {
	t.Helper()
	if !errors.Is(err, ErrInvalidParams) {
		t.Fatalf("err = %v, want an invalid params error", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %T is not an *Error", err)
	}
	var data struct {
		Field string `json:"field"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("data %s: %v", e.Data, err)
	}
	if diff := cmp.Diff(field, data.Field); diff != "" {
		t.Errorf("field (-want +got):\n%s\nerror: %v", diff, err)
	}
}

func TestDecodeSessionNotificationErrors(t *testing.T) {
	cases := []struct {
		name, params, field string
	}{
		{"params not an object", `[1]`, "params"},
		{"invalid UTF-8 in an unknown update", "{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"later\",\"x\":\"\xff\"}}", "params"},
		{"no session id", `{"update":{"sessionUpdate":"plan","entries":[]}}`, "sessionId"},
		{"no update", `{"sessionId":"s"}`, "update"},
		{"update null", `{"sessionId":"s","update":null}`, "update"},
		{"update not an object", `{"sessionId":"s","update":"x"}`, "update"},
		{"no discriminator", `{"sessionId":"s","update":{"content":{"type":"text","text":"x"}}}`, "update.sessionUpdate"},
		{"discriminator not a string", `{"sessionId":"s","update":{"sessionUpdate":7}}`, "update.sessionUpdate"},
		{"chunk without content", `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}`, "update.content"},
		{"chunk text without text", `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text"}}}`, "update.content.text"},
		{"chunk content not an object", `{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":[]}}`, "update.content"},
		{"tool call without title", `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c"}}`, "update.title"},
		{"tool call update without id", `{"sessionId":"s","update":{"sessionUpdate":"tool_call_update"}}`, "update.toolCallId"},
		{"plan without entries", `{"sessionId":"s","update":{"sessionUpdate":"plan"}}`, "update.entries"},
		{"mode without id", `{"sessionId":"s","update":{"sessionUpdate":"current_mode_update"}}`, "update.currentModeId"},
		{"usage without size", `{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1}}`, "update.size"},
		{"usage negative", `{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":-1,"size":1}}`, "update.used"},
		{"notice without severity", `{"sessionId":"s","update":{"sessionUpdate":"notice","title":"t"}}`, "update.severity"},
		{"notice without title", `{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info"}}`, "update.title"},
		{"plan update without plan", `{"sessionId":"s","update":{"sessionUpdate":"plan_update"}}`, "update.plan"},
		{"plan update without id", `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"file","uri":"u"}}}`, "update.plan.planId"},
		{"plan update items without entries", `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p"}}}`, "update.plan.entries"},
		{"plan update file without uri", `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"file","planId":"p"}}}`, "update.plan.uri"},
		{"plan update markdown without content", `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"p"}}}`, "update.plan.content"},
		{"plan removed without id", `{"sessionId":"s","update":{"sessionUpdate":"plan_removed"}}`, "update.planId"},
		{"compaction without status", `{"sessionId":"s","update":{"sessionUpdate":"compaction_update","compactionId":"c"}}`, "update.status"},
		{"compaction chunk without content", `{"sessionId":"s","update":{"sessionUpdate":"compaction_summary_chunk","compactionId":"c"}}`, "update.content"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeParams[SessionNotification]([]byte(tc.params))
			wantInvalidField(t, err, tc.field)
		})
	}
}

// TestDecodeSessionNotificationLenient checks members the schema reads
// leniently: an invalid value reads as absent, an invalid item of a list is
// dropped, and the update decodes.
func TestDecodeSessionNotificationLenient(t *testing.T) {
	text := TextContent{Text: "x"}
	cases := []struct {
		name, params string
		want         Update
	}{
		{"thought message id not a string", `{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"x"},"messageId":1}}`, AgentThoughtChunk{Content: text}},
		{"tool call bad diff dropped", `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","content":[{"type":"diff","path":"/a"},{"type":"terminal","terminalId":"x"}]}}`, ToolCall{ToolCallID: "c", Title: "t", Content: []ToolCallContent{ToolCallTerminal{TerminalID: "x"}}}},
		{"tool call location's bad line", `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","locations":[{"path":"/a","line":-1}]}}`, ToolCall{ToolCallID: "c", Title: "t", Locations: []ToolCallLocation{{Path: "/a"}}}},
		{"tool call bad kind and status", `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","kind":1,"status":[]}}`, ToolCall{ToolCallID: "c", Title: "t"}},
		{"tool call update content not array", `{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","content":{}}}`, ToolCallUpdate{ToolCallID: "c"}},
		{"plan entry without status dropped", `{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high"}]}}`, Plan{Entries: []PlanEntry{}}},
		{"plan entries not an array", `{"sessionId":"s","update":{"sessionUpdate":"plan","entries":{}}}`, Plan{}},
		{"command without description dropped", `{"sessionId":"s","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"a"},{"name":"b","description":"d"}]}}`, AvailableCommandsUpdate{AvailableCommands: []AvailableCommand{{Name: "b", Description: "d"}}}},
		{"command input without hint", `{"sessionId":"s","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"a","description":"d","input":{}}]}}`, AvailableCommandsUpdate{AvailableCommands: []AvailableCommand{{Name: "a", Description: "d"}}}},
		{"config options that break the schema dropped", `{"sessionId":"s","update":{"sessionUpdate":"config_option_update","configOptions":[{"id":"m","name":"M","type":"select","options":[]},{"id":"m","name":"M","type":"select","currentValue":"a","options":{}},{"id":"b","name":"B","type":"boolean","currentValue":"yes"},{"id":"b","name":"B","type":"boolean"}]}}`, ConfigOptionUpdate{ConfigOptions: []SessionConfigOption{}}},
		{"session info title not a string", `{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":3}}`, SessionInfoUpdate{}},
		{"usage cost without currency", `{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":1}}}`, UsageUpdate{Used: 1, Size: 2}},
		{"meta not an object", `{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"a","_meta":[]}}`, CurrentModeUpdate{CurrentModeID: "a"}},
		{"compaction summary block dropped", `{"sessionId":"s","update":{"sessionUpdate":"compaction_update","compactionId":"c","status":"completed","summary":[{"type":"text"},{"type":"text","text":"x"}]}}`, CompactionUpdate{CompactionID: "c", Status: CompactionCompleted, Summary: ContentBlocks{text}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := DecodeParams[SessionNotification]([]byte(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, n.Update); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionUpdateNilUpdate(t *testing.T) {
	var got []string
	client := Methods{Notifications: map[string]NotificationFunc{
		SessionUpdate.Name: func(_ context.Context, _ *Conn, params json.RawMessage) { got = append(got, string(params)) },
	}}
	toClientR, toClientW := io.Pipe()
	toAgentR, toAgentW := io.Pipe()
	cc := NewConn(context.Background(), toClientR, toAgentW, client, nil)
	agent := NewConn(context.Background(), toAgentR, toClientW, nil, nil)
	if err := SessionUpdate.Notify(testwait.Context(t), agent, SessionNotification{SessionID: "s"}); !errors.Is(err, wire.ErrNil) {
		t.Errorf("Notify without an update = %v, want an error matching wire.ErrNil", err)
	}
	agent.Close()
	var err error
	testwait.Do(t, "the connections to end", func() { err = errors.Join(cc.Wait(), agent.Wait()) })
	if err != nil {
		t.Fatal(err)
	}
	if got != nil {
		t.Errorf("the client received %q", got)
	}
}

// sessionUpdateLine returns the line SessionUpdate.Notify sends for u.
func sessionUpdateLine(sessionID string, u Update) ([]byte, error) {
	return MarshalNotification(SessionUpdate.Name, SessionNotification{SessionID: sessionID, Update: u})
}

// TestMarshalNotificationSessionUpdate checks MarshalNotification's own
// encoding of session/update against encoding/json's: the same JSON, on
// one line, and a refusal where encoding/json refuses.
func TestMarshalNotificationSessionUpdate(t *testing.T) {
	type plainNotification SessionNotification // encoded by encoding/json alone
	notes := []SessionNotification{
		{SessionID: "a<b>&\u2028\"", Update: CurrentModeUpdate{CurrentModeID: "x"}, Meta: json.RawMessage(`{"k": [1, 2]}`)},
		{SessionID: "s", Update: UnknownUpdate{Kind: "later", Raw: json.RawMessage("{\n  \"sessionUpdate\": \"later\",\n  \"x\": \"<&>\"\n}")}},
		{SessionID: "s", Update: AgentMessageChunk{Content: TextContent{Text: "line\nbreak"}, MessageID: "m", Meta: json.RawMessage(`{}`)}},
	}
	for _, tc := range sampleUpdates() {
		notes = append(notes, SessionNotification{SessionID: "sess-1", Update: tc.update})
	}
	for _, n := range notes {
		line, err := MarshalNotification(SessionUpdate.Name, n)
		if err != nil {
			t.Fatalf("%+v: %v", n, err)
		}
		want, err := json.Marshal(struct {
			JSONRPC string            `json:"jsonrpc"`
			Method  string            `json:"method"`
			Params  plainNotification `json:"params"`
		}{"2.0", SessionUpdate.Name, plainNotification(n)})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(line, "\r\n") {
			t.Errorf("line break in %s", line)
		}
		var got, exp any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if err := json.Unmarshal(want, &exp); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("%s (-encoding/json +MarshalNotification):\n%s", line, diff)
		}
	}
	for _, bad := range []SessionNotification{
		{SessionID: "s"},
		{SessionID: "s", Update: UnknownUpdate{Kind: "x", Raw: json.RawMessage(`{`)}},
		{SessionID: "s", Update: CurrentModeUpdate{CurrentModeID: "x"}, Meta: json.RawMessage(`[`)},
	} {
		if line, err := MarshalNotification(SessionUpdate.Name, bad); err == nil {
			t.Errorf("%+v encoded as %s", bad, line)
		}
	}
}

// TestMarshalRequestPrompt checks MarshalRequest's own encoding of
// session/prompt against encoding/json's, as for session/update.
func TestMarshalRequestPrompt(t *testing.T) {
	type plainParams PromptParams // encoded by encoding/json alone
	prompt := ContentBlocks{UnknownContent{Type: "later", Raw: json.RawMessage("{\"type\": \"later\",\n \"x\": \"<&>\"}")}}
	for _, b := range sampleBlocks() {
		prompt = append(prompt, b.block)
	}
	for _, p := range []PromptParams{
		{SessionID: "s<&>\u2028", Prompt: prompt, Meta: json.RawMessage(`{"a": 1}`)},
		{SessionID: "s"},
	} {
		line, err := MarshalRequest(IntID(7), SessionPrompt.Name, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(struct {
			JSONRPC string      `json:"jsonrpc"`
			ID      int         `json:"id"`
			Method  string      `json:"method"`
			Params  plainParams `json:"params"`
		}{"2.0", 7, SessionPrompt.Name, plainParams(p)})
		if err != nil {
			t.Fatal(err)
		}
		var got, exp any
		if bytes.ContainsAny(line, "\r\n") || json.Unmarshal(line, &got) != nil {
			t.Fatalf("not one line of JSON: %s", line)
		}
		if err := json.Unmarshal(want, &exp); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("%s (-encoding/json +MarshalRequest):\n%s", line, diff)
		}
	}
	bad := PromptParams{SessionID: "s", Prompt: ContentBlocks{UnknownContent{Type: "x", Raw: json.RawMessage(`{`)}}}
	if line, err := MarshalRequest(IntID(1), SessionPrompt.Name, bad); err == nil {
		t.Errorf("invalid raw block encoded as %s", line)
	}
}
