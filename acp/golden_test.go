package acp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The -update flag rewrites the golden files. It is defined here only if no
// other test file of the package defines it first, so that several files
// can share it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/golden")
	}
}

func goldenUpdateFlag() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGoldenLine compares line with testdata/golden/name.jsonl, which holds the
// line followed by a newline.
func checkGoldenLine(t *testing.T, name string, line []byte) {
	t.Helper()
	if bytes.ContainsAny(line, "\r\n") {
		t.Errorf("%s: line holds a raw newline: %s", name, line)
	}
	if !json.Valid(line) {
		t.Errorf("%s: line is not valid JSON: %s", name, line)
	}
	path := filepath.Join("testdata", "golden", name+".jsonl")
	got := append(bytes.Clone(line), '\n')
	if goldenUpdateFlag() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestGoldenSessionUpdates(t *testing.T) {
	for _, tc := range sampleUpdates() {
		t.Run(tc.name, func(t *testing.T) {
			line, err := sessionUpdateLine("sess-1", tc.update)
			if err != nil {
				t.Fatal(err)
			}
			checkGoldenLine(t, "session_update_"+tc.name, line)
		})
	}
}

func TestGoldenContentBlocks(t *testing.T) {
	for _, tc := range sampleBlocks() {
		t.Run(tc.name, func(t *testing.T) {
			line, err := sessionUpdateLine("sess-1", AgentMessageChunk{Content: tc.block})
			if err != nil {
				t.Fatal(err)
			}
			checkGoldenLine(t, "content_"+tc.name, line)
		})
	}
}

func TestGoldenRequestsAndResults(t *testing.T) {
	cases := []struct {
		name  string
		build func() ([]byte, error)
	}{
		{"request_initialize", func() ([]byte, error) {
			return MarshalRequest(IntID(0), Initialize.Name, InitializeParams{
				ProtocolVersion: 1,
				ClientCapabilities: ClientCapabilities{
					FS: FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true,
					Session: &ClientSessionCapabilities{Notices: &NoticeCapabilities{}},
					Meta:    json.RawMessage(`{"goose":{"customNotifications":true}}`),
				},
				ClientInfo: &Implementation{Name: "zed", Version: "0.200.0"},
			})
		}},
		{"result_initialize", func() ([]byte, error) {
			return MarshalResponse(IntID(0), InitializeResult{
				ProtocolVersion: NegotiateVersion(1),
				AgentCapabilities: AgentCapabilities{
					LoadSession:         true,
					PromptCapabilities:  PromptCapabilities{Image: true, EmbeddedContext: true},
					SessionCapabilities: &SessionCapabilities{List: &SessionListCapabilities{}, Resume: &SessionResumeCapabilities{}},
				},
				AgentInfo: &Implementation{Name: "acpkit-demo", Title: "Demo", Version: "0.1.0"},
			})
		}},
		{"request_session_new", func() ([]byte, error) {
			return MarshalRequest(IntID(1), SessionNew.Name, NewSessionParams{
				Cwd: "/work",
				MCPServers: []MCPServer{
					MCPServerStdio{Name: "fs", Command: "/usr/bin/mcp-fs", Args: []string{"--root", "/work"}, Env: []EnvVariable{{Name: "DEBUG", Value: "1"}}},
					MCPServerHTTP{Name: "web", URL: "https://mcp.example.com", Headers: []HTTPHeader{{Name: "Authorization", Value: "Bearer x"}}},
					MCPServerSSE{Name: "events", URL: "https://sse.example.com"},
				},
				SystemPrompt: &SystemPrompt{Content: ContentBlocks{TextContent{Text: "Answer in French."}}},
			})
		}},
		{"result_session_new", func() ([]byte, error) {
			return MarshalResponse(IntID(1), NewSessionResult{
				SessionID: "sess-1",
				Modes:     &SessionModeState{CurrentModeID: "code", AvailableModes: []SessionMode{{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code"}}},
			})
		}},
		{"request_session_prompt", func() ([]byte, error) {
			blocks := ContentBlocks{}
			for _, b := range sampleBlocks() {
				if _, unknown := b.block.(UnknownContent); !unknown { // content_unknown has it
					blocks = append(blocks, b.block)
				}
			}
			return MarshalRequest(StringID("p-1"), SessionPrompt.Name, PromptParams{SessionID: "sess-1", Prompt: blocks})
		}},
		{"result_session_prompt", func() ([]byte, error) {
			return MarshalResponse(StringID("p-1"), PromptResult{StopReason: StopReasonEndTurn, Usage: &Usage{TotalTokens: 300, InputTokens: 200, OutputTokens: 100, CachedReadTokens: ptrOf(uint64(50))}})
		}},
		{"result_session_list", func() ([]byte, error) {
			return MarshalResponse(IntID(2), ListSessionsResult{Sessions: []SessionInfo{{SessionID: "sess-1", Cwd: "/work", Title: "Fix parser"}}, NextCursor: "c2"})
		}},
		{"request_cancel_request", func() ([]byte, error) {
			return MarshalNotification(CancelRequest.Name, CancelRequestParams{RequestID: StringID("p-1")})
		}},
		{"request_permission", func() ([]byte, error) {
			return MarshalRequest(IntID(3), SessionRequestPermission.Name, RequestPermissionParams{
				SessionID: "sess-1",
				ToolCall:  PermissionToolCall{ToolCallID: "call-1", Title: "rm -rf build", Kind: ToolKindExecute},
				Options: []PermissionOption{
					{OptionID: "yes", Name: "Allow", Kind: PermissionAllowOnce},
					{OptionID: "no", Name: "Reject", Kind: PermissionRejectOnce},
				},
			})
		}},
		{"result_permission_selected", func() ([]byte, error) {
			return MarshalResponse(IntID(3), RequestPermissionResult{Outcome: PermissionOutcome{Outcome: PermissionSelected, OptionID: "yes"}})
		}},
		{"request_fs_read_text_file", func() ([]byte, error) {
			return MarshalRequest(IntID(4), FSReadTextFile.Name, ReadTextFileParams{SessionID: "sess-1", Path: "/work/a.go", Line: ptrOf(10), Limit: ptrOf(20)})
		}},
		{"request_terminal_create", func() ([]byte, error) {
			return MarshalRequest(IntID(5), TerminalCreate.Name, CreateTerminalParams{SessionID: "sess-1", Command: "go", Args: []string{"test", "./..."}, OutputByteLimit: ptrOf(uint64(65536))})
		}},
		{"result_terminal_output", func() ([]byte, error) {
			return MarshalResponse(IntID(6), TerminalOutputResult{Output: "ok\n", ExitStatus: &TerminalExitStatus{ExitCode: ptrOf(0)}})
		}},
		{"error_invalid_params", func() ([]byte, error) {
			_, err := DecodeParams[NewSessionParams]([]byte(`{}`))
			return MarshalErrorResponse(IntID(1), err.(*Error))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			checkGoldenLine(t, tc.name, line)
		})
	}
}
