package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.golden")

// TestDemo builds the demo and runs it as `go run ./examples/demo` would,
// then compares what it printed with testdata/demo.golden. Reset times
// are shown in the local time zone, so the run uses UTC. The demo must
// exit 0, print nothing on stderr, and leave nothing in its temporary
// directory, nor any of the programs it built there running.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "demo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the demo: %v\n%s", err, out)
	}
	tmp := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TZ=UTC", "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("demo: %v; stderr:\n%s", err, stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the demo left %d files in its temporary directory", len(left))
	}
	if left := running(tmp); len(left) > 0 {
		t.Errorf("the demo left processes running: %q", left)
	}

	golden := filepath.Join("testdata", "demo.golden")
	if *update {
		if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
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
