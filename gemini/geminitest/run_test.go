package geminitest

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

const (
	newRun    = `{"type":"init","session_id":"s-1","model":"auto"}` + "\n" + `{"type":"result","status":"success"}` + "\n"
	resumeRun = `{"type":"init","session_id":"s-1","model":"auto"}` + "\n" + `{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"m"}}`
)

var files = fstest.MapFS{
	"conv/new.jsonl":     {Data: []byte(newRun)},
	"conv/resume.jsonl":  {Data: []byte(resumeRun)},
	"conv/resume.exit":   {Data: []byte("53\n")},
	"one.jsonl":          {Data: []byte(newRun)},
	"one.stderr":         {Data: []byte("warming up\n")},
	"bad-exit.jsonl":     {Data: []byte(newRun)},
	"bad-exit.exit":      {Data: []byte("lots")},
	"no-result.jsonl":    {Data: []byte(`{"type":"init","session_id":"s-2"}`)},
	"failed.jsonl":       {Data: []byte(resumeRun)},
	"empty-conv/x.jsonl": {Data: nil},
}

type outcome struct {
	Code           int
	Stdout, Stderr string
}

func run(ctx context.Context, transcript, stdin string, args ...string) outcome {
	var stdout, stderr strings.Builder
	code := Run(ctx, Env{
		Args:   args,
		Stdin:  strings.NewReader(stdin),
		Stdout: &stdout,
		Stderr: &stderr,
		Open:   files.Open,
		Getenv: func(k string) string {
			if k == EnvTranscript {
				return transcript
			}
			return ""
		},
	})
	return outcome{code, stdout.String(), stderr.String()}
}

func TestRun(t *testing.T) {
	stream := []string{"-o", "stream-json"}
	tests := []struct {
		name       string
		transcript string
		stdin      string
		args       []string
		want       outcome
	}{
		{"new run of a session", "conv", "hi", stream, outcome{0, newRun, ""}},
		{"resume latest", "conv", "hi", append(stream, "--resume", "latest"), outcome{53, resumeRun + "\n", ""}},
		{"resume by index", "conv", "hi", append(stream, "-r=1"), outcome{53, resumeRun + "\n", ""}},
		{"resume by id", "conv", "hi", append(stream, "--resume=s-1"), outcome{53, resumeRun + "\n", ""}},
		{"resume an unknown id", "conv", "hi", append(stream, "--resume", "s-9"), outcome{42, "",
			"Error resuming session: no session found with identifier \"s-9\"\n"}},
		{"resume index 2", "conv", "hi", append(stream, "--resume", "2"), outcome{42, "",
			"Error resuming session: no session found with identifier \"2\"\n"}},
		{"stderr companion", "one.jsonl", "", append(stream, "-p", "hi"), outcome{0, newRun, "warming up\n"}},
		{"transcript flag", "", "", append(stream, "--transcript=one.jsonl", "hi"), outcome{0, newRun, "warming up\n"}},
		{"bad exit file", "bad-exit.jsonl", "hi", stream, outcome{1, newRun,
			"fakegemini: bad-exit.exit: \"lots\" is not an exit status\n"}},
		{"no result", "no-result.jsonl", "hi", stream, outcome{1, `{"type":"init","session_id":"s-2"}` + "\n", ""}},
		{"failed result without exit file", "failed.jsonl", "hi", stream, outcome{1, resumeRun + "\n", ""}},
		{"no transcript", "", "hi", stream, outcome{1, "",
			"fakegemini: no transcript: pass --transcript FILE or set FAKEGEMINI_TRANSCRIPT\n"}},
		{"missing transcript", "gone.jsonl", "hi", stream, outcome{1, "", "fakegemini: open gone.jsonl: file does not exist\n"}},
		{"blank stdin is no prompt", "one.jsonl", " \n", stream, outcome{42, "",
			"No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t.Context(), tt.transcript, tt.stdin, tt.args...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunStopped(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(Stopped{Code: ExitTerminate})
	if got := run(ctx, "one.jsonl", "hi", "-o", "stream-json"); got.Code != ExitTerminate || got.Stdout != "" {
		t.Errorf("got %+v, want status %d and no output", got, ExitTerminate)
	}
	ctx, cancel2 := context.WithCancel(t.Context())
	cancel2()
	if got := run(ctx, "one.jsonl", "hi", "-o", "stream-json"); got.Code != ExitInterrupt {
		t.Errorf("got status %d, want %d", got.Code, ExitInterrupt)
	}
}

// TestRunStoppedWhileReadingStdin cancels Run while it waits for its input:
// it returns at once, and the reading goroutine ends when the pipe closes.
func TestRunStoppedWhileReadingStdin(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, Env{Args: []string{"-o", "stream-json"}, Stdin: pr, Open: files.Open,
			Getenv: func(k string) string {
				if k == EnvTranscript {
					return "one.jsonl"
				}
				return ""
			}})
	}()
	cancel()
	if code := testwait.For(t, done, "Run to return after its context ended"); code != ExitInterrupt {
		t.Errorf("status %d, want %d", code, ExitInterrupt)
	}
}

// TestRunDelay checks that the delay is waited before every line, through
// the Sleep it is given.
func TestRunDelay(t *testing.T) {
	var waits []time.Duration
	code := Run(t.Context(), Env{
		Args:   []string{"-o", "stream-json", "-p", "hi"},
		Open:   files.Open,
		Getenv: envMap{EnvTranscript: "one.jsonl", EnvDelay: "5ms"}.get,
		Sleep: func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		},
	})
	if diff := cmp.Diff([]any{0, []time.Duration{5 * time.Millisecond, 5 * time.Millisecond}}, []any{code, waits}); diff != "" {
		t.Errorf("[status waits] mismatch (-want +got):\n%s", diff)
	}
}

type envMap map[string]string

func (m envMap) get(k string) string { return m[k] }
