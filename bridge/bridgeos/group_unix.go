//go:build unix

package bridgeos

import (
	"os/exec"
	"syscall"

	"github.com/acpkit/acpkit/bridge"
)

// ownGroup makes cmd lead a process group of its own.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup signals the process group that cmd leads.
func signalGroup(cmd *exec.Cmd, s bridge.Signal) error {
	sig := map[bridge.Signal]syscall.Signal{bridge.Interrupt: syscall.SIGINT, bridge.Terminate: syscall.SIGTERM, bridge.Kill: syscall.SIGKILL}[s]
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// killGroup kills what is left of the process group that cmd led.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
