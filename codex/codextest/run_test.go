package codextest_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

var transcripts = fstest.MapFS{
	"ok.jsonl":      {Data: []byte(`{"type":"thread.started","thread_id":"t1"}` + "\n" + `{"type":"turn.completed","usage":{}}`)},
	"fail.jsonl":    {Data: []byte(`{"type":"thread.started","thread_id":"t1"}` + "\n" + `{"type":"turn.failed","error":{"message":"no"}}` + "\n")},
	"cut.jsonl":     {Data: []byte(`{"type":"thread.started","thread_id":"t1"}` + "\n" + `{"type":"turn.started"}` + "\n")},
	"dir/new.jsonl": {Data: []byte(`{"type":"thread.started","thread_id":"t1"}` + "\n" + `{"type":"turn.completed","usage":{}}` + "\n")},
	// An empty resume.jsonl: the CLI refused the thread.
	"dir/resume.jsonl":  {Data: nil},
	"dir/resume.stderr": {Data: []byte("ERROR: No saved session found with ID t1.\n")},
}

func run(ctx context.Context, transcript string, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = codextest.Run(ctx, codextest.Env{
		Args: args, Stdin: stdin, Stdout: &out, Stderr: &errOut, Open: transcripts.Open,
		Getenv: func(key string) string {
			if key == codextest.EnvTranscript {
				return transcript
			}
			return ""
		},
	})
	return code, out.String(), errOut.String()
}

func TestRunStatus(t *testing.T) {
	tests := []struct {
		transcript string
		args       []string
		code       int
		stderr     string
	}{
		{"ok.jsonl", []string{"exec", "--json", "hi"}, codextest.ExitOK, ""},
		{"ok.jsonl", []string{"exec", "--json", "-transcript", "fail.jsonl", "hi"}, codextest.ExitError, ""},
		{"cut.jsonl", []string{"exec", "--json", "hi"}, codextest.ExitError, ""},
		{"dir", []string{"exec", "--json", "hi"}, codextest.ExitOK, ""},
		{"dir", []string{"exec", "--json", "resume", "t1", "hi"}, codextest.ExitError, "ERROR: No saved session found with ID t1.\n"},
		{"missing.jsonl", []string{"exec", "--json", "hi"}, codextest.ExitError, "fakecodex: open missing.jsonl: file does not exist\n"},
		{"", []string{"exec", "--json", "hi"}, codextest.ExitError, "fakecodex: no transcript: pass -transcript FILE or set FAKECODEX_TRANSCRIPT\n"},
	}
	for _, tt := range tests {
		code, _, stderr := run(context.Background(), tt.transcript, nil, tt.args...)
		if diff := cmp.Diff([]any{tt.code, tt.stderr}, []any{code, stderr}); diff != "" {
			t.Errorf("%s %q: [status stderr] mismatch (-want +got):\n%s", tt.transcript, tt.args, diff)
		}
	}
}

// TestRunStopped stops a run that waits for its prompt on a pipe: Run
// returns the cause's status at once, and its reader ends when the pipe is
// closed.
func TestRunStopped(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan int, 1)
	go func() {
		code, _, _ := run(ctx, "ok.jsonl", pr, "exec", "--json", "-")
		done <- code
	}()
	time.Sleep(10 * time.Millisecond) // let Run reach the read; it must end either way
	cancel(codextest.Stopped{Code: codextest.ExitTerminate})
	if code := testwait.For(t, done, "Run to stop"); code != codextest.ExitTerminate {
		t.Errorf("status %d, want %d", code, codextest.ExitTerminate)
	}
	if code, _, _ := run(ctx, "ok.jsonl", nil, "exec", "--json", "hi"); code != codextest.ExitTerminate {
		t.Errorf("status %d for a run started after the stop, want %d", code, codextest.ExitTerminate)
	}
}
