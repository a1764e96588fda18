package bridge

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/usage"
)

// This file serves sessions of CLIs that run one process per turn (Codex,
// Gemini CLI): each prompt starts the CLI with the prompt on its standard
// input, resuming the conversation after the first turn, and ends when
// the process exits.

// turnCLI is what differs between CLIs run once per turn.
type turnCLI interface {
	// commandLine returns the arguments and the standard input of one
	// turn. resumeID is the conversation to go on with, "" for a new one;
	// mode and model are the session's ("default" for the CLI's own).
	commandLine(resumeID, mode, model string, extra []string, prompt string) (args []string, stdin []byte)
	// translator returns the session's translator, which keeps what
	// outlives a turn (usage baselines).
	translator(b *base) turnTranslator
}

// turnTranslator reads one run of a per-turn CLI.
type turnTranslator interface {
	// run reads the CLI's output to its end, handing each line's updates
	// to emit as they come, then calls wait for the exit code and returns
	// the conversation's id (for the next turn's resume) and the prompt's
	// response.
	run(resumeID string, stdout io.Reader, wait func() int, emit func([]acp.Update)) (id string, res acp.PromptResult, err error)
	// usageSnapshot returns the session's usage so far.
	usageSnapshot() usage.Snapshot
}

// turnSession is an ACP session of a per-turn CLI.
type turnSession struct {
	*base
	cli turnCLI
	tr  turnTranslator

	running *turnRun // guarded by base.mu; nil between turns
}

// turnRun is one turn's process.
type turnRun struct {
	proc      Process
	dog       *watchdog // nil without a turn timeout
	cancelled bool      // guarded by base.mu
	timedOut  bool      // guarded by base.mu
	stops     []func() bool
}

func newTurnSession(cli turnCLI) func(*base) session {
	return func(b *base) session {
		return &turnSession{base: b, cli: cli, tr: cli.translator(b)}
	}
}

func (s *turnSession) prompt(ctx context.Context, conn *acp.Conn, prompt []acp.ContentBlock) (acp.PromptResult, error) {
	text, err := promptText(prompt)
	if err != nil {
		return acp.PromptResult{}, err
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return acp.PromptResult{}, err
	}
	defer release()

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return acp.PromptResult{}, acp.Errorf(acp.CodeResourceNotFound, "session %s is closed", s.id)
	}
	resumeID := s.resumeID
	args, stdin := s.cli.commandLine(resumeID, s.mode, s.model, s.a.cfg.ExtraArgs, text)
	proc, err := s.a.cfg.Start(s.cwd, args)
	if err != nil {
		s.mu.Unlock()
		return acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "starting %s: %v", s.a.cli().Name, err).WithData(ErrorData{Kind: KindCrash})
	}
	r := &turnRun{proc: proc}
	s.running = r
	if d := s.a.cfg.TurnTimeout; d > 0 {
		r.dog = newWatchdog(s.a.cfg.Clock, d, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.running == r {
				r.timedOut = true
				s.a.log.Warn(s.a.cli().Name+" silent too long; stopping it", "session", s.id, "timeout", d)
				r.proc.Signal(Kill)
			}
		})
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() {
		// The CLI reads its whole input before it starts.
		if _, err := proc.Stdin().Write(stdin); err != nil {
			s.a.log.Warn("prompt not written", "session", s.id, "error", err)
		}
		proc.Stdin().Close()
	})
	stopWatch := context.AfterFunc(ctx, s.cancel) // the request was cancelled, or the connection ended
	wait := func() int {
		err := proc.Wait()
		if err != nil {
			s.a.log.Warn(s.a.cli().Name+" exited", "session", s.id, "error", err)
		}
		return exitCode(err)
	}
	emit := func(u []acp.Update) {
		r.dog.line()
		s.a.notify(conn, s.id, u)
	}
	id, res, err := s.tr.run(resumeID, proc.Stdout(), wait, emit)
	stopWatch()
	wg.Wait()

	s.mu.Lock()
	s.running = nil
	for _, stop := range r.stops {
		stop()
	}
	r.dog.Stop()
	if id != "" {
		s.resumeID = id
	}
	cancelled, timedOut := r.cancelled, r.timedOut
	s.mu.Unlock()
	switch {
	case cancelled:
		return acp.PromptResult{StopReason: acp.StopReasonCancelled, Usage: res.Usage}, nil
	case err == nil && !timedOut:
		s.a.notifyUsage(conn, s.id, s.tr.usageSnapshot())
	case timedOut:
		return acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "%s wrote nothing for %s; the turn was stopped", s.a.cli().Name, s.a.cfg.TurnTimeout).
			WithData(ErrorData{Kind: KindTimeout})
	}
	return res, err
}

// cancel interrupts the turn's process, and kills it when it has not
// exited within the grace period.
func (s *turnSession) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.running
	if r == nil || r.cancelled {
		return
	}
	r.cancelled = true
	r.proc.Signal(Interrupt)
	r.stops = append(r.stops, s.a.cfg.Clock.AfterFunc(s.a.cfg.Grace, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running == r {
			r.proc.Signal(Kill)
		}
	}))
}

// close cancels the turn under way, which ends its process; no other
// process runs between turns.
func (s *turnSession) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	// Wait for the prompt, which waits for the process.
	release, _ := s.acquire(context.Background())
	release()
}

func (s *turnSession) setMode(ctx context.Context, conn *acp.Conn, mode string) error {
	return s.changeMode(conn, mode, nil) // the next turn's process takes it
}

func (s *turnSession) setModel(ctx context.Context, conn *acp.Conn, model string) error {
	return s.changeModel(model, nil)
}

// exitCode is the exit code a Process's Wait error carries: 0 for nil,
// -1 when it names none (a signal).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return -1
}

// apiFailure is an API error line of a per-turn CLI's run.
type apiFailure struct {
	status int // HTTP status; 0 when unknown
}

// runOutcome maps how a per-turn CLI's run ended onto the prompt's
// response, through the sentinel errors of the CLI's package.
type runOutcome struct {
	cli                                     string // the CLI's name, for messages
	resumeNotFound, noResult, api, maxTurns error  // maxTurns is nil for a CLI without a turn limit
	noResetTime                             error
}

// of returns the stop reason of a run whose Turn.Err is err, or the
// error to answer the prompt with. msg is the CLI's own words about the
// failure ("" for none); apiErr is the run's last API error line, nil
// for none; parseReset reads a reset time out of the CLI's words.
func (o runOutcome) of(err error, msg string, apiErr *apiFailure, resumeID string, parseReset func(string) (int64, error)) (acp.StopReason, error) {
	switch {
	case err == nil:
		return acp.StopReasonEndTurn, nil
	case o.maxTurns != nil && errors.Is(err, o.maxTurns):
		return acp.StopReasonMaxTurnRequests, nil
	case errors.Is(err, o.resumeNotFound):
		return "", resumeNotFound(o.cli, resumeID)
	case errors.Is(err, o.noResult):
		return "", acp.Errorf(acp.CodeInternalError, "%s exited without finishing the turn: %v", o.cli, err).WithData(ErrorData{Kind: KindCrash})
	}
	if msg == "" {
		msg = err.Error()
	}
	data := ErrorData{Kind: KindCLIError}
	if apiErr != nil || errors.Is(err, o.api) {
		data.Kind = KindAPIError
		if apiErr != nil {
			data.APIErrorStatus = apiErr.status
		}
	}
	switch ms, perr := parseReset(msg); {
	case perr == nil:
		data.Kind, data.ResetsAtMs = KindRateLimit, ms
	case errors.Is(perr, o.noResetTime):
		data.Kind = KindRateLimit
	}
	return "", acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(data)
}
