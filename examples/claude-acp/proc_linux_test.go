package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// marked lists the processes whose environment holds envMarker=marker:
// the agent of one test and every CLI it started, in whatever process
// group they run.
func marked(marker string) []string {
	want := []byte(envMarker + "=" + marker + "\x00")
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	var found []string
	for _, p := range paths {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		pid := filepath.Base(filepath.Dir(p))
		if stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && isZombie(stat) {
			continue // exited, its parent has yet to reap it
		}
		found = append(found, "pid "+pid)
	}
	return found
}

// isZombie reports whether a /proc/PID/stat line shows state Z.
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// killMarked kills the processes marked(marker) lists.
func killMarked(marker string) {
	for _, p := range marked(marker) {
		if pid, err := strconv.Atoi(p[len("pid "):]); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
