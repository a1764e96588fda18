package codex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/codex"
	"github.com/google/go-cmp/cmp"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

// TestSessionWrites checks the exact lines each method writes, answering
// each request as the server would.
func TestSessionWrites(t *testing.T) {
	const thread = `{"thread":{"id":"t1","cliVersion":"0.171.0","createdAt":1,"updatedAt":2,"status":{"type":"idle"},"turns":[]},"model":"m","modelProvider":"p","cwd":"/w","approvalPolicy":"never","approvalsReviewer":"user","sandbox":{"type":"workspaceWrite","networkAccess":true}}`
	tests := []struct {
		name   string
		call   func(ctx context.Context, s *codex.Session) (any, error)
		answer string // the result the server answers with
		want   string // the lines written
	}{
		{"initialize", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.Initialize(ctx, codex.ClientInfo{Name: "acp", Title: "<ACP>", Version: "1.2"}, codex.InitializeOptions{ExperimentalAPI: true, OptOutNotifications: []string{"item/agentMessage/delta"}})
		}, `{"userAgent":"acp/0.171.0 (Linux)","codexHome":"/h","platformFamily":"unix","platformOs":"linux"}`,
			`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"acp","title":"<ACP>","version":"1.2"},"capabilities":{"experimentalApi":true,"optOutNotificationMethods":["item/agentMessage/delta"]}}}` + "\n" +
				`{"method":"initialized"}` + "\n"},
		{"thread/start", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.StartThread(ctx, codex.ThreadOptions{CWD: "/w", Model: "gpt-5.5", ApprovalPolicy: codex.ApprovalOnRequest, Sandbox: codex.SandboxReadOnly,
				Config: json.RawMessage(`{"mcp_servers": {"echo": {"command": "node"}}}`), DeveloperInstructions: "Be brief.", Ephemeral: true})
		}, thread,
			`{"id":1,"method":"thread/start","params":{"cwd":"/w","model":"gpt-5.5","approvalPolicy":"on-request","sandbox":"read-only","config":{"mcp_servers":{"echo":{"command":"node"}}},"developerInstructions":"Be brief.","ephemeral":true}}` + "\n"},
		{"thread/resume", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.ResumeThread(ctx, "t1", codex.ThreadOptions{WithoutTurns: true, ApprovalPolicy: `{"granular":{"rules":true}}`})
		}, thread, `{"id":1,"method":"thread/resume","params":{"threadId":"t1","approvalPolicy":{"granular":{"rules":true}},"excludeTurns":true}}` + "\n"},
		{"thread/fork", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.ForkThread(ctx, "t1", codex.ThreadOptions{})
		}, thread, `{"id":1,"method":"thread/fork","params":{"threadId":"t1"}}` + "\n"},
		{"turn/start", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.StartTurn(ctx, "t1", []codex.Input{
				codex.TextInput("look <here>"), codex.ImageDataInput("image/png", []byte{1, 2}), codex.LocalImageInput("/w/a.png"),
				codex.MentionInput("a.go", "/w/a.go"), codex.ResourceInput("file:///w/b.txt", "b"), codex.SkillInput("pdf", "/s/pdf"),
			}, codex.TurnOptions{Model: "gpt-5.5", Effort: "high", ApprovalPolicy: codex.ApprovalNever, Sandbox: codex.SandboxWorkspaceWrite.Policy(), Summary: "auto"})
		}, `{"turn":{"id":"u1","items":[],"status":"inProgress"}}`,
			`{"id":1,"method":"turn/start","params":{"threadId":"t1","input":[{"type":"text","text":"look <here>","text_elements":[]},` +
				`{"type":"image","url":"data:image/png;base64,AQI="},{"type":"localImage","path":"/w/a.png"},{"type":"mention","path":"/w/a.go","name":"a.go"},` +
				`{"type":"text","text":"<context ref=\"file:///w/b.txt\">\nb\n</context>","text_elements":[]},{"type":"skill","path":"/s/pdf","name":"pdf"}],` +
				`"model":"gpt-5.5","effort":"high","approvalPolicy":"never","sandboxPolicy":{"type":"workspaceWrite"},"summary":"auto"}}` + "\n"},
		{"thread/list", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.ListThreads(ctx, codex.ThreadListOptions{Cursor: "c", Limit: 5, Archived: true, Search: "x"})
		}, `{"data":[],"nextCursor":"d"}`, `{"id":1,"method":"thread/list","params":{"cursor":"c","limit":5,"archived":true,"searchTerm":"x"}}` + "\n"},
		{"thread/read", func(ctx context.Context, s *codex.Session) (any, error) { return s.ReadThread(ctx, "t1", true) },
			`{"thread":{"id":"t1"}}`, `{"id":1,"method":"thread/read","params":{"threadId":"t1","includeTurns":true}}` + "\n"},
		{"thread/turns/list", func(ctx context.Context, s *codex.Session) (any, error) { return s.ListTurns(ctx, "t1", "c") },
			`{"data":[]}`, `{"id":1,"method":"thread/turns/list","params":{"threadId":"t1","cursor":"c"}}` + "\n"},
		{"thread/name/set", func(ctx context.Context, s *codex.Session) (any, error) { return nil, s.SetThreadName(ctx, "t1", "n") },
			`{}`, `{"id":1,"method":"thread/name/set","params":{"threadId":"t1","name":"n"}}` + "\n"},
		{"thread/archive", func(ctx context.Context, s *codex.Session) (any, error) { return nil, s.ArchiveThread(ctx, "t1") },
			`{}`, `{"id":1,"method":"thread/archive","params":{"threadId":"t1"}}` + "\n"},
		{"thread/unarchive", func(ctx context.Context, s *codex.Session) (any, error) { return s.UnarchiveThread(ctx, "t1") },
			`{"thread":{"id":"t1"}}`, `{"id":1,"method":"thread/unarchive","params":{"threadId":"t1"}}` + "\n"},
		{"model/list", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.ListModels(ctx, codex.ModelListOptions{IncludeHidden: true})
		}, `{"data":[{"id":"m","supportedReasoningEfforts":[{"reasoningEffort":"low","description":"d"}]}]}`, `{"id":1,"method":"model/list","params":{"includeHidden":true}}` + "\n"},
		{"any method", func(ctx context.Context, s *codex.Session) (any, error) {
			return s.Request(ctx, "config/read", json.RawMessage(`{ "cwd" : "/w" }`))
		}, `{"config":{}}`, `{"id":1,"method":"config/read","params":{"cwd":"/w"}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var w lockedBuffer
				s := codex.NewSession(&w)
				done := make(chan error, 1)
				go func() {
					_, err := tt.call(t.Context(), s)
					done <- err
				}()
				synctest.Wait()
				written := w.take()
				if _, err := s.Feed([]byte(`{"id":1,"result":`+tt.answer+`}`), nil); err != nil {
					t.Fatal(err)
				}
				if err := <-done; err != nil {
					t.Fatalf("call: %v", err)
				}
				written += w.take()
				if diff := cmp.Diff(tt.want, written); diff != "" {
					t.Errorf("lines written (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestSessionAnswers checks the exact answer each decision writes to each
// kind of request, and that an answer is written once.
func TestSessionAnswers(t *testing.T) {
	const (
		command   = `{"method":"item/commandExecution/requestApproval","id":0,"params":{"threadId":"t","turnId":"u","itemId":"i","command":"ls"}}`
		file      = `{"method":"item/fileChange/requestApproval","id":"f-1","params":{"threadId":"t","turnId":"u","itemId":"i"}}`
		toolAsk   = `{"method":"mcpServer/elicitation/request","id":2,"params":{"threadId":"t","serverName":"echo","mode":"form","message":"Allow?","requestedSchema":{"type":"object","properties":{}},"_meta":{"codex_approval_kind":"mcp_tool_call","persist":["session","always"],"tool_name":"echo","tool_params":{"text":"hi"}}}}`
		onlyOnce  = `{"method":"mcpServer/elicitation/request","id":3,"params":{"threadId":"t","serverName":"echo","mode":"form","message":"Allow?","requestedSchema":{},"_meta":{"codex_approval_kind":"mcp_tool_call"}}}`
		userInput = `{"method":"item/tool/requestUserInput","id":4,"params":{"threadId":"t"}}`
	)
	tests := []struct {
		request string
		answer  func(s *codex.Session, r codex.Request) error
		want    string
	}{
		{command, func(s *codex.Session, r codex.Request) error { return s.Decide(r, codex.DecisionAccept) }, `{"id":0,"result":{"decision":"accept"}}`},
		{command, func(s *codex.Session, r codex.Request) error { return s.Decide(r, codex.DecisionAcceptForSession) }, `{"id":0,"result":{"decision":"acceptForSession"}}`},
		{command, func(s *codex.Session, r codex.Request) error { return s.Decline(r) }, `{"id":0,"result":{"decision":"decline"}}`},
		{file, func(s *codex.Session, r codex.Request) error { return s.Decide(r, codex.DecisionCancel) }, `{"id":"f-1","result":{"decision":"cancel"}}`},
		{toolAsk, func(s *codex.Session, r codex.Request) error { return s.Decide(r, codex.DecisionAcceptForSession) },
			`{"id":2,"result":{"action":"accept","content":null,"_meta":{"persist":"session"}}}`},
		{onlyOnce, func(s *codex.Session, r codex.Request) error { return s.Decide(r, codex.DecisionAcceptForSession) },
			`{"id":3,"result":{"action":"accept","content":null}}`},
		{toolAsk, func(s *codex.Session, r codex.Request) error { return s.Decline(r) }, `{"id":2,"result":{"action":"decline","content":null}}`},
		{userInput, func(s *codex.Session, r codex.Request) error { return s.Decline(r) },
			`{"id":4,"error":{"code":-32601,"message":"method not supported by this client: item/tool/requestUserInput"}}`},
		{userInput, func(s *codex.Session, r codex.Request) error {
			return s.Respond(r, map[string]any{"answers": map[string]any{}})
		},
			`{"id":4,"result":{"answers":{}}}`},
	}
	for _, tt := range tests {
		var w lockedBuffer
		s := codex.NewSession(&w)
		events, err := s.Feed([]byte(tt.request), nil)
		if err != nil || len(events) != 1 {
			t.Fatalf("Feed(%s) = %v, %v", tt.request, events, err)
		}
		r := events[0].(codex.Request)
		if err := tt.answer(s, r); err != nil {
			t.Errorf("answer to %s: %v", r.Method(), err)
		}
		if got := w.take(); got != tt.want+"\n" {
			t.Errorf("answer to %s = %s, want %s", r.Method(), got, tt.want)
		}
		if err := s.Decline(r); !errors.Is(err, codex.ErrNotPending) || w.take() != "" {
			t.Errorf("second answer to %s: %v", r.Method(), err)
		}
	}
}

// TestSessionRefusesInvalidInput checks that what cannot be sent is
// refused before anything is written.
func TestSessionRefusesInvalidInput(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		call func(s *codex.Session) error
	}{
		{"no client name", func(s *codex.Session) error {
			_, err := s.Initialize(ctx, codex.ClientInfo{Version: "1"}, codex.InitializeOptions{})
			return err
		}},
		{"config not an object", func(s *codex.Session) error {
			_, err := s.StartThread(ctx, codex.ThreadOptions{Config: json.RawMessage(`[1]`)})
			return err
		}},
		{"resume without an id", func(s *codex.Session) error { _, err := s.ResumeThread(ctx, "", codex.ThreadOptions{}); return err }},
		{"turn without input", func(s *codex.Session) error { _, err := s.StartTurn(ctx, "t", nil, codex.TurnOptions{}); return err }},
		{"empty text", func(s *codex.Session) error {
			_, err := s.StartTurn(ctx, "t", []codex.Input{codex.TextInput("")}, codex.TurnOptions{})
			return err
		}},
		{"zero input", func(s *codex.Session) error {
			_, err := s.StartTurn(ctx, "t", []codex.Input{{}}, codex.TurnOptions{})
			return err
		}},
		{"output schema not an object", func(s *codex.Session) error {
			_, err := s.StartTurn(ctx, "t", []codex.Input{codex.TextInput("x")}, codex.TurnOptions{OutputSchema: json.RawMessage(`"s"`)})
			return err
		}},
		{"empty method", func(s *codex.Session) error { _, err := s.Request(ctx, "", nil); return err }},
		{"params that do not marshal", func(s *codex.Session) error { _, err := s.Request(ctx, "x", func() {}); return err }},
	}
	for _, tt := range tests {
		var w lockedBuffer
		s := codex.NewSession(&w)
		if err := tt.call(s); !errors.Is(err, codex.ErrInvalidInput) {
			t.Errorf("%s: %v, want ErrInvalidInput", tt.name, err)
		}
		if got := w.take(); got != "" {
			t.Errorf("%s: wrote %q", tt.name, got)
		}
	}
	var w lockedBuffer
	s := codex.NewSession(&w)
	events, _ := s.Feed([]byte(`{"method":"item/fileChange/requestApproval","id":1,"params":{}}`), nil)
	if err := s.Decide(events[0].(codex.Request), "maybe"); !errors.Is(err, codex.ErrInvalidInput) || w.take() != "" {
		t.Errorf("an unknown decision: %v", err)
	}
	if err := s.Interrupt(ctx, "t"); !errors.Is(err, codex.ErrNoActiveTurn) || w.take() != "" {
		t.Errorf("Interrupt with no turn: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Request(cancelled, "x", nil); !errors.Is(err, context.Canceled) || w.take() != "" {
		t.Errorf("a request with its context done: %v", err)
	}
}
