package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.golden and testdata/turn.golden")

// TestDemo builds the demo and runs it as `go run ./examples/demo` would,
// by default and with each -protocol, then compares what it printed with
// testdata/demo.golden. claude-acp speaks ACP v1 and v2: an editor of
// either version prints the same. Reset times are shown in the local time
// zone, so the run uses UTC. The demo must print nothing else on
// stderr, and leave nothing in its temporary directory, nor any of the
// programs it built there running.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "demo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the demo: %v\n%s", err, out)
	}
	tests := []struct {
		args   []string
		status int
		stderr string // what it says on stderr; "" for nothing
	}{
		{nil, 0, ""},
		{[]string{"-protocol", "v1"}, 0, ""},
		{[]string{"-protocol", "v2"}, 0, ""},
		{[]string{"-protocol", "v3"}, 2, "demo: -protocol \"v3\": want auto, v1 or v2\n"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			stdout := runDemo(t, bin, tt.args, tt.status, tt.stderr)
			if tt.status == 0 {
				checkGolden(t, stdout)
			}
		})
	}
}

// runDemo runs the demo with args, checks its exit status and stderr, and
// returns its stdout.
func runDemo(t *testing.T, bin string, args []string, status int, wantStderr string) []byte {
	t.Helper()
	tmp := t.TempDir()
	cmd := testwait.Command(t, bin, args...)
	cmd.Env = append(os.Environ(), "TZ=UTC", "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if got := cmd.ProcessState.ExitCode(); got != status || stderr.String() != wantStderr {
		t.Fatalf("demo %q: %v, status %d; stderr:\n%s\nwant status %d, stderr %q", args, err, got, stderr.String(), status, wantStderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the demo left %d files in its temporary directory", len(left))
	}
	if left := running(tmp); len(left) > 0 {
		t.Errorf("the demo left processes running: %q", left)
	}
	return stdout.Bytes()
}

// checkGolden compares the demo's output with testdata/demo.golden, or
// rewrites it with -update.
func checkGolden(t *testing.T, stdout []byte) {
	t.Helper()
	golden := filepath.Join("testdata", "demo.golden")
	if *update {
		if err := os.WriteFile(golden, stdout, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(stdout)); diff != "" {
		t.Errorf("demo output (-want +got):\n%s", diff)
	}
}

// running lists the command lines of the processes whose program lies
// under dir, as far as /proc tells (on Linux; elsewhere it finds none).
func running(dir string) []string {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, p := range paths {
		cmdline, err := os.ReadFile(p)
		if err == nil && bytes.HasPrefix(cmdline, []byte(dir+string(filepath.Separator))) {
			found = append(found, string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return found
}
