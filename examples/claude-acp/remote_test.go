//go:build unix

package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/testwait"
)

// listening is a claude-acp -listen started by listen.
type listening struct {
	cmd    *exec.Cmd
	url    string
	exited chan error // its exit, once SIGTERM has stopped it
	log    *strings.Builder
}

// listen starts claude-acp -listen on a loopback port, with fakeclaude
// playing transcript, and the token s3cret; it returns once claude-acp
// says where it serves. It is killed, with its CLIs, when the test ends.
func listen(t *testing.T, transcript string, args ...string) *listening {
	t.Helper()
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	cmd := exec.Command(agentBin, append([]string{"-claude", fakeclaudeBin, "-listen", "127.0.0.1:0", "-token-file", token}, args...)...)
	cmd.Env = append(os.Environ(), claudetest.EnvTranscript+"="+transcript, "GORACE=atexit_sleep_ms=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	l := &listening{cmd: cmd, exited: make(chan error, 1), log: &strings.Builder{}}
	lines := bufio.NewScanner(stderr)
	testwait.Do(t, "claude-acp to say where it serves", func() {
		for l.url == "" && lines.Scan() {
			l.log.WriteString(lines.Text() + "\n")
			if m := regexp.MustCompile(`url=(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
				l.url = m[1]
			}
		}
	})
	go func() {
		for lines.Scan() {
			l.log.WriteString(lines.Text() + "\n")
		}
		l.exited <- cmd.Wait()
	}()
	if l.url == "" {
		t.Fatalf("claude-acp did not say where it serves:\n%s", l.log.String())
	}
	return l
}

// dials connect an editor to claude-acp at url over each transport.
func dials(t *testing.T, url string) map[string]func(acp.Handler, *acphttp.DialOptions) (*acp.Conn, error) {
	return map[string]func(acp.Handler, *acphttp.DialOptions) (*acp.Conn, error){
		"websocket": func(h acp.Handler, o *acphttp.DialOptions) (*acp.Conn, error) {
			return acphttp.DialWebSocket(testwait.Context(t), url, h, o)
		},
		"streamable": func(h acp.Handler, o *acphttp.DialOptions) (*acp.Conn, error) {
			return acphttp.DialStreamableHTTP(url, h, o)
		},
	}
}

// withToken are the dial options of an editor that has the token.
func withToken() *acphttp.DialOptions {
	return &acphttp.DialOptions{HTTPClient: &http.Client{}, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
}

// TestListen runs claude-acp -listen with fakeclaude and drives it over
// loopback with each transport: a session, a prompt and its reply, then
// SIGTERM, after which it exits 0.
func TestListen(t *testing.T) {
	transcript, _ := filepath.Abs(filepath.Join("testdata", "text.ndjson"))
	l := listen(t, transcript)
	for name, dial := range dials(t, l.url) {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var reply strings.Builder
			var editor acp.Methods
			acp.SessionUpdate.Handle(&editor, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
				if c, ok := n.Update.(acp.AgentMessageChunk); ok {
					if tc, ok := c.Content.(acp.TextContent); ok {
						mu.Lock()
						reply.WriteString(tc.Text)
						mu.Unlock()
					}
				}
			})
			conn, err := dial(editor, withToken())
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				conn.Close()
				testwait.Do(t, "the connection to end", func() { conn.Wait() })
			}()
			if _, err := acp.Initialize.Call(testwait.Context(t), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			s, err := acp.SessionNew.Call(testwait.Context(t), conn, acp.NewSessionParams{Cwd: t.TempDir()})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			r, err := acp.SessionPrompt.Call(testwait.Context(t), conn, acp.PromptParams{SessionID: s.SessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: "Say hello and tell me what 2 + 2 is."}}})
			if err != nil || r.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %v %v", r, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := reply.String(); !strings.Contains(got, "2 + 2 = 4") {
				t.Errorf("the reply: %q", got)
			}
		})
	}
	l.stop(t)
}

// stop sends claude-acp SIGTERM and checks that it exits 0.
func (l *listening) stop(t *testing.T) {
	t.Helper()
	l.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-l.exited:
		if err != nil {
			t.Errorf("claude-acp exited: %v\n%s", err, l.log.String())
		}
	case <-time.After(testwait.Limit):
		t.Errorf("claude-acp did not exit on SIGTERM within %v", testwait.Limit)
	}
}
