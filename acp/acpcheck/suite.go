package acpcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// DefaultTimeout bounds one check when [Options].Timeout is zero.
const DefaultTimeout = 30 * time.Second

// DefaultParallel is how many checks run at once when [Options].Parallel
// is zero.
const DefaultParallel = 4

// Options configures a run of the suite. The zero value (or a nil
// pointer) gives the defaults, except that [Verify] needs Cwd.
type Options struct {
	// Cwd is an existing absolute directory for the sessions' cwd, which
	// the agent may read and write (it is a scratch directory: the suite
	// asks the agent to work in it). Some sessions use its parent, to
	// check that session/list keeps to a cwd. [Run] makes a temporary
	// one when it is empty.
	Cwd string
	// Timeout bounds each check; 0 means [DefaultTimeout]. A check that
	// waits longer, on an agent that does not answer, fails saying what
	// it waited for.
	Timeout time.Duration
	// Clock times the Timeout. Nil takes the Target's own (the targets of
	// package acpcheckos carry the operating system's); with neither,
	// checks are bounded by the context alone.
	Clock Clock
	// Parallel is how many checks run at once; 0 means
	// [DefaultParallel]. The checks that share a connection use sessions
	// of their own.
	Parallel int
	// Skip lists checks not to run, by ID or by group ("cancel" skips
	// every "cancel.…" check); they are reported skipped.
	Skip []string
	// Trace, if set, receives every message of every connection, one JSON
	// object per line: {"conn":N,"dir":"client"|"agent","msg":…}, with
	// "raw" holding a line that is not JSON as a string. Writes are
	// serialised.
	Trace io.Writer
	// Prompt is the text of the prompts whose turns the suite lets end;
	// empty means [DefaultPrompt].
	Prompt string
	// LongPrompt is the text of the prompts whose turns the suite
	// cancels once they show themselves running, which should make the
	// agent work a while: a check is skipped when the turn ends before
	// its cancellation is sent. Empty means [DefaultLongPrompt].
	LongPrompt string
	// Progress, if set, is called as each check ends, one call at a time,
	// with done checks out of total.
	Progress func(r Result, done, total int)
}

// suite is one run of the checks against a target.
type suite struct {
	ctx    context.Context // bounds the run; the processes live as long
	target *targetSpec
	opts   Options
	clock  Clock
	trace  *tracer

	conns atomic.Int32
	peers struct {
		sync.Mutex
		list []*peer // open
		all  []*peer // ever opened
	}

	shared sync.Map // connection kind -> *sharedPeer
	agent  atomic.Value
}

// sharedPeer is a connection the checks of one kind share, opened and
// initialized by the first that needs it.
type sharedPeer struct {
	once sync.Once
	p    *peer
	init initResult
	err  error
}

func newSuite(ctx context.Context, target Target, opts *Options) (*suite, error) {
	s := &suite{ctx: ctx, target: target.target()}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Timeout <= 0 {
		s.opts.Timeout = DefaultTimeout
	}
	if s.opts.Parallel <= 0 {
		s.opts.Parallel = DefaultParallel
	}
	if s.opts.Prompt == "" {
		s.opts.Prompt = DefaultPrompt
	}
	if s.opts.LongPrompt == "" {
		s.opts.LongPrompt = DefaultLongPrompt
	}
	if !filepath.IsAbs(s.opts.Cwd) {
		return nil, fmt.Errorf("acpcheck: Options.Cwd must be an absolute directory, not %q", s.opts.Cwd)
	}
	if s.target.remote != nil && s.target.remote.HTTPClient == nil {
		return nil, errNoHTTPClient
	}
	s.clock = s.opts.Clock
	if s.clock == nil {
		s.clock = s.target.clock
	}
	s.trace = &tracer{w: s.opts.Trace}
	return s, nil
}

// close closes every connection the checks left open.
func (s *suite) close() {
	s.peers.Lock()
	list := s.peers.list
	s.peers.list = nil
	s.peers.Unlock()
	var wg sync.WaitGroup
	for _, p := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.close()
		}()
	}
	wg.Wait()
}

// skipped reports whether the options skip the check.
func (s *suite) skipped(id string) bool {
	for _, skip := range s.opts.Skip {
		if id == skip || strings.HasPrefix(id, skip+".") {
			return true
		}
	}
	return false
}

// Checks returns the suite's checks, in the order they are reported. The
// caller owns the slice.
func Checks() []Check {
	out := make([]Check, len(allChecks))
	for i, c := range allChecks {
		out[i] = c.Check
	}
	return out
}

// Verify runs the suite against target and returns its report: ctx bounds
// the whole run, each check is bounded by [Options].Timeout, and every
// connection and process it opened is closed before it returns. The
// error reports a run that could not start (bad options); an agent that
// cannot be started or reached fails the checks instead.
func Verify(ctx context.Context, target Target, opts *Options) (Report, error) {
	s, err := newSuite(ctx, target, opts)
	if err != nil {
		return Report{}, err
	}
	defer s.close()
	return s.run(), nil
}

// Run runs the suite against target from a test and reports each check
// as a subtest of t named by its ID: a failed check fails its subtest
// with the reason and the sentence it checks, a skipped one skips it.
// Every check runs, whatever the test's -run flag selects: leave checks
// out with [Options].Skip. An empty [Options].Cwd is a temporary
// directory of t's. Run returns the report.
func Run(t *testing.T, target Target, opts *Options) Report {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Cwd == "" {
		o.Cwd = t.TempDir()
	}
	report, err := Verify(t.Context(), target, &o)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range report.Results {
		t.Run(res.ID, func(t *testing.T) {
			switch res.Outcome {
			case Fail:
				t.Errorf("%s %s: %s\n%s: %q", res.Level, res.ID, res.Reason, res.Source.Doc, res.Source.Text)
			case Skip:
				t.Skip(res.Reason)
			default:
				if res.Reason != "" {
					t.Log(res.Reason)
				}
			}
		})
	}
	return report
}

// run runs the checks, the active ones concurrently and then those that
// judge what all of them saw.
func (s *suite) run() Report {
	results := make([]Result, len(allChecks))
	var mu sync.Mutex
	done := 0
	finish := func(i int, r Result) {
		results[i] = r
		if s.opts.Progress != nil {
			mu.Lock()
			done++
			s.opts.Progress(r, done, len(allChecks))
			mu.Unlock()
		}
	}
	sem := make(chan struct{}, s.opts.Parallel)
	var wg sync.WaitGroup
	for i, c := range allChecks {
		if c.conn == connPassive {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			finish(i, s.runCheck(c))
		}()
	}
	wg.Wait()
	// Close the connections, so that the logs hold all the agents wrote.
	s.close()
	for i, c := range allChecks {
		if c.conn == connPassive {
			finish(i, s.runCheck(c))
		}
	}
	report := Report{Target: s.target.String(), Results: results}
	if a, ok := s.agent.Load().(string); ok {
		report.Agent = a
	}
	return report
}

// runCheck runs one check, with its own deadline and the connection it
// needs.
func (s *suite) runCheck(c checkDef) Result {
	res := Result{Check: c.Check}
	if s.skipped(c.ID) {
		res.Outcome, res.Reason = Skip, "skipped by the options"
		return res
	}
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	if s.clock != nil {
		stop := s.clock.AfterFunc(s.opts.Timeout, func() {
			cancel(fmt.Errorf("the check's timeout of %v", s.opts.Timeout))
		})
		defer stop()
	}
	v := s.runWith(ctx, c)
	res.Outcome, res.Reason = v.outcome, v.reason
	if v.outcome == Fail && ctx.Err() != nil && !strings.Contains(v.reason, "time ran out") {
		res.Reason += fmt.Sprintf(" (%v)", context.Cause(ctx))
	}
	return res
}

// runWith gives the check the connection it needs and runs it.
func (s *suite) runWith(ctx context.Context, c checkDef) (v verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = failf("the check panicked: %v", p)
		}
	}()
	k := &checker{s: s}
	switch c.conn {
	case connFresh:
		if c.stdioOnly && s.target.remote != nil {
			return skipf("%v", errNoRaw)
		}
		p, err := s.open(s.ctx)
		if err != nil {
			return failf("%v", err)
		}
		defer p.close()
		k.p = p
	case connV1, connV2:
		sp, err := s.sharedPeer(ctx, c.conn)
		if err != nil {
			return failf("%v", err)
		}
		if sp.init.skip != "" {
			return skipf("%s", sp.init.skip)
		}
		k.p, k.init = sp.p, sp.init
	case connRemote:
		if s.target.remote == nil {
			return skipf("the agent is reached over stdio: this check is of the remote transport")
		}
	}
	return c.run(ctx, k)
}

// sharedPeer returns the connection of kind, opening and initializing it
// the first time.
func (s *suite) sharedPeer(ctx context.Context, kind connKind) (*sharedPeer, error) {
	v, _ := s.shared.LoadOrStore(kind, &sharedPeer{})
	sp := v.(*sharedPeer)
	sp.once.Do(func() {
		sp.p, sp.err = s.open(s.ctx)
		if sp.err != nil {
			return
		}
		version := 1
		if kind == connV2 {
			version = 2
		}
		sp.init, sp.err = initialize(ctx, sp.p, version)
		if sp.err == nil && sp.init.agent != "" {
			s.agent.CompareAndSwap(nil, sp.init.agent)
		}
	})
	if sp.err != nil {
		return nil, fmt.Errorf("initializing a connection: %w", sp.err)
	}
	return sp, nil
}

// connKind is the connection a check runs on.
type connKind int

const (
	connNone    connKind = iota // none: the check opens what it needs
	connFresh                   // a new connection, not initialized
	connV1                      // the connection the v1 checks share, initialized
	connV2                      // the connection the v2 checks share, initialized in v2
	connRemote                  // none, and only for a remote target
	connPassive                 // none: it judges the logs of every connection, after the others
)

// checkDef is a check and how to run it.
type checkDef struct {
	Check
	conn      connKind
	stdioOnly bool // with connFresh: skipped over a remote transport
	run       func(ctx context.Context, k *checker) verdict
}

// verdict is what a check's run found.
type verdict struct {
	outcome Outcome
	reason  string
}

func passf(format string, args ...any) verdict {
	return verdict{Pass, fmt.Sprintf(format, args...)}
}

func failf(format string, args ...any) verdict {
	return verdict{Fail, fmt.Sprintf(format, args...)}
}

func skipf(format string, args ...any) verdict {
	return verdict{Skip, fmt.Sprintf(format, args...)}
}

// errVerdict is the failure of a step that must succeed for the check to
// judge anything: what it was doing, and the error.
func errVerdict(doing string, err error) verdict {
	var v verdictError
	if errors.As(err, &v) {
		return v.v
	}
	return failf("%s: %v", doing, err)
}

// verdictError carries a verdict through a helper's error.
type verdictError struct{ v verdict }

func (e verdictError) Error() string { return e.v.reason }
