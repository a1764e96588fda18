//go:build unix

package acpcheckos_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
)

// TestNoProcessOutlives runs the suite against an agent that starts a
// child of its own and ignores the end of its input: once Verify has
// returned, neither the agents nor their children run.
func TestNoProcessOutlives(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	script := `echo $$ >> "$PIDS"; sleep 300 & echo $! >> "$PIDS"; trap '' TERM; while :; do read -r line || sleep 1; done`
	cmd := &acpcheckos.Cmd{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PIDS=" + pids}, Grace: 100 * time.Millisecond}
	r, err := acpcheck.Verify(t.Context(), cmd.Target(), &acpcheck.Options{Cwd: t.TempDir(), Timeout: time.Second,
		Skip: []string{"initialize", "errors", "session", "capability", "prompt", "cancel", "load", "list", "resume", "close", "delete", "v2", "remote"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Failed(acpcheck.Must)) == 0 {
		t.Error("a shell that answers nothing passed the suite")
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	// Verify has killed them all, but the kernel takes a moment to end a
	// killed process that is not the suite's child (the agent's own,
	// whose exit nobody here can wait for): on a loaded machine it may
	// still be on its way out. Each must be gone, or a zombie, soon.
	deadline := time.Now().Add(10 * time.Second)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		for !ended(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d still runs 10s after Verify returned and killed it", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// ended reports whether pid is gone, or gone but for its exit status: a
// zombie, as the agent's own children stay in a container where nobody
// reaps them.
func ended(pid int) bool {
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH) || zombie(pid)
}

// zombie reports whether pid has exited but not been reaped (Linux).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}
