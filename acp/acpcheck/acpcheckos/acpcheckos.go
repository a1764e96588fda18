package acpcheckos

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp/acpcheck"
)

// Clock is the real time.
type Clock struct{}

// AfterFunc is time.AfterFunc.
func (Clock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Cmd is an agent run as a command, once for each connection the suite
// opens. Set its fields before the suite runs.
type Cmd struct {
	// Path and Args are the program and its arguments, as for exec.Command.
	Path string
	Args []string
	// Env is added to this process's environment.
	Env []string
	// Dir is the directory it runs in; empty means this process's.
	Dir string
	// Stderr receives the agent's standard error; nil discards it.
	// Writes from several processes are not serialised.
	Stderr io.Writer
	// Grace is how long Close waits for the agent to exit once its input
	// is closed, before it kills the process; 0 means 5 seconds.
	Grace time.Duration
}

// Command returns the Target of an agent run as name with args; see Cmd
// for the rest. exec.LookPath finds name when it holds no separator.
func Command(name string, args ...string) acpcheck.Target {
	return (&Cmd{Path: name, Args: args}).Target()
}

// Target returns c as an acpcheck.Target, timed with Clock.
func (c *Cmd) Target() acpcheck.Target {
	name := strings.Join(append([]string{c.Path}, c.Args...), " ")
	return acpcheck.Stdio(name, c.start, Clock{})
}

// start starts one run of the agent.
func (c *Cmd) start(ctx context.Context) (acpcheck.Process, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Dir = c.Dir
	cmd.Stderr = c.Stderr
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of its own, not StdoutPipe: Wait would close that while the
	// suite still reads what the agent wrote last.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, stdout: stdout, grace: c.Grace, exited: make(chan struct{}), eof: make(chan struct{})}
	if p.grace <= 0 {
		p.grace = 5 * time.Second
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.Close()
		case <-p.exited:
		}
	}()
	return p, nil
}

// process is one running agent.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	grace  time.Duration

	exited  chan struct{}
	waitErr error // set before exited is closed
	eof     chan struct{}
	eofOnce sync.Once

	once     sync.Once
	closeErr error
}

func (p *process) Read(b []byte) (int, error) {
	n, err := p.stdout.Read(b)
	if err != nil {
		p.eofOnce.Do(func() { close(p.eof) })
	}
	return n, err
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close closes the agent's stdin and waits for it to exit, killing its
// process group after the grace period, then for its output to end.
func (p *process) Close() error {
	p.once.Do(func() {
		p.stdin.Close()
		t := time.NewTimer(p.grace)
		defer t.Stop()
		select {
		case <-p.exited:
		case <-t.C:
			kill(p.cmd)
			<-p.exited
		}
		// Whatever the agent left behind in its group goes too, and with
		// it the last writers of its output.
		kill(p.cmd)
		t.Reset(time.Second)
		select {
		case <-p.eof:
		case <-t.C: // a process outside the group holds the pipe
		}
		p.stdout.Close()
		var exit *exec.ExitError
		if p.waitErr != nil && !errors.As(p.waitErr, &exit) {
			p.closeErr = p.waitErr
		}
	})
	return p.closeErr
}

// URL returns the Target of a remote agent at url (http:// or https://),
// dialled over transport with http.DefaultClient's transport, sending
// "Authorization: Bearer token" unless token is empty.
func URL(url, token string, transport acpcheck.Transport) acpcheck.Target {
	var h http.Header
	if token != "" {
		h = http.Header{"Authorization": {"Bearer " + token}}
	}
	return acpcheck.Remote(url, acpcheck.RemoteOptions{
		Transport:  transport,
		HTTPClient: &http.Client{Transport: http.DefaultTransport},
		Header:     h,
		Clock:      Clock{},
	})
}
