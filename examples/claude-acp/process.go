package main

import (
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/bridge"
)

// starter returns the function the agent starts each CLI with: the
// program at path, behind the wrapper's words when there are some, in
// its own process group so that signals reach whatever it starts.
func starter(path string, wrap []string, log *slog.Logger) bridge.Starter {
	return func(dir string, args []string) (bridge.Process, error) {
		argv := make([]string, 0, len(wrap)+1+len(args))
		for _, w := range wrap {
			argv = append(argv, strings.ReplaceAll(w, "{cwd}", dir))
		}
		argv = append(argv, path)
		argv = append(argv, args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		// A child the CLI started may hold its stderr open after it exits:
		// Wait does not wait for that longer than this.
		cmd.WaitDelay = waitDelay
		p := &process{cmd: cmd}
		p.stderr, p.stderrW = io.Pipe()
		cmd.Stderr = p.stderrW
		var err error
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if p.stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		log.Debug("Claude Code started", "pid", cmd.Process.Pid, "dir", dir, "args", argv)
		return p, nil
	}
}

// waitDelay bounds how long Wait waits for the CLI's stderr to close
// once the CLI has exited.
const waitDelay = 2 * time.Second

// process is a CLI started by os/exec.
type process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  io.Reader
	stderr  *io.PipeReader
	stderrW *io.PipeWriter // closed once the process has exited
}

func (p *process) Stdin() io.WriteCloser { return p.stdin }
func (p *process) Stdout() io.Reader     { return p.stdout }
func (p *process) Stderr() io.Reader     { return p.stderr }

// Signal signals the process group, which the process leads.
func (p *process) Signal(s bridge.Signal) error {
	sig := map[bridge.Signal]syscall.Signal{bridge.Interrupt: syscall.SIGINT, bridge.Terminate: syscall.SIGTERM, bridge.Kill: syscall.SIGKILL}[s]
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Wait waits for the process, ends its standard error, and then kills
// what is left of its process group, so that no grandchild outlives it.
func (p *process) Wait() error {
	err := p.cmd.Wait()
	p.stderrW.Close()
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	return err
}
