package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestIdleSessionsRSS opens 20 sessions, each with one turn answered so
// that its CLI runs on, idle, and logs claude-acp's peak resident memory
// (VmHWM) and its current one (VmRSS), for the figure; it asserts
// no size.
//
//	go test ./examples/claude-acp -run TestIdleSessionsRSS -v
func TestIdleSessionsRSS(t *testing.T) {
	const sessions = 20
	e := startEditor(t, fakeclaudeBin, filepath.Join("testdata", "text.ndjson"))
	e.initialize(capabilities{notices: true})
	for range sessions {
		if _, err := e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is."); err != nil {
			t.Fatal(err)
		}
	}
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(e.p.cmd.Process.Pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	var figures []string
	for line := range bytes.Lines(status) {
		if bytes.HasPrefix(line, []byte("VmHWM:")) || bytes.HasPrefix(line, []byte("VmRSS:")) {
			figures = append(figures, string(bytes.Join(bytes.Fields(line), []byte(" "))))
		}
	}
	if len(figures) != 2 {
		t.Fatalf("no VmHWM and VmRSS in /proc/PID/status:\n%s", status)
	}
	t.Logf("claude-acp with %d idle sessions (race detector: %v): %s, %s", sessions, raceEnabled, figures[0], figures[1])
}
