package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
)

// claudeSession is an ACP session served by one long-lived Claude Code
// CLI in streaming-input mode, and the process serving it, if one runs.
//
// Only the process's reading goroutine (read) uses the ClaudeTranslator and
// sends the session's updates, so that they keep the CLI's order; it also
// ends every turn, so that a turn's response follows its updates.
type claudeSession struct {
	*base
	tr *ClaudeTranslator

	// Guarded by base.mu.
	cli       *cliProc // nil when no process runs
	turn      *turn    // nil between turns
	idleStop  func() bool
	announced []byte // the commands and options last sent, as JSON
}

// cliProc is one CLI process of a session.
type cliProc struct {
	proc    Process
	sess    *claude.Session
	resumed string        // the id it was started to resume
	done    chan struct{} // closed when its output has ended and it has exited
	lost    atomic.Bool   // the conversation it resumed does not exist

	waitMu  sync.Mutex
	waiters map[string]chan claude.ControlResponse // answers awaited, by request id
	perms   map[string]context.CancelFunc          // permission questions open, by request id
}

// turn is one prompt, from the user's message to the CLI's TurnEnd.
type turn struct {
	cli       *cliProc // the process serving it
	conn      *acp.Conn
	ctx       context.Context // ends with the turn; bounds its permission questions
	end       context.CancelFunc
	done      chan struct{} // closed once res and err are set
	res       acp.PromptResult
	err       error
	dog       *watchdog // nil without a turn timeout
	cancelled bool      // the client cancelled; guarded by base.mu
	timedOut  bool      // guarded by base.mu
	stops     []func() bool
	asks      sync.WaitGroup // its permission questions
}

func newClaudeSession(b *base) session {
	caps := b.caps
	return &claudeSession{base: b, tr: &ClaudeTranslator{Notices: caps.AcceptsNotices(), Location: b.a.cfg.Location, Zones: b.a.cfg.Zones}}
}

// prompt runs one turn: it starts the CLI if none runs, sends the user's
// message, and waits for the turn to end.
func (s *claudeSession) prompt(ctx context.Context, conn *acp.Conn, prompt []acp.ContentBlock) (acp.PromptResult, error) {
	blocks, err := userBlocks(prompt)
	if err != nil {
		return acp.PromptResult{}, err
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return acp.PromptResult{}, err
	}
	defer release()

	t, err := s.begin(conn, blocks)
	if err != nil {
		return acp.PromptResult{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done(): // the request was cancelled, or the connection ended
		s.cancel()
		<-t.done
	}
	return t.res, t.err
}

// begin starts a turn, and the CLI first if none runs.
func (s *claudeSession) begin(conn *acp.Conn, blocks []claude.Block) (*turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "session %s is closed", s.id)
	}
	if s.idleStop != nil {
		s.idleStop()
		s.idleStop = nil
	}
	if s.cli == nil {
		if err := s.start(); err != nil {
			return nil, err
		}
	}
	err := s.cli.sess.Send(blocks...)
	if err != nil {
		// The process ended after its last turn, before its reading
		// goroutine saw it go: the turn goes to another.
		s.a.log.Warn("Claude Code gone; starting it again", "session", s.id, "error", err)
		old := s.cli
		old.proc.Signal(Kill)
		s.detach(old)
		if err := s.start(); err != nil {
			return nil, err
		}
		err = s.cli.sess.Send(blocks...)
	}
	ctx, end := context.WithCancel(context.Background())
	t := &turn{cli: s.cli, conn: conn, ctx: ctx, end: end, done: make(chan struct{})}
	s.turn = t
	if err != nil {
		// The new process is gone too: its reading goroutine ends the turn.
		s.a.log.Warn("user message not written", "session", s.id, "error", err)
		s.cli.proc.Signal(Kill)
	}
	if d := s.a.cfg.TurnTimeout; d > 0 {
		cli := s.cli
		t.dog = newWatchdog(s.a.cfg.Clock, d, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.turn == t {
				t.timedOut = true
				s.a.log.Warn("Claude Code silent too long; stopping it", "session", s.id, "timeout", d)
				cli.proc.Signal(Kill)
			}
		})
	}
	return t, nil
}

// start starts a CLI for the session. s.mu is held.
func (s *claudeSession) start() error {
	o := claude.Options{
		Resume:                 s.resumeID,
		PermissionMode:         s.mode,
		IncludePartialMessages: true,
		MCPConfig:              s.mcp,
	}
	if o.PermissionMode == "default" {
		o.PermissionMode = ""
	}
	o.Model = modelArg(s.model)
	if s.resumeID == "" {
		o.ExtraArgs = append(o.ExtraArgs, "--session-id="+s.id)
	}
	o.ExtraArgs = append(o.ExtraArgs, s.a.cfg.ExtraArgs...)
	proc, err := s.a.cfg.Start(s.cwd, claude.SessionCommandLine(o))
	if err != nil {
		return acp.Errorf(acp.CodeInternalError, "starting Claude Code: %v", err).WithData(ErrorData{Kind: KindCrash})
	}
	cli := &cliProc{
		proc: proc, sess: claude.NewSession(proc.Stdin(), s.resumeID), resumed: s.resumeID,
		done:    make(chan struct{}),
		waiters: map[string]chan claude.ControlResponse{},
		perms:   map[string]context.CancelFunc{},
	}
	s.cli = cli
	s.a.wg.Go(func() { s.read(cli) })
	if _, err := cli.sess.Initialize(claude.InitializeOptions{}); err != nil {
		s.a.log.Warn("initialize not written", "session", s.id, "error", err)
	}
	return nil
}

// read reads a CLI's output to its end, turning it into updates and
// answers, then waits for the process and ends the turn it leaves open.
func (s *claudeSession) read(cli *cliProc) {
	var updates []acp.Update
	for ev, err := range cli.sess.Events(cli.proc.Stdout()) {
		if err != nil {
			s.a.log.Warn("Claude Code output skipped", "session", s.id, "error", err)
			continue
		}
		t := s.current(cli)
		if t != nil {
			t.dog.line()
		}
		updates = s.handle(cli, t, ev, updates[:0])
	}
	exit := cli.proc.Wait()
	if exit != nil {
		s.a.log.Warn("Claude Code exited", "session", s.id, "error", exit)
	}

	s.mu.Lock()
	if s.cli == cli {
		s.detach(cli)
	}
	s.mu.Unlock()
	t := s.current(cli)
	if t != nil {
		s.finish(t, cli, exit)
	}
	cli.waitMu.Lock()
	for _, stop := range cli.perms {
		stop()
	}
	cli.waitMu.Unlock()
	close(cli.done)
}

// current returns the turn under way in cli, nil if none.
func (s *claudeSession) current(cli *cliProc) *turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turn != nil && s.turn.cli == cli {
		return s.turn
	}
	return nil
}

// handle acts on one event of the CLI's output.
func (s *claudeSession) handle(cli *cliProc, t *turn, ev claude.Event, updates []acp.Update) []acp.Update {
	switch ev := ev.(type) {
	case claude.ControlResponse:
		s.answered(cli, ev)
	case claude.PermissionRequest:
		if t == nil {
			cli.sess.Deny(ev, "No prompt is under way.", false)
			return updates
		}
		var tc acp.PermissionToolCall
		updates, tc = s.tr.PermissionToolCall(updates, ev)
		s.a.notify(t.conn, s.id, updates)
		ctx, stop := context.WithCancel(t.ctx)
		cli.waitMu.Lock()
		cli.perms[ev.ID] = stop
		cli.waitMu.Unlock()
		s.a.wg.Add(1)
		t.asks.Go(func() {
			defer s.a.wg.Done()
			s.ask(ctx, t, cli, ev, tc)
		})
	case claude.ControlCancel:
		cli.waitMu.Lock()
		if stop := cli.perms[ev.ID]; stop != nil {
			stop()
		}
		cli.waitMu.Unlock()
	case claude.Request:
		if err := cli.sess.Decline(ev); err != nil {
			s.a.log.Warn("CLI request not declined", "session", s.id, "error", err)
		}
	case claude.TurnEnd:
		if t != nil {
			s.finish(t, cli, nil)
		}
	default:
		if t == nil {
			return updates
		}
		updates = s.tr.Translate(updates, ev, s.a.cfg.Clock.Now())
		s.a.notify(t.conn, s.id, updates)
	}
	return updates
}

// answered hands a control response to whoever waits for it, and learns
// the CLI's commands and models from its initialize answer.
func (s *claudeSession) answered(cli *cliProc, r claude.ControlResponse) {
	cli.waitMu.Lock()
	w := cli.waiters[r.ID]
	delete(cli.waiters, r.ID)
	cli.waitMu.Unlock()
	if w != nil {
		w <- r
	}
	if r.Subtype != "initialize" || r.Err != nil {
		return
	}
	var init struct {
		Commands []struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			ArgumentHint string `json:"argumentHint"`
		} `json:"commands"`
		Models json.RawMessage `json:"models"`
	}
	if json.Unmarshal(r.Payload, &init) != nil {
		return
	}
	if len(init.Models) > 0 {
		s.a.learnModels(init.Models)
	}
	t := s.current(cli)
	if t == nil {
		return
	}
	cmds := acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{}}
	for _, c := range init.Commands {
		ac := acp.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.ArgumentHint != "" {
			ac.Input = &acp.CommandInput{Hint: c.ArgumentHint}
		}
		cmds.AvailableCommands = append(cmds.AvailableCommands, ac)
	}
	_, options := s.state()
	updates := []acp.Update{cmds, acp.ConfigOptionUpdate{ConfigOptions: options}}
	// A CLI started again for the session (after an idle stop, a crash
	// or a cancel it ignored) lists the same commands: say only what
	// changed.
	announced, _ := json.Marshal(updates)
	s.mu.Lock()
	if bytes.Equal(announced, s.announced) {
		updates = nil
	}
	s.announced = announced
	s.mu.Unlock()
	s.a.notify(t.conn, s.id, updates)
}

// The permission options offered for each tool call.
const (
	optionAllow       = "allow"
	optionAllowAlways = "allow_always"
	optionReject      = "reject"
)

var permissionOptions = []acp.PermissionOption{
	{OptionID: optionAllow, Name: "Allow", Kind: acp.PermissionAllowOnce},
	{OptionID: optionAllowAlways, Name: "Always allow", Kind: acp.PermissionAllowAlways},
	{OptionID: optionReject, Name: "Reject", Kind: acp.PermissionRejectOnce},
}

// planOptions are offered when the model asks to leave plan mode
// (ExitPlanMode): each allow names the mode to go on in.
var planOptions = []acp.PermissionOption{
	{OptionID: "acceptEdits", Name: "Yes, and auto-accept edits", Kind: acp.PermissionAllowAlways},
	{OptionID: "default", Name: "Yes, and manually approve edits", Kind: acp.PermissionAllowOnce},
	{OptionID: optionReject, Name: "No, keep planning", Kind: acp.PermissionRejectOnce},
}

// ask puts a permission request to the client and gives the CLI its
// answer. ctx ends when the turn ends or the CLI withdraws the request.
// A question pending when the client cancels the turn gets no answer:
// the interrupt makes the CLI withdraw it, and an answer written after
// that would be one the CLI no longer expects.
func (s *claudeSession) ask(ctx context.Context, t *turn, cli *cliProc, r claude.PermissionRequest, tc acp.PermissionToolCall) {
	defer func() {
		cli.waitMu.Lock()
		if stop := cli.perms[r.ID]; stop != nil {
			stop()
			delete(cli.perms, r.ID)
		}
		cli.waitMu.Unlock()
	}()
	options := permissionOptions
	if r.ToolName == toolExitPlanMode {
		options = planOptions
	}
	res, err := acp.SessionRequestPermission.Call(ctx, t.conn, acp.RequestPermissionParams{
		SessionID: s.id, ToolCall: tc, Options: options,
	})
	s.mu.Lock()
	cancelled := t.cancelled
	s.mu.Unlock()
	switch {
	case ctx.Err() != nil || cancelled:
		return // withdrawn, or the turn is over: the CLI expects no answer
	case err != nil:
		s.a.log.Warn("permission request failed", "session", s.id, "error", err)
		err = cli.sess.Deny(r, "The editor could not ask for permission.", false)
	case res.Outcome.Outcome == acp.PermissionCancelled:
		err = cli.sess.Deny(r, "The user cancelled.", true)
	case r.ToolName == toolExitPlanMode && res.Outcome.OptionID != optionReject:
		err = s.leavePlan(t.conn, cli, r, res.Outcome.OptionID)
	case res.Outcome.OptionID == optionAllow:
		err = cli.sess.Allow(r, nil)
	case res.Outcome.OptionID == optionAllowAlways:
		err = cli.sess.Allow(r, nil, r.Suggestions...)
	default:
		err = cli.sess.Deny(r, "The user refused permission to run this tool.", false)
	}
	if err != nil && !errors.Is(err, claude.ErrNotPending) {
		s.a.log.Warn("permission answer not written", "session", s.id, "error", err)
	}
}

// leavePlan allows ExitPlanMode, switching the CLI to mode (one of
// planOptions' ids) with the answer. The editor hears of the new mode
// first, before the CLI can go on and write what follows.
func (s *claudeSession) leavePlan(conn *acp.Conn, cli *cliProc, r claude.PermissionRequest, mode string) error {
	if mode != "acceptEdits" {
		mode = "default"
	}
	update, err := json.Marshal(map[string]string{"type": "setMode", "mode": mode, "destination": "session"})
	if err != nil {
		return err
	}
	if err := s.changeMode(conn, mode, nil); err != nil {
		return err
	}
	return cli.sess.Allow(r, nil, claude.PermissionUpdate{Raw: update})
}

// finish ends a turn that cli served: its response follows every update
// sent so far. Only cli's reading goroutine calls it; exit is how cli
// ended, when it did.
func (s *claudeSession) finish(t *turn, cli *cliProc, exit error) {
	s.mu.Lock()
	if s.turn != t {
		s.mu.Unlock()
		return
	}
	s.turn = nil
	cancelled, timedOut := t.cancelled, t.timedOut
	for _, stop := range t.stops {
		stop()
	}
	t.dog.Stop()
	if s.cli == cli && s.a.cfg.Idle > 0 && !s.closed {
		s.idleStop = s.a.cfg.Clock.AfterFunc(s.a.cfg.Idle, func() { s.idle(cli) })
	}
	s.mu.Unlock()

	t.res, t.err = s.tr.End(cancelled, cli.resumed, exit, s.a.cfg.Clock.Now())
	var e *acp.Error
	if errors.As(t.err, &e) && e.Code == acp.CodeResourceNotFound {
		// The CLI exits after a failed resume: the next prompt needs
		// another, which asks for the same conversation.
		cli.lost.Store(true)
		s.mu.Lock()
		if s.cli == cli {
			s.detach(cli)
		}
		s.mu.Unlock()
	}
	if timedOut && !cancelled {
		t.err = acp.Errorf(acp.CodeInternalError, "Claude Code wrote nothing for %s; the turn was stopped", s.a.cfg.TurnTimeout).
			WithData(ErrorData{Kind: KindTimeout})
	}
	if t.err == nil {
		s.a.notifyUsage(t.conn, s.id, s.tr.Usage())
	}
	// The turn's permission questions are withdrawn before it is
	// answered, so that the editor closes them first.
	t.end()
	t.asks.Wait()
	close(t.done)
}

// cancel interrupts the turn under way: the CLI ends it and keeps
// running. When it does not within the grace period, it is interrupted
// by signal, and then killed; the next prompt starts a new process.
func (s *claudeSession) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turn
	if t == nil || t.cancelled {
		return
	}
	cli := t.cli
	t.cancelled = true
	if _, err := cli.sess.Interrupt(); err != nil {
		s.a.log.Warn("interrupt not written", "session", s.id, "error", err)
	}
	grace := s.a.cfg.Grace
	t.stops = append(t.stops, s.a.cfg.Clock.AfterFunc(grace, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.turn != t {
			return
		}
		cli.proc.Signal(Interrupt)
		t.stops = append(t.stops, s.a.cfg.Clock.AfterFunc(grace, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.turn == t {
				cli.proc.Signal(Kill)
			}
		}))
	}))
}

// idle stops a CLI that has had no turn for the idle period. The session
// lets go of it first, so that a prompt arriving meanwhile starts another.
func (s *claudeSession) idle(cli *cliProc) {
	s.mu.Lock()
	stop := s.cli == cli && s.turn == nil
	if stop {
		s.detach(cli)
	}
	s.mu.Unlock()
	if stop {
		s.a.log.Info("stopping idle Claude Code", "session", s.id)
		s.stop(cli)
	}
}

// detach lets go of the session's CLI, keeping the conversation's id for
// the next process. s.mu is held.
func (s *claudeSession) detach(cli *cliProc) {
	// A failed resume's result names a conversation that was never kept:
	// the session stays bound to the one it asked for.
	if id := cli.sess.SessionID(); id != "" && !cli.lost.Load() {
		s.resumeID = id
	}
	s.cli = nil
}

// close stops the session's CLI for good. A turn under way is cancelled
// first, so that its prompt is answered.
func (s *claudeSession) close() {
	s.cancel()
	s.mu.Lock()
	s.closed = true
	cli := s.cli
	if s.idleStop != nil {
		s.idleStop()
	}
	s.mu.Unlock()
	if cli != nil {
		s.stop(cli)
	}
}

// stop closes a CLI's input and waits for it to exit, signalling it when
// it does not within the grace period.
func (s *claudeSession) stop(cli *cliProc) {
	if err := cli.proc.Stdin().Close(); err != nil {
		s.a.log.Debug("closing Claude Code's input", "session", s.id, "error", err)
	}
	grace := s.a.cfg.Grace
	stopTerm := s.a.cfg.Clock.AfterFunc(grace, func() { cli.proc.Signal(Terminate) })
	stopKill := s.a.cfg.Clock.AfterFunc(2*grace, func() { cli.proc.Signal(Kill) })
	<-cli.done
	stopTerm()
	stopKill()
}

// control sends a control request and waits for the CLI's answer.
func (s *claudeSession) control(ctx context.Context, cli *cliProc, send func() (string, error)) error {
	ch := make(chan claude.ControlResponse, 1)
	cli.waitMu.Lock()
	id, err := send()
	if err == nil {
		cli.waiters[id] = ch
	}
	cli.waitMu.Unlock()
	if err != nil {
		return acp.Errorf(acp.CodeInternalError, "Claude Code is not running: %v", err)
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return acp.Errorf(acp.CodeInvalidParams, "Claude Code refused: %s", r.Err.Message)
		}
		return nil
	case <-cli.done:
		return acp.Errorf(acp.CodeInternalError, "Claude Code exited before answering")
	case <-ctx.Done():
		cli.waitMu.Lock()
		delete(cli.waiters, id)
		cli.waitMu.Unlock()
		return ctx.Err()
	}
}

// setMode switches the permission mode: at once in a running CLI, at the
// next start otherwise.
func (s *claudeSession) setMode(ctx context.Context, conn *acp.Conn, mode string) error {
	return s.changeMode(conn, mode, s.live(ctx, func(cli *cliProc) (string, error) { return cli.sess.SetPermissionMode(mode) }))
}

// setModel switches the model: at once in a running CLI, at the next
// start otherwise.
func (s *claudeSession) setModel(ctx context.Context, conn *acp.Conn, model string) error {
	return s.changeModel(model, s.live(ctx, func(cli *cliProc) (string, error) { return cli.sess.SetModel(modelArg(model)) }))
}

// live returns a function that sends a control request to the running CLI
// and waits for its answer, or nil when no CLI runs.
func (s *claudeSession) live(ctx context.Context, send func(*cliProc) (string, error)) func() error {
	s.mu.Lock()
	cli := s.cli
	s.mu.Unlock()
	if cli == nil {
		return nil
	}
	return func() error { return s.control(ctx, cli, func() (string, error) { return send(cli) }) }
}

// userBlocks turns an ACP prompt into the content of a user message.
func userBlocks(prompt []acp.ContentBlock) ([]claude.Block, error) {
	var blocks []claude.Block
	for _, b := range prompt {
		switch b := b.(type) {
		case acp.TextContent:
			blocks = append(blocks, claude.TextBlock(b.Text))
		case acp.ImageContent:
			raw, err := json.Marshal(map[string]any{
				"type":   "image",
				"source": map[string]string{"type": "base64", "media_type": b.MimeType, "data": b.Data},
			})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, claude.RawBlock(raw))
		case acp.ResourceLink:
			blocks = append(blocks, claude.TextBlock(fmt.Sprintf("[@%s](%s)", b.Name, b.URI)))
		case acp.EmbeddedResource:
			if b.Resource.Text == nil {
				return nil, acp.Errorf(acp.CodeInvalidParams, "binary resource %s is not supported", b.Resource.URI)
			}
			blocks = append(blocks, claude.TextBlock(fmt.Sprintf("<context ref=%q>\n%s\n</context>", b.Resource.URI, *b.Resource.Text)))
		default:
			return nil, acp.Errorf(acp.CodeInvalidParams, "prompt content of type %T is not supported", b)
		}
	}
	if len(blocks) == 0 {
		return nil, acp.Errorf(acp.CodeInvalidParams, "the prompt is empty")
	}
	return blocks, nil
}
