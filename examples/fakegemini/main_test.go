package main_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/acpkit/acpkit/internal/fakebin"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// fakegemini is the path of the binary built by TestMain.
var fakegemini string

// testdata is gemini/testdata, made absolute so the child can open it from
// any directory.
var testdata, _ = filepath.Abs(filepath.Join("..", "..", "gemini", "testdata"))

func TestMain(m *testing.M) { fakebin.Main(m, "fakegemini", &fakegemini) }

// runFake runs the binary to completion.
func runFake(t *testing.T, env []string, stdin string, args ...string) fakebin.Result {
	t.Helper()
	return fakebin.Run(t, fakegemini, env, stdin, args...)
}

// readExit reads a transcript's .exit companion.
func readExit(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".exit")
	if err != nil {
		t.Fatal(err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// TestTranscripts replays every transcript through the real binary, with
// a command line from gemini.CommandLine, and checks its exit status, its
// stderr, its stdout, and what the gemini package reads from that stdout
// against the golden files.
func TestTranscripts(t *testing.T) {
	names := fakebin.Transcripts(t, testdata)
	if len(names) < 14 {
		t.Fatalf("found only %d transcripts: %q", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(testdata, filepath.FromSlash(name))
			want := fakebin.Replayed(t, path)
			want.Code = readExit(t, path)
			args, stdin := gemini.CommandLine(gemini.Options{SkipTrust: true, ApprovalMode: "yolo"}, "hello")
			got := runFake(t, []string{geminitest.EnvTranscript + "=" + path}, string(stdin), args...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fakegemini mismatch (-want +got):\n%s", diff)
			}
			resume := ""
			if filepath.Base(name) == "resume.jsonl" {
				resume = "latest"
			}
			events, err := geminitest.Render(strings.NewReader(got.Stdout), resume, got.Code)
			if err != nil {
				t.Fatal(err)
			}
			parsetest.Check(t, path, events, false)
		})
	}
}

// TestSession drives a session the way a program would: command lines from
// gemini.CommandLine, output through gemini.Turn, the exit code to
// Turn.Finish. The second run resumes the first; the third resumes a
// session that does not exist.
func TestSession(t *testing.T) {
	env := []string{geminitest.EnvTranscript + "=" + filepath.Join(testdata, "session")}
	type outcome struct {
		Texts     []string
		SessionID string
		Final     string
		Err       string
	}
	turn := func(resume, prompt string) (outcome, error) {
		args, stdin := gemini.CommandLine(gemini.Options{Resume: resume, Model: "auto", SkipTrust: true}, prompt)
		got := runFake(t, env, string(stdin), args...)
		tr := gemini.NewTurn(resume)
		var o outcome
		for e, err := range tr.Events(strings.NewReader(got.Stdout)) {
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := e.(gemini.Text); ok {
				o.Texts = append(o.Texts, e.Text)
			}
		}
		for _, e := range tr.Finish(got.Code, nil) {
			o.Final = fmt.Sprintf("%T", e)
		}
		o.SessionID = tr.SessionID()
		if err := tr.Err(); err != nil {
			o.Err = err.Error()
		}
		return o, tr.Err()
	}
	first, err1 := turn("", "-my favourite colour is teal")
	second, err2 := turn(first.SessionID, "again")
	third, err3 := turn("0badc0de-0000-4000-8000-000000000000", "again")
	const id = "acec2297-c622-47ab-b2c9-89e237aead7c"
	want := []outcome{
		{Texts: []string{"Hello from the mock server. 2 + 2 = 4."}, SessionID: id},
		{Texts: []string{"Hello from the mock server. 2 + 2 = 4."}, SessionID: id},
		{SessionID: "0badc0de-0000-4000-8000-000000000000", Final: "gemini.ResumeFailed",
			Err: "gemini: resumed session not found (exit status 42 (bad input))"},
	}
	if diff := cmp.Diff(want, []outcome{first, second, third}); diff != "" {
		t.Errorf("outcomes mismatch (-want +got):\n%s", diff)
	}
	if err1 != nil || err2 != nil || !errors.Is(err3, gemini.ErrResumeNotFound) {
		t.Errorf("errors %v, %v, %v; want nil, nil, ErrResumeNotFound", err1, err2, err3)
	}
}

func TestCommandLines(t *testing.T) {
	transcript := geminitest.EnvTranscript + "=" + filepath.Join(testdata, "plain-text.jsonl")
	stream := []string{"--output-format", "stream-json"}
	tests := []struct {
		name     string
		env      []string
		args     []string
		stdin    string
		code     int
		stderr   string // how stderr starts
		hasLines bool
	}{
		{"-p and short flags", nil, []string{"-o", "stream-json", "-m", "gemini-2.5-pro", "-y", "-p", "hi"}, "", 0,
			"Warning: Basic terminal detected", true},
		{"prompt on stdin", nil, stream, "-rf /", 0, "Warning:", true},
		{"positional query after --", nil, append(stream, "--", "--help"), "", 0, "Warning:", true},
		{"unknown flags are named", nil, append(stream, "--frobnicate", "-p", "hi"), "", 0,
			"fakegemini: ignoring unknown option --frobnicate\n", true},
		{"no prompt", nil, stream, "", 42,
			"No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\n", false},
		{"text output", nil, []string{"-p", "hi"}, "", 1,
			"fakegemini: only --output-format stream-json is supported\n", false},
		{"interactive", nil, append(stream, "-i", "hi"), "", 1,
			"fakegemini: --prompt-interactive needs a terminal; it is not supported\n", false},
		{"missing value", nil, append(stream, "--model"), "", 1, "Not enough arguments following: model\n", false},
		{"untrusted folder", []string{geminitest.EnvUntrusted + "=1"}, append(stream, "-p", "hi"), "", 55,
			"Gemini CLI is not running in a trusted directory. To proceed, trust the directory or pass --skip-trust.\n", false},
		{"untrusted folder, skipped", []string{geminitest.EnvUntrusted + "=1"}, append(stream, "--skip-trust", "-p", "hi"), "", 0,
			"Warning:", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runFake(t, append([]string{transcript}, tt.env...), tt.stdin, tt.args...)
			gotLines := strings.Count(got.Stdout, "\n") > 0
			// The transcript's own stderr follows what the fake says.
			stderr := got.Stderr[:min(len(got.Stderr), len(tt.stderr))]
			if diff := cmp.Diff([]any{tt.code, tt.stderr, tt.hasLines}, []any{got.Code, stderr, gotLines}); diff != "" {
				t.Errorf("[status stderr output] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSignals starts a replay that waits an hour before its first line and
// signals it once it is running: it must stop at once, with no output and
// the shell's status for the signal, and be gone when Wait returns.
func TestSignals(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT or SIGTERM to send on Windows")
	}
	tests := []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(testdata, "no-result.jsonl")
			cmd := testwait.Command(t, fakegemini, "--output-format=stream-json", "-p", "hi")
			cmd.Env = append(os.Environ(), geminitest.EnvTranscript+"="+path, geminitest.EnvDelay+"=1h")
			got := fakebin.Signal(t, cmd, tt.sig)
			want := fakebin.Signalled{Code: tt.code, Line: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n", Gone: true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestACP replays a capture of Gemini CLI's ACP mode through the real
// binary, as `gemini --acp`, to a client whose request ids are not the
// recorded ones: each answer carries the client's id, and the agent's
// lines come in the recorded order.
func TestACP(t *testing.T) {
	transcript := filepath.Join(testdata, "acp", "plain.ndjson")
	stdin := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":"/work","mcpServers":[]}}
{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"3be870f2-1ed1-41fb-9db1-5f0083204d36","prompt":[{"type":"text","text":"hi"}]}}
`
	res := runFake(t, []string{geminitest.EnvTranscript + "=" + transcript}, stdin, "--acp", "--skip-trust")
	if res.Code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s", res.Code, res.Stderr)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		var m struct {
			ID     *int `json:"id"`
			Method string
			Params struct {
				Update struct{ SessionUpdate string }
			}
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if m.ID != nil {
			got = append(got, "answer "+strconv.Itoa(*m.ID))
		} else {
			got = append(got, m.Params.Update.SessionUpdate)
		}
	}
	want := []string{"answer 7", "answer 8", "available_commands_update", "agent_message_chunk", "answer 9"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fakegemini --acp wrote (-want +got):\n%s", diff)
	}
}

// TestACPLenient runs the real binary as `gemini --acp` answering
// leniently, to a client that opens two sessions and calls what the
// CLI lacks, then ends its input: each session has an id of its own,
// and every answer comes before the binary exits.
func TestACPLenient(t *testing.T) {
	transcript := filepath.Join(testdata, "acp", "permission-allow.ndjson")
	stdin := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/work","mcpServers":[]}}
{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/work","mcpServers":[]}}
{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"d3050411-4a86-422d-b382-cfd57b1bc04b","prompt":[]}}
{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}
`
	res := runFake(t, []string{geminitest.EnvTranscript + "=" + transcript, geminitest.EnvLenient + "=1", geminitest.EnvDelay + "=1ms"}, stdin, "--acp", "--skip-trust")
	if res.Code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s", res.Code, res.Stderr)
	}
	var got []string
	sessions := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		var m struct {
			ID     *int `json:"id"`
			Result struct{ SessionID string }
			Error  *struct{ Code int }
			Params struct {
				SessionID string
				Update    struct{ SessionUpdate string }
			}
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch {
		case m.ID == nil:
			got = append(got, m.Params.Update.SessionUpdate)
			if !sessions[m.Params.SessionID] {
				t.Errorf("an update for session %q, which no answer opened", m.Params.SessionID)
			}
		case m.Error != nil:
			got = append(got, fmt.Sprintf("answer %d: %d", *m.ID, m.Error.Code))
		default:
			got = append(got, "answer "+strconv.Itoa(*m.ID))
			if id := m.Result.SessionID; id != "" {
				if sessions[id] || id == "d3050411-4a86-422d-b382-cfd57b1bc04b" {
					t.Errorf("session/new answered the session id %s again", id)
				}
				sessions[id] = true
			}
		}
	}
	slices.Sort(got)
	want := []string{"answer 1", "answer 2", "answer 3", "answer 4: -32602", "answer 5: -32601", "available_commands_update", "available_commands_update"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fakegemini --acp wrote (-want +got):\n%s", diff)
	}
}
