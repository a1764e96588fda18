//go:build unix

package acpcheckos

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the agent in a process group of its own, so that
// what it starts can be ended with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// kill kills the agent's process group.
func kill(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
