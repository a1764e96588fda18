package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/acpkit/acpkit/internal/lines"
)

// Process is a running CLI, as a [Starter] started it. The Agent reads
// Stdout to its end, then calls Wait once; it reads Stderr meanwhile, to
// its end.
type Process interface {
	// Stdin is the CLI's standard input. Closing it asks the CLI to
	// finish and exit.
	Stdin() io.WriteCloser
	// Stdout is the CLI's standard output.
	Stdout() io.Reader
	// Stderr is the CLI's standard error, whose end the Agent adds to the
	// error of a failed exit; nil when it is not kept. It must end once
	// the process has exited, at the latest when Wait returns.
	Stderr() io.Reader
	// Signal sends s to the process and everything it started.
	Signal(s Signal) error
	// Wait waits for the process to exit and releases what it holds. Its
	// error describes an unsuccessful exit; an error with an ExitCode()
	// int method gives the exit status.
	Wait() error
}

// Signal is how the Agent stops a process that does not stop by itself.
type Signal int

// The signals an Agent sends: Interrupt (SIGINT) to end a cancelled turn
// (at once for a CLI that cannot be asked to, after the grace period for
// one that was asked), Terminate (SIGTERM) when it does not exit after its
// input was closed, Kill (SIGKILL) as the last resort and when a turn
// times out.
const (
	Interrupt Signal = iota + 1
	Terminate
	Kill
)

// String names the signal, as the log shows it.
func (s Signal) String() string {
	switch s {
	case Interrupt:
		return "interrupt"
	case Terminate:
		return "terminate"
	case Kill:
		return "kill"
	}
	return fmt.Sprintf("Signal(%d)", int(s))
}

// Starter starts the Agent's CLI with args (without the program name) in
// the directory dir, with its standard input and output as pipes.
type Starter func(dir string, args []string) (Process, error)

// Clock is the time source of an Agent: the current time, and timers for
// its timeouts. Package bridgeos has the real one; a test may pass a
// fake, or the real one inside a testing/synctest bubble.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; stop cancels the
	// call and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// maxLine bounds a line of a CLI's output: a longer one is skipped.
const maxLine = 64 << 20

// errExited ends the context of a process that has exited.
var errExited = errors.New("bridge: the CLI exited")

// proc supervises one process of a session. Its goroutines read the
// process's output, feeding the session each line and then the exit, and
// write its input; its methods are for the session's goroutine alone,
// which owns its fields.
type proc struct {
	s   *session
	p   Process
	in  *input
	ctx context.Context // ends once the process has exited
	end context.CancelCauseFunc

	lines   int  // lines read so far
	retired bool // it takes no further turn
	relays  int  // its requests relayed to the editor and not answered yet

	ladder []Signal // the signals still to send, a grace period apart
	grace  *timer

	watch       *timer // the watchdog's next check, nil when not watching
	seen, quiet int    // lines at the last check, and checks since one came
}

// output is a line the process wrote.
type output struct {
	p    *proc
	line []byte
}

// exited is the end of a process, after its last output. delivered counts
// the writes to its input that it was given whole.
type exited struct {
	p         *proc
	err       error
	delivered int
}

// start starts a process with args and binds conv to it.
func (s *session) start(args []string) (*proc, error) {
	pr, err := s.a.cfg.Start(s.cwd, args)
	if err != nil {
		return nil, err
	}
	s.log.Debug("CLI started", "args", args)
	p := &proc{s: s, p: pr, in: newInput(pr.Stdin())}
	p.ctx, p.end = context.WithCancelCause(context.Background())
	var helpers sync.WaitGroup
	helpers.Go(p.in.run)
	var stderr tail
	if r := pr.Stderr(); r != nil {
		helpers.Go(func() { io.Copy(&stderr, r) })
	}
	s.a.wg.Go(func() { p.read(&helpers, &stderr) })
	s.conv.Start(p.in)
	return p, nil
}

// read reads the process's output to its end, then waits for it, and
// tells the session how it ended.
func (p *proc) read(helpers *sync.WaitGroup, stderr *tail) {
	lr := lines.NewReader(p.p.Stdout(), maxLine)
	for {
		line, err := lr.Next()
		var tooLong *lines.TooLongError
		if errors.As(err, &tooLong) {
			p.s.log.Warn("CLI output skipped", "error", err)
			continue
		}
		if err != nil {
			if err != io.EOF {
				p.s.log.Warn("reading the CLI's output", "error", err)
			}
			break
		}
		p.s.post(output{p, bytes.Clone(line)})
	}
	err := p.p.Wait()
	p.in.abort() // a write the process will never read must not wait
	helpers.Wait()
	if t := stderr.String(); err != nil && t != "" {
		err = fmt.Errorf("%w; stderr ends: %s", err, t)
	}
	p.s.post(exited{p, err, p.in.delivered()})
}

// release stops what the session still has going for an exited process.
func (p *proc) release() {
	p.end(errExited)
	p.grace.stop()
	p.unwatch()
}

// signal sends sig to the process.
func (p *proc) signal(sig Signal) {
	if err := p.p.Signal(sig); err != nil {
		p.s.log.Debug("signalling the CLI", "signal", sig, "error", err)
	}
}

// escalate sends the signals then, a grace period apart, the first after
// one grace period, for as long as the process runs; it replaces any
// escalation under way.
func (p *proc) escalate(then ...Signal) {
	p.grace.stop()
	p.ladder = then
	p.armGrace()
}

func (p *proc) armGrace() {
	p.grace = nil
	if len(p.ladder) > 0 {
		p.grace = p.s.after(p.s.a.cfg.Grace, func(t *timer) event { return graceExpired{t} })
	}
}

// graceExpired sends the next signal of the escalation whose timer t is.
func (p *proc) graceExpired(t *timer) {
	if t != p.grace {
		return // stale
	}
	sig := p.ladder[0]
	p.ladder = p.ladder[1:]
	p.s.log.Warn("the CLI did not stop in time; signalling it", "signal", sig)
	p.signal(sig)
	p.armGrace()
}

// stop closes the process's input, which asks the CLI to exit, and
// signals it when it does not.
func (p *proc) stop() {
	p.in.Close()
	p.escalate(Terminate, Kill)
}

// watchChecks is how many checks without a new line make a silence.
const watchChecks = 4

// startWatch watches the process for silence: it checks every quarter of
// d, so that silence is noticed after d and before one and a quarter of
// it, without a timer per line.
func (p *proc) startWatch(d time.Duration) {
	p.unwatch()
	if d <= 0 {
		return
	}
	p.seen, p.quiet = p.lines, 0
	p.armWatch(d / watchChecks)
}

func (p *proc) armWatch(step time.Duration) {
	p.watch = p.s.after(step, func(t *timer) event { return watchTick{t, step} })
}

// silent reports, at the watchdog's check tick, whether the process has
// written nothing for the whole period; it arms the next check otherwise.
func (p *proc) silent(tick watchTick) bool {
	if tick.t != p.watch {
		return false // stale
	}
	if p.lines != p.seen || p.relays > 0 { // a CLI waiting for the editor is not silent
		p.seen, p.quiet = p.lines, 0
	} else {
		p.quiet++
	}
	if p.quiet >= watchChecks {
		p.watch = nil
		return true
	}
	p.armWatch(tick.step)
	return false
}

func (p *proc) unwatch() {
	p.watch.stop()
	p.watch = nil
}

// errInputClosed is the error of a write after the input was closed.
var errInputClosed = errors.New("bridge: the CLI's input is closed")

// input is a process's standard input as its Conversation writes it: each
// Write is queued, and a goroutine of the process writes the queue in
// order, so that a CLI that does not read cannot hold up its session.
type input struct {
	w    io.WriteCloser
	wake chan struct{}
	once sync.Once // closes w

	mu       sync.Mutex
	queue    [][]byte
	closing  bool  // close w once the queue is written
	err      error // why writing stopped; nil while it goes on
	accepted int   // writes queued so far
	written  int   // writes given to w whole
}

func newInput(w io.WriteCloser) *input {
	return &input{w: w, wake: make(chan struct{}, 1)}
}

// Write queues a copy of b.
func (in *input) Write(b []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.err != nil:
		return 0, in.err
	case in.closing:
		return 0, errInputClosed
	}
	in.queue = append(in.queue, bytes.Clone(b))
	in.accepted++
	in.signal()
	return len(b), nil
}

// Close closes the input once what is queued is written.
func (in *input) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closing = true
	in.signal()
	return nil
}

// signal wakes run; in.mu is held.
func (in *input) signal() {
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// run writes the queue until the input is closed, a write fails or the
// process has exited.
func (in *input) run() {
	for {
		in.mu.Lock()
		switch {
		case in.err != nil:
			in.mu.Unlock()
			return
		case len(in.queue) > 0:
			b := in.queue[0]
			in.queue = in.queue[1:]
			in.mu.Unlock()
			_, err := in.w.Write(b)
			in.mu.Lock()
			if err != nil && in.err == nil {
				in.err = err
			} else if err == nil {
				in.written++
			}
			in.mu.Unlock()
		case in.closing:
			in.err = errInputClosed
			in.mu.Unlock()
			in.closeWriter()
			return
		default:
			in.mu.Unlock()
			<-in.wake
		}
	}
}

// abort drops what is still queued and closes the input at once, which
// ends a write under way: the process has exited.
func (in *input) abort() {
	in.mu.Lock()
	if in.err == nil {
		in.err = errExited
	}
	in.queue = nil
	in.signal()
	in.mu.Unlock()
	in.closeWriter()
}

func (in *input) closeWriter() { in.once.Do(func() { in.w.Close() }) }

// delivered returns how many writes went to the process whole.
func (in *input) delivered() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.written
}

// queued returns how many writes were queued.
func (in *input) queued() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.accepted
}

// tail keeps the last bytes written to it: the end of a CLI's standard
// error.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

// tailSize is how much of a CLI's standard error a failed exit shows.
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
