package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
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
		cmd.Stderr = &p.stderr
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
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr tail
}

func (p *process) Stdin() io.WriteCloser { return p.stdin }
func (p *process) Stdout() io.Reader     { return p.stdout }

// Signal signals the process group, which the process leads.
func (p *process) Signal(s bridge.Signal) error {
	sig := map[bridge.Signal]syscall.Signal{bridge.Interrupt: syscall.SIGINT, bridge.Terminate: syscall.SIGTERM, bridge.Kill: syscall.SIGKILL}[s]
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Wait waits for the process and, when it failed, says how, with the end
// of what it wrote on stderr. It then kills what is left of its process
// group, so that no grandchild outlives it.
func (p *process) Wait() error {
	err := p.cmd.Wait()
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		if t := p.stderr.String(); t != "" {
			return fmt.Errorf("%w; stderr ends: %s", err, t)
		}
	}
	return err
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
