package bridge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

func TestNewAgentNeedsStartIDsAndClock(t *testing.T) {
	if _, err := bridge.NewAgent(bridge.Config{}); err == nil {
		t.Error("NewAgent took a Config without Start, NewSessionID and Clock")
	}
}

// The Agent's sessions: opened, listed, resumed while open, closed, and
// refused once the Agent is closed.
func TestSessionRegistry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		sid := e.newSession()
		if _, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}}); err == nil {
			t.Error("a second session with the same id was opened")
		}
		if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{Cwd: "/else"}); err == nil {
			t.Error("session/resume without an id was taken")
		}
		const other = "a096a09b-3286-4149-951f-a7041a328825"
		if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: other, Cwd: "/else"}); err != nil {
			t.Fatal(err)
		}
		list := func(cwd string) []string {
			res, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cwd: cwd})
			must(t, err)
			var ids []string
			for _, s := range res.Sessions {
				ids = append(ids, s.SessionID+" "+s.Cwd)
			}
			return ids
		}
		if diff := cmp.Diff([]string{sid + " /work", other + " /else"}, list("")); diff != "" {
			t.Errorf("session/list (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{other + " /else"}, list("/else")); diff != "" {
			t.Errorf("session/list in /else (-want +got):\n%s", diff)
		}
		if _, err := acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: other}); err != nil {
			t.Fatal(err)
		}
		notFound := func(what string, err error) {
			t.Helper()
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
				t.Errorf("%s: %v, want resource not found", what, err)
			}
		}
		_, err := acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: other})
		notFound("closing a closed session", err)
		_, err = acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: other, Prompt: []acp.ContentBlock{acp.TextContent{Text: "x"}}})
		notFound("prompting a closed session", err)
		_, err = acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: other, ModeID: "plan"})
		notFound("set_mode of a closed session", err)
		_, err = acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: other, ConfigID: "mode", Value: "plan"})
		notFound("set_config_option of a closed session", err)
		e.cancel(other)
		if diff := cmp.Diff([]string{sid + " /work"}, list("")); diff != "" {
			t.Errorf("session/list after a close (-want +got):\n%s", diff)
		}
		// The session's CLI runs from its start, and takes the mode. Both
		// sessions' CLIs started, in either order.
		p := e.process()
		if !hasArg(p.args, "--session-id="+sid) {
			p = e.process()
		}
		must(t, e.setMode(p, sid, "plan"))

		e.a.Close()
		if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: other, Cwd: "/else"}); err == nil || !strings.Contains(err.Error(), bridge.ErrClosed.Error()) {
			t.Errorf("session/resume after Close: %v, want %v", err, bridge.ErrClosed)
		}
		_, err = acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextContent{Text: "x"}}})
		notFound("a prompt after Close", err)
		_, err = acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: sid, Cwd: "/work"})
		notFound("resuming a session after Close", err)
		_, err = acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: sid, ModeID: "plan"})
		notFound("set_mode after Close", err)
		must(t, e.closed())
	})
}

// The editor's MCP servers reach Claude Code's --mcp-config; a transport
// the CLI does not take fails the session.
func TestMCPServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{ExtraArgs: []string{"--append-system-prompt", "Be brief."}}, acp.ClientCapabilities{})
		defer e.close()
		res, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{
			acp.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{"-r"}, Env: []acp.EnvVariable{{Name: "ROOT", Value: "/work"}}},
			acp.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: []acp.HTTPHeader{{Name: "Authorization", Value: "Bearer x"}}},
			acp.MCPServerSSE{Name: "events", URL: "http://127.0.0.1:9/sse", Headers: []acp.HTTPHeader{}},
		}})
		must(t, err)
		ch := e.promptAsync(bg, res.SessionID, "hi")
		p := e.process()
		mcp := argWith(p.args, "--mcp-config=")
		var servers map[string]map[string]map[string]any
		must(t, json.Unmarshal([]byte(strings.TrimPrefix(mcp, "--mcp-config=")), &servers))
		want := map[string]map[string]map[string]any{"mcpServers": {
			"fs":     {"type": "stdio", "command": "/bin/mcp-fs", "args": []any{"-r"}, "env": map[string]any{"ROOT": "/work"}},
			"docs":   {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": map[string]any{"Authorization": "Bearer x"}},
			"events": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
		}}
		if diff := cmp.Diff(want, servers); diff != "" {
			t.Errorf("--mcp-config (-want +got):\n%s", diff)
		}
		if n := len(p.args); n < 2 || p.args[n-2] != "--append-system-prompt" || p.args[n-1] != "Be brief." {
			t.Errorf("the extra arguments do not end the command line: %q", p.args)
		}
		p.turn(resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)

		_, err = acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: "a096a09b-3286-4149-951f-a7041a328825", Cwd: "/work", MCPServers: []acp.MCPServer{
			acp.UnknownMCPServer{Type: "carrier-pigeon", Raw: json.RawMessage(`{"type":"carrier-pigeon","name":"p"}`)},
		}})
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
			t.Errorf("an unknown MCP transport: %v, want invalid params", err)
		}
	})
}

// A client that takes goose's custom notifications gets the session's
// usage after each turn that succeeded.
func TestGooseUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{Meta: json.RawMessage(`{"goose":{"customNotifications":true}}`)})
		defer e.close()
		_, ch, p := e.begin("hi")
		p.turn(resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		if diff := cmp.Diff([]string{"goose goose.UsageUpdate", "answer hi"}, e.notes()); diff != "" {
			t.Errorf("the editor saw (-want +got):\n%s", diff)
		}
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A CLI being stopped that does not exit is signalled, a grace period
// apart; prompts wait for it, settings are kept for the next CLI, and a
// close waits for it too.
func TestStoppingCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs syncBuffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		e := newEnv(t, bridge.Config{Idle: time.Minute, Grace: time.Second, Logger: log}, acp.ClientCapabilities{})
		defer e.close()
		sid, ch, p1 := e.begin("one")
		p1.stayAtEOF = true
		p1.ignore[bridge.Terminate] = true
		p1.turn(resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		time.Sleep(time.Minute)
		synctest.Wait()
		if !p1.inputClosed() {
			t.Fatal("the idle CLI's input was not closed")
		}
		second := e.promptAsync(bg, sid, "two")
		if _, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "model", Value: "haiku"}); err != nil {
			t.Fatal(err)
		}
		p1.write(textLine) // a straggler, shown to nobody
		time.Sleep(time.Second)
		pending(t, second)
		if diff := cmp.Diff([]bridge.Signal{bridge.Terminate}, p1.gotSignals()); diff != "" {
			t.Errorf("signals (-want +got):\n%s", diff)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if !p1.exited() {
			t.Fatal("the CLI was not killed")
		}
		p2 := e.process()
		if !hasArg(p2.args, "--model=haiku") {
			t.Errorf("the next CLI was started with %q, want --model=haiku", p2.args)
		}
		p2.turn(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
		for _, want := range []string{"stopping the idle CLI", "signal=terminate", "signal=kill", "prompt waits for the turn under way"} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("the log lacks %q:\n%s", want, logs.String())
			}
		}

		// Closed while it stops.
		time.Sleep(time.Minute)
		synctest.Wait()
		p2.stayAtEOF = true
		closed := make(chan struct{})
		go func() {
			acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: sid})
			close(closed)
		}()
		synctest.Wait()
		if _, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "model", Value: "opus"}); err == nil {
			t.Error("a closing session took a setting")
		}
		p2.exit(0)
		<-closed
	})
}

// A session closed while its CLI idles, or before it has one, closes at
// once.
func TestCloseIdleAndCold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{Idle: time.Hour}, acp.ClientCapabilities{})
		defer e.close()
		sid, ch, p := e.begin("one")
		p.turn(resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		if _, err := acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		if !p.exited() {
			t.Error("the closed session's CLI still runs")
		}
		e.failing = map[int]bool{2: true} // no warm start
		cold := e.newSession()
		if _, err := acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: cold}); err != nil {
			t.Fatal(err)
		}
		e.noProcess()
	})
}
