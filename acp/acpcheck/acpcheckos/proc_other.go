//go:build !unix

package acpcheckos

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

// kill kills the agent.
func kill(cmd *exec.Cmd) {
	cmd.Process.Kill()
}
