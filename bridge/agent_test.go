package bridge_test

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"

	"context"
	"encoding/json"
	"fmt"
	"github.com/google/go-cmp/cmp"
	"io"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude/claudetest"
)

// fakeCLI runs claudetest's fake CLI in-process as a bridge.Process.
type fakeCLI struct {
	stdin   *io.PipeWriter
	stdout  *io.PipeReader
	stop    context.CancelCauseFunc
	exit    chan int
	stderr  *syncBuffer
	started []string
}

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

func (f *fakeCLI) Stdin() io.WriteCloser { return f.stdin }
func (f *fakeCLI) Stdout() io.Reader     { return f.stdout }
func (f *fakeCLI) Signal(s bridge.Signal) error {
	code := map[bridge.Signal]int{bridge.Interrupt: claudetest.ExitInterrupt, bridge.Terminate: claudetest.ExitTerminate, bridge.Kill: 137}[s]
	f.stop(claudetest.Stopped{Code: code})
	return nil
}
func (f *fakeCLI) Wait() error {
	if code := <-f.exit; code != 0 {
		return fmt.Errorf("exit status %d: %s", code, f.stderr.String())
	}
	return nil
}

// fakeStarter starts the fake CLI replaying transcript.
func fakeStarter(t *testing.T, transcript string, argsSeen *[][]string) bridge.Starter {
	return func(dir string, args []string) (bridge.Process, error) {
		if argsSeen != nil {
			*argsSeen = append(*argsSeen, args)
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, stop := context.WithCancelCause(context.Background())
		f := &fakeCLI{stdin: inW, stdout: outR, stop: stop, exit: make(chan int, 1), stderr: &syncBuffer{}}
		go func() {
			code := claudetest.Run(ctx, claudetest.Env{
				Args: args, Stdin: inR, Stdout: outW, Stderr: f.stderr,
				Open: func(name string) (fs.File, error) { return os.Open(name) },
				Getenv: func(k string) string {
					if k == claudetest.EnvTranscript {
						return transcript
					}
					return ""
				},
			})
			outW.Close()
			inR.Close()
			stop(nil)
			f.exit <- code
		}()
		return f, nil
	}
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// recorder is the editor's side: it records every session update and
// answers permission requests with option.
type recorder struct {
	mu     sync.Mutex
	lines  []string
	option string
	chunk  chan struct{} // a token per agent message chunk
}

func (r *recorder) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(ctx context.Context, c *acp.Conn, n acp.SessionNotification) {
		b, _ := json.Marshal(n.Update)
		r.add("update " + string(b))
		if _, ok := n.Update.(acp.AgentMessageChunk); ok {
			select {
			case r.chunk <- struct{}{}:
			default:
			}
		}
	})
	acp.SessionRequestPermission.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
		b, _ := json.Marshal(p.ToolCall)
		r.add("permission " + string(b))
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: r.option}}, nil
	})
	return m
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, s)
}

var update = flag.Bool("update", false, "rewrite the golden files")

// step is one thing the editor does in a scenario.
type step struct {
	prompt      string // a prompt's text
	cancelAfter int    // send session/cancel after this many agent message chunks
}

func TestAgentTranscripts(t *testing.T) {
	tests := []struct {
		name, transcript, option string
		timeout                  time.Duration
		steps                    []step
	}{
		{name: "permission-allow", transcript: "permission-allow.ndjson", option: "allow",
			steps: []step{{prompt: "Create an empty file named x."}}},
		{name: "permission-deny", transcript: "permission-deny.ndjson", option: "reject",
			steps: []step{{prompt: "Create an empty file named x."}}},
		{name: "two-turns", transcript: "two-turns.ndjson",
			steps: []step{{prompt: "Say hello and tell me what 2 + 2 is."}, {prompt: "And now say it again."}}},
		{name: "interrupt", transcript: "interrupt.ndjson",
			steps: []step{{prompt: "Tell me a long story.", cancelAfter: 3}, {prompt: "Say hello."}}},
		{name: "hang", transcript: "../../../bridge/testdata/agent/hang.ndjson", timeout: 100 * time.Millisecond,
			steps: []step{{prompt: "Tell me a long story."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			var args [][]string
			a, err := bridge.NewAgent(bridge.Config{
				Start:        fakeStarter(t, filepath.Join("..", "claude", "testdata", "control", tt.transcript), &args),
				NewSessionID: func() string { return "11111111-2222-4333-8444-555555555555" },
				Clock:        realClock{},
				TurnTimeout:  tt.timeout,
			})
			if err != nil {
				t.Fatal(err)
			}
			var m acp.Methods
			a.Register(&m)
			rec := &recorder{option: tt.option, chunk: make(chan struct{}, 100)}
			client, _, closePair := acptest.NewPair(ctx, rec.methods(), m, nil)
			if _, err := acp.Initialize.Call(ctx, client, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
				t.Fatal(err)
			}
			s, err := acp.SessionNew.Call(ctx, client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tt.steps {
				done := make(chan struct{})
				go func() {
					defer close(done)
					if st.cancelAfter == 0 {
						return
					}
					for range st.cancelAfter {
						<-rec.chunk
					}
					if err := acp.SessionCancel.Notify(ctx, client, acp.SessionParams{SessionID: s.SessionID}); err != nil {
						t.Error(err)
					}
				}()
				res, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextContent{Text: st.prompt}}})
				rec.result(res, err)
				<-done
				for len(rec.chunk) > 0 {
					<-rec.chunk
				}
			}
			a.Close()
			if err := closePair(); err != nil {
				t.Error(err)
			}
			for _, a := range args {
				rec.add("args " + strings.Join(a, " "))
			}
			got := strings.Join(rec.lines, "\n") + "\n"
			golden := filepath.Join("testdata", "agent", tt.name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("editor saw (-want +got):\n%s", diff)
			}
		})
	}
}

// result records a prompt's response.
func (r *recorder) result(res acp.PromptResult, err error) {
	if err != nil {
		b, _ := json.Marshal(err)
		r.add("error " + string(b))
		return
	}
	b, _ := json.Marshal(res)
	r.add("result " + string(b))
}
