package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/gemini/geminitest"
)

// These tests serve sessions with an agent that speaks ACP, played by
// the fake `gemini --acp` (package geminitest) replaying the captures of
// the real Gemini CLI in gemini/testdata/acp, or variants of them in
// testdata/acp, in both directions, inside a testing/synctest bubble.
// Each golden file, testdata/acp/NAME.golden, holds what the editor got,
// in order, then every line the bridge wrote to the agent's processes.

// geminiACPData is where the captures of Gemini CLI's ACP mode are.
var geminiACPData = filepath.Join("..", "gemini", "testdata", "acp")

// transcriptPath is the file of a transcript: a capture of Gemini CLI's
// in gemini/testdata/acp, or, for "local:NAME", one in testdata/acp.
func transcriptPath(name string) string {
	if local, ok := strings.CutPrefix(name, "local:"); ok {
		return filepath.Join("testdata", "acp", local+".ndjson")
	}
	return filepath.Join(geminiACPData, name+".ndjson")
}

// anyAgent is Gemini CLI's ACP mode as a program would put any ACP agent
// behind the bridge: without what the bridge knows of Gemini CLI.
var anyAgent = bridge.ACPAgent(bridge.ACPAgentInfo{Name: "The agent", Program: "gemini", Args: []string{"--acp"}})

// acpRun is an Agent whose sessions are served by the fake ACP agent, and
// the editor that plays a scenario against it.
type acpRun struct {
	t      *testing.T
	a      *bridge.Agent
	client *acp.Conn
	rec    *recorder
	wire   *lineLog // what the bridge wrote to the agent
	close  func() error
	sid    string

	mu    sync.Mutex
	files map[string]string // the editor's files, for fs/*
}

// lineLog keeps the lines written to it, a process's input.
type lineLog struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
}

func (l *lineLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, b...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(b), nil
		}
		l.lines = append(l.lines, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
}

func (l *lineLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// acpStarter starts the fake ACP agent replaying transcript, logging
// what the bridge writes to it.
func acpStarter(transcript string, wire *lineLog) bridge.Starter {
	return func(dir string, args []string) (bridge.Process, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		errR, errW := io.Pipe()
		ctx, stop := context.WithCancelCause(context.Background())
		f := &fakeProcess{stdin: inW, stdout: outR, stderr: errR, stop: stop, exit: make(chan int, 1)}
		go func() {
			code := geminitest.Run(ctx, geminitest.Env{
				Args: args, Stdin: io.TeeReader(inR, wire), Stdout: outW, Stderr: errW, Open: openFile,
				Getenv: func(k string) string { return map[string]string{geminitest.EnvTranscript: transcript}[k] },
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

// startACP starts an Agent configured by cfg serving its sessions with
// cli, whose processes replay transcript, and an editor that declares
// caps and answers permission questions with option.
func startACP(t *testing.T, cli bridge.CLI, transcript string, cfg bridge.Config, caps acp.ClientCapabilities, option string) *acpRun {
	r := &acpRun{t: t, wire: &lineLog{}, rec: &recorder{option: option, chunk: make(chan struct{}, 100)}, files: map[string]string{}}
	cfg.CLI = cli
	cfg.Start = acpStarter(transcript, r.wire)
	cfg.Clock = testClock{}
	cfg.Location = time.UTC
	if cfg.NewSessionID == nil {
		cfg.NewSessionID = func() string { return "11111111-2222-4333-8444-555555555555" }
	}
	a, err := bridge.NewAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.a = a
	r.client, _, r.close = acptest.NewPair(bg, r.editor(), a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
	if _, err := acp.Initialize.Call(bg, r.client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	return r
}

// editor is the editor's methods: the recorder's, and a file system.
func (r *acpRun) editor() acp.Methods {
	m := r.rec.methods()
	acp.FSReadTextFile.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.ReadTextFileParams) (acp.ReadTextFileResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.rec.add("read " + p.Path)
		text, ok := r.files[p.Path]
		if !ok {
			return acp.ReadTextFileResult{}, acp.Errorf(acp.CodeResourceNotFound, "no file %s", p.Path)
		}
		return acp.ReadTextFileResult{Content: text}, nil
	})
	acp.FSWriteTextFile.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.WriteTextFileParams) (acp.WriteTextFileResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.rec.add("write " + p.Path + " " + p.Content)
		r.files[p.Path] = p.Content
		return acp.WriteTextFileResult{}, nil
	})
	return m
}

func (r *acpRun) newSession() string {
	r.t.Helper()
	res, err := acp.SessionNew.Call(bg, r.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		r.t.Fatal(err)
	}
	r.sid = res.SessionID
	synctest.Wait() // the agent has started, and opened its session
	return r.sid
}

// prompt sends a prompt and records its answer.
func (r *acpRun) prompt(text string) {
	r.t.Helper()
	res, err := acp.SessionPrompt.Call(bg, r.client, acp.PromptParams{SessionID: r.sid, Prompt: []acp.ContentBlock{acp.TextContent{Text: text}}})
	r.rec.result(res, err)
}

// cancelAfter sends a prompt, cancels it after n agent message chunks,
// and records its answer.
func (r *acpRun) cancelAfter(n int, text string) {
	r.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.prompt(text)
	}()
	for range n {
		<-r.rec.chunk
	}
	if err := acp.SessionCancel.Notify(bg, r.client, acp.CancelParams{SessionID: r.sid}); err != nil {
		r.t.Fatal(err)
	}
	<-done
}

// set sets a config option and records the answer.
func (r *acpRun) set(option, value string) {
	_, err := acp.SessionSetConfigOption.Call(bg, r.client, acp.SetSessionConfigOptionParams{SessionID: r.sid, ConfigID: option, Value: value})
	if err != nil {
		b, _ := json.Marshal(err)
		r.rec.add("set " + option + " " + value + ": error " + string(b))
		return
	}
	r.rec.add("set " + option + " " + value)
}

// check closes the Agent and compares what the editor got and what the
// agent got with the golden file.
func (r *acpRun) check(name string) {
	r.t.Helper()
	r.a.Close()
	if err := r.close(); err != nil && !errors.Is(err, acp.ErrClosed) {
		r.t.Error(err)
	}
	synctest.Wait()
	var b strings.Builder
	for _, l := range r.rec.lines {
		b.WriteString(l + "\n")
	}
	for _, l := range r.wire.all() {
		b.WriteString("to agent " + l + "\n")
	}
	checkGolden(r.t, filepath.Join("testdata", "acp", name+".golden"), b.String())
}

// TestACPAgent serves sessions with an ACP agent the bridge knows nothing
// of, played by the captures of Gemini CLI's ACP mode.
func TestACPAgent(t *testing.T) {
	fs := acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}
	tests := []struct {
		name, transcript, option string
		caps                     acp.ClientCapabilities
		cfg                      bridge.Config
		play                     func(r *acpRun)
	}{
		{name: "plain", transcript: "plain", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
			r.prompt("Give me three points. MOCK_SCENARIO=multi-part")
		}},
		{name: "thinking", transcript: "thinking", play: func(r *acpRun) {
			r.newSession()
			r.prompt("What is 2 + 2? Think first.")
		}},
		// The tool call is announced before its question, which the
		// agent does not do.
		{name: "permission-allow", transcript: "permission-allow", option: "proceed_once", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Create made-by-shell.txt with touch.")
		}},
		// ... and ended, failed, when rejected.
		{name: "permission-reject", transcript: "permission-reject", option: "cancel", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Create made-by-shell.txt with touch.")
		}},
		// The agent reads and writes through the editor's file system.
		{name: "fs-write", transcript: "fs-write", option: "proceed_once", caps: fs, play: func(r *acpRun) {
			r.files["/tmp/gm-acp/fs-write/work/out.txt"] = "old content\n"
			r.newSession()
			r.prompt("Write out.txt.")
		}},
		// Gemini CLI reads from the disk even when the editor has a file
		// system.
		{name: "fs-read", transcript: "fs-read", caps: fs, play: func(r *acpRun) {
			r.newSession()
			r.prompt("Read notes.txt.")
		}},
		// session/cancel after three chunks; the session goes on.
		{name: "cancel", transcript: "cancel", play: func(r *acpRun) {
			r.newSession()
			r.cancelAfter(3, "Tell me a long story. MOCK_SCENARIO=slow-stream")
			r.prompt("Say hello. MOCK_SCENARIO=plain-text")
		}},
		// A mode the agent refuses, then a model through
		// session/set_model, which it takes.
		{name: "modes-models", transcript: "modes-models", option: "proceed_once", play: func(r *acpRun) {
			r.newSession()
			r.set("mode", "yolo")
			r.prompt("Create made-by-shell.txt with touch.")
			r.set("mode", "no-such-mode")
			r.set("model", "gemini-2.5-flash")
			r.prompt("Say hello and tell me what 2 + 2 is. MOCK_SCENARIO=plain-text")
		}, cfg: bridge.Config{AllowBypass: true}},
		// Without credentials, session/new fails, and the first prompt
		// is answered with its error.
		{name: "auth-none", transcript: "auth-none", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello.")
		}},
		// The agent exits during a turn; the next prompt loads its
		// session in a new process, whose replay is left out.
		{name: "crash-restart", transcript: "local:crash-restart", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
			r.prompt("Again.")
		}},
		// The idle agent is stopped; the next prompt loads its session
		// in a new process.
		{name: "idle-restart", transcript: "local:idle-restart", cfg: bridge.Config{Idle: time.Minute}, play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
			time.Sleep(2 * time.Minute)
			r.prompt("Again.")
		}},
		// Faults: a line that is not JSON is skipped, an update for a
		// session the agent was not given is dropped, an agent that never
		// answers is stopped when silent too long.
		{name: "not-json", transcript: "local:not-json", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
		}},
		{name: "foreign-update", transcript: "local:foreign-update", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
		}},
		{name: "never-answers", transcript: "local:never-answers", cfg: bridge.Config{TurnTimeout: time.Minute}, play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
		}},
		{name: "exit-mid-turn", transcript: "local:exit-mid-turn", play: func(r *acpRun) {
			r.newSession()
			r.prompt("Say hello and tell me what 2 + 2 is.")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startACP(t, anyAgent, transcriptPath(tt.transcript), tt.cfg, tt.caps, tt.option)
				tt.play(r)
				r.check("any-" + tt.name)
			})
		})
	}
}

// fuzzHost is a Host that keeps what a Conversation tells it, checking
// that every update encodes.
type fuzzHost struct {
	t     *testing.T
	ended int
}

func (h *fuzzHost) Notify(updates ...acp.Update) {
	for _, u := range updates {
		if b, err := json.Marshal(u); err != nil || !json.Valid(b) {
			h.t.Fatalf("update %#v encodes as %q, %v", u, b, err)
		}
	}
}
func (h *fuzzHost) Ask(bridge.Question)                             {}
func (h *fuzzHost) Withdraw(string)                                 {}
func (h *fuzzHost) ModeChanged(string)                              {}
func (h *fuzzHost) Commands([]acp.AvailableCommand, []bridge.Model) {}
func (h *fuzzHost) Offer([]acp.SessionMode, []bridge.Model)         {}
func (h *fuzzHost) Retire()                                         {}
func (h *fuzzHost) Relay(string, json.RawMessage, func(json.RawMessage, error)) func() {
	return func() {}
}
func (h *fuzzHost) EndTurn(res acp.PromptResult, err error) {
	if err == nil && res.StopReason == "" {
		h.t.Fatal("a turn ended with neither a stop reason nor an error")
	}
	h.ended++
}

// FuzzACPAgentLines feeds an ACP agent's Conversation arbitrary lines
// from its agent during a turn, after the lines of a captured session:
// whatever they hold, it must not panic, every update must encode, and
// the turn ends at most once.
func FuzzACPAgentLines(f *testing.F) {
	for _, name := range []string{"plain", "permission-allow", "fs-write", "load", "quota-429"} {
		data, err := os.ReadFile(transcriptPath(name))
		if err != nil {
			f.Fatal(err)
		}
		entries, err := geminitest.ReadACP(bytes.NewReader(data))
		if err != nil {
			f.Fatal(err)
		}
		var agent [][]byte
		for _, e := range entries {
			if e.Dir == "agent" && e.Msg != nil {
				agent = append(agent, e.Msg)
			}
		}
		f.Add(bytes.Join(agent, []byte("\n")))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s","configOptions":[{"id":"m","name":"M","type":"select","category":"mode","currentValue":"a","options":[{"group":"g","name":"G","options":[{"value":"a","name":"A"}]}]}]}}` + "\n" +
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}` + "\n" + `not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cli := range []bridge.CLI{anyAgent} {
			conv, err := cli.NewConversation(bridge.ConversationConfig{Cwd: "/work", Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			h := &fuzzHost{t: t}
			conv.CommandLine("default", "default")
			conv.Start(nopCloser{io.Discard})
			if err := conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "hi"}}); err != nil {
				t.Fatal(err)
			}
			for line := range bytes.SplitSeq(data, []byte("\n")) {
				conv.Line(h, line)
			}
			conv.Interrupt()
			conv.Exited(h, errors.New("exit status 1"))
			if h.ended > 1 {
				t.Fatalf("the turn ended %d times", h.ended)
			}
		}
	})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
