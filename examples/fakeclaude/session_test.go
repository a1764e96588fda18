package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/fakebin"
	"github.com/acpkit/acpkit/internal/scripted"
	"github.com/acpkit/acpkit/internal/testwait"
)

// startSession starts the binary in streaming-input mode on transcript,
// with pipes for its stdin and stdout. The process is killed, if it still
// runs, when the test ends.
func startSession(t *testing.T, transcript string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout io.Reader, stderr *bytes.Buffer) {
	t.Helper()
	cmd = testwait.Command(t, fakeclaude, claude.SessionCommandLine(claude.Options{Model: "claude-sonnet-4-5"})...)
	cmd.Env = append(os.Environ(), "FAKECLAUDE_TRANSCRIPT="+transcript)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stdin, stdout, stderr
}

// TestControlTranscripts replays every recorded streaming-input session
// through the binary, against a client written with claude.Session: each
// line the fake writes must be the recorded one (with the client's request
// ids), and the fake must accept every line the client writes.
func TestControlTranscripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(testdata, "control", "*.ndjson"))
	if err != nil || len(paths) != 7 {
		t.Fatalf("found %d control transcripts, want 7 (%v)", len(paths), err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			records, err := claudetest.ReadRecords(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			cmd, stdin, stdout, stderr := startSession(t, path)
			c := scripted.New(claude.NewSession(stdin, ""))
			events, err := c.Play(records, stdin, stdout)
			if err != nil {
				t.Error(err)
				stdin.Close()
				io.Copy(io.Discard, stdout)
			}
			code := fakebin.Wait(t, cmd, cmd.Wait())
			results, ends := 0, 0
			for _, r := range records {
				if claudetest.Kind([]byte(r.Line)) == "result" {
					results++
				}
			}
			for _, e := range events {
				if _, ok := e.(claude.TurnEnd); ok {
					ends++
				}
			}
			if code != 0 || stderr.Len() != 0 || ends != results || ends == 0 {
				t.Errorf("status %d, stderr %q, %d turns ended for %d results", code, stderr, ends, results)
			}
		})
	}
}

// TestControlUnexpectedInput checks that the binary fails loudly when the
// client strays from the transcript: here a turn before initialize.
func TestControlUnexpectedInput(t *testing.T) {
	cmd, stdin, stdout, stderr := startSession(t, filepath.Join(testdata, "control", "two-turns.ndjson"))
	s := claude.NewSession(stdin, "")
	if err := s.SendText("hello"); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stdout)
	stdin.Close()
	code := fakebin.Wait(t, cmd, cmd.Wait())
	want := "record 1 expects control_request/initialize from the client, got user"
	if code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("status %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}
