package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundTrip marshals v as JSON and decodes it back with DecodeParams.
func paramsRoundTrip[T any](t *testing.T, v T) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeParams[T](raw)
	if err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	if diff := cmp.Diff(v, got); diff != "" {
		t.Errorf("round trip of %s (-want +got):\n%s", raw, diff)
	}
}

func TestParamsRoundTrip(t *testing.T) {
	prompt := ContentBlocks{}
	for _, b := range sampleBlocks() {
		prompt = append(prompt, b.block)
	}
	servers := []MCPServer{
		MCPServerStdio{Name: "fs", Command: "/bin/fs", Args: []string{"-v"}, Env: []EnvVariable{{Name: "A", Value: "1", Meta: sampleMeta}}},
		MCPServerStdio{Name: "bare", Command: "/bin/bare", Args: []string{}, Env: []EnvVariable{}},
		MCPServerHTTP{Name: "h", URL: "https://h", Headers: []HTTPHeader{{Name: "X", Value: "y"}}},
		MCPServerSSE{Name: "s", URL: "https://s", Headers: []HTTPHeader{}},
		MCPServerACP{Name: "tools", ServerID: "srv-1", Meta: sampleMeta},
		UnknownMCPServer{Type: "websocket", Raw: json.RawMessage(`{"type":"websocket","name":"w","url":"wss://w"}`)},
	}
	t.Run("initialize", func(t *testing.T) {
		paramsRoundTrip(t, InitializeParams{
			ProtocolVersion: 1,
			ClientCapabilities: ClientCapabilities{
				FS: FileSystemCapabilities{ReadTextFile: true}, Terminal: true,
				Session:     &ClientSessionCapabilities{Notices: &NoticeCapabilities{}},
				Auth:        ClientAuthCapabilities{Terminal: true},
				Elicitation: &ElicitationCapabilities{Form: &ElicitationFormCapabilities{}, URL: &ElicitationURLCapabilities{Meta: sampleMeta}},
				Meta:        json.RawMessage(`{"goose":{"customNotifications":true}}`),
			},
			ClientInfo: &Implementation{Name: "zed", Title: "Zed", Version: "1"},
			Meta:       sampleMeta,
		})
	})
	t.Run("authenticate", func(t *testing.T) { paramsRoundTrip(t, AuthenticateParams{MethodID: "oauth", Meta: sampleMeta}) })
	t.Run("session/new", func(t *testing.T) {
		paramsRoundTrip(t, NewSessionParams{Cwd: "/w", AdditionalDirectories: []string{"/x"}, MCPServers: servers,
			SystemPrompt: &SystemPrompt{Mode: SystemPromptAppend, Content: ContentBlocks{TextContent{Text: "be brief"}}}, Meta: sampleMeta})
	})
	t.Run("session/new empty system prompt", func(t *testing.T) {
		paramsRoundTrip(t, NewSessionParams{Cwd: "/w", MCPServers: []MCPServer{}, SystemPrompt: &SystemPrompt{Mode: SystemPromptAppend, Content: ContentBlocks{}}})
	})
	t.Run("session/new system prompt object", func(t *testing.T) {
		paramsRoundTrip(t, NewSessionParams{Cwd: "/w", MCPServers: []MCPServer{},
			SystemPrompt: &SystemPrompt{Mode: SystemPromptOverride, Content: ContentBlocks{TextContent{Text: "be brief"}}}})
		paramsRoundTrip(t, NewSessionParams{Cwd: "/w", MCPServers: []MCPServer{}, SystemPrompt: &SystemPrompt{Mode: SystemPromptAppend, Content: ContentBlocks{}}})
	})
	t.Run("session/load", func(t *testing.T) {
		paramsRoundTrip(t, LoadSessionParams{SessionID: "s", Cwd: "/w", AdditionalDirectories: []string{"/x"}, MCPServers: servers, Meta: sampleMeta})
	})
	t.Run("session/resume", func(t *testing.T) {
		paramsRoundTrip(t, ResumeSessionParams{SessionID: "s", Cwd: "/w", MCPServers: servers})
	})
	t.Run("session/fork", func(t *testing.T) {
		paramsRoundTrip(t, ForkSessionParams{SessionID: "s", Cwd: "/w", AdditionalDirectories: []string{"/x"}, MCPServers: servers, Meta: sampleMeta})
	})
	t.Run("session/list", func(t *testing.T) { paramsRoundTrip(t, ListSessionsParams{Cwd: "/w", Cursor: "c", Meta: sampleMeta}) })
	t.Run("session/close", func(t *testing.T) { paramsRoundTrip(t, CloseSessionParams{SessionID: "s", Meta: sampleMeta}) })
	t.Run("session/set_mode", func(t *testing.T) { paramsRoundTrip(t, SetSessionModeParams{SessionID: "s", ModeID: "ask"}) })
	t.Run("session/set_config_option", func(t *testing.T) {
		paramsRoundTrip(t, SetSessionConfigOptionParams{SessionID: "s", ConfigID: "model", Value: "opus"})
		paramsRoundTrip(t, SetSessionConfigOptionParams{SessionID: "s", ConfigID: "plan", BoolValue: ptrOf(false)})
	})
	t.Run("session/set_model", func(t *testing.T) { paramsRoundTrip(t, SetSessionModelParams{SessionID: "s", ModelID: "opus"}) })
	t.Run("session/prompt", func(t *testing.T) { paramsRoundTrip(t, PromptParams{SessionID: "s", Prompt: prompt, Meta: sampleMeta}) })
	t.Run("$/cancel_request", func(t *testing.T) { paramsRoundTrip(t, CancelRequestParams{RequestID: StringID("p-1")}) })
	t.Run("request_permission", func(t *testing.T) {
		paramsRoundTrip(t, RequestPermissionParams{
			SessionID: "s",
			ToolCall: PermissionToolCall{ToolCallID: "c", Title: "t", Kind: ToolKindEdit, Status: ToolCallStatusPending,
				Content: []ToolCallContent{ToolCallDiff{Path: "/a", NewText: "x"}}, Locations: []ToolCallLocation{{Path: "/a"}}},
			Options: []PermissionOption{{OptionID: "y", Name: "Yes", Kind: PermissionAllowAlways}},
		})
		// Empty lists replace the call's, as in a tool_call_update.
		paramsRoundTrip(t, RequestPermissionParams{
			SessionID: "s",
			ToolCall:  PermissionToolCall{ToolCallID: "c", Content: []ToolCallContent{}, Locations: []ToolCallLocation{}},
			Options:   []PermissionOption{},
		})
	})
	t.Run("fs/read_text_file", func(t *testing.T) {
		paramsRoundTrip(t, ReadTextFileParams{SessionID: "s", Path: "/a", Line: ptrOf(0), Limit: ptrOf(5)})
	})
	t.Run("fs/write_text_file", func(t *testing.T) {
		paramsRoundTrip(t, WriteTextFileParams{SessionID: "s", Path: "/a", Content: ""})
	})
	t.Run("terminal/create", func(t *testing.T) {
		paramsRoundTrip(t, CreateTerminalParams{SessionID: "s", Command: "ls", Args: []string{"-l"}, Env: []EnvVariable{{Name: "A", Value: ""}}, Cwd: "/w", OutputByteLimit: ptrOf(uint64(1))})
	})
	t.Run("terminal/output", func(t *testing.T) { paramsRoundTrip(t, TerminalOutputParams{SessionID: "s", TerminalID: "t"}) })
	t.Run("logout", func(t *testing.T) { paramsRoundTrip(t, LogoutParams{Meta: sampleMeta}) })
	t.Run("elicitation/create form", func(t *testing.T) {
		paramsRoundTrip(t, CreateElicitationParams{Message: "Name?", Mode: ElicitationForm, SessionID: "s", ToolCallID: "c",
			RequestedSchema: &ElicitationSchema{Type: ElicitationSchemaObject, Properties: map[string]ElicitationPropertySchema{"name": StringPropertySchema{}}}, Meta: sampleMeta})
	})
	t.Run("elicitation/create url", func(t *testing.T) {
		paramsRoundTrip(t, CreateElicitationParams{Message: "Log in", Mode: ElicitationURL, RequestID: IntID(4), ElicitationID: "e", URL: "https://x"})
	})
	t.Run("elicitation/create other mode", func(t *testing.T) {
		paramsRoundTrip(t, CreateElicitationParams{Message: "m", Mode: "_x", SessionID: "s", Raw: json.RawMessage(`{"message":"m","mode":"_x","sessionId":"s","extra":[1]}`)})
	})
	t.Run("elicitation/complete", func(t *testing.T) { paramsRoundTrip(t, CompleteElicitationParams{ElicitationID: "e"}) })
}

func TestDecodeParamsDefaults(t *testing.T) {
	t.Run("null mcpServers is empty, absent is missing", func(t *testing.T) {
		got, err := DecodeParams[NewSessionParams]([]byte(`{"cwd":"/w","mcpServers":null}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(NewSessionParams{Cwd: "/w"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		_, err = DecodeParams[NewSessionParams]([]byte(`{"cwd":"/w"}`))
		wantInvalidField(t, err, "mcpServers")
	})
	t.Run("system prompt absent vs empty vs null", func(t *testing.T) {
		for raw, want := range map[string]*SystemPrompt{
			`{}`:                      nil,
			`{"systemPrompt":null}`:   nil,
			`{"systemPrompt":""}`:     {Mode: SystemPromptAppend, Content: ContentBlocks{TextContent{}}},
			`{"systemPrompt":"be x"}`: {Mode: SystemPromptAppend, Content: ContentBlocks{TextContent{Text: "be x"}}},
			`{"systemPrompt":{"mode":"append","content":[]}}`:                              {Mode: SystemPromptAppend, Content: ContentBlocks{}},
			`{"systemPrompt":{"mode":"append","content":[{"type":"text","text":"be x"}]}}`: {Mode: SystemPromptAppend, Content: ContentBlocks{TextContent{Text: "be x"}}},
		} {
			raw = `{"cwd":"/w","mcpServers":[],` + raw[1:]
			raw = strings.Replace(raw, ",}", "}", 1)
			got, err := DecodeParams[NewSessionParams]([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.SystemPrompt); diff != "" {
				t.Errorf("%s (-want +got):\n%s", raw, diff)
			}
		}
	})
	t.Run("stdio server with type stdio", func(t *testing.T) {
		got, err := DecodeParams[NewSessionParams]([]byte(`{"cwd":"/w","mcpServers":[{"type":"stdio","name":"a","command":"/a","args":[],"env":null}]}`))
		if err != nil {
			t.Fatal(err)
		}
		want := []MCPServer{MCPServerStdio{Name: "a", Command: "/a", Args: []string{}}}
		if diff := cmp.Diff(want, got.MCPServers); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("session/list accepts absent and null params", func(t *testing.T) {
		for _, raw := range []string{``, `null`, `{}`, ` { } `} {
			got, err := DecodeParams[ListSessionsParams]([]byte(raw))
			if err != nil {
				t.Fatalf("%q: %v", raw, err)
			}
			if diff := cmp.Diff(ListSessionsParams{}, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", raw, diff)
			}
		}
	})
	t.Run("unknown members ignored, meta kept", func(t *testing.T) {
		got, err := DecodeParams[CloseSessionParams]([]byte(`{"sessionId":"s","future":{"a":[1]},"_meta":{"k":"v"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(CloseSessionParams{SessionID: "s", Meta: json.RawMessage(`{"k":"v"}`)}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("duplicate members last wins", func(t *testing.T) {
		got, err := DecodeParams[PromptParams]([]byte(`{"sessionId":"a","prompt":[],"sessionId":"b","prompt":[{"type":"text","text":"x"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(PromptParams{SessionID: "b", Prompt: ContentBlocks{TextContent{Text: "x"}}}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		// A later null erases an earlier value, so the member is missing.
		_, err = DecodeParams[NewSessionParams]([]byte(`{"cwd":"/w","cwd":null}`))
		wantInvalidField(t, err, "cwd")
	})
	t.Run("malformed informational members read as absent", func(t *testing.T) {
		for _, raw := range []string{
			`{"protocolVersion":1,"clientCapabilities":{"fs":true}}`,
			`{"protocolVersion":1,"clientCapabilities":[]}`,
			`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":"yes"}}}`,
			`{"protocolVersion":1,"clientInfo":"zed"}`,
			`{"protocolVersion":1,"clientInfo":{"name":1}}`,
			`{"protocolVersion":1,"_meta":1}`,
		} {
			got, err := DecodeParams[InitializeParams]([]byte(raw))
			if err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			if got.ClientInfo != nil || got.ClientCapabilities.FS.ReadTextFile {
				t.Errorf("%s: decoded %+v", raw, got)
			}
		}
	})
	t.Run("cancel request ids kept byte-exact", func(t *testing.T) {
		for _, id := range []string{`1`, `"1"`, `1e3`, `null`, `123456789012345678901234567890`} {
			got, err := DecodeParams[CancelRequestParams]([]byte(`{"requestId":` + id + `}`))
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if diff := cmp.Diff(id, got.RequestID.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		}
	})
}

func TestDecodeParamsErrors(t *testing.T) {
	type decoder func([]byte) error
	dec := func(f func([]byte) (any, error)) decoder {
		return func(raw []byte) error { _, err := f(raw); return err }
	}
	initialize := dec(func(b []byte) (any, error) { return DecodeParams[InitializeParams](b) })
	newSession := dec(func(b []byte) (any, error) { return DecodeParams[NewSessionParams](b) })
	prompt := dec(func(b []byte) (any, error) { return DecodeParams[PromptParams](b) })
	elicit := dec(func(b []byte) (any, error) { return DecodeParams[CreateElicitationParams](b) })
	cases := []struct {
		name   string
		decode decoder
		params string
		field  string
	}{
		{"params an array", newSession, `[]`, "params"},
		{"params a string", newSession, `"x"`, "params"},
		{"params invalid JSON", newSession, `{"cwd":`, "params"},
		{"params invalid UTF-8", newSession, "{\"cwd\":\"/\xff\"}", "params"},
		{"params after a vertical tab, which is not JSON white space", newSession, "\v{\"cwd\":\"/\"}", "params"},
		{"invalid UTF-8 in an unknown block", prompt, "{\"sessionId\":\"s\",\"prompt\":[{\"type\":\"later\",\"x\":\"\xc0\"}]}", "params"},
		{"initialize absent params", initialize, ``, "protocolVersion"},
		{"initialize null params", initialize, `null`, "protocolVersion"},
		{"initialize version a string", initialize, `{"protocolVersion":"1"}`, "protocolVersion"},
		{"initialize version fractional", initialize, `{"protocolVersion":1.5}`, "protocolVersion"},
		{"initialize version negative", initialize, `{"protocolVersion":-1}`, "protocolVersion"},
		{"initialize version too large", initialize, `{"protocolVersion":70000}`, "protocolVersion"},
		{"authenticate no method", dec(func(b []byte) (any, error) { return DecodeParams[AuthenticateParams](b) }), `{}`, "methodId"},
		{"session/new no cwd", newSession, `{"mcpServers":[]}`, "cwd"},
		{"session/new cwd null", newSession, `{"cwd":null}`, "cwd"},
		{"session/new cwd a number", newSession, `{"cwd":1}`, "cwd"},
		{"session/new servers not an array", newSession, `{"cwd":"/","mcpServers":{}}`, "mcpServers"},
		{"session/new server null", newSession, `{"cwd":"/","mcpServers":[null]}`, "mcpServers[0]"},
		{"session/new stdio no command", newSession, `{"cwd":"/","mcpServers":[{"name":"a"}]}`, "mcpServers[0].command"},
		{"session/new no servers", newSession, `{"cwd":"/"}`, "mcpServers"},
		{"session/new stdio no args", newSession, `{"cwd":"/","mcpServers":[{"name":"a","command":"/a","env":[]}]}`, "mcpServers[0].args"},
		{"session/new stdio args not strings", newSession, `{"cwd":"/","mcpServers":[{"name":"a","command":"/a","args":[1],"env":[]}]}`, "mcpServers[0].args[0]"},
		{"session/new stdio env no value", newSession, `{"cwd":"/","mcpServers":[{"name":"a","command":"/a","args":[],"env":[{"name":"X"}]}]}`, "mcpServers[0].env[0].value"},
		{"session/new http no url", newSession, `{"cwd":"/","mcpServers":[{"name":"a","command":"/a","args":[],"env":[]},{"type":"http","name":"h","headers":[]}]}`, "mcpServers[1].url"},
		{"session/new sse header not object", newSession, `{"cwd":"/","mcpServers":[{"type":"sse","name":"h","url":"u","headers":[1]}]}`, "mcpServers[0].headers[0]"},
		{"session/new server type not string", newSession, `{"cwd":"/","mcpServers":[{"type":1}]}`, "mcpServers[0].type"},
		{"session/new system prompt a number", newSession, `{"cwd":"/","mcpServers":[],"systemPrompt":1}`, "systemPrompt"},
		{"session/new system prompt without content", newSession, `{"cwd":"/","mcpServers":[],"systemPrompt":{"mode":"append"}}`, "systemPrompt.content"},
		{"session/new system prompt without mode", newSession, `{"cwd":"/","mcpServers":[],"systemPrompt":{"content":[]}}`, "systemPrompt.mode"},
		{"session/new system prompt mode a number", newSession, `{"cwd":"/","mcpServers":[],"systemPrompt":{"mode":1,"content":[]}}`, "systemPrompt.mode"},
		{"session/new system prompt bad block", newSession, `{"cwd":"/","mcpServers":[],"systemPrompt":{"mode":"append","content":[{"type":"text"}]}}`, "systemPrompt.content[0].text"},
		{"session/new directories not strings", newSession, `{"cwd":"/","mcpServers":[],"additionalDirectories":"x"}`, "additionalDirectories"},
		{"session/load no session", dec(func(b []byte) (any, error) { return DecodeParams[LoadSessionParams](b) }), `{"cwd":"/","mcpServers":[]}`, "sessionId"},
		{"session/load no cwd", dec(func(b []byte) (any, error) { return DecodeParams[LoadSessionParams](b) }), `{"sessionId":"s","mcpServers":[]}`, "cwd"},
		{"session/load no servers", dec(func(b []byte) (any, error) { return DecodeParams[LoadSessionParams](b) }), `{"sessionId":"s","cwd":"/"}`, "mcpServers"},
		{"session/resume no cwd", dec(func(b []byte) (any, error) { return DecodeParams[ResumeSessionParams](b) }), `{"sessionId":"s"}`, "cwd"},
		{"session/list cursor a number", dec(func(b []byte) (any, error) { return DecodeParams[ListSessionsParams](b) }), `{"cursor":1}`, "cursor"},
		{"session/close no session", dec(func(b []byte) (any, error) { return DecodeParams[CloseSessionParams](b) }), `{}`, "sessionId"},
		{"session/set_mode no mode", dec(func(b []byte) (any, error) { return DecodeParams[SetSessionModeParams](b) }), `{"sessionId":"s"}`, "modeId"},
		{"set_config_option no value", dec(func(b []byte) (any, error) { return DecodeParams[SetSessionConfigOptionParams](b) }), `{"sessionId":"s","configId":"m"}`, "value"},
		{"set_config_option boolean given a string", dec(func(b []byte) (any, error) { return DecodeParams[SetSessionConfigOptionParams](b) }), `{"sessionId":"s","configId":"m","type":"boolean","value":"yes"}`, "value"},
		{"set_config_option no config", dec(func(b []byte) (any, error) { return DecodeParams[SetSessionConfigOptionParams](b) }), `{"sessionId":"s","value":"v"}`, "configId"},
		{"set_model no model", dec(func(b []byte) (any, error) { return DecodeParams[SetSessionModelParams](b) }), `{"sessionId":"s"}`, "modelId"},
		{"prompt no session", prompt, `{"prompt":[]}`, "sessionId"},
		{"prompt no prompt", prompt, `{"sessionId":"s"}`, "prompt"},
		{"prompt not an array", prompt, `{"sessionId":"s","prompt":{"type":"text"}}`, "prompt"},
		{"prompt block null", prompt, `{"sessionId":"s","prompt":[null]}`, "prompt[0]"},
		{"prompt block a string", prompt, `{"sessionId":"s","prompt":["hi"]}`, "prompt[0]"},
		{"prompt block no type", prompt, `{"sessionId":"s","prompt":[{"text":"x"}]}`, "prompt[0].type"},
		{"prompt text no text", prompt, `{"sessionId":"s","prompt":[{"type":"text","text":"ok"},{"type":"text"}]}`, "prompt[1].text"},
		{"prompt image no mime", prompt, `{"sessionId":"s","prompt":[{"type":"image","data":"x"}]}`, "prompt[0].mimeType"},
		{"prompt audio no data", prompt, `{"sessionId":"s","prompt":[{"type":"audio","mimeType":"a"}]}`, "prompt[0].data"},
		{"prompt link no name", prompt, `{"sessionId":"s","prompt":[{"type":"resource_link","uri":"u"}]}`, "prompt[0].name"},
		{"prompt resource missing", prompt, `{"sessionId":"s","prompt":[{"type":"resource"}]}`, "prompt[0].resource"},
		{"prompt resource no uri", prompt, `{"sessionId":"s","prompt":[{"type":"resource","resource":{"text":"x"}}]}`, "prompt[0].resource.uri"},
		{"prompt resource neither text nor blob", prompt, `{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"u"}}]}`, "prompt[0].resource.text"},
		{"cancel_request no id", dec(func(b []byte) (any, error) { return DecodeParams[CancelRequestParams](b) }), `{}`, "requestId"},
		{"cancel_request object id", dec(func(b []byte) (any, error) { return DecodeParams[CancelRequestParams](b) }), `{"requestId":{}}`, "requestId"},
		{"cancel_request bool id", dec(func(b []byte) (any, error) { return DecodeParams[CancelRequestParams](b) }), `{"requestId":true}`, "requestId"},
		{"permission no tool call", dec(func(b []byte) (any, error) { return DecodeParams[RequestPermissionParams](b) }), `{"sessionId":"s","options":[]}`, "toolCall"},
		{"permission tool call no id", dec(func(b []byte) (any, error) { return DecodeParams[RequestPermissionParams](b) }), `{"sessionId":"s","toolCall":{},"options":[]}`, "toolCall.toolCallId"},
		{"permission no options", dec(func(b []byte) (any, error) { return DecodeParams[RequestPermissionParams](b) }), `{"sessionId":"s","toolCall":{"toolCallId":"c"}}`, "options"},
		{"permission option no kind", dec(func(b []byte) (any, error) { return DecodeParams[RequestPermissionParams](b) }), `{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[{"optionId":"o","name":"n"}]}`, "options[0].kind"},
		{"read no path", dec(func(b []byte) (any, error) { return DecodeParams[ReadTextFileParams](b) }), `{"sessionId":"s"}`, "path"},
		{"read line negative", dec(func(b []byte) (any, error) { return DecodeParams[ReadTextFileParams](b) }), `{"sessionId":"s","path":"/a","line":-2}`, "line"},
		{"write no content", dec(func(b []byte) (any, error) { return DecodeParams[WriteTextFileParams](b) }), `{"sessionId":"s","path":"/a"}`, "content"},
		{"terminal create no command", dec(func(b []byte) (any, error) { return DecodeParams[CreateTerminalParams](b) }), `{"sessionId":"s"}`, "command"},
		{"terminal create limit fractional", dec(func(b []byte) (any, error) { return DecodeParams[CreateTerminalParams](b) }), `{"sessionId":"s","command":"c","outputByteLimit":1.5}`, "outputByteLimit"},
		{"terminal no terminal id", dec(func(b []byte) (any, error) { return DecodeParams[TerminalOutputParams](b) }), `{"sessionId":"s"}`, "terminalId"},
		{"elicitation no mode", elicit, `{"message":"m","sessionId":"s"}`, "mode"},
		{"elicitation no scope", elicit, `{"message":"m","mode":"url","elicitationId":"e","url":"u"}`, "sessionId"},
		{"elicitation request id an object", elicit, `{"message":"m","mode":"url","requestId":{},"elicitationId":"e","url":"u"}`, "requestId"},
		{"elicitation form no schema", elicit, `{"message":"m","mode":"form","sessionId":"s"}`, "requestedSchema"},
		{"elicitation form schema not object", elicit, `{"message":"m","mode":"form","sessionId":"s","requestedSchema":[]}`, "requestedSchema"},
		{"elicitation url no url", elicit, `{"message":"m","mode":"url","sessionId":"s","elicitationId":"e"}`, "url"},
		{"elicitation url no id", elicit, `{"message":"m","mode":"url","sessionId":"s","url":"u"}`, "elicitationId"},
		{"elicitation complete no id", dec(func(b []byte) (any, error) { return DecodeParams[CompleteElicitationParams](b) }), `{}`, "elicitationId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantInvalidField(t, tc.decode([]byte(tc.params)), tc.field)
		})
	}
}

func TestInvalidParamsMessage(t *testing.T) {
	_, err := DecodeParams[NewSessionParams]([]byte(`{"mcpServers":[]}`))
	want := &Error{Code: CodeInvalidParams, Message: `invalid params: "cwd" is required`, Data: json.RawMessage(`{"field":"cwd"}`)}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParamsUnmarshalJSON(t *testing.T) {
	// The params types apply DecodeParams's rules wherever encoding/json
	// meets them, including nested in a caller's own envelope type.
	var req struct {
		Method string           `json:"method"`
		Params NewSessionParams `json:"params"`
	}
	line := `{"method":"session/new","params":{"cwd":"/w","mcpServers":[{"type":"http","name":"h","url":"u","headers":[]}]}}`
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		t.Fatal(err)
	}
	want := NewSessionParams{Cwd: "/w", MCPServers: []MCPServer{MCPServerHTTP{Name: "h", URL: "u", Headers: []HTTPHeader{}}}}
	if diff := cmp.Diff(want, req.Params); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	err := json.Unmarshal([]byte(`{"method":"session/new","params":{"mcpServers":[]}}`), &req)
	wantInvalidField(t, err, "cwd")

	var n SessionNotification
	if err := json.Unmarshal([]byte(`{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"ask"}}`), &n); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(SessionNotification{SessionID: "s", Update: CurrentModeUpdate{CurrentModeID: "ask"}}, n); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// null is a no-op, as for encoding/json's own types.
	p := PromptParams{SessionID: "keep"}
	if err := json.Unmarshal([]byte(`null`), &p); err != nil || p.SessionID != "keep" {
		t.Errorf("null: %v, %+v", err, p)
	}
}

// TestDecodeParamsSessionIDRequired checks, for every method whose params
// name a session, that a missing or non-string sessionId is a -32602 naming
// it, whatever else is present.
func TestDecodeParamsSessionIDRequired(t *testing.T) {
	decoders := []struct {
		method string
		decode func([]byte) error
		rest   string // the other required members, valid
	}{
		{SessionLoad.Name, func(b []byte) error { _, err := DecodeParams[LoadSessionParams](b); return err }, `"cwd":"/w","mcpServers":[]`},
		{SessionResume.Name, func(b []byte) error { _, err := DecodeParams[ResumeSessionParams](b); return err }, `"cwd":"/w"`},
		{SessionFork.Name, func(b []byte) error { _, err := DecodeParams[ForkSessionParams](b); return err }, `"cwd":"/w"`},
		{SessionClose.Name, func(b []byte) error { _, err := DecodeParams[CloseSessionParams](b); return err }, `"_meta":{}`},
		{SessionDelete.Name, func(b []byte) error { _, err := DecodeParams[DeleteSessionParams](b); return err }, `"_meta":{}`},
		{SessionCancel.Name, func(b []byte) error { _, err := DecodeParams[CancelParams](b); return err }, `"_meta":{}`},
		{SessionArchive.Name, func(b []byte) error { _, err := DecodeParams[ArchiveSessionParams](b); return err }, `"_meta":{}`},
		{SessionUnarchive.Name, func(b []byte) error { _, err := DecodeParams[UnarchiveSessionParams](b); return err }, `"_meta":{}`},
		{SessionStatus.Name, func(b []byte) error { _, err := DecodeParams[SessionStatusParams](b); return err }, `"_meta":{}`},
		{SessionSetTitle.Name, func(b []byte) error { _, err := DecodeParams[SetSessionTitleParams](b); return err }, `"title":"t"`},
		{SessionSetMode.Name, func(b []byte) error { _, err := DecodeParams[SetSessionModeParams](b); return err }, `"modeId":"ask"`},
		{SessionSetConfigOption.Name, func(b []byte) error { _, err := DecodeParams[SetSessionConfigOptionParams](b); return err }, `"configId":"m","value":"v"`},
		{SessionSetModel.Name, func(b []byte) error { _, err := DecodeParams[SetSessionModelParams](b); return err }, `"modelId":"opus"`},
		{SessionPrompt.Name, func(b []byte) error { _, err := DecodeParams[PromptParams](b); return err }, `"prompt":[]`},
	}
	for _, d := range decoders {
		t.Run(d.method, func(t *testing.T) {
			if err := d.decode([]byte(`{"sessionId":"s",` + d.rest + `}`)); err != nil {
				t.Fatalf("valid params refused: %v", err)
			}
			for _, bad := range []string{`{` + d.rest + `}`, `{"sessionId":null,` + d.rest + `}`, `{"sessionId":7,` + d.rest + `}`} {
				wantInvalidField(t, d.decode([]byte(bad)), "sessionId")
			}
		})
	}
}

// TestEveryParamsTypeUnmarshalJSON checks that each params type applies
// DecodeParams's rules under json.Unmarshal too: it decodes a valid object,
// names the missing member of an incomplete one, and leaves the value alone
// on null.
func TestEveryParamsTypeUnmarshalJSON(t *testing.T) {
	cases := []struct {
		name  string
		dst   func() any // a fresh pointer to the params type
		valid string
		field string // the member missing from {}
	}{
		{"initialize", func() any { return new(InitializeParams) }, `{"protocolVersion":1}`, "protocolVersion"},
		{"authenticate", func() any { return new(AuthenticateParams) }, `{"methodId":"m"}`, "methodId"},
		{"session/new", func() any { return new(NewSessionParams) }, `{"cwd":"/","mcpServers":[]}`, "cwd"},
		{"session/load", func() any { return new(LoadSessionParams) }, `{"sessionId":"s","cwd":"/","mcpServers":[]}`, "mcpServers"},
		{"session/resume", func() any { return new(ResumeSessionParams) }, `{"sessionId":"s","cwd":"/"}`, "sessionId"},
		{"session/fork", func() any { return new(ForkSessionParams) }, `{"sessionId":"s","cwd":"/"}`, "sessionId"},
		{"session/close", func() any { return new(CloseSessionParams) }, `{"sessionId":"s"}`, "sessionId"},
		{"session/set_mode", func() any { return new(SetSessionModeParams) }, `{"sessionId":"s","modeId":"m"}`, "sessionId"},
		{"session/set_config_option", func() any { return new(SetSessionConfigOptionParams) }, `{"sessionId":"s","configId":"c","value":"v"}`, "sessionId"},
		{"session/set_model", func() any { return new(SetSessionModelParams) }, `{"sessionId":"s","modelId":"m"}`, "sessionId"},
		{"session/prompt", func() any { return new(PromptParams) }, `{"sessionId":"s","prompt":[]}`, "sessionId"},
		{"$/cancel_request", func() any { return new(CancelRequestParams) }, `{"requestId":1}`, "requestId"},
		{"session/request_permission", func() any { return new(RequestPermissionParams) }, `{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[]}`, "sessionId"},
		{"fs/read_text_file", func() any { return new(ReadTextFileParams) }, `{"sessionId":"s","path":"/a"}`, "sessionId"},
		{"fs/write_text_file", func() any { return new(WriteTextFileParams) }, `{"sessionId":"s","path":"/a","content":""}`, "sessionId"},
		{"terminal/create", func() any { return new(CreateTerminalParams) }, `{"sessionId":"s","command":"ls"}`, "sessionId"},
		{"terminal/output", func() any { return new(TerminalOutputParams) }, `{"sessionId":"s","terminalId":"t"}`, "sessionId"},
		{"elicitation/create", func() any { return new(CreateElicitationParams) }, `{"message":"m","mode":"url","sessionId":"s","elicitationId":"e","url":"u"}`, "message"},
		{"elicitation/complete", func() any { return new(CompleteElicitationParams) }, `{"elicitationId":"e"}`, "elicitationId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.dst()
			if err := json.Unmarshal([]byte(tc.valid), v); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.valid, err)
			}
			decoded, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(`null`), v); err != nil {
				t.Fatalf("Unmarshal(null): %v", err)
			}
			if after, _ := json.Marshal(v); string(after) != string(decoded) {
				t.Errorf("Unmarshal(null) changed the value from %s to %s", decoded, after)
			}
			wantInvalidField(t, json.Unmarshal([]byte(`{}`), tc.dst()), tc.field)
		})
	}
}

func TestContentBlocksUnmarshalJSON(t *testing.T) {
	var b ContentBlocks
	if err := json.Unmarshal([]byte(`[{"type":"text","text":"a"},{"type":"later","x":1}]`), &b); err != nil {
		t.Fatal(err)
	}
	want := ContentBlocks{TextContent{Text: "a"}, UnknownContent{Type: "later", Raw: json.RawMessage(`{"type":"later","x":1}`)}}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`null`), &b); err != nil || len(b) != 2 {
		t.Errorf("Unmarshal(null) = %v, left %d blocks, want 2 unchanged", err, len(b))
	}
	wantInvalidField(t, json.Unmarshal([]byte(`[{"type":"text","text":"a"},{"type":"text"}]`), &b), "[1].text")
}
