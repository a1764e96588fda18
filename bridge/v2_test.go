package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// These tests serve ACP v2 as a program does: the Agent's handler for
// each connection, speaking v1 or v2 as the editor asks, with scripted
// CLIs (see harness_test.go) in a synctest bubble.

// The ids of the first session's messages: the harness's session id
// makes the nonce.
const userID1, agentID2 = "user-11111111-1", "agent-11111111-2"

// newEnvV2 starts an Agent configured by cfg and a v2 editor connected
// to it, initialized, as e.client.
func newEnvV2(t *testing.T, cfg bridge.Config) *env {
	e := newAgentEnv(t, cfg)
	e.client = e.dial(2)
	if _, err := acpv2.Initialize.Call(bg, e.client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// dial connects an editor of ACP version v (1 or 2) to e's Agent
// through an acpv2.Router, not yet initialized; e.close closes the
// connection. The editor records what it gets in e: a v1 editor its
// updates in e.updates, a v2 one in e.updatesV2, and each v2 update's
// label (see labelV2) in e.notes.
func (e *env) dial(v int) *acp.Conn {
	editor := e.editorV1()
	if v == 2 {
		editor = e.editorV2()
	}
	client, _, closePair := acptest.NewPair(bg, editor, e.a.Handler(bridge.Editor{}), nil)
	prev := e.closed
	e.closed = func() error {
		err := closePair()
		if prev != nil {
			if err2 := prev(); err == nil {
				err = err2
			}
		}
		return err
	}
	return client
}

// dialV1 connects a v1 editor to e's Agent, through the same Router as
// dial, and initializes it.
func (e *env) dialV1(t *testing.T) *acp.Conn {
	t.Helper()
	c := e.dial(1)
	if _, err := acp.Initialize.Call(bg, c, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	return c
}

// editorV2 is the methods of a v2 editor that records what it gets in e.
func (e *env) editorV2() acp.Methods {
	var editor acp.Methods
	acpv2.SessionUpdate.Handle(&editor, func(ctx context.Context, c *acp.Conn, n acpv2.SessionNotification) {
		e.mu.Lock()
		e.updatesV2 = append(e.updatesV2, n.Update)
		e.mu.Unlock()
		e.note(labelV2(n.Update))
	})
	acpv2.SessionRequestPermission.Handle(&editor, func(ctx context.Context, c *acp.Conn, p acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error) {
		e.mu.Lock()
		e.askedV2 = append(e.askedV2, p)
		answer := e.answerV2
		e.mu.Unlock()
		if answer == nil {
			return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: "allow"}}, nil
		}
		return answer(ctx, p)
	})
	return editor
}

// labelV2 is a short name of a v2 update, for checking their order.
func labelV2(u acpv2.Update) string {
	switch u := u.(type) {
	case acpv2.UserMessage:
		return "user_message " + u.MessageID
	case acpv2.UserMessageChunk:
		return "user_message_chunk " + u.MessageID
	case acpv2.AgentMessageChunk:
		return "agent_message_chunk " + u.MessageID
	case acpv2.SessionStateUpdate:
		if idle, ok := u.State.(acpv2.IdleStateUpdate); ok {
			return "idle " + string(idle.StopReason)
		}
		return "running"
	case acpv2.ToolCallUpdate:
		return "tool_call_update " + u.ToolCallID
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", u), "acpv2.")
}

// newSessionV2 opens a session through v2's session/new.
func (e *env) newSessionV2() string {
	e.t.Helper()
	res, err := acpv2.SessionNew.Call(bg, e.client, acpv2.NewSessionParams{Cwd: "/work"})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.SessionID
}

// answerV2 is a v2 prompt's response as the editor got it.
type answerV2 struct {
	res acpv2.PromptResult
	err error
}

// promptV2 sends a v2 prompt and returns where its response comes; the
// response's arrival is noted as "answer <text>".
func (e *env) promptV2(ctx context.Context, sid, text string) <-chan answerV2 {
	ch := make(chan answerV2, 1)
	go func() {
		res, err := acpv2.SessionPrompt.Call(ctx, e.client, acpv2.PromptParams{SessionID: sid, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: text}}})
		e.note("answer " + text)
		ch <- answerV2{res, err}
	}()
	return ch
}

// gotV2 returns the response on ch once everything has settled, failing
// the test when there is none yet.
func gotV2(t *testing.T, ch <-chan answerV2) answerV2 {
	t.Helper()
	synctest.Wait()
	select {
	case a := <-ch:
		return a
	default:
		t.Fatal("the prompt has no response yet")
		return answerV2{}
	}
}

// pendingV2 checks that the prompt on ch has no response yet.
func pendingV2(t *testing.T, ch <-chan answerV2) {
	t.Helper()
	synctest.Wait()
	select {
	case a := <-ch:
		t.Fatalf("the prompt was answered %+v, %v", a.res, a.err)
	default:
	}
}

// acked checks that a v2 prompt was acknowledged with message id.
func acked(t *testing.T, a answerV2, id string) {
	t.Helper()
	if a.err != nil || a.res.MessageID != id {
		t.Fatalf("prompt answered %+v, %v; want messageId %s", a.res, a.err, id)
	}
}

// lastIdle returns the last idle state update the v2 editor got.
func (e *env) lastIdle() acpv2.IdleStateUpdate {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range slices.Backward(e.updatesV2) {
		if s, ok := u.(acpv2.SessionStateUpdate); ok {
			if idle, ok := s.State.(acpv2.IdleStateUpdate); ok {
				return idle
			}
		}
	}
	e.t.Fatal("the editor got no idle state update")
	return acpv2.IdleStateUpdate{}
}

// notesSince returns the notes from the n-th on.
func (e *env) notesSince(n int) []string { return e.notes()[n:] }

// A v2 initialize gets v2's version and capabilities; session/delete is
// advertised only with a Store.
func TestV2Initialize(t *testing.T) {
	for _, withStore := range []bool{false, true} {
		t.Run(fmt.Sprint("store=", withStore), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := bridge.Config{}
				if withStore {
					cfg.Store = memStore{fstest.MapFS{}}
				}
				e := newAgentEnv(t, cfg)
				e.client = e.dial(2)
				defer e.close()
				res, err := acpv2.Initialize.Call(bg, e.client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
				must(t, err)
				if res.ProtocolVersion != 2 || res.Info.Name == "" {
					t.Errorf("initialize answered version %d, info %+v", res.ProtocolVersion, res.Info)
				}
				want := &acpv2.SessionCapabilities{
					Prompt:                &acpv2.PromptCapabilities{Image: &acpv2.PromptImageCapabilities{}, EmbeddedContext: &acpv2.PromptEmbeddedContextCapabilities{}},
					MCP:                   &acpv2.MCPCapabilities{Stdio: &acpv2.MCPStdioCapabilities{}, HTTP: &acpv2.MCPHTTPCapabilities{}},
					AdditionalDirectories: &acpv2.SessionAdditionalDirectoriesCapabilities{},
					Fork:                  &acpv2.SessionForkCapabilities{},
				}
				if withStore {
					want.Delete = &acpv2.SessionDeleteCapabilities{}
				}
				if res.Capabilities == nil {
					t.Fatal("initialize answered no capabilities")
				}
				if diff := cmp.Diff(want, res.Capabilities.Session); diff != "" {
					t.Errorf("session capabilities (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// resultWithUsage is resultLine with the run's usage whole, cache
// included, as Claude Code writes it (../claude/testdata/api_error.jsonl).
const resultWithUsage = `{"type":"result","subtype":"success","is_error":false,"result":"Hello.","session_id":"a3ff07eb","terminal_reason":"completed","usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":2,"output_tokens":5}}`

// A v2 prompt is acknowledged as soon as its turn starts, with the id of
// the user message it inserted, which the editor has got, with the
// running state, before the acknowledgement; the turn's updates follow
// with message ids, and the idle state, with the stop reason and usage,
// ends the turn.
func TestV2PromptLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		ch := e.promptV2(bg, sid, "hi")
		acked(t, gotV2(t, ch), userID1)
		if diff := cmp.Diff([]string{"user_message " + userID1, "running", "answer hi"}, e.notes()); diff != "" {
			t.Errorf("before the CLI answered, the editor got (-want +got):\n%s", diff)
		}
		p.turn(textLine, textLine, resultWithUsage)
		synctest.Wait()
		want := []string{
			"user_message " + userID1, "running", "answer hi",
			"AvailableCommandsUpdate", "ConfigOptionUpdate",
			"agent_message_chunk " + agentID2, "agent_message_chunk " + agentID2,
			"UsageUpdate", "idle end_turn",
		}
		if diff := cmp.Diff(want, e.notes()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
		e.mu.Lock()
		first, chunk := e.updatesV2[0], e.updatesV2[5]
		e.mu.Unlock()
		if diff := cmp.Diff(acpv2.UserMessage{MessageID: userID1, Content: acpv2.ContentBlocks{acpv2.TextContent{Text: "hi"}}}, first); diff != "" {
			t.Errorf("the user message (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(acpv2.AgentMessageChunk{MessageID: agentID2, Content: acpv2.TextContent{Text: "Hello."}}, chunk); diff != "" {
			t.Errorf("the agent's text (-want +got):\n%s", diff)
		}
		wantIdle := acpv2.IdleStateUpdate{StopReason: acpv2.StopReasonEndTurn, Usage: &acpv2.Usage{TotalTokens: 17, InputTokens: 12, OutputTokens: 5, CachedReadTokens: ptr[uint64](2), CachedWriteTokens: ptr[uint64](0)}}
		if diff := cmp.Diff(wantIdle, e.lastIdle()); diff != "" {
			t.Errorf("the turn's end (-want +got):\n%s", diff)
		}

		// The next turn's messages have new ids.
		n := len(e.notes())
		acked(t, gotV2(t, e.promptV2(bg, sid, "again")), "user-11111111-3")
		p.write(textLine, resultLine)
		synctest.Wait()
		want = []string{"user_message user-11111111-3", "running", "answer again", "agent_message_chunk agent-11111111-4", "idle end_turn"}
		if diff := cmp.Diff(want, e.notesSince(n)); diff != "" {
			t.Errorf("in the second turn, the editor got (-want +got):\n%s", diff)
		}
	})
}

// A turn that fails ends in the idle state with stop reason "error" and
// the error, ErrorData and all; the prompt was acknowledged before.
func TestV2FailedTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		acked(t, gotV2(t, e.promptV2(bg, sid, "hi")), userID1)
		p.turn(textLine)
		synctest.Wait()
		p.exit(1)
		synctest.Wait()
		idle := e.lastIdle()
		if idle.StopReason != acpv2.StopReasonError || idle.Error == nil {
			t.Fatalf("the failed turn ended %+v, want stop reason error with the error", idle)
		}
		var data bridge.ErrorData
		must(t, json.Unmarshal(idle.Error.Data, &data))
		if idle.Error.Code != acp.CodeInternalError || data.Kind != bridge.KindCrash || !strings.Contains(idle.Error.Message, "exited without finishing the turn") {
			t.Errorf("the failed turn's error is %d %q, data %s", idle.Error.Code, idle.Error.Message, idle.Error.Data)
		}
		if notes := e.notes(); notes[len(notes)-1] != "idle error" || slices.Contains(notes[:len(notes)-1], "idle error") {
			t.Errorf("the editor got %q, want one idle state, at the end", notes)
		}
	})
}

// A prompt sent during a turn is held: acknowledged, its user message
// inserted, only when its turn starts. session/cancel answers the prompts
// still held -32800 and cancels the turn under way.
func TestV2HeldPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		acked(t, gotV2(t, e.promptV2(bg, sid, "one")), userID1)
		p.turn(textLine)
		second := e.promptV2(bg, sid, "two")
		synctest.Wait()
		third := e.promptV2(bg, sid, "three")
		pendingV2(t, second)
		pendingV2(t, third)
		n := len(e.notes())
		p.write(resultLine)
		acked(t, gotV2(t, second), "user-11111111-3")
		pendingV2(t, third)
		want := []string{"idle end_turn", "user_message user-11111111-3", "running", "answer two"}
		if diff := cmp.Diff(want, e.notesSince(n)); diff != "" {
			t.Errorf("at the first turn's end, the editor got (-want +got):\n%s", diff)
		}

		e.cancel(sid)
		a := gotV2(t, third)
		code(t, "the held prompt at session/cancel", a.err, acp.CodeRequestCancelled)
		p.write(abortedLine)
		synctest.Wait()
		if idle := e.lastIdle(); idle.StopReason != acpv2.StopReasonCancelled {
			t.Errorf("the cancelled turn ended %+v", idle)
		}
		if diff := cmp.Diff([]string{"initialize", "user", "user", "interrupt"}, p.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		if slices.Contains(e.notes(), "user_message user-11111111-5") || slices.ContainsFunc(e.notes(), func(s string) bool { return strings.Contains(s, "three") && !strings.HasPrefix(s, "answer") }) {
			t.Errorf("the cancelled prompt was inserted: %q", e.notes())
		}
	})
}

// A held prompt withdrawn with $/cancel_request leaves the held ones and
// the turn under way alone, and is never inserted; session/close answers
// a prompt still held -32800.
func TestV2HeldPromptWithdrawn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		acked(t, gotV2(t, e.promptV2(bg, sid, "one")), userID1)
		p.turn(textLine)
		ctx, withdraw := context.WithCancel(bg)
		second := e.promptV2(ctx, sid, "two")
		synctest.Wait()
		third := e.promptV2(bg, sid, "three")
		synctest.Wait()
		withdraw()
		if a := gotV2(t, second); a.err == nil {
			t.Errorf("a withdrawn prompt was answered %+v", a.res)
		}
		pendingV2(t, third)
		if diff := cmp.Diff([]string{"initialize", "user"}, p.kinds()); diff != "" {
			t.Errorf("after the withdrawal, the CLI got (-want +got):\n%s", diff)
		}
		p.write(resultLine)
		acked(t, gotV2(t, third), "user-11111111-3")
		p.write(resultLine)
		synctest.Wait()
		var texts []string
		for _, l := range p.lines() {
			var m struct {
				Message struct{ Content []struct{ Text string } }
			}
			if json.Unmarshal([]byte(l), &m) == nil && len(m.Message.Content) > 0 {
				texts = append(texts, m.Message.Content[0].Text)
			}
		}
		if diff := cmp.Diff([]string{"one", "three"}, texts); diff != "" {
			t.Errorf("the turns went to the CLI as (-want +got):\n%s", diff)
		}

		// A turn and a held prompt, then session/close.
		acked(t, gotV2(t, e.promptV2(bg, sid, "four")), "user-11111111-4")
		fifth := e.promptV2(bg, sid, "five")
		pendingV2(t, fifth)
		closed := make(chan error, 1)
		go func() {
			_, err := acpv2.SessionClose.Call(bg, e.client, acpv2.CloseSessionParams{SessionID: sid})
			closed <- err
		}()
		code(t, "the held prompt at session/close", gotV2(t, fifth).err, acp.CodeRequestCancelled)
		must(t, <-closed) // the CLI exits as its input ends
		if idle := e.lastIdle(); idle.StopReason != acpv2.StopReasonCancelled {
			t.Errorf("the turn closed ended %+v", idle)
		}
	})
}

// session/resume without replayFrom reports the session's state before
// it answers; with replayFrom start, the stored conversation first; a
// replayFrom the bridge cannot serve is refused -32602, with nothing
// sent.
func TestV2Resume(t *testing.T) {
	const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
	tests := []struct {
		name   string
		from   acpv2.ReplayFrom
		want   []string
		refuse bool
	}{
		{name: "no replay", want: []string{"idle ", "answer resume"}},
		{name: "replay from start", from: acpv2.ReplayFromStart{}, want: []string{
			"user_message_chunk user-11111111-1", "agent_message_chunk agent-11111111-2", "idle ", "answer resume",
		}},
		{name: "replay from a message", from: acpv2.UnknownReplayFrom{Type: "message", Raw: json.RawMessage(`{"type":"message","messageId":"m1"}`)}, refuse: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := memStore{fstest.MapFS{}}
				store.add("-work/"+id+".jsonl", claudeSession(id, "/work", "Fix the bug.", epoch))
				e := newEnvV2(t, bridge.Config{Store: store})
				defer e.close()
				_, err := acpv2.SessionResume.Call(bg, e.client, acpv2.ResumeSessionParams{SessionID: id, Cwd: "/work", ReplayFrom: tt.from})
				e.note("answer resume")
				if tt.refuse {
					code(t, "session/resume", err, acp.CodeInvalidParams)
					if diff := cmp.Diff([]string{"answer resume"}, e.notes()); diff != "" {
						t.Errorf("the editor got (-want +got):\n%s", diff)
					}
					e.noProcess()
					return
				}
				must(t, err)
				if diff := cmp.Diff(tt.want, e.notes()); diff != "" {
					t.Errorf("the editor got (-want +got):\n%s", diff)
				}
				p := e.process()
				if !hasArg(p.args, "--resume="+id) {
					t.Errorf("the resumed session's CLI was started with %q", p.args)
				}
			})
		})
	}
}

// A resume of a session in a turn reports it running.
func TestV2ResumeRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		acked(t, gotV2(t, e.promptV2(bg, sid, "one")), userID1)
		n := len(e.notes())
		_, err := acpv2.SessionResume.Call(bg, e.client, acpv2.ResumeSessionParams{SessionID: sid, Cwd: "/work"})
		must(t, err)
		if diff := cmp.Diff([]string{"running"}, e.notesSince(n)); diff != "" {
			t.Errorf("the resume sent (-want +got):\n%s", diff)
		}
		p.turn(resultLine)
		synctest.Wait()
	})
}

// session/list, delete, close and set_config_option through v2.
func TestV2SessionMethods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
		store := memStore{fstest.MapFS{}}
		store.add("-work/"+id+".jsonl", claudeSession(id, "/work", "Fix the bug.", epoch))
		e := newEnvV2(t, bridge.Config{Store: store})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		p.write(initAnswer(p.requestID("initialize")))

		list, err := acpv2.SessionList.Call(bg, e.client, acpv2.ListSessionsParams{})
		must(t, err)
		var ids []string
		for _, s := range list.Sessions {
			ids = append(ids, s.SessionID+" "+s.Cwd+" "+s.Title)
		}
		if diff := cmp.Diff([]string{sid + " /work ", id + " /work Fix the bug."}, ids); diff != "" {
			t.Errorf("session/list (-want +got):\n%s", diff)
		}

		set := make(chan error, 1)
		var res acpv2.SetSessionConfigOptionResult
		go func() {
			var err error
			res, err = acpv2.SessionSetConfigOption.Call(bg, e.client, acpv2.SetSessionConfigOptionParams{Type: acpv2.ConfigValueID, SessionID: sid, ConfigID: "mode", Value: "plan"})
			set <- err
		}()
		synctest.Wait()
		p.write(controlAnswer(p.requestID("set_permission_mode")))
		must(t, <-set)
		if len(res.ConfigOptions) == 0 || res.ConfigOptions[0].ConfigID != "mode" || res.ConfigOptions[0].CurrentValue != "plan" {
			t.Errorf("session/set_config_option answered %+v", res.ConfigOptions)
		}
		_, err = acpv2.SessionSetConfigOption.Call(bg, e.client, acpv2.SetSessionConfigOptionParams{Type: acpv2.ConfigValueID, SessionID: "no-such-session", ConfigID: "mode", Value: "plan"})
		code(t, "set_config_option of no session", err, acp.CodeResourceNotFound)

		_, err = acpv2.SessionClose.Call(bg, e.client, acpv2.CloseSessionParams{SessionID: sid})
		must(t, err)
		if !p.exited() {
			t.Error("the closed session's CLI still runs")
		}
		_, err = acpv2.SessionPrompt.Call(bg, e.client, acpv2.PromptParams{SessionID: sid, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: "x"}}})
		code(t, "a prompt to the closed session", err, acp.CodeResourceNotFound)

		_, err = acpv2.SessionDelete.Call(bg, e.client, acpv2.DeleteSessionParams{SessionID: id})
		must(t, err)
		if len(store.MapFS) != 0 {
			t.Errorf("the store after the delete holds %v", store.MapFS)
		}
	})
}

// A v2 permission question has the tool call's title as its own and the
// tool call as its subject; a selected option and a cancelled question
// reach the CLI as they do from v1.
func TestV2Permission(t *testing.T) {
	tests := []struct {
		name    string
		outcome acpv2.PermissionOutcome
		want    string // the answer's line, in part
	}{
		{"allow", acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: "allow"}, `"behavior":"allow","updatedInput":{"command":"touch x"}}`},
		{"reject", acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: "reject"}, `"message":"The user refused permission to run this tool."`},
		{"cancelled", acpv2.PermissionOutcome{Outcome: acpv2.PermissionCancelled}, `"message":"The user cancelled.","interrupt":true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnvV2(t, bridge.Config{})
				defer e.close()
				e.answerV2 = func(context.Context, acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error) {
					return acpv2.RequestPermissionResult{Outcome: tt.outcome}, nil
				}
				sid := e.newSessionV2()
				p := e.process()
				acked(t, gotV2(t, e.promptV2(bg, sid, "create x")), userID1)
				p.turn(askBash)
				synctest.Wait()
				if ls := p.lines(); !strings.Contains(ls[len(ls)-1], tt.want) {
					t.Errorf("the CLI got %s, want %s in it", ls[len(ls)-1], tt.want)
				}
				e.mu.Lock()
				asked := slices.Clone(e.askedV2)
				e.mu.Unlock()
				if len(asked) != 1 {
					t.Fatalf("the editor was asked %d questions", len(asked))
				}
				q := asked[0]
				subject, ok := q.Subject.(acpv2.ToolCallPermissionSubject)
				if !ok || subject.ToolCall.ToolCallID != "toolu_1" || subject.ToolCall.Title == nil || q.Title != *subject.ToolCall.Title || q.Title == "" {
					t.Errorf("the question is %+v, want the tool call toolu_1 as its subject and its title", q)
				}
				if q.SessionID != sid || len(q.Options) == 0 {
					t.Errorf("the question is %+v", q)
				}
				p.write(resultLine)
				synctest.Wait()
				if idle := e.lastIdle(); idle.StopReason != acpv2.StopReasonEndTurn {
					t.Errorf("the turn ended %+v", idle)
				}
			})
		})
	}
}

// A v1 and a v2 editor of the same Agent each get their own version's
// updates.
func TestV1AndV2Editors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		e := newAgentEnv(t, bridge.Config{NewSessionID: func() string {
			n++
			return fmt.Sprintf("%08x-2222-4333-8444-555555555555", n)
		}})
		v1 := e.dialV1(t)
		e.client = e.dial(2)
		_, err := acpv2.Initialize.Call(bg, e.client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
		must(t, err)
		defer e.close()

		s1, err := acp.SessionNew.Call(bg, v1, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
		must(t, err)
		p1 := e.process()
		sid2 := e.newSessionV2()
		p2 := e.process()
		one := make(chan error, 1)
		go func() {
			_, err := acp.SessionPrompt.Call(bg, v1, acp.PromptParams{SessionID: s1.SessionID, Prompt: []acp.ContentBlock{acp.TextContent{Text: "one"}}})
			one <- err
		}()
		two := e.promptV2(bg, sid2, "two")
		synctest.Wait()
		p1.turn(textLine, resultLine)
		p2.turn(textLine, resultLine)
		must(t, <-one)
		if a := gotV2(t, two); a.err != nil || !strings.HasPrefix(a.res.MessageID, "user-") {
			t.Errorf("the v2 prompt was answered %+v, %v", a.res, a.err)
		}
		synctest.Wait()
		if diff := cmp.Diff([]string{"available_commands_update", "config_option_update", "agent_message_chunk"}, e.kinds()); diff != "" {
			t.Errorf("the v1 editor got (-want +got):\n%s", diff)
		}
		e.mu.Lock()
		var v2Kinds []string
		for _, u := range e.updatesV2 {
			v2Kinds = append(v2Kinds, strings.Fields(labelV2(u))[0])
		}
		e.mu.Unlock()
		want := []string{"user_message", "running", "AvailableCommandsUpdate", "ConfigOptionUpdate", "agent_message_chunk", "idle"}
		if diff := cmp.Diff(want, v2Kinds); diff != "" {
			t.Errorf("the v2 editor got (-want +got):\n%s", diff)
		}
	})
}

// A v2 turn whose CLI was gone before the prompt reached it, and whose
// new CLI cannot start, ends in the idle state with the error: its
// prompt was acknowledged already.
func TestV2CLIGoneAndNoneStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p1 := e.process()
		acked(t, gotV2(t, e.promptV2(bg, sid, "one")), userID1)
		p1.turn(resultLine)
		synctest.Wait()
		p1.inR.Close()
		e.failing = map[int]bool{2: true}
		acked(t, gotV2(t, e.promptV2(bg, sid, "two")), "user-11111111-2")
		p1.exit(0)
		synctest.Wait()
		idle := e.lastIdle()
		var data bridge.ErrorData
		if idle.Error != nil {
			json.Unmarshal(idle.Error.Data, &data)
		}
		if idle.StopReason != acpv2.StopReasonError || data.Kind != bridge.KindCrash {
			t.Errorf("the turn ended %+v (error %v), want stop reason error, a crash", idle, idle.Error)
		}
		if notes := e.notes(); notes[len(notes)-1] != "idle error" {
			t.Errorf("the editor got %q, want the idle state last", notes)
		}
	})
}

// A resume racing with the end of a turn reports the state the turn
// left, never running after the turn's idle: the editor's last state
// update is idle. Each round lets the two race afresh.
func TestV2ResumeAtTurnEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvV2(t, bridge.Config{})
		defer e.close()
		sid := e.newSessionV2()
		p := e.process()
		for i := range 100 {
			ch := e.promptV2(bg, sid, "again")
			if i == 0 {
				p.turn()
			}
			gotV2(t, ch)
			resumed := make(chan error, 1)
			go func() {
				_, err := acpv2.SessionResume.Call(bg, e.client, acpv2.ResumeSessionParams{SessionID: sid, Cwd: "/work"})
				resumed <- err
			}()
			p.write(resultLine)
			synctest.Wait()
			must(t, <-resumed)
			if notes := e.notes(); notes[len(notes)-1] != "idle end_turn" && notes[len(notes)-1] != "idle " {
				t.Fatalf("round %d: the editor's last update is %q, after %q", i, notes[len(notes)-1], notes[max(0, len(notes)-4):])
			}
		}
	})
}
