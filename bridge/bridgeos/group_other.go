//go:build !unix

package bridgeos

import (
	"os"
	"os/exec"

	"github.com/acpkit/acpkit/bridge"
)

// Without process groups, signals reach the CLI alone.

func ownGroup(cmd *exec.Cmd) {}

// signalGroup interrupts the process where the system can, and kills it
// otherwise.
func signalGroup(cmd *exec.Cmd, s bridge.Signal) error {
	if s == bridge.Interrupt {
		if err := cmd.Process.Signal(os.Interrupt); err == nil {
			return nil
		}
	}
	return cmd.Process.Kill()
}

func killGroup(cmd *exec.Cmd) {}
