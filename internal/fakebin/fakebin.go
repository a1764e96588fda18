// Package fakebin is the test support of the programs under examples/
// (the fake CLI binaries first among them): it builds the binaries under
// test once per test binary, and runs them as child processes that never
// outlive their test. Only tests import it.
package fakebin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/acpkit/acpkit/internal/testwait"
)

// Main is a TestMain: it builds the package in the current directory as
// the program name in a temporary directory, sets *bin to its path, runs
// the tests, removes the directory and exits with the tests' status.
func Main(m *testing.M, name string, bin *string) {
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		*bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", *bin, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	code := 1
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n", name, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// MainPrograms is a TestMain for tests that run several programs: it
// builds the packages of bins (paths relative to the test's directory,
// each to the variable that receives its program's path) with one go
// build, which builds them in parallel, into a temporary directory; runs
// the tests; removes the directory; and exits with the tests' status.
func MainPrograms(m *testing.M, bins map[string]*string) {
	dir, err := os.MkdirTemp("", "fakebin-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for pkg, bin := range bins {
		args = append(args, pkg)
		abs, err := filepath.Abs(pkg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		*bin = filepath.Join(dir, filepath.Base(abs))
		if runtime.GOOS == "windows" {
			*bin += ".exe"
		}
	}
	build := exec.Command("go", args...)
	code := 1
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building %v: %v\n%s", args[3:], err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// Result is how a run of the binary ended.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

// Run runs bin with args to completion, with env added to this process's
// environment and stdin as its standard input. It returns once the child
// has exited and been waited for; one that runs longer than
// testwait.Limit is killed, failing the test.
func Run(t *testing.T, bin string, env []string, stdin string, args ...string) Result {
	t.Helper()
	cmd := testwait.Command(t, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return Result{Wait(t, cmd, cmd.Run()), stdout.String(), stderr.String()}
}

// Wait returns the exit status of cmd, given the error of its Run or
// Wait; a failure to run it at all fails the test.
func Wait(t *testing.T, cmd *exec.Cmd, err error) int {
	t.Helper()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

// Signalled is how a child stopped by a signal ended.
type Signalled struct {
	Code   int
	Stdout string
	// Line is the first line of its stderr, read before the signal.
	Line string
	// Gone reports whether the child was reaped.
	Gone bool
}

// Signal starts cmd, which must have no Stderr yet, and sends it sig once
// it has written its first line to stderr: the fakes write their
// transcript's .stderr companion after installing their signal handlers
// and before their first wait, so that line says the child is ready.
// Signal returns once the child has exited and been waited for. cmd comes
// from testwait.Command, so that a child that never writes that line, or
// never exits, is killed, failing the test.
func Signal(t *testing.T, cmd *exec.Cmd, sig os.Signal) Signalled {
	t.Helper()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // when the test fails before Wait
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the child's stderr: %v", err)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	code := Wait(t, cmd, cmd.Wait())
	// Signal 0 checks only that a process exists: the child is gone.
	gone := errors.Is(cmd.Process.Signal(syscall.Signal(0)), os.ErrProcessDone)
	return Signalled{code, stdout.String(), line, gone}
}

// Transcripts lists the transcripts under dir, as parsetest.Transcripts
// does, but by their names relative to dir, with slashes.
func Transcripts(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, path := range parsetest.Transcripts(t, dir) {
		name, err := filepath.Rel(dir, path)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.ToSlash(name))
	}
	return names
}

// Replayed is the Result a replay of the transcript at path should have
// but for its exit status: the transcript on Stdout, its .stderr
// companion, if any, on Stderr.
func Replayed(t *testing.T, path string) Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	companion, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".stderr")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return Result{Stdout: string(data), Stderr: string(companion)}
}
