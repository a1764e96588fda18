package main_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/fakebin"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// fakecodex is the path of the binary built by TestMain.
var fakecodex string

// testdata is codex/testdata, made absolute so the child can open it from
// any directory.
var testdata, _ = filepath.Abs(filepath.Join("..", "..", "codex", "testdata"))

func TestMain(m *testing.M) { fakebin.Main(m, "fakecodex", &fakecodex) }

// runFake runs the binary to completion.
func runFake(t *testing.T, env []string, stdin string, args ...string) fakebin.Result {
	t.Helper()
	return fakebin.Run(t, fakecodex, env, stdin, args...)
}

// captured is one row of cli-0.169.0/captures.tsv: how the real CLI was
// run and how it exited.
type captured struct {
	code int
	args []string
}

// readCaptures reads captures.tsv. Its last column holds the arguments
// joined with spaces; the real command line had the flags, their values,
// "resume ID", and then the prompt as one argument.
func readCaptures(t *testing.T) map[string]captured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, "cli-0.169.0", "captures.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]captured{}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, row := range rows[1:] {
		cols := strings.Split(row, "\t")
		code, err := strconv.Atoi(cols[1])
		if err != nil || len(cols) != 5 {
			t.Fatalf("bad row %q", row)
		}
		words := strings.Fields(cols[4])
		var args []string
		i := 0
		for ; i < len(words); i++ {
			w := words[i]
			switch {
			case w == "exec" || strings.HasPrefix(w, "--"):
				args = append(args, w)
			case w == "-s" || w == "-c" || w == "resume":
				args = append(args, w, words[i+1])
				i++
			default:
				args = append(args, strings.Join(words[i:], " "))
				i = len(words)
			}
		}
		out[cols[0]] = captured{code, args}
	}
	return out
}

// handWritten is the status each hand-written transcript implies.
var handWritten = map[string]int{
	"garbage.jsonl":          1, // ends with turn.failed
	"items.jsonl":            0,
	"resume_failed.jsonl":    1, // no output at all
	"usage_limit_date.jsonl": 1,
}

// TestTranscripts replays every transcript through the real binary, the
// real captures with the exact arguments the real CLI was given, and
// checks its exit status against the real one, its stderr, its stdout, and
// the events the codex package reads from that stdout against the golden
// files.
func TestTranscripts(t *testing.T) {
	real := readCaptures(t)
	names := fakebin.Transcripts(t, testdata)
	if len(names) != len(real)+len(handWritten) {
		t.Errorf("found %d transcripts, want the %d captured and %d hand-written: %q", len(names), len(real), len(handWritten), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := []string{"exec", "--json", "hello"}
			code, ok := handWritten[name]
			if c, isReal := real[strings.TrimSuffix(strings.TrimPrefix(name, "cli-0.169.0/"), ".jsonl")]; isReal {
				args, code, ok = c.args, c.code, true
			}
			if !ok {
				t.Fatalf("no expected exit status for %s", name)
			}
			path := filepath.Join(testdata, filepath.FromSlash(name))
			want := fakebin.Replayed(t, path)
			want.Code = code
			got := runFake(t, []string{codextest.EnvTranscript + "=" + path}, "", args...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fakecodex %q mismatch (-want +got):\n%s", args, diff)
			}
			events, err := codextest.Render(strings.NewReader(got.Stdout))
			if err != nil {
				t.Fatal(err)
			}
			parsetest.Check(t, path, events, false)
		})
	}
}

// session makes a transcript directory for a two-turn thread from the
// real captures of its two runs.
func session(t *testing.T, first, second string) string {
	dir := t.TempDir()
	for name, from := range map[string]string{"new": first, "resume": second} {
		for _, ext := range []string{".jsonl", ".stderr"} {
			data, err := os.ReadFile(filepath.Join(testdata, from+ext))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+ext), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// runTurn runs one turn the way a program would: its command line from
// codex.CommandLine, its output read by a codex.Turn.
func runTurn(t *testing.T, env []string, o codex.Options, prompt string) (*codex.Turn, []string, fakebin.Result) {
	t.Helper()
	args, stdin := codex.CommandLine(o, prompt)
	got := runFake(t, env, string(stdin), args...)
	turn := codex.NewTurn(o.Resume)
	var texts []string
	for e, err := range turn.Events(strings.NewReader(got.Stdout)) {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := e.(codex.Text); ok {
			texts = append(texts, e.Text)
		}
	}
	turn.Finish(got.Code, nil)
	return turn, texts, got
}

// TestTwoTurnSession drives a thread of two runs: the second resumes the
// first's thread, and its usage is the difference of the two totals.
func TestTwoTurnSession(t *testing.T) {
	env := []string{codextest.EnvTranscript + "=" + session(t, "cli-0.169.0/plain-text", "cli-0.169.0/resume")}
	o := codex.Options{Model: "gpt-5.1-codex", Sandbox: codex.SandboxReadOnly, SkipGitRepoCheck: true}
	first, texts1, _ := runTurn(t, env, o, "-what is 2 + 2?")
	o.Resume = first.ThreadID()
	second, texts2, _ := runTurn(t, env, o, "again")

	totals := func(turn *codex.Turn) usage.CodexUsage {
		final, _ := turn.Final()
		u, err := usage.ParseCodexUsage(final.(codex.TurnCompleted).Usage)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	turn2 := totals(second).Since(totals(first)).Report()
	got := []any{first.Err(), second.Err(), texts1, texts2, first.ThreadID(), second.ThreadID(), turn2.Input.String(), turn2.Output.String()}
	want := []any{nil, nil,
		[]string{"Hello from the mock server. 2 + 2 = 4."}, []string{"Hello from the mock server. 2 + 2 = 4."},
		"01a23170-f4e4-79a3-8053-87c2b8ccf99b", "01a23170-f4e4-79a3-8053-87c2b8ccf99b", "9251", "26",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[err1 err2 texts1 texts2 thread1 thread2 input2 output2] mismatch (-want +got):\n%s", diff)
	}
}

// TestResumeRefused resumes a thread the CLI does not have: nothing on
// stdout, the reason on stderr, status 1.
func TestResumeRefused(t *testing.T) {
	env := []string{codextest.EnvTranscript + "=" + session(t, "cli-0.169.0/plain-text", "resume_failed")}
	const gone = "0199a213-0000-7000-8000-000000000000"
	turn, _, got := runTurn(t, env, codex.Options{Resume: gone}, "hello")
	final, _ := turn.Final()
	want := []any{codex.ExitFailure, "", codex.ResumeFailed{ThreadID: gone, Exit: 1}, true, true}
	got2 := []any{codex.ExitStatus(got.Code).Kind(), got.Stdout, final, errors.Is(turn.Err(), codex.ErrResumeNotFound), codex.ResumeNotFound([]byte(got.Stderr))}
	if diff := cmp.Diff(want, got2); diff != "" {
		t.Errorf("[status stdout final errResumeNotFound notFound] mismatch (-want +got):\n%s", diff)
	}
}

func TestCommandLines(t *testing.T) {
	env := []string{codextest.EnvTranscript + "=" + filepath.Join(testdata, "items.jsonl")}
	json := []string{"exec", "--json"}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stderr   string
		hasLines bool
	}{
		{"prompt on stdin", append(json, "-"), "-rf /", 0, "", true},
		{"prompt on stdin without -", json, "hi", 0, "", true},
		{"prompt after --", append(json, "--", "--help"), "", 0, "", true},
		{"short flags", append(json, "-m", "gpt-5.1-codex", "-s=workspace-write", "-cmodel_reasoning_effort=\"high\"", "-C", "/tmp", "hi"), "", 0, "", true},
		{"resume --last", append(json, "resume", "--last", "hi"), "", 0, "", true},
		{"no prompt", json, "", 1, "No prompt provided via stdin.\n", false},
		{"unknown flag", append(json, "--frobnicate", "hi"), "", 2, "error: unexpected argument '--frobnicate' found\n", false},
		{"two prompts", append(json, "hi", "there"), "", 2, "error: unexpected argument 'there' found\n", false},
		{"bad sandbox", append(json, "--sandbox", "none", "hi"), "", 2, "error: invalid value 'none' for '--sandbox <SANDBOX_MODE>'\n", false},
		{"missing value", append(json, "hi", "--model"), "", 2, "error: a value is required for '--model' but none was supplied\n", false},
		{"resume without an id", append(json, "resume"), "", 2, "error: resume needs a SESSION_ID or --last\n", false},
		{"without --json", []string{"exec", "hi"}, "", 2, "fakecodex: only --json output is supported\n", false},
		{"not exec", []string{"--json", "hi"}, "", 2, "fakecodex: only `codex exec` is supported\n", false},
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
	path := filepath.Join(testdata, "items.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{codextest.EnvTranscript + "=" + path}
	got := runFake(t, append(env, codextest.EnvDelay+"=5ms"), "", "exec", "--json", "hi")
	if diff := cmp.Diff([]any{0, string(data)}, []any{got.Code, got.Stdout}); diff != "" {
		t.Errorf("[status stdout] mismatch (-want +got):\n%s", diff)
	}
	bad := runFake(t, append(env, codextest.EnvDelay+"=soon"), "", "exec", "--json", "hi")
	if bad.Code != 1 || !strings.Contains(bad.Stderr, codextest.EnvDelay) {
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
		{syscall.SIGINT, codextest.ExitInterrupt},
		{syscall.SIGTERM, codextest.ExitTerminate},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(testdata, "cli-0.169.0", "plain-text.jsonl")
			cmd := testwait.Command(t, fakecodex, "exec", "--json", "hi")
			cmd.Env = append(os.Environ(), codextest.EnvTranscript+"="+path, codextest.EnvDelay+"=1h")
			got := fakebin.Signal(t, cmd, tt.sig)
			if diff := cmp.Diff([]any{tt.code, "", true, true}, []any{got.Code, got.Stdout, strings.HasPrefix(got.Line, "WARNING:"), got.Gone}); diff != "" {
				t.Errorf("[status stdout stderr gone] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAppServer runs the binary as `codex app-server` over each capture
// of the real one, with the captured client's lines on its standard input:
// it must answer with the captured server's lines, write the capture's
// stderr, and exit 0 at the end of its input, as the real server did.
func TestAppServer(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(testdata, "appserver", "*.ndjson"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no app-server captures: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := codextest.ReadAppServerTranscript(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var stdin, stdout strings.Builder
			for _, r := range recs {
				switch {
				case r.Dir == codextest.DirClient:
					stdin.Write(append(r.Msg, '\n'))
				case r.Dir == codextest.DirServer && r.Msg != nil:
					stdout.Write(append(r.Msg, '\n'))
				}
			}
			stderr, err := os.ReadFile(strings.TrimSuffix(path, ".ndjson") + ".stderr")
			if err != nil {
				t.Fatal(err)
			}
			got := runFake(t, []string{codextest.EnvTranscript + "=" + path}, stdin.String(), "app-server", "-c", "model_providers.mock.request_max_retries=1")
			want := fakebin.Result{Code: 0, Stdout: stdout.String(), Stderr: string(stderr)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fakecodex app-server mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// startAppServer starts the binary as `codex app-server` on the
// transcript at path, with env besides this process's, and a
// codex.Session over it, whose events come on the channel returned, which
// closes when the fake's output ends.
func startAppServer(t *testing.T, path string, env ...string) (*exec.Cmd, io.WriteCloser, *strings.Builder, *codex.Session, <-chan codex.Event) {
	t.Helper()
	cmd := testwait.Command(t, fakecodex, "app-server")
	cmd.Env = append(append(os.Environ(), codextest.EnvTranscript+"="+path), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := codex.NewSession(stdin)
	events := make(chan codex.Event, 256)
	go func() {
		defer close(events)
		for e, err := range s.Events(stdout) {
			if err != nil {
				t.Errorf("reading the fake: %v", err)
				continue
			}
			events <- e
		}
	}()
	return cmd, stdin, stderr, s, events
}

// TestAppServerSession drives the binary, as `codex app-server`, with a
// codex.Session through the capture of an approved command: the fake
// checks every line the Session writes, and exits 0 once the Session
// closes its input.
func TestAppServerSession(t *testing.T) {
	path := filepath.Join(testdata, "appserver", "command-approval-accept.ndjson")
	cmd, stdin, stderr, s, events := startAppServer(t, path)
	ctx := testwait.Context(t)
	if _, err := s.Initialize(ctx, codex.ClientInfo{Name: "test", Version: "1"}, codex.InitializeOptions{}); err != nil {
		t.Fatal(err)
	}
	th, err := s.StartThread(ctx, codex.ThreadOptions{ApprovalPolicy: codex.ApprovalUntrusted, Sandbox: codex.SandboxWorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartTurn(ctx, th.Thread.ID, []codex.Input{codex.TextInput("Create cmd-ran.txt.")}, codex.TurnOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for e := range events {
		switch e := e.(type) {
		case codex.CommandApproval:
			got = append(got, "asked: "+e.Command)
			if err := s.Decide(e, codex.DecisionAccept); err != nil {
				t.Fatal(err)
			}
		case codex.CommandExecution:
			got = append(got, e.Phase.String()+": "+string(e.Status)+" "+strings.TrimSpace(e.Output))
		case codex.TurnEnd:
			got = append(got, "turn "+string(e.Turn.Status))
			stdin.Close()
		}
	}
	if code := fakebin.Wait(t, cmd, cmd.Wait()); code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	want := []string{"started: in_progress ", "asked: /bin/bash -lc 'touch cmd-ran.txt && echo ran'", "completed: completed ran", "turn completed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the Session saw (-want +got):\n%s", diff)
	}
}

// TestAppServerLenient drives the binary, as a lenient `codex app-server`,
// with a codex.Session as the bridge does, which the strict replay could
// not serve: two threads, a turn on each from the capture of an approved
// command, the first interrupted while its approval waits, the second
// approved to its end.
func TestAppServerLenient(t *testing.T) {
	path := filepath.Join(testdata, "appserver", "command-approval-accept.ndjson")
	cmd, stdin, stderr, s, events := startAppServer(t, path, codextest.EnvLenient+"=1", codextest.EnvDelay+"=1ms")
	ctx := testwait.Context(t)
	if _, err := s.Initialize(ctx, codex.ClientInfo{Name: "test", Version: "1"}, codex.InitializeOptions{}); err != nil {
		t.Fatal(err)
	}
	var threads []string
	for range 2 {
		th, err := s.StartThread(ctx, codex.ThreadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		threads = append(threads, th.Thread.ID)
	}
	if threads[0] == threads[1] {
		t.Fatalf("two threads with one id, %s", threads[0])
	}
	var got []string
	for i, th := range threads {
		if _, err := s.StartTurn(ctx, th, []codex.Input{codex.TextInput("Create cmd-ran.txt.")}, codex.TurnOptions{}); err != nil {
			t.Fatal(err)
		}
	turn:
		for e := range events {
			switch e := e.(type) {
			case codex.CommandApproval:
				got = append(got, fmt.Sprintf("thread %d asked", i))
				if i == 0 {
					if err := s.Interrupt(ctx, th); err != nil {
						t.Fatal(err)
					}
				} else if err := s.Decide(e, codex.DecisionAccept); err != nil {
					t.Fatal(err)
				}
			case codex.CommandExecution:
				got = append(got, fmt.Sprintf("thread %d %s: %s %s", i, e.Phase, e.Status, strings.TrimSpace(e.Output)))
			case codex.TurnEnd:
				got = append(got, fmt.Sprintf("thread %d turn %s", i, e.Turn.Status))
				break turn
			}
		}
	}
	stdin.Close()
	for range events {
	}
	if code := fakebin.Wait(t, cmd, cmd.Wait()); code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	want := []string{
		"thread 0 started: in_progress ", "thread 0 asked", "thread 0 turn interrupted",
		"thread 1 started: in_progress ", "thread 1 asked", "thread 1 completed: completed ran", "thread 1 turn completed",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the Session saw (-want +got):\n%s", diff)
	}
}
