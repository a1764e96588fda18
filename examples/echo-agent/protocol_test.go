package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// These tests drive the echo agent as a subprocess in the versions its
// -protocol flag gives it.

// initializeLine is an initialize asking for version, with the params a
// client of that version sends.
func initializeLine(version int) string {
	if version < 2 {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":` + itoa(version) + `,"clientCapabilities":{}}}`
	}
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":` + itoa(version) + `,"info":{"name":"test","version":"1"}}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestProtocolFlag checks which version each -protocol serves a client of
// each version, then what a request gets in it: session/new answers in
// the version chosen, and before any initialize, only v1 alone serves a
// request, as v1 agents long have.
func TestProtocolFlag(t *testing.T) {
	tests := []struct {
		args       []string
		asked      int
		version    int // answered; 0 when refused
		code       int // the refusal's code
		beforeInit int // what session/new before initialize gets: 0 served, or the error code
	}{
		{nil, 1, 1, 0, acp.CodeInvalidRequest},
		{nil, 2, 2, 0, acp.CodeInvalidRequest},
		{nil, 3, 2, 0, acp.CodeInvalidRequest},
		{[]string{"-protocol", "auto"}, 1, 1, 0, acp.CodeInvalidRequest},
		{[]string{"-protocol", "auto"}, 2, 2, 0, acp.CodeInvalidRequest},
		{[]string{"-protocol", "v1"}, 1, 1, 0, 0},
		{[]string{"-protocol", "v1"}, 2, 1, 0, 0},
		{[]string{"-protocol", "v2"}, 1, 0, acpv2.CodeUnsupportedProtocolVersion, acp.CodeInvalidRequest},
		{[]string{"-protocol", "v2"}, 2, 2, 0, acp.CodeInvalidRequest},
		{[]string{"-protocol", "v2"}, 3, 2, 0, acp.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append(tt.args, "asked", itoa(tt.asked)), " "), func(t *testing.T) {
			p := startAgent(t, tt.args...)
			out := bufio.NewReader(p.stdout)
			exchange := func(line string) (result json.RawMessage, code int) {
				t.Helper()
				if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
					t.Fatal(err)
				}
				var got []byte
				var err error
				testwait.Do(t, "the answer to "+line, func() { got, err = out.ReadBytes('\n') })
				if err != nil {
					t.Fatalf("reading the answer to %s: %v", line, err)
				}
				var msg struct {
					Result json.RawMessage
					Error  *acp.Error
				}
				if err := json.Unmarshal(got, &msg); err != nil {
					t.Fatalf("answer %q: %v", got, err)
				}
				if msg.Error != nil {
					return nil, msg.Error.Code
				}
				return msg.Result, 0
			}
			newSession := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`
			if _, code := exchange(newSession); code != tt.beforeInit {
				t.Errorf("session/new before initialize: code %d, want %d", code, tt.beforeInit)
			}
			result, code := exchange(initializeLine(tt.asked))
			var r struct{ ProtocolVersion int }
			if code == 0 {
				if err := json.Unmarshal(result, &r); err != nil {
					t.Fatal(err)
				}
			}
			if r.ProtocolVersion != tt.version || code != tt.code {
				t.Fatalf("initialize: version %d, code %d; want %d, %d", r.ProtocolVersion, code, tt.version, tt.code)
			}
			if tt.version == 0 {
				return
			}
			// v1's session/new result and v2's have the same shape: a
			// session id, and the v2 agent's ids are the v1 agent's.
			if result, code := exchange(newSession); code != 0 || !strings.Contains(string(result), `"sessionId":"sess-`) {
				t.Errorf("session/new after initialize: %s, code %d", result, code)
			}
		})
	}
}

// TestProtocolFlagRefused checks that a -protocol the agent does not know
// stops it with status 2, as any bad flag does, saying why.
func TestProtocolFlagRefused(t *testing.T) {
	out, err := testwait.Command(t, agentBin, "-protocol", "v3").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), `-protocol "v3": want auto, v1 or v2`) {
		t.Errorf("echo-agent -protocol v3: %v, output %q; want status 2 and why", err, out)
	}
}

// startClientV2 starts echo-agent with args and connects a v2 client to
// it, initialized, as startClient does for v1.
func startClientV2(t *testing.T, args ...string) *v2Client {
	t.Helper()
	p := startAgent(t, args...)
	var stdout syncBuffer
	c := newV2Client(t)
	c.bounded = true
	c.conn = acp.NewConn(context.Background(), io.TeeReader(p.stdout, &stdout), p.stdin, c.methods(), nil)
	t.Cleanup(func() {
		p.stdin.Close()
		if err := p.wait(); err != nil {
			t.Errorf("echo-agent exit: %v; want status 0", err)
		}
		p.stdout.Close()
		var err error
		testwait.Do(t, "the client connection to end", func() { err = c.conn.Wait() })
		if err != nil && !errors.Is(err, os.ErrClosed) {
			t.Errorf("client connection: %v", err)
		}
		checkJSONLines(t, stdout.Bytes())
	})
	c.initialize()
	return c
}

// TestEndToEndV2 drives the agent over v2 as a subprocess, with -protocol
// auto (the default) and v2: a prompt acknowledged at once with its user
// message's id, its turn in updates that end idle, a turn cancelled, and
// a resume that replays the conversation.
func TestEndToEndV2(t *testing.T) {
	for _, args := range [][]string{{"-delay", "20ms"}, {"-delay", "20ms", "-protocol", "v2"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			c := startClientV2(t, args...)
			dir := t.TempDir()
			sid := c.newSessionIn(dir)
			ack, err := c.prompt(testwait.Context(t), sid, "hello there")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"user " + ack.MessageID + " hello there", "running", `chunk msg-3 "hello"`, `chunk msg-3 " there"`, "usage used=4", "idle end_turn"}
			if diff := cmp.Diff(want, c.takeUntil(sid, "idle end_turn")); diff != "" {
				t.Errorf("the turn's updates (-want +got):\n%s", diff)
			}

			// session/cancel ends a long turn. (That it answers the prompts
			// held meanwhile -32800 is TestHeldPromptV2's: from outside,
			// nothing tells when a prompt is held.)
			if _, err := c.prompt(testwait.Context(t), sid, strings.Repeat("word ", 500)); err != nil {
				t.Fatal(err)
			}
			c.takeUntil(sid, "running")
			if err := acpv2.SessionCancel.Notify(testwait.Context(t), c.conn, acpv2.CancelParams{SessionID: sid}); err != nil {
				t.Fatal(err)
			}
			c.takeUntil(sid, "idle cancelled")

			_, err = acpv2.SessionResume.Call(testwait.Context(t), c.conn, acpv2.ResumeSessionParams{SessionID: sid, Cwd: dir, ReplayFrom: acpv2.ReplayFromStart{}})
			if err != nil {
				t.Fatal(err)
			}
			got := c.take(sid)
			if len(got) < 3 || got[0] != want[0] || got[1] != "agent msg-3 hello there" || got[len(got)-1] != "idle " {
				t.Errorf("the replay: %q", got)
			}
		})
	}
}

// TestSessionDirectory checks that the agent refuses a session whose cwd
// is relative or does not exist, in v1 and v2, with -32602 naming cwd
// and the directory.
func TestSessionDirectory(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	v1 := startClient(t)
	v1.initialize(false)
	v2 := startClientV2(t)
	for _, cwd := range []string{"relative/dir", gone} {
		calls := map[string]error{}
		_, calls["v1 session/new"] = acp.SessionNew.Call(testwait.Context(t), v1.conn, acp.NewSessionParams{Cwd: cwd, MCPServers: []acp.MCPServer{}})
		_, calls["v2 session/new"] = acpv2.SessionNew.Call(testwait.Context(t), v2.conn, acpv2.NewSessionParams{Cwd: cwd})
		sid := v2.newSessionIn(t.TempDir())
		_, calls["v2 session/resume"] = acpv2.SessionResume.Call(testwait.Context(t), v2.conn, acpv2.ResumeSessionParams{SessionID: sid, Cwd: cwd})
		for method, err := range calls {
			field, _ := acp.InvalidField(err)
			if !errors.Is(err, acp.ErrInvalidParams) || field != "cwd" || !strings.Contains(err.Error(), cwd) {
				t.Errorf("%s with cwd %q: %v; want -32602 naming cwd and the directory", method, cwd, err)
			}
		}
	}
}
