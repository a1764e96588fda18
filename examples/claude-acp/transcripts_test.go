package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/scripted"
	"github.com/acpkit/acpkit/internal/testwait"
)

// TestTranscripts checks the scenario transcripts themselves, without
// claude-acp: for every process a transcript stands for, a claude.Session
// playing the recorded client's side through fakeclaude must write exactly
// the recorded client lines, and read exactly the recorded CLI lines. So
// the transcripts hold what the bridge writes, and what the end-to-end
// tests find is the bridge's doing, not a flaw in a transcript.
func TestTranscripts(t *testing.T) {
	var runs []transcriptRun
	for _, name := range scenarioTranscripts(t) {
		path := filepath.Join("testdata", name)
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			runs = append(runs,
				transcriptRun{name + "/new.jsonl", path, false},
				transcriptRun{name + "/resume.jsonl", path, true})
			continue
		}
		runs = append(runs, transcriptRun{name, path, strings.HasPrefix(name, "resume")})
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			replay(t, run)
		})
	}
}

// transcriptRun is one CLI process of a scenario: the transcript's path
// (a file, or a directory) and whether the process resumes a session.
type transcriptRun struct {
	name   string
	path   string
	resume bool
}

// scenarioTranscripts lists the transcripts under testdata: the .ndjson
// files and the directories, by name.
func scenarioTranscripts(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".ndjson") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	return names
}

func replay(t *testing.T, run transcriptRun) {
	file := run.path
	if run.resume && strings.HasSuffix(run.name, "/resume.jsonl") {
		file = filepath.Join(run.path, "resume.jsonl")
	} else if strings.HasSuffix(run.name, "/new.jsonl") {
		file = filepath.Join(run.path, "new.jsonl")
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	records, err := claudetest.ReadRecords(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}

	opts := claude.Options{Model: "claude-sonnet-4-5"}
	if run.resume {
		// The session the transcript's lines name, which the fake names
		// by the one it resumes.
		for _, rec := range records {
			var line struct {
				SessionID string `json:"session_id"`
			}
			if json.Unmarshal([]byte(rec.Line), &line); rec.Dir == claudetest.DirOut && line.SessionID != "" {
				opts.Resume = line.SessionID
				break
			}
		}
	}
	cmd := testwait.Command(t, fakeclaudeBin, claude.SessionCommandLine(opts)...)
	cmd.Env = append(os.Environ(), claudetest.EnvTranscript+"="+run.path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdinPipe, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	wait := func() error {
		var err error
		once.Do(func() { err = cmd.Wait() })
		return err
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		wait()
	})

	stdin := &lineRecorder{w: stdinPipe}
	c := scripted.New(claude.NewSession(stdin, opts.Resume))
	lr := lines.NewReader(stdout, claude.MaxLineLength)
	var sent []string
	for i, rec := range records {
		switch rec.Dir {
		case claudetest.DirIn:
			if err := c.Act([]byte(rec.Line)); err != nil {
				t.Fatalf("record %d: %v", i+1, err)
			}
			sent = append(sent, rec.Line)
		case claudetest.DirOut:
			line, err := lr.Next()
			if err != nil {
				t.Fatalf("record %d: reading the CLI: %v", i+1, err)
			}
			if !bytes.Equal(line, []byte(rec.Line)) {
				t.Fatalf("record %d: the CLI wrote\n%s\nwant\n%s", i+1, line, rec.Line)
			}
			events, err := c.Session.Feed(line, nil)
			var lerr *claude.LineError
			if err != nil && !errors.As(err, &lerr) {
				t.Fatalf("record %d: %v", i+1, err)
			}
			c.Observe(events)
		case claudetest.DirStdinClosed:
			stdinPipe.Close()
		case claudetest.DirExit:
			if line, err := lr.Next(); err != io.EOF {
				t.Fatalf("after the transcript, the CLI wrote %q (%v)", line, err)
			}
			err := wait()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if got := cmd.ProcessState.ExitCode(); got != rec.Code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", got, rec.Code, stderr.String())
			}
		}
	}
	if diff := slices.Compare(stdin.lines(), sent); diff != 0 {
		t.Errorf("a claude.Session wrote\n%s\nthe transcript records\n%s",
			strings.Join(stdin.lines(), "\n"), strings.Join(sent, "\n"))
	}
}

// lineRecorder is the CLI's stdin: it keeps a copy of every line written.
type lineRecorder struct {
	w   io.Writer
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *lineRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *lineRecorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(r.buf.String(), "\n"), "\n")
}
