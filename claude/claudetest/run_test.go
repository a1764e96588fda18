package claudetest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

var streamArgs = []string{"-p", "--output-format", "stream-json", "--verbose"}

// testdata opens files under claude/testdata by their names there.
var testdata = os.DirFS("../testdata").Open

func args(extra ...string) []string {
	return append(append([]string{}, streamArgs...), extra...)
}

type outcome struct {
	Code   int
	Stdout string
	Stderr string
}

func run(t *testing.T, ctx context.Context, env claudetest.Env) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env.Stdout, env.Stderr = &stdout, &stderr
	if env.Open == nil {
		env.Open = testdata
	}
	code := claudetest.Run(ctx, env)
	return outcome{code, stdout.String(), stderr.String()}
}

func environ(vars ...string) func(string) string {
	return func(key string) string {
		for i := 0; i+1 < len(vars); i += 2 {
			if vars[i] == key {
				return vars[i+1]
			}
		}
		return ""
	}
}

// wantExit is the exit status each transcript's result implies.
var wantExit = map[string]int{
	"api_error.jsonl":         1, // error_during_execution
	"garbage.jsonl":           0,
	"max_turns.jsonl":         1, // error_max_turns
	"multiblock.jsonl":        0,
	"no_result.jsonl":         1, // no result line
	"partial.jsonl":           0,
	"partial_tool.jsonl":      0,
	"permission_denied.jsonl": 0,
	"rate_limited.jsonl":      1, // success with is_error
	"rate_warning.jsonl":      1, // success with is_error
	"resume_failed.jsonl":     1,
	"session/new.jsonl":       0,
	"session/resume.jsonl":    0,
	"subagent.jsonl":          0,
	"tool_roundtrip.jsonl":    0,
	"unknown.jsonl":           0,

	"cli-2.1.328/api-error-529.jsonl":       1, // success with is_error
	"cli-2.1.328/partial.jsonl":             0,
	"cli-2.1.328/plain-text.jsonl":          0,
	"cli-2.1.328/rate-limit-rejected.jsonl": 1, // success with is_error
	"cli-2.1.328/rate-limit-warning.jsonl":  0,
	"cli-2.1.328/resume.jsonl":              0,
	"cli-2.1.328/tool-use.jsonl":            0,
}

func TestRunReplaysEveryTranscript(t *testing.T) {
	names, err := fs.Glob(os.DirFS("../testdata"), "*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := fs.Glob(os.DirFS("../testdata"), "*/*.jsonl")
	names = append(names, more...)
	if len(names) != len(wantExit) {
		t.Errorf("testdata has %d transcripts, wantExit lists %d: %q", len(names), len(wantExit), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			code, ok := wantExit[name]
			if !ok {
				t.Fatalf("no expected exit status for %s", name)
			}
			data, err := os.ReadFile(filepath.Join("../testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			companion, err := os.ReadFile(filepath.Join("../testdata", strings.TrimSuffix(name, ".jsonl")+".stderr"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			got := run(t, t.Context(), claudetest.Env{Args: args("hello"), Getenv: environ(claudetest.EnvTranscript, name)})
			want := outcome{code, string(data), string(companion)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Run mismatch (-want +got):\n%s", diff)
			}
			golden, err := os.ReadFile(filepath.Join("../testdata", strings.TrimSuffix(name, ".jsonl")+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			rendered, err := claudetest.Render(strings.NewReader(got.Stdout))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(golden), string(rendered)); diff != "" {
				t.Errorf("events of the replay differ from the golden file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunCommandLines(t *testing.T) {
	first := func(name string) string {
		data, err := os.ReadFile(filepath.Join("../testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(string(data), "\n")
		return line
	}
	newFirst, resumeFirst := first("session/new.jsonl"), first("session/resume.jsonl")
	env := environ(claudetest.EnvTranscript, "session")
	tests := []struct {
		name       string
		args       []string
		stdin      string
		getenv     func(string) string
		code       int
		firstLine  string // first line of stdout
		stderrHas  string
		stderrNone bool
	}{
		{name: "new conversation from a directory", args: args("hi"), getenv: env, firstLine: newFirst, stderrNone: true},
		{name: "resume equals form", args: args("--resume=7d1e4b2a", "hi"), getenv: env, firstLine: resumeFirst},
		{name: "resume separate value", args: args("--resume", "7d1e4b2a", "hi"), getenv: env, firstLine: resumeFirst},
		{name: "resume short form", args: append([]string{"-r", "7d1e4b2a"}, args("hi")...), getenv: env, firstLine: resumeFirst},
		{name: "prompt from stdin", args: args(), stdin: "what is my colour?", getenv: env, firstLine: newFirst},
		{name: "prompt after --", args: args("--", "-rf", "/"), getenv: env, firstLine: newFirst, stderrNone: true},
		{name: "every known option", args: args("--model", "opus", "--permission-mode=plan", "--max-turns", "3",
			"--include-partial-messages", "--mcp-config", "{}", "--append-system-prompt", "Be brief.",
			"--allowedTools=Read,Bash", "--disallowedTools", "WebFetch", "hi"), getenv: env, firstLine: newFirst, stderrNone: true},
		{name: "flag order does not matter", args: []string{"--verbose", "hi", "--output-format=stream-json", "--print"}, getenv: env, firstLine: newFirst},
		{name: "unknown flags are named and ignored", args: args("--frobnicate", "--colour=blue", "hi"), getenv: env, firstLine: newFirst, stderrHas: "--frobnicate"},
		{name: "-transcript beats the environment", args: args("-transcript", "resume_failed.jsonl", "hi"), getenv: env, code: 1,
			firstLine: first("resume_failed.jsonl"), stderrHas: "No conversation found"},
		{name: "without --verbose", args: []string{"-p", "--output-format", "stream-json", "hi"}, getenv: env, code: 1,
			stderrHas: "Error: When using --print, --output-format=stream-json requires --verbose"},
		{name: "without -p", args: []string{"--output-format", "stream-json", "--verbose", "hi"}, getenv: env, code: 1, stderrHas: "-p"},
		{name: "text output", args: []string{"-p", "--output-format", "text", "--verbose", "hi"}, getenv: env, code: 1, stderrHas: "stream-json"},
		{name: "no prompt", args: args(), stdin: " \n", getenv: env, code: 1, stderrHas: "Input must be provided"},
		{name: "missing option value", args: args("hi", "--model"), getenv: env, code: 1, stderrHas: "--model"},
		{name: "bad max turns", args: args("--max-turns=many", "hi"), getenv: env, code: 1, stderrHas: "--max-turns"},
		{name: "no transcript", args: args("hi"), getenv: environ(), code: 1, stderrHas: claudetest.EnvTranscript},
		{name: "missing transcript", args: args("-transcript", "nope.jsonl", "hi"), getenv: env, code: 1, stderrHas: "nope.jsonl"},
		{name: "missing resume.jsonl", args: args("-transcript", ".", "--resume=x", "hi"), getenv: env, code: 1, stderrHas: "resume.jsonl"},
		{name: "bad delay", args: args("hi"), getenv: environ(claudetest.EnvTranscript, "session", claudetest.EnvDelay, "soon"), code: 1, stderrHas: claudetest.EnvDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, t.Context(), claudetest.Env{Args: tt.args, Stdin: strings.NewReader(tt.stdin), Getenv: tt.getenv})
			gotFirst, _, _ := strings.Cut(got.Stdout, "\n")
			if diff := cmp.Diff([]any{tt.code, tt.firstLine}, []any{got.Code, gotFirst}); diff != "" {
				t.Errorf("[code, first line] mismatch (-want +got):\n%s\nstderr: %s", diff, got.Stderr)
			}
			if !strings.Contains(got.Stderr, tt.stderrHas) {
				t.Errorf("stderr %q does not contain %q", got.Stderr, tt.stderrHas)
			}
			if tt.stderrNone && got.Stderr != "" {
				t.Errorf("stderr = %q, want nothing", got.Stderr)
			}
		})
	}
}

func TestRunDelay(t *testing.T) {
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	got := run(t, t.Context(), claudetest.Env{
		Args:   args("hi"),
		Getenv: environ(claudetest.EnvTranscript, "multiblock.jsonl", claudetest.EnvDelay, "250ms"),
		Sleep:  sleep,
	})
	lines := strings.Count(got.Stdout, "\n")
	want := make([]time.Duration, lines)
	for i := range want {
		want[i] = 250 * time.Millisecond
	}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits mismatch (-want +got):\n%s", diff)
	}
	if lines == 0 || got.Code != 0 {
		t.Errorf("replayed %d lines with status %d", lines, got.Code)
	}
}

func TestRunStops(t *testing.T) {
	tests := []struct {
		name  string
		cause error
		want  int
	}{
		{"plain cancel is an interrupt", nil, claudetest.ExitInterrupt},
		{"SIGTERM", claudetest.Stopped{Code: claudetest.ExitTerminate}, claudetest.ExitTerminate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			n := 0
			sleep := func(ctx context.Context, d time.Duration) error {
				n++
				if n == 3 {
					cancel(tt.cause) // the signal arrives during the third wait
				}
				return ctx.Err()
			}
			got := run(t, ctx, claudetest.Env{
				Args:   args("hi"),
				Getenv: environ(claudetest.EnvTranscript, "tool_roundtrip.jsonl", claudetest.EnvDelay, "1s"),
				Sleep:  sleep,
			})
			if diff := cmp.Diff([]int{tt.want, 2}, []int{got.Code, strings.Count(got.Stdout, "\n")}); diff != "" {
				t.Errorf("[code, lines written] mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		got := run(t, ctx, claudetest.Env{Args: args("hi"), Getenv: environ(claudetest.EnvTranscript, "multiblock.jsonl")})
		if diff := cmp.Diff(outcome{Code: claudetest.ExitInterrupt}, got); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})
}

// blockingReader reports its first Read, and the first Read that ends
// with an error, then reads from r.
type blockingReader struct {
	r                 io.Reader
	started, finished chan struct{}
}

func (b *blockingReader) Read(p []byte) (int, error) {
	select {
	case <-b.started:
	default:
		close(b.started)
	}
	n, err := b.r.Read(p)
	if err != nil {
		close(b.finished)
	}
	return n, err
}

// TestRunStopsWhileReadingStdin checks that a stdin nobody closes does not
// keep Run from stopping, and that the read Run leaves behind ends when the
// pipe is closed.
func TestRunStopsWhileReadingStdin(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	stdin := &blockingReader{r: stdinR, started: make(chan struct{}), finished: make(chan struct{})}
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan outcome, 1)
	go func() {
		done <- run(t, ctx, claudetest.Env{Args: args(), Stdin: stdin, Getenv: environ(claudetest.EnvTranscript, "multiblock.jsonl")})
	}()
	testwait.For(t, stdin.started, "Run to read stdin")
	cancel(claudetest.Stopped{Code: claudetest.ExitTerminate})
	got := testwait.For(t, done, "Run to stop")
	stdinW.Close() // ends the read Run left behind
	testwait.For(t, stdin.finished, "the read Run left behind to end")
	if diff := cmp.Diff(outcome{Code: claudetest.ExitTerminate}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestRunStdoutClosed(t *testing.T) {
	var stderr bytes.Buffer
	code := claudetest.Run(t.Context(), claudetest.Env{
		Args: args("hi"), Stdout: failingWriter{}, Stderr: &stderr, Open: testdata,
		Getenv: environ(claudetest.EnvTranscript, "multiblock.jsonl"),
	})
	if code != claudetest.ExitError || !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("code %d, stderr %q; want 1 and the write error", code, stderr.String())
	}
}

func TestStoppedError(t *testing.T) {
	want := "claudetest: stopped with exit status 143"
	if got := (claudetest.Stopped{Code: claudetest.ExitTerminate}).Error(); got != want {
		t.Errorf("Stopped.Error() = %q, want %q", got, want)
	}
}

// TestRunAuth checks that `auth login` and `auth logout` stand for the
// real CLI's sign-in and sign-out, succeeding, or failing with
// FAKECLAUDE_AUTH_FAILS set.
func TestRunAuth(t *testing.T) {
	tests := []struct {
		args  []string
		env   []string
		code  int
		out   string
		inErr string
	}{
		{[]string{"auth", "login"}, nil, claudetest.ExitOK, "Signed in to the fake Claude Code.\n", ""},
		{[]string{"auth", "logout"}, nil, claudetest.ExitOK, "Signed out of the fake Claude Code.\n", ""},
		{[]string{"auth", "login"}, []string{claudetest.EnvAuthFails, "1"}, claudetest.ExitError, "", "auth login failed"},
	}
	for _, tt := range tests {
		got := run(t, context.Background(), claudetest.Env{Args: tt.args, Getenv: environ(tt.env...)})
		if got.Code != tt.code || got.Stdout != tt.out || !strings.Contains(got.Stderr, tt.inErr) {
			t.Errorf("%q: got %d %q %q, want %d %q and stderr with %q", tt.args, got.Code, got.Stdout, got.Stderr, tt.code, tt.out, tt.inErr)
		}
	}
}
