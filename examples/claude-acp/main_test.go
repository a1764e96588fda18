package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/internal/testwait"
)

// The binaries TestMain builds: claude-acp, and examples/fakeclaude, the
// CLI it runs in the tests (fakecodex and fakegemini for -cli codex and
// -cli gemini).
var agentBin, fakeclaudeBin, fakecodexBin, fakegeminiBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "claude-acp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	agentBin, fakeclaudeBin = filepath.Join(dir, "claude-acp"), filepath.Join(dir, "fakeclaude")
	fakecodexBin, fakegeminiBin = filepath.Join(dir, "fakecodex"), filepath.Join(dir, "fakegemini")
	for bin, pkg := range map[string]string{agentBin: ".", fakeclaudeBin: "../fakeclaude", fakecodexBin: "../fakecodex", fakegeminiBin: "../fakegemini"} {
		// Only the program under test is built with the race detector:
		// the fakes' own tests run them under it, and here they move
		// large transcripts, which it slows ten times.
		if err := build(bin, pkg, raceEnabled && bin == agentBin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 && !goroutinesBackTo(before) {
		buf := make([]byte, 1<<20)
		fmt.Fprintf(os.Stderr, "goroutines left behind by the tests:\n%s\n", buf[:runtime.Stack(buf, true)])
		return 1
	}
	return code
}

// goroutinesBackTo waits a little for the goroutines of the tests to end,
// and reports whether no more than n remain.
func goroutinesBackTo(n int) bool {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if runtime.NumGoroutine() <= n {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// build builds the package in dir as bin, with the race detector when
// race is set.
func build(bin, dir string, race bool) error {
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, dir)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", dir, err, out)
	}
	return nil
}

// TestVersion checks that -version names claude-acp's version and the
// release of each CLI it was tested with, and exits 0 without starting
// anything.
func TestVersion(t *testing.T) {
	out, err := testwait.Command(t, agentBin, "-version", "-claude", "/nonexistent").Output()
	if err != nil {
		t.Fatalf("claude-acp -version: %v", err)
	}
	for _, want := range []string{"claude-acp ", "Claude Code " + claude.TestedVersion, "Codex " + codex.AppServerVersion, "Gemini CLI " + gemini.TestedVersion} {
		if !strings.Contains(string(out), want) {
			t.Errorf("claude-acp -version printed %q, want %q in it", out, want)
		}
	}
}

// TestLogin checks the terminal sign-in claude-acp advertises: with
// "login" last (after -- too, where an editor appends it to a command
// line that has one), it runs the CLI's `auth login` in its own terminal
// and exits with its status.
func TestLogin(t *testing.T) {
	tests := []struct {
		args  []string
		fails bool
		code  int
		out   string
	}{
		{[]string{"login"}, false, 0, "Signed in to the fake Claude Code.\n"},
		{[]string{"--", "--debug", "login"}, false, 0, "Signed in to the fake Claude Code.\n"},
		{[]string{"login"}, true, 1, ""},
	}
	for _, tt := range tests {
		cmd := exec.Command(agentBin, append([]string{"-claude", fakeclaudeBin}, tt.args...)...)
		cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
		if tt.fails {
			cmd.Env = append(cmd.Env, claudetest.EnvAuthFails+"=1")
		}
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code || string(out) != tt.out {
			t.Errorf("claude-acp %q: exit %d, printed %q; want %d, %q", tt.args, code, out, tt.code, tt.out)
		}
	}
}
