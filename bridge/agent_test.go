package bridge_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/acpkit/acpkit/internal/testwait"
)

// These tests run each CLI's fake in-process as the bridge.Process the
// Agent starts, and drive the Agent as an editor would, over acptest's
// pipes.

// fake is one CLI's fake: its Run, with the environment variable that
// names its transcript.
type fake struct {
	run    func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int
	envVar string
}

var (
	fakeClaude = fake{envVar: claudetest.EnvTranscript, run: func(ctx context.Context, args []string, in io.Reader, out, errw io.Writer, getenv func(string) string) int {
		return claudetest.Run(ctx, claudetest.Env{Args: args, Stdin: in, Stdout: out, Stderr: errw, Open: openFile, Getenv: getenv})
	}}
	fakeGemini = fake{envVar: geminitest.EnvTranscript, run: func(ctx context.Context, args []string, in io.Reader, out, errw io.Writer, getenv func(string) string) int {
		return geminitest.Run(ctx, geminitest.Env{Args: args, Stdin: in, Stdout: out, Stderr: errw, Open: openFile, Getenv: getenv})
	}}
)

func openFile(name string) (fs.File, error) { return os.Open(name) }

// fakeProcess is a fake CLI running in a goroutine.
type fakeProcess struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	stderr *io.PipeReader
	stop   context.CancelCauseFunc
	exit   chan int
}

func (f *fakeProcess) Stdin() io.WriteCloser { return f.stdin }
func (f *fakeProcess) Stdout() io.Reader     { return f.stdout }
func (f *fakeProcess) Stderr() io.Reader     { return f.stderr }

// Signal stops the fake with the status a shell reports for the signal.
func (f *fakeProcess) Signal(s bridge.Signal) error {
	f.stop(stopped{code: map[bridge.Signal]int{bridge.Interrupt: 130, bridge.Terminate: 143, bridge.Kill: 137}[s]})
	return nil
}

func (f *fakeProcess) Wait() error {
	if code := <-f.exit; code != 0 {
		return exitError{code: code}
	}
	return nil
}

// stopped is the cause a signal cancels a fake with.
type stopped struct{ code int }

func (s stopped) Error() string { return fmt.Sprintf("stopped with status %d", s.code) }

// exitError is a failed exit, with its code as exec.ExitError gives it.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
func (e exitError) ExitCode() int { return e.code }

// starter starts fk replaying transcript, recording each command line.
func (fk fake) starter(transcript string, argsSeen *[][]string) bridge.Starter {
	var mu sync.Mutex
	return func(dir string, args []string) (bridge.Process, error) {
		mu.Lock()
		*argsSeen = append(*argsSeen, args)
		mu.Unlock()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		errR, errW := io.Pipe()
		ctx, stop := context.WithCancelCause(context.Background())
		f := &fakeProcess{stdin: inW, stdout: outR, stderr: errR, stop: stop, exit: make(chan int, 1)}
		go func() {
			code := fk.run(ctx, args, inR, outW, errW, func(k string) string {
				if k == fk.envVar {
					return transcript
				}
				return ""
			})
			if s, ok := context.Cause(ctx).(stopped); ok {
				code = s.code
			}
			outW.Close()
			errW.Close()
			inR.Close()
			stop(nil)
			f.exit <- code
		}()
		return f, nil
	}
}

// testClock has real timers, and a fixed time for the reset times the
// CLIs give relative to now.
type testClock struct{}

func (testClock) Now() time.Time { return now }
func (testClock) AfterFunc(d time.Duration, f func()) func() bool {
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

// scenario is a session an editor plays against an Agent, and the golden
// file of what it sees.
type scenario struct {
	name, transcript, option string
	cli                      bridge.CLI
	fake                     fake
	timeout                  time.Duration
	notices                  bool
	resume                   string // session/resume this id instead of session/new
	steps                    []step
}

func TestClaudeTranscripts(t *testing.T) {
	control := filepath.Join("..", "claude", "testdata", "control")
	tests := []scenario{
		{name: "permission-allow", transcript: "permission-allow.ndjson", option: "allow",
			steps: []step{{prompt: "Create an empty file named x."}}},
		{name: "permission-deny", transcript: "permission-deny.ndjson", option: "reject",
			steps: []step{{prompt: "Create an empty file named x."}}},
		{name: "two-turns", transcript: "two-turns.ndjson",
			steps: []step{{prompt: "Say hello and tell me what 2 + 2 is."}, {prompt: "And now say it again."}}},
		{name: "interrupt", transcript: "interrupt.ndjson",
			steps: []step{{prompt: "Tell me a long story.", cancelAfter: 3}, {prompt: "Say hello."}}},
		{name: "hang", transcript: "testdata/agent/hang.ndjson", timeout: 100 * time.Millisecond,
			steps: []step{{prompt: "Tell me a long story."}}},
		{name: "resume-failed", transcript: "testdata/agent/resume-failed.ndjson", resume: "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20",
			steps: []step{{prompt: "Go on."}, {prompt: "Go on."}}},
	}
	for _, tt := range tests {
		if !strings.HasPrefix(tt.transcript, "testdata") {
			tt.transcript = filepath.Join(control, tt.transcript)
		}
		tt.cli, tt.fake = bridge.Claude, fakeClaude
		t.Run(tt.name, tt.play)
	}
}

func TestTurnTranscripts(t *testing.T) {
	geminiData := filepath.Join("..", "gemini", "testdata")
	hello := []step{{prompt: "Say hello and tell me what 2 + 2 is."}}
	tests := []scenario{
		{name: "gemini-two-turns", cli: bridge.Gemini, fake: fakeGemini, transcript: filepath.Join(geminiData, "session"),
			steps: []step{{prompt: "Say hello and tell me what 2 + 2 is."}, {prompt: "again"}}},
		{name: "gemini-tool-call", cli: bridge.Gemini, fake: fakeGemini, transcript: filepath.Join(geminiData, "tool-call.jsonl"), steps: hello},
		{name: "gemini-rate-limit", cli: bridge.Gemini, fake: fakeGemini, notices: true, transcript: filepath.Join(geminiData, "rate-limit-429.jsonl"), steps: hello},
		{name: "gemini-api-error", cli: bridge.Gemini, fake: fakeGemini, notices: true, transcript: filepath.Join(geminiData, "api-error-401.jsonl"), steps: hello},
		{name: "gemini-max-turns", cli: bridge.Gemini, fake: fakeGemini, transcript: filepath.Join(geminiData, "max-turns.jsonl"), steps: hello},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.play)
	}
}

// play runs the scenario and compares what the editor saw with its golden
// file.
func (tt scenario) play(t *testing.T) {
	ctx := testwait.Context(t)
	var args [][]string
	a, err := bridge.NewAgent(bridge.Config{
		CLI:          tt.cli,
		Start:        tt.fake.starter(tt.transcript, &args),
		NewSessionID: func() string { return "11111111-2222-4333-8444-555555555555" },
		Clock:        testClock{},
		TurnTimeout:  tt.timeout,
		Location:     time.UTC,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{option: tt.option, chunk: make(chan struct{}, 100)}
	client, _, closePair := acptest.NewPair(ctx, rec.methods(), a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
	var caps acp.ClientCapabilities
	if tt.notices {
		caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
	}
	if _, err := acp.Initialize.Call(ctx, client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	var s acp.NewSessionResult
	if tt.resume != "" {
		s.SessionID = tt.resume
		_, err = acp.SessionResume.Call(ctx, client, acp.ResumeSessionParams{SessionID: tt.resume, Cwd: "/work"})
	} else {
		s, err = acp.SessionNew.Call(ctx, client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	}
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
			for i := range st.cancelAfter {
				select {
				case <-rec.chunk:
				case <-ctx.Done():
					t.Errorf("waiting for %d agent message chunks to cancel after, %d came", st.cancelAfter, i)
					return
				}
			}
			if err := acp.SessionCancel.Notify(ctx, client, acp.CancelParams{SessionID: s.SessionID}); err != nil {
				t.Error(err)
			}
		}()
		res, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextContent{Text: st.prompt}}})
		rec.result(res, err)
		testwait.For(t, done, "the cancelling goroutine")
		for len(rec.chunk) > 0 {
			<-rec.chunk
		}
	}
	testwait.Do(t, "the agent to close", a.Close)
	testwait.Do(t, "the connections to close", func() { err = closePair() })
	if err != nil {
		t.Error(err)
	}
	for _, a := range args {
		rec.add("args " + strings.Join(a, " "))
	}
	checkGolden(t, filepath.Join("testdata", "agent", tt.name+".golden"), strings.Join(rec.lines, "\n")+"\n")
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
