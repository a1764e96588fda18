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
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/google/go-cmp/cmp"
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
	logged := fake{envVar: fakeGemini.envVar, run: func(ctx context.Context, args []string, in io.Reader, out, errw io.Writer, getenv func(string) string) int {
		return fakeGemini.run(ctx, args, io.TeeReader(in, wire), out, errw, getenv)
	}}
	var args [][]string
	return logged.starter(transcript, &args)
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

// prompts is a scenario's play: a new session, then each prompt in
// turn.
func prompts(texts ...string) func(*acpRun) {
	return func(r *acpRun) {
		r.newSession()
		for _, text := range texts {
			r.prompt(text)
		}
	}
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

// acpScenario is a session an editor that declares caps, answering
// permission questions with option, plays against an Agent of an ACP
// agent replaying transcript (see transcriptPath); its golden file is
// testdata/acp/PREFIX+NAME.golden.
type acpScenario struct {
	name, transcript, option string
	caps                     acp.ClientCapabilities
	cfg                      bridge.Config
	play                     func(r *acpRun)
}

// What an editor declares in the scenarios: a file system, notices.
var (
	acpFS      = acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}
	acpNotices = acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
)

// playACP plays each scenario against cli, under testing/synctest.
func playACP(t *testing.T, cli bridge.CLI, prefix string, scenarios []acpScenario) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startACP(t, cli, transcriptPath(sc.transcript), sc.cfg, sc.caps, sc.option)
				sc.play(r)
				r.check(prefix + sc.name)
			})
		})
	}
}

// TestACPAgent serves sessions with an ACP agent the bridge knows nothing
// of, played by the captures of Gemini CLI's ACP mode.
func TestACPAgent(t *testing.T) {
	playACP(t, anyAgent, "any-", []acpScenario{
		{name: "plain", transcript: "plain", play: prompts("Say hello and tell me what 2 + 2 is.", "Give me three points. MOCK_SCENARIO=multi-part")},
		{name: "thinking", transcript: "thinking", play: prompts("What is 2 + 2? Think first.")},
		// The tool call is announced before its question, which the
		// agent does not do.
		{name: "permission-allow", transcript: "permission-allow", option: "proceed_once", play: prompts("Create made-by-shell.txt with touch.")},
		// ... and ended, failed, when rejected.
		{name: "permission-reject", transcript: "permission-reject", option: "cancel", play: prompts("Create made-by-shell.txt with touch.")},
		// The agent reads and writes through the editor's file system.
		{name: "fs-write", transcript: "fs-write", option: "proceed_once", caps: acpFS, play: func(r *acpRun) {
			r.files["/tmp/gm-acp/fs-write/work/out.txt"] = "old content\n"
			r.newSession()
			r.prompt("Write out.txt.")
		}},
		// Gemini CLI reads from the disk even when the editor has a file
		// system.
		{name: "fs-read", transcript: "fs-read", caps: acpFS, play: prompts("Read notes.txt.")},
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
		{name: "auth-none", transcript: "auth-none", play: prompts("Say hello.")},
		// The agent exits during a turn; the next prompt loads its
		// session in a new process, whose replay is left out.
		{name: "crash-restart", transcript: "local:crash-restart", play: prompts("Say hello and tell me what 2 + 2 is.", "Again.")},
		// The agent exits during a turn, and cannot load its session in
		// the new process: a new conversation begins, which the editor is
		// told of.
		{name: "crash-reload-fails", transcript: "local:crash-reload-fails", caps: acpNotices, play: prompts("Say hello and tell me what 2 + 2 is.", "Again.")},
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
		{name: "not-json", transcript: "local:not-json", play: prompts("Say hello and tell me what 2 + 2 is.")},
		{name: "foreign-update", transcript: "local:foreign-update", play: prompts("Say hello and tell me what 2 + 2 is.")},
		{name: "never-answers", transcript: "local:never-answers", cfg: bridge.Config{TurnTimeout: time.Minute}, play: prompts("Say hello and tell me what 2 + 2 is.")},
		{name: "exit-mid-turn", transcript: "local:exit-mid-turn", play: prompts("Say hello and tell me what 2 + 2 is.")},
	})
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
func (h *fuzzHost) Forms() bool                                     { return false }
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
		for _, cli := range []bridge.CLI{anyAgent, bridge.GeminiACP} {
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

// cancelWhenIdle sends a prompt, cancels it once the agent waits for
// something, and records its answer.
func (r *acpRun) cancelWhenIdle(text string) {
	r.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.prompt(text)
	}()
	synctest.Wait()
	if err := acp.SessionCancel.Notify(bg, r.client, acp.CancelParams{SessionID: r.sid}); err != nil {
		r.t.Fatal(err)
	}
	<-done
}

// TestGeminiACP serves sessions with Gemini CLI's ACP mode, played by its
// captures, and checks each of the bridge's repairs of it.
func TestGeminiACP(t *testing.T) {
	playACP(t, bridge.GeminiACP, "gemini-", []acpScenario{
		// The usage of each turn, from the _meta of the CLI's answer, as
		// the prompt's usage and a usage_update.
		{name: "plain", transcript: "plain", play: prompts("Say hello and tell me what 2 + 2 is.", "Give me three points. MOCK_SCENARIO=multi-part")},
		// API errors: a quota's, with the time to retry at; the API's
		// failure, with its status and the body's message; a refused key,
		// authentication required.
		{name: "quota-429", transcript: "quota-429", caps: acpNotices, play: prompts("Say hello. MOCK_SCENARIO=rate-limit-429")},
		{name: "api-error-500", transcript: "api-error-500", caps: acpNotices, play: prompts("Say hello. MOCK_SCENARIO=api-error-500")},
		{name: "api-error-401", transcript: "local:api-error-401", caps: acpNotices, play: prompts("Say hello. MOCK_SCENARIO=api-error-500")},
		// No credentials at all: session/new's -32000, for the prompt.
		{name: "auth-none", transcript: "auth-none", play: prompts("Say hello.")},
		// A new file: the editor's file system has none, which the CLI
		// must read as empty to write it.
		{name: "fs-write-new", transcript: "fs-write", option: "proceed_once", caps: acpFS, play: prompts("Write out.txt.")},
		// A mode change the CLI reports as agent text.
		{name: "mode-update", transcript: "local:mode-update", play: prompts("Plan it.")},
		// A command cancelled with the turn, which the CLI reports
		// completed.
		{name: "cancel-tool", transcript: "local:cancel-tool", play: func(r *acpRun) {
			r.newSession()
			r.cancelWhenIdle("Run sleep 20. MOCK_SCENARIO=tool-call-slow")
		}},
		// A mode the CLI refuses in an untrusted folder (it was captured
		// without --skip-trust), a model through session/set_model.
		{name: "modes-models", transcript: "modes-models", option: "proceed_once", cfg: bridge.Config{AllowBypass: true}, play: func(r *acpRun) {
			r.newSession()
			r.set("mode", "yolo")
			r.prompt("Create made-by-shell.txt with touch.")
			r.set("model", "gemini-2.5-flash")
			r.prompt("Say hello and tell me what 2 + 2 is. MOCK_SCENARIO=plain-text")
		}},
		// The editor's MCP servers, image, audio and resources go to the
		// CLI as they are.
		{name: "prompt-resources", transcript: "prompt-resources", play: func(r *acpRun) {
			res, err := acp.SessionNew.Call(bg, r.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{
				acp.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{"--root", "/work"}, Env: []acp.EnvVariable{}},
				acp.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: []acp.HTTPHeader{}},
			}})
			if err != nil {
				r.t.Fatal(err)
			}
			r.sid = res.SessionID
			text := "notes"
			res2, err := acp.SessionPrompt.Call(bg, r.client, acp.PromptParams{SessionID: r.sid, Prompt: []acp.ContentBlock{
				acp.TextContent{Text: "Summarise these."},
				acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///work/notes.txt", Text: &text}},
				acp.ResourceLink{Name: "main.go", URI: "file:///work/main.go"},
				acp.ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png"},
				acp.AudioContent{Data: "UklGRg==", MimeType: "audio/wav"},
			}})
			r.rec.result(res2, err)
		}},
	})
}

// TestGeminiACPLoad loads a session Gemini CLI stored: the bridge
// replays it from the store before it answers, without the CLI's
// preamble, then loads it into the CLI, whose own replay, which
// straddles its answer, is left out, and the session goes on. The
// session is listed from the store.
func TestGeminiACPLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const id, cwd = "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", "/tmp/gm-store/resume/work"
		store := capturedStore(t, bridge.Gemini, "resume")
		r := startACP(t, bridge.GeminiACP, transcriptPath("local:load-stored"), bridge.Config{Store: store}, acp.ClientCapabilities{}, "")
		if _, err := acp.SessionLoad.Call(bg, r.client, acp.LoadSessionParams{SessionID: id, Cwd: cwd, MCPServers: []acp.MCPServer{}}); err != nil {
			t.Fatal(err)
		}
		// The whole replay came before the answer: three turns.
		r.rec.mu.Lock()
		var replayed []string
		for _, l := range r.rec.lines {
			if strings.Contains(l, "message_chunk") {
				replayed = append(replayed, l)
			}
		}
		r.rec.mu.Unlock()
		if len(replayed) != 6 || !strings.Contains(replayed[5], "Turn 3") {
			t.Errorf("before session/load answered, the editor got %q, want the three turns stored", replayed)
		}
		r.sid = id
		synctest.Wait()
		// What the session tells of itself once loaded (its options, its
		// title) comes in any order: the title is checked here, and left
		// out of the golden file with the options.
		title := false
		r.rec.lines = slices.DeleteFunc(r.rec.lines, func(l string) bool {
			title = title || strings.Contains(l, `"title":"Mock summary: First question: who are"`)
			return strings.Contains(l, "session_info_update") || strings.Contains(l, "config_option_update")
		})
		if !title {
			t.Error("the session's stored title was not sent")
		}
		r.prompt("And again. MOCK_SCENARIO=plain-text")
		list, err := acp.SessionList.Call(bg, r.client, acp.ListSessionsParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list.Sessions {
			r.rec.add("listed " + s.SessionID + " " + s.Cwd + " " + s.Title)
		}
		for _, l := range r.rec.lines {
			if strings.Contains(l, "session_context") {
				t.Errorf("the editor got the CLI's preamble: %s", l)
			}
		}
		r.check("gemini-load")
	})
}

// TestGeminiACPRefusals checks that what Gemini CLI answers -32603 (a
// relative cwd, a prompt without its prompt) is answered -32602 naming
// the member, before the CLI sees it.
func TestGeminiACPRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startACP(t, bridge.GeminiACP, transcriptPath("plain"), bridge.Config{}, acp.ClientCapabilities{}, "")
		_, err := acp.SessionNew.Call(bg, r.client, acp.NewSessionParams{Cwd: "relative/path", MCPServers: []acp.MCPServer{}})
		if field, _ := acp.InvalidField(err); !asErrorCode(err, acp.CodeInvalidParams) || field != "cwd" {
			t.Errorf("session/new with a relative cwd: %v, want -32602 naming cwd", err)
		}
		sid := r.newSession()
		_, err = r.client.Request(bg, acp.SessionPrompt.Name, map[string]string{"sessionId": sid})
		if field, _ := acp.InvalidField(err); !asErrorCode(err, acp.CodeInvalidParams) || field != "prompt" {
			t.Errorf("session/prompt without a prompt: %v, want -32602 naming prompt", err)
		}
		synctest.Wait()
		for _, l := range r.wire.all() {
			if strings.Contains(l, acp.SessionPrompt.Name) || strings.Contains(l, "relative") {
				t.Errorf("the CLI got %s", l)
			}
		}
		r.a.Close()
		r.close()
	})
}

// TestGeminiACPCapabilities checks that initialize advertises what
// Gemini CLI's ACP mode takes: images, audio, embedded resources, and
// MCP servers over HTTP and SSE besides stdio.
func TestGeminiACPCapabilities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newAgentEnv(t, bridge.Config{CLI: bridge.GeminiACP, Store: memStore{fstest.MapFS{}}})
		defer e.close()
		res, err := acp.Initialize.Call(bg, e.dial(1), acp.InitializeParams{ProtocolVersion: 1})
		must(t, err)
		c := res.AgentCapabilities
		want := acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true, SSE: true},
		}
		c.SessionCapabilities = nil
		if diff := cmp.Diff(want, c); diff != "" {
			t.Errorf("capabilities (-want +got):\n%s", diff)
		}
	})
}

// TestGeminiACPV2 serves a Gemini CLI turn that asks permission to a v2
// editor: the agent speaks v1, and the editor gets the turn in v2, the
// question with a title of its own and the tool call as its subject,
// the tool call announced first and ended as the agent ends it.
func TestGeminiACPV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wire := &lineLog{}
		e := &env{t: t, started: make(chan *script, 10)}
		a, err := bridge.NewAgent(bridge.Config{
			CLI: bridge.GeminiACP, Start: acpStarter(transcriptPath("permission-allow"), wire), Clock: testClock{},
			NewSessionID: func() string { return "11111111-2222-4333-8444-555555555555" },
		})
		must(t, err)
		e.a = a
		defer e.close()
		e.client = e.dial(2)
		_, err = acpv2.Initialize.Call(bg, e.client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
		must(t, err)
		e.answerV2 = func(ctx context.Context, p acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error) {
			return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: "proceed_once"}}, nil
		}
		sid := e.newSessionV2()
		synctest.Wait()
		gotV2(t, e.promptV2(bg, sid, "Create made-by-shell.txt with touch."))
		synctest.Wait()
		const tool = "run_shell_command__run_shell_command_1796288140466_0"
		var got []string
		// The prompt's response, an acknowledgment sent before the turn
		// goes on, reaches the test on the Call's goroutine, which races
		// the client's handling of the turn's notifications: it is left
		// out (gotV2 has checked it came).
		for _, n := range e.notes() {
			if !strings.HasPrefix(n, "ConfigOption") && !strings.HasPrefix(n, "AvailableCommands") && !strings.HasPrefix(n, "answer ") {
				got = append(got, n)
			}
		}
		want := []string{
			"user_message " + userID1, "running",
			"tool_call_update " + tool, "tool_call_update " + tool,
			"agent_message_chunk agent-11111111-2", "UsageUpdate", "idle end_turn",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the v2 editor got (-want +got):\n%s", diff)
		}
		e.mu.Lock()
		asked := e.askedV2
		e.mu.Unlock()
		if len(asked) != 1 || asked[0].Title != "touch made-by-shell.txt" || asked[0].Subject == nil {
			t.Errorf("the v2 editor was asked %+v, want one question titled after the command, about its tool call", asked)
		}
	})
}

// cancelHost is a Host that keeps the requests relayed to the editor,
// which the test answers.
type cancelHost struct {
	fuzzHost
	done      func(json.RawMessage, error)
	cancelled bool
}

func (h *cancelHost) Relay(method string, params json.RawMessage, done func(json.RawMessage, error)) func() {
	h.done = done
	return func() { h.cancelled = true }
}

// TestACPAgentCancelsRequest checks that the agent's $/cancel_request
// withdraws its request relayed to the editor, and that the agent gets
// the answer -32800 to it, as ACP asks.
func TestACPAgentCancelsRequest(t *testing.T) {
	conv, err := anyAgent.NewConversation(bridge.ConversationConfig{Cwd: "/work", Logger: slog.New(slog.DiscardHandler)})
	must(t, err)
	var stdin bytes.Buffer
	h := &cancelHost{fuzzHost: fuzzHost{t: t}}
	conv.CommandLine("default", "default")
	conv.Start(nopCloser{&stdin})
	must(t, conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "Write it."}}))
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":"r5","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/work/a"}}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"r5"}}`,
	} {
		conv.Line(h, []byte(line))
	}
	if !h.cancelled || h.done == nil {
		t.Fatalf("the relayed request was not withdrawn (relayed: %v)", h.done != nil)
	}
	h.done(nil, acp.Errorf(acp.CodeRequestCancelled, "withdrawn"))
	lines := strings.Split(strings.TrimSpace(stdin.String()), "\n")
	last := lines[len(lines)-1]
	if want := `{"jsonrpc":"2.0","id":"r5","error":{"code":-32800,"message":"withdrawn"}}`; last != want {
		t.Errorf("the agent got %s, want %s", last, want)
	}
}

// TestACPAgentPermissionAfterCancel checks that a permission question the
// agent sends once the turn was cancelled (it crossed session/cancel on
// the wire) is answered cancelled, as ACP asks of a client, so that the
// agent can end its turn instead of waiting for an answer until it is
// signalled.
func TestACPAgentPermissionAfterCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: anyAgent, Grace: time.Minute}, acp.ClientCapabilities{})
		defer e.close()
		e.answer = func(ctx context.Context, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
			return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}, nil
		}
		sid, ans, p := e.begin("Run it.")
		p.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
		synctest.Wait()
		p.write(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`)
		synctest.Wait()
		e.cancel(sid)
		synctest.Wait()
		p.write(`{"jsonrpc":"2.0","id":"q1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"rm -rf /tmp/x"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}`)
		synctest.Wait()
		want := `{"jsonrpc":"2.0","id":"q1","result":{"outcome":{"outcome":"cancelled"}}}`
		if !slices.Contains(p.lines(), want) {
			t.Fatalf("the agent's permission question after the cancel got no answer %s; the agent got:\n%s", want, strings.Join(p.lines(), "\n"))
		}
		p.write(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`)
		if a := got(t, ans); a.err != nil || a.res.StopReason != acp.StopReasonCancelled {
			t.Errorf("the prompt was answered %+v, %v; want cancelled", a.res, a.err)
		}
		if sig := p.gotSignals(); len(sig) > 0 {
			t.Errorf("the agent was signalled %v", sig)
		}
	})
}

// TestACPAgentResume checks session/resume of an ACP agent's session: one
// the Agent holds, its agent stopped idle, goes on from a second editor,
// the bridge opening the agent's session again; an id the Agent does not
// hold (one an earlier claude-acp process gave, say: the bridge's ids are
// its own, not the agent's) is refused -32002 naming it, starting no
// agent, since nothing could ever resume it.
func TestACPAgentResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: anyAgent, Idle: time.Minute}, acp.ClientCapabilities{})
		defer e.close()
		resume := func(c *acp.Conn, id string) error {
			_, err := acp.SessionResume.Call(bg, c, acp.ResumeSessionParams{SessionID: id, Cwd: "/work", MCPServers: []acp.MCPServer{}})
			return err
		}

		const unknown = "99999999-2222-4333-8444-555555555555"
		err := resume(e.client, unknown)
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound || !strings.Contains(ae.Message, unknown) {
			t.Fatalf("session/resume of a session the Agent does not hold: %v; want -32002 naming %s", err, unknown)
		}
		e.noProcess()
		if _, err := acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: unknown, Prompt: []acp.ContentBlock{acp.TextContent{Text: "Hi."}}}); err == nil {
			t.Error("a prompt in the refused session was answered")
		}
		e.noProcess()

		// A session held, its agent stopped idle, goes on from another
		// editor.
		sid := e.newSession()
		p := e.process()
		p.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"resume":{}}}}}`)
		synctest.Wait()
		p.write(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if !p.exited() {
			t.Fatal("the idle agent was not stopped")
		}
		second, _, closeSecond := acptest.NewPair(bg, acp.Methods{}, e.a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
		defer closeSecond()
		if _, err := acp.Initialize.Call(bg, second, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
			t.Fatal(err)
		}
		if err := resume(second, sid); err != nil {
			t.Fatalf("session/resume of a session the Agent holds, from a second editor: %v", err)
		}
		p = e.process()
		p.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"resume":{}}}}}`)
		synctest.Wait()
		if want := `"method":"session/resume","params":{"sessionId":"s1"`; !slices.ContainsFunc(p.lines(), func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("the agent's session was not resumed in its new process; it got:\n%s", strings.Join(p.lines(), "\n"))
		}
		p.exit(0)
	})
}
