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

// TestListen runs claude-acp -listen with fakeclaude and drives it over
// loopback with each transport: a session, a prompt and its reply, then
// SIGTERM, after which it exits 0.
func TestListen(t *testing.T) {
	transcript, _ := filepath.Abs(filepath.Join("testdata", "text.ndjson"))
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	cmd := exec.Command(agentBin, "-claude", fakeclaudeBin, "-listen", "127.0.0.1:0", "-token-file", token)
	cmd.Env = append(os.Environ(), claudetest.EnvTranscript+"="+transcript, "GORACE=atexit_sleep_ms=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	exited := make(chan error, 1)
	var log strings.Builder
	lines := bufio.NewScanner(stderr)
	url := ""
	testwait.Do(t, "claude-acp to say where it serves", func() {
		for url == "" && lines.Scan() {
			log.WriteString(lines.Text() + "\n")
			if m := regexp.MustCompile(`url=(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
				url = m[1]
			}
		}
	})
	go func() {
		for lines.Scan() {
			log.WriteString(lines.Text() + "\n")
		}
		exited <- cmd.Wait()
	}()
	if url == "" {
		t.Fatalf("claude-acp did not say where it serves:\n%s", log.String())
	}

	dials := map[string]func(acp.Handler, *acphttp.DialOptions) (*acp.Conn, error){
		"websocket": func(h acp.Handler, o *acphttp.DialOptions) (*acp.Conn, error) {
			return acphttp.DialWebSocket(testwait.Context(t), url, h, o)
		},
		"streamable": func(h acp.Handler, o *acphttp.DialOptions) (*acp.Conn, error) {
			return acphttp.DialStreamableHTTP(url, h, o)
		},
	}
	for name, dial := range dials {
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
			conn, err := dial(editor, &acphttp.DialOptions{HTTPClient: &http.Client{}, Header: http.Header{"Authorization": {"Bearer s3cret"}}})
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
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("claude-acp exited: %v\n%s", err, log.String())
		}
	case <-time.After(testwait.Limit):
		t.Errorf("claude-acp did not exit on SIGTERM within %v", testwait.Limit)
	}
}
