package main_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/fakebin"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// fakeclaude is the path of the binary built by TestMain.
var fakeclaude string

// testdata is claude/testdata, made absolute so the child can open it
// from any directory.
var testdata, _ = filepath.Abs(filepath.Join("..", "..", "claude", "testdata"))

func TestMain(m *testing.M) { fakebin.Main(m, "fakeclaude", &fakeclaude) }

// runFake runs the binary to completion.
func runFake(t *testing.T, env []string, stdin string, args ...string) fakebin.Result {
	t.Helper()
	return fakebin.Run(t, fakeclaude, env, stdin, args...)
}

var streamArgs = []string{"-p", "--output-format", "stream-json", "--verbose"}

// wantExit is the status each transcript's result implies.
var wantExit = map[string]int{
	"api_error.jsonl":         1,
	"garbage.jsonl":           0,
	"max_turns.jsonl":         1,
	"multiblock.jsonl":        0,
	"no_result.jsonl":         1,
	"partial.jsonl":           0,
	"partial_tool.jsonl":      0,
	"permission_denied.jsonl": 0,
	"rate_limited.jsonl":      1,
	"rate_warning.jsonl":      1,
	"resume_failed.jsonl":     1,
	"session/new.jsonl":       0,
	"session/resume.jsonl":    0,
	"subagent.jsonl":          0,
	"tool_roundtrip.jsonl":    0,
	"unknown.jsonl":           0,

	"cli-2.1.328/api-error-529.jsonl":       1,
	"cli-2.1.328/partial.jsonl":             0,
	"cli-2.1.328/plain-text.jsonl":          0,
	"cli-2.1.328/rate-limit-rejected.jsonl": 1,
	"cli-2.1.328/rate-limit-warning.jsonl":  0,
	"cli-2.1.328/resume.jsonl":              0,
	"cli-2.1.328/tool-use.jsonl":            0,
}

// TestTranscripts replays every transcript through the real binary and
// checks its exit status, its stderr, its stdout, and the events the claude
// package reads from that stdout against the golden files.
func TestTranscripts(t *testing.T) {
	names := fakebin.Transcripts(t, testdata)
	if len(names) != len(wantExit) {
		t.Errorf("found %d transcripts, wantExit lists %d: %q", len(names), len(wantExit), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, ok := wantExit[name]
			if !ok {
				t.Fatalf("no expected exit status for %s", name)
			}
			path := filepath.Join(testdata, filepath.FromSlash(name))
			want := fakebin.Replayed(t, path)
			want.Code = code
			got := runFake(t, []string{"FAKECLAUDE_TRANSCRIPT=" + path}, "", append(streamArgs, "hello")...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fakeclaude mismatch (-want +got):\n%s", diff)
			}
			events, err := claudetest.Render(strings.NewReader(got.Stdout))
			if err != nil {
				t.Fatal(err)
			}
			parsetest.Check(t, path, events, false)
		})
	}
}

// TestTwoTurnSession drives a conversation of two runs the way a program
// would: command lines from claude.CommandLine, output through claude.Turn.
func TestTwoTurnSession(t *testing.T) {
	env := []string{"FAKECLAUDE_TRANSCRIPT=" + filepath.Join(testdata, "session")}
	turn := func(resume, prompt string) (*claude.Turn, []string) {
		args, stdin := claude.CommandLine(claude.Options{Resume: resume, Model: "sonnet"}, prompt)
		got := runFake(t, env, string(stdin), args...)
		if got.Code != 0 || got.Stderr != "" {
			t.Fatalf("status %d, stderr %q", got.Code, got.Stderr)
		}
		tr := claude.NewTurn(resume)
		var texts []string
		for e, err := range tr.Events(strings.NewReader(got.Stdout)) {
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := e.(claude.Text); ok {
				texts = append(texts, e.Text)
			}
		}
		if !tr.Done() {
			t.Fatal("the run ended without its result")
		}
		return tr, texts
	}
	first, texts1 := turn("", "-my favourite colour is teal")
	second, texts2 := turn(first.SessionID(), "what is my favourite colour?")
	got := []any{texts1, texts2, first.SessionID(), second.SessionID()}
	want := []any{
		[]string{"Noted: your favourite colour is teal."},
		[]string{"Your favourite colour is teal."},
		"7d1e4b2a-9c3f-4e8d-a5b6-0f2c1d3e4a5b",
		"7d1e4b2a-9c3f-4e8d-a5b6-0f2c1d3e4a5b",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[texts1 texts2 session1 session2] mismatch (-want +got):\n%s", diff)
	}
}

func TestCommandLines(t *testing.T) {
	env := []string{"FAKECLAUDE_TRANSCRIPT=" + filepath.Join(testdata, "multiblock.jsonl")}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stderr   string
		hasLines bool
	}{
		{"without --verbose", []string{"-p", "--output-format", "stream-json", "hi"}, "", 1,
			"Error: When using --print, --output-format=stream-json requires --verbose\n", false},
		{"unknown flags are named", append(streamArgs, "--frobnicate", "hi"), "", 0,
			"fakeclaude: ignoring unknown option --frobnicate\n", true},
		{"prompt on stdin", streamArgs, "-rf /", 0, "", true},
		{"prompt after --", append(streamArgs, "--", "--help"), "", 0, "", true},
		{"no prompt", streamArgs, "", 1,
			"Error: Input must be provided either through stdin or as a prompt argument when using --print\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runFake(t, env, tt.stdin, tt.args...)
			gotLines := strings.Count(got.Stdout, "\n") > 0
			if diff := cmp.Diff([]any{tt.code, tt.stderr, tt.hasLines}, []any{got.Code, got.Stderr, gotLines}); diff != "" {
				t.Errorf("[status stderr output] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDelay replays with a short delay and checks that the output is
// complete; TestSignals shows the delay is really waited.
func TestDelay(t *testing.T) {
	path := filepath.Join(testdata, "garbage.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := runFake(t, []string{"FAKECLAUDE_TRANSCRIPT=" + path, "FAKECLAUDE_DELAY=20ms"}, "", append(streamArgs, "hi")...)
	if diff := cmp.Diff([]any{0, string(data)}, []any{got.Code, got.Stdout}); diff != "" {
		t.Errorf("[status stdout] mismatch (-want +got):\n%s", diff)
	}
	bad := runFake(t, []string{"FAKECLAUDE_TRANSCRIPT=" + path, "FAKECLAUDE_DELAY=soon"}, "", append(streamArgs, "hi")...)
	if bad.Code != 1 || !strings.Contains(bad.Stderr, "FAKECLAUDE_DELAY") {
		t.Errorf("bad delay: status %d, stderr %q", bad.Code, bad.Stderr)
	}
}

// TestSignals starts a replay that waits an hour before its first line and
// signals it once it is running: it must stop at once, with no output and
// the shell's status for the signal, and be reaped.
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
			path := filepath.Join(testdata, "no_result.jsonl")
			cmd := testwait.Command(t, fakeclaude, append(streamArgs, "hi")...)
			cmd.Env = append(os.Environ(), "FAKECLAUDE_TRANSCRIPT="+path, "FAKECLAUDE_DELAY=1h")
			got := fakebin.Signal(t, cmd, tt.sig)
			want := fakebin.Signalled{Code: tt.code, Line: "Error: Claude Code process exited unexpectedly\n", Gone: true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
