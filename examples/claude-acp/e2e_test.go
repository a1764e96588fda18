//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// scenario is one end-to-end test: claude-acp with fakeclaude playing
// transcript (under testdata), driven by play. Its golden file,
// testdata/NAME.golden, holds every line claude-acp wrote to the editor.
type scenario struct {
	name       string
	transcript string
	args       []string // claude-acp flags besides -claude
	caps       capabilities
	play       func(e *editor)
	// unread marks a scenario whose CLI exits without reading its input:
	// whether what claude-acp writes reaches it is a matter of timing,
	// so there is no NAME.stdin.golden.
	unread bool
}

// The prompts' texts do not matter to fakeclaude, which checks only the
// kind of each line; they are the recorded ones.
var scenarios = []scenario{
	textScenario,
	{name: "two-turns", transcript: "two-turns.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			sid := e.newSession()
			e.prompt(sid, "Say hello and tell me what 2 + 2 is.")
			e.prompt(sid, "And now say it again.")
		}},
	// A prompt with an image: the CLI gets it as a base64 image block.
	{name: "image", transcript: "image.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
			e.promptBlocks(e.newSession(), acp.TextContent{Text: "What is in this image?"}, acp.ImageContent{Data: png, MimeType: "image/png"})
		}},
	// Mode and model change while the session's CLI runs, between turns;
	// session/close then stops it.
	{name: "modes", transcript: "modes.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			sid := e.newSession()
			e.prompt(sid, "Say hello and tell me what 2 + 2 is.")
			e.setMode(sid, "acceptEdits")
			e.setOption(sid, "model", "opus")
			e.prompt(sid, "And now say it again.")
			e.closeSession(sid)
		}},
	{name: "thinking", transcript: "thinking.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "What is 2 + 2? Think first.") }},
	{name: "partial", transcript: "partial.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Say hello.") }},
	{name: "partial-tool", transcript: "partial-tool.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Run echo hello in the shell and tell me what it printed.") }},
	{name: "tools", transcript: "tools.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Fix the bug in main.go and run the tests.") }},
	// Tools of the other kinds, in plan mode, and ExitPlanMode, which
	// asks before the CLI leaves plan mode.
	{name: "tools-plan", transcript: "tools-plan.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.answer(answerAllow)
			e.prompt(e.newSession(), "Plan how to speed up the parser.")
		}},
	{name: "permission-allow", transcript: "permission-allow.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.answer(answerAllow)
			e.prompt(e.newSession(), "Create an empty file named x.")
		}},
	{name: "permission-deny", transcript: "permission-deny.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.answer(answerReject)
			e.prompt(e.newSession(), "Create an empty file named x.")
		}},
	{name: "rate-limit-warning", transcript: "rate-limit-warning.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.") }},
	// A client that did not declare notices gets the warning as text.
	{name: "rate-limit-warning-no-notices", transcript: "rate-limit-warning.ndjson",
		play: func(e *editor) { e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.") }},
	{name: "rate-limit-rejected", transcript: "rate-limit-rejected.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.") }},
	{name: "api-error", transcript: "api-error.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.") }},
	{name: "max-turns", transcript: "max-turns.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Run echo hello in the shell and tell me what it printed.") }},
	{name: "resume", transcript: "resume.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.resume("a096a09b-3286-4149-951f-a7041a328825")
			e.prompt("a096a09b-3286-4149-951f-a7041a328825", "again")
		}},
	// session/load replays a session the real CLI stored
	// (claude/testdata/store/resume), then binds the session to it as
	// session/resume does.
	{name: "load", transcript: "resume.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.copyStore(filepath.Join("..", "..", "claude", "testdata", "store", "resume", "projects"), filepath.Join(".claude", "projects"))
			e.load("06bc54a4-f6e8-415f-a965-41995b28a3b2")
			e.prompt("06bc54a4-f6e8-415f-a965-41995b28a3b2", "again")
		}},
	{name: "resume-failed", transcript: "resume-failed.ndjson", caps: capabilities{notices: true}, unread: true,
		play: func(e *editor) {
			e.resume("0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20")
			e.prompt("0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20", "again")
		}},
	{name: "noise", transcript: "noise.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.") }},
	{name: "crash", transcript: "crash.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) { e.prompt(e.newSession(), "Refactor the parser.") }},
	// The CLI stops writing: the turn times out, the CLI is stopped, and
	// the next prompt resumes the conversation in a new process.
	{name: "hang", transcript: "hang", args: []string{"-turn-timeout", "300ms"}, caps: capabilities{notices: true},
		play: func(e *editor) {
			sid := e.newSession()
			e.prompt(sid, "Refactor the parser.")
			e.prompt(sid, "Say hello.")
		}},
	{name: "cancel", transcript: "cancel.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			sid := e.newSession()
			done := e.promptAsync(sid, "Tell me a long story.")
			within(e.t, e.chunks, "agent_message_chunk")
			e.cancel(sid)
			within(e.t, done, "answer to the cancelled prompt")
			e.prompt(sid, "Say hello.")
		}},
	// The CLI ignores the interrupt: after a grace period claude-acp
	// stops it, and the next prompt resumes the conversation in a new
	// process.
	{name: "cancel-stuck", transcript: "cancel-stuck", args: []string{"-grace", "200ms"}, caps: capabilities{notices: true},
		play: func(e *editor) {
			sid := e.newSession()
			done := e.promptAsync(sid, "Tell me a long story.")
			within(e.t, e.chunks, "agent_message_chunk")
			e.cancel(sid)
			within(e.t, done, "answer to the cancelled prompt")
			e.prompt(sid, "Say hello.")
		}},
	// The session's CLI is stopped when idle, and the next prompt resumes
	// the conversation in a new process.
	{name: "idle", transcript: "idle", args: []string{"-idle", "100ms"}, caps: capabilities{notices: true},
		play: func(e *editor) {
			sid := e.newSession()
			e.prompt(sid, "Say hello and tell me what 2 + 2 is.")
			e.p.waitCLIsGone(e.t)
			e.prompt(sid, "And now say it again.")
		}},
	// The editor answers the pending permission request "cancelled"
	// right after session/cancel, as ACP asks.
	{name: "cancel-permission", transcript: "cancel-permission.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.answer(answerCancelled)
			sid := e.newSession()
			done := e.promptAsync(sid, "Create an empty file named x.")
			within(e.t, e.asked, "permission request")
			e.cancel(sid)
			within(e.t, done, "answer to the cancelled prompt")
			e.prompt(sid, "Say hello.")
		}},
	// The editor waits for the agent to withdraw the request.
	{name: "cancel-permission-withdrawn", transcript: "cancel-permission.ndjson", caps: capabilities{notices: true},
		play: func(e *editor) {
			e.answer(answerWithdrawn)
			sid := e.newSession()
			done := e.promptAsync(sid, "Create an empty file named x.")
			within(e.t, e.asked, "permission request")
			e.cancel(sid)
			within(e.t, done, "answer to the cancelled prompt")
			e.prompt(sid, "Say hello.")
		}},
}

// textScenario is the simplest: one prompt answered with text. Its
// client declares every capability the agent looks at.
var textScenario = scenario{name: "text", transcript: "text.ndjson", caps: capabilities{notices: true, goose: true},
	play: func(e *editor) { e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.") }}

// TestScenarios runs claude-acp with fakeclaude through every scenario,
// and compares what the editor received, updates and answers in order,
// with the scenario's golden file. After each, the agent must have exited
// on the end of its input and left no process behind (see startEditor).
func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			claudePath, stdinLog := teeClaude(t, sc.name == "noise")
			e := startEditor(t, claudePath, filepath.Join("testdata", sc.transcript), sc.args...)
			e.initialize(sc.caps)
			sc.play(e)
			e.p.stdin.Close()
			if err := e.p.wait(); err != nil {
				t.Errorf("claude-acp exit: %v; want status 0", err)
			}
			checkGolden(t, filepath.Join("testdata", sc.name+".golden"), e.transcript())
			if sc.unread {
				return
			}
			// What claude-acp wrote to its CLIs, which fakeclaude checks
			// only loosely.
			written, err := os.ReadFile(stdinLog)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", sc.name+".stdin.golden"), written)
		})
	}
}

// teeClaude writes a stand-in for the claude binary that runs fakeclaude
// with a copy of its input appended to the file stdinLog, by a process
// that holds no copy of the CLI's stdout or stderr (so that the agent sees
// them end with fakeclaude). With noise, it first prints lines that are not JSON,
// as the real CLI does when something in it logs to stdout.
func teeClaude(t *testing.T, noise bool) (path, stdinLog string) {
	t.Helper()
	dir := t.TempDir()
	path, stdinLog = filepath.Join(dir, "claude"), filepath.Join(dir, "stdin.log")
	script := "#!/bin/bash\n"
	if noise {
		script += "echo '[DEBUG] Loading settings from /home/dev/.claude/settings.json'\n" +
			"echo 'Sandbox: network access denied for api.example.com'\n" +
			"echo '{\"type\":\"assistant\",\"message\":{\"model\":\"'\n"
	}
	script += "exec '" + fakeclaudeBin + "' \"$@\" < <(exec tee -a '" + stdinLog + "' 2>/dev/null)\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, stdinLog
}

// checkGolden compares got with the golden file at path, or rewrites the
// file with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestOversizedLine checks that a CLI line over the agent's limit is
// skipped and the turn goes on. The transcript is the text scenario's
// with an assistant line of more than claude.MaxLineLength bytes before
// the answer, written here rather than kept in testdata.
func TestOversizedLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and replays a line of 64 MiB")
	}
	t.Parallel()
	records := readRecords(t, filepath.Join("testdata", "text.ndjson"))
	// The huge text is put in after encoding, where a placeholder stands:
	// encoding 64 MiB under the race detector takes seconds.
	const placeholder = "oversized-text-placeholder"
	var withHuge []claudetest.Record
	for _, r := range records {
		if r.Dir == claudetest.DirOut && strings.HasPrefix(r.Line, `{"type":"assistant"`) {
			withHuge = append(withHuge, claudetest.Record{Dir: claudetest.DirOut, T: r.T, Line: withText(r.Line, placeholder)})
		}
		withHuge = append(withHuge, r)
	}
	path := filepath.Join(t.TempDir(), "oversized.ndjson")
	writeRecords(t, path, withHuge)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Replace(b, []byte(placeholder), bytes.Repeat([]byte("x"), claude.MaxLineLength), 1)
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}

	e := startEditor(t, fakeclaudeBin, path)
	e.initialize(textScenario.caps)
	// Moving 64 MiB through a race-instrumented claude-acp takes seconds
	// on a busy machine: the bound is more than the usual one.
	ctx, cancel := context.WithTimeout(context.Background(), 3*testwait.Limit)
	defer cancel()
	_, err = acp.SessionPrompt.Call(ctx, e.conn, acp.PromptParams{
		SessionID: e.newSession(),
		Prompt:    []acp.ContentBlock{acp.TextContent{Text: "Say hello and tell me what 2 + 2 is."}},
	})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	e.p.stdin.Close()
	if err := e.p.wait(); err != nil {
		t.Errorf("claude-acp exit: %v; want status 0", err)
	}
	// What the editor sees is the text scenario's: the line was skipped.
	// (-update leaves the golden file to that scenario.)
	if !*update {
		checkGolden(t, filepath.Join("testdata", "text.golden"), e.transcript())
	}
}

// withText returns the assistant line like with its text replaced.
func withText(like, text string) string {
	const old = `"text":"Hello from the mock server. 2 + 2 = 4."`
	return strings.Replace(like, old, `"text":"`+text+`"`, 1)
}

func readRecords(t testing.TB, path string) []claudetest.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := claudetest.ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	return records
}

func writeRecords(t testing.TB, path string, records []claudetest.Record) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStdinClosedMidTurn closes claude-acp's input while a turn runs, with
// a CLI that does not exit when its own input closes (fakeclaude behind a
// script that then sleeps, keeping the CLI's output open): claude-acp must
// answer the prompt, stop the CLI and everything it started, and exit.
func TestStdinClosedMidTurn(t *testing.T) {
	t.Parallel()
	stubborn := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\n'" + fakeclaudeBin + "' \"$@\"\nexec sleep 600\n"
	if err := os.WriteFile(stubborn, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, stubborn, filepath.Join("testdata", "hang"), "-grace", "200ms")
	e.initialize(capabilities{notices: true})
	sid := e.newSession()
	answered := make(chan acp.PromptResult, 1)
	go func() {
		res, _ := e.prompt(sid, "Refactor the parser.")
		answered <- res
	}()
	within(t, e.chunks, "agent_message_chunk")
	e.p.stdin.Close()
	if err := e.p.wait(); err != nil {
		t.Errorf("claude-acp exit: %v; want status 0", err)
	}
	if res := within(t, answered, "answer to the prompt"); res.StopReason != acp.StopReasonCancelled {
		t.Errorf("prompt answered %+v, want cancelled", res)
	}
	// startEditor's cleanup checks that no process is left.
}

// TestCommandLine checks how claude-acp starts the CLI, through a script
// that records its arguments before it runs fakeclaude: behind the -wrap
// launcher with {cwd} replaced, in the session's directory, in streaming-input mode with permission questions on stdio
// and partial messages, with the ACP session id as --session-id, the
// model of -model, the session's MCP servers and additional
// directories, and the arguments after "--".
func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	recorder, argsFile := filepath.Join(dir, "claude"), filepath.Join(dir, "args")
	script := "#!/bin/sh\n(pwd; echo \"$WRAPPED_IN\"; for a; do echo \"$a\"; done) > '" + argsFile + "'\nexec '" + fakeclaudeBin + "' \"$@\"\n"
	if err := os.WriteFile(recorder, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, recorder, filepath.Join("testdata", "text.ndjson"),
		"-model", "claude-sonnet-4-5", "-wrap", "env WRAPPED_IN={cwd}", "--", "--append-system-prompt", "Be brief.")
	e.initialize(capabilities{notices: true})
	ctx, cancel := bounded()
	defer cancel()
	lib, docs := t.TempDir(), t.TempDir()
	s, err := acp.SessionNew.Call(ctx, e.conn, acp.NewSessionParams{Cwd: e.cwd, AdditionalDirectories: []string{lib, docs}, MCPServers: []acp.MCPServer{
		acp.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: []acp.HTTPHeader{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(s.SessionID, "Say hello and tell me what 2 + 2 is."); err != nil {
		t.Fatal(err)
	}
	recorded, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	cwd, rest, _ := strings.Cut(strings.TrimSuffix(string(recorded), "\n"), "\n")
	wrapped, args, _ := strings.Cut(rest, "\n")
	if real, _ := filepath.EvalSymlinks(e.cwd); cwd != e.cwd && cwd != real {
		t.Errorf("the CLI ran in %s, want the session's directory %s", cwd, e.cwd)
	}
	if wrapped != e.cwd {
		t.Errorf("-wrap 'env WRAPPED_IN={cwd}' gave the CLI WRAPPED_IN=%q, want the session's directory %s", wrapped, e.cwd)
	}
	argv := strings.Split(args, "\n")
	t.Logf("the CLI's arguments: %q", argv)
	joined := " " + strings.Join(argv, " ") + " "
	for _, want := range []string{
		" --input-format stream-json ", " --output-format stream-json ", " --verbose ",
		" --permission-prompt-tool stdio ", " --include-partial-messages ",
		"--session-id=" + s.SessionID + " ", "claude-sonnet-4-5 ",
		" --append-system-prompt Be brief. ",
		" --add-dir=" + lib + " --add-dir=" + docs + " ",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the CLI's arguments lack %q: %q", want, argv)
		}
	}
	if !strings.Contains(joined, `"docs":{"type":"http","url":"http://127.0.0.1:9/mcp"`) {
		t.Errorf("the MCP server is not in the CLI's --mcp-config: %q", argv)
	}
}

// TestSessionsIndependent runs two sessions at once: while the first
// session's CLI hangs mid-turn, the second is served; then the first is
// cancelled. The first CLI started replays the hang transcript, the
// others the text one.
func TestSessionsIndependent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hang, err := filepath.Abs(filepath.Join("testdata", "hang", "new.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" +
		"if mkdir '" + filepath.Join(dir, "first") + "' 2>/dev/null; then export " + claudetest.EnvTranscript + "='" + hang + "'; fi\n" +
		"exec '" + fakeclaudeBin + "' \"$@\"\n"
	claudePath := filepath.Join(dir, "claude")
	if err := os.WriteFile(claudePath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, claudePath, filepath.Join("testdata", "text.ndjson"))
	e.initialize(capabilities{notices: true})

	first := e.newSession()
	answered := make(chan acp.PromptResult, 1)
	go func() {
		res, err := e.prompt(first, "Refactor the parser.")
		if err != nil {
			t.Errorf("the first session's prompt: %v", err)
		}
		answered <- res
	}()
	within(t, e.chunks, "agent_message_chunk")

	second := e.newSession()
	if res, err := e.prompt(second, "Say hello and tell me what 2 + 2 is."); err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Errorf("the second session's prompt: %+v, %v; want end_turn", res, err)
	}
	select {
	case res := <-answered:
		t.Fatalf("the first session's prompt was answered %+v before it was cancelled", res)
	default:
	}
	e.cancel(first)
	if res := within(t, answered, "answer to the cancelled prompt"); res.StopReason != acp.StopReasonCancelled {
		t.Errorf("the first session's prompt: %+v, want cancelled", res)
	}
}

// TestWaitingPrompts sends a prompt while another runs. It waits for the
// running turn and then runs, in the same CLI: while the first turn waits
// for a permission answer, the second is sent, and reaches the CLI only
// after the first turn's result. Cancelling a turn answers a prompt
// waiting for it cancelled too: it never reaches the CLI, and the next
// prompt runs as after a plain cancel.
func TestWaitingPrompts(t *testing.T) {
	const waits = "prompt waits for the turn under way"
	t.Run("runs next", func(t *testing.T) {
		t.Parallel()
		claudePath, stdinLog := teeClaude(t, false)
		e := startEditor(t, claudePath, filepath.Join("testdata", "waiting.ndjson"), "-v")
		e.initialize(capabilities{notices: true})
		sid := e.newSession()
		second := make(chan (<-chan error), 1)
		e.answer(answerAllow)
		e.onAsk = func() { // on the handler's goroutine: no t.Fatal
			second <- e.promptAsync(sid, "And now say it again.")
			if err := e.p.logged(waits); err != nil {
				t.Error(err)
			}
		}
		if res, err := e.prompt(sid, "Create an empty file named x."); err != nil || res.StopReason != acp.StopReasonEndTurn {
			t.Errorf("the first prompt: %+v, %v; want end_turn", res, err)
		}
		if err := within(t, within(t, second, "the second prompt sent"), "answer to the second prompt"); err != nil {
			t.Errorf("the second prompt: %v", err)
		}
		checkWritten(t, e, stdinLog, "waiting.stdin.golden")
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		claudePath, stdinLog := teeClaude(t, false)
		e := startEditor(t, claudePath, filepath.Join("testdata", "cancel.ndjson"), "-v")
		e.initialize(capabilities{notices: true})
		sid := e.newSession()
		first := make(chan acp.PromptResult, 1)
		go func() {
			res, _ := e.prompt(sid, "Tell me a long story.")
			first <- res
		}()
		within(t, e.chunks, "agent_message_chunk")
		second := make(chan acp.PromptResult, 1)
		go func() {
			res, _ := e.prompt(sid, "And another one.")
			second <- res
		}()
		e.p.waitLog(t, waits)
		e.cancel(sid)
		if res := within(t, second, "answer to the waiting prompt"); res.StopReason != acp.StopReasonCancelled {
			t.Errorf("the waiting prompt: %+v, want cancelled", res)
		}
		if res := within(t, first, "answer to the cancelled prompt"); res.StopReason != acp.StopReasonCancelled {
			t.Errorf("the cancelled prompt: %+v, want cancelled", res)
		}
		if res, err := e.prompt(sid, "Say hello."); err != nil || res.StopReason != acp.StopReasonEndTurn {
			t.Errorf("the next prompt: %+v, %v; want end_turn", res, err)
		}
		// What the CLI got is what it gets without the waiting prompt.
		checkWritten(t, e, stdinLog, "cancel.stdin.golden")
	})
}

// checkWritten ends claude-acp, which must exit with status 0, and
// compares what it wrote to its CLIs, logged at stdinLog, with the golden
// file testdata/golden.
func checkWritten(t *testing.T, e *editor, stdinLog, golden string) {
	t.Helper()
	e.p.stdin.Close()
	if err := e.p.wait(); err != nil {
		t.Errorf("claude-acp exit: %v; want status 0", err)
	}
	written, err := os.ReadFile(stdinLog)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", golden), written)
}

// TestSessionDirectory checks that claude-acp refuses a session whose cwd
// is relative, or a directory that does not exist, at session/new, load
// and resume, with -32602 naming cwd and the directory, rather than
// failing the first prompt as though the CLI were missing.
func TestSessionDirectory(t *testing.T) {
	t.Parallel()
	e := startEditor(t, fakeclaudeBin, filepath.Join("testdata", "text.ndjson"))
	e.initialize(capabilities{notices: true})
	const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
	gone := filepath.Join(t.TempDir(), "gone")
	ctx, cancel := bounded()
	defer cancel()
	for _, cwd := range []string{"relative/dir", gone} {
		calls := map[string]error{}
		_, calls["session/new"] = acp.SessionNew.Call(ctx, e.conn, acp.NewSessionParams{Cwd: cwd, MCPServers: []acp.MCPServer{}})
		_, calls["session/load"] = acp.SessionLoad.Call(ctx, e.conn, acp.LoadSessionParams{SessionID: id, Cwd: cwd, MCPServers: []acp.MCPServer{}})
		_, calls["session/resume"] = acp.SessionResume.Call(ctx, e.conn, acp.ResumeSessionParams{SessionID: id, Cwd: cwd})
		for method, err := range calls {
			field, _ := acp.InvalidField(err)
			if !errors.Is(err, acp.ErrInvalidParams) || field != "cwd" || !strings.Contains(err.Error(), cwd) {
				t.Errorf("%s with cwd %q: %v; want -32602 naming cwd and the directory", method, cwd, err)
			}
		}
	}
}

// TestPrintTranscript checks that fakeclaude, behind claude-acp, plays a
// transcript recorded with -p, as its doc shows one
// (claude/testdata/multiblock.jsonl), a turn for each prompt.
func TestPrintTranscript(t *testing.T) {
	t.Parallel()
	e := startEditor(t, fakeclaudeBin, filepath.Join("..", "..", "claude", "testdata", "multiblock.jsonl"))
	e.initialize(capabilities{notices: true})
	sid := e.newSession()
	res, err := e.prompt(sid, "write a haiku")
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v; want end_turn", res, err)
	}
	if !bytes.Contains(e.transcript(), []byte("agent_message_chunk")) {
		t.Errorf("the editor got no text:\n%s", e.transcript())
	}
}
