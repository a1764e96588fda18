package bridge

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/acpkit/acpkit/acp"
)

// This file is a session's owner: one goroutine (session.run) that holds
// all of the session's state and takes every input as an event, one at a
// time, in order. The Agent's handlers post an event and wait for its
// reply; the session's process, its timers and its permission questions
// post events too, and touch nothing else.
//
// The states are types. Each has one method, on, the one place that says
// which events the state takes and which state follows:
//
//	state       what runs                     events it takes                  what follows
//	cold        no CLI                        start (a warm start)             idle
//	                                          replay (session/load)            cold
//	                                          prompt                           running
//	                                          callback                         cold
//	                                          close                            closed
//	idle        a CLI, between turns          prompt                           running
//	                                          replay (session/load)            idle
//	                                          CLI line, callback               idle, stopping (the CLI retired)
//	                                          idle timer                       stopping
//	                                          CLI exit                         cold
//	                                          close                            closing
//	running     a turn                        CLI line, callback,              (the turn ends) idle, stopping, running
//	                                          permission answer
//	                                          CLI exit                         cold, running (the next prompt, or the same in a new CLI)
//	                                          watchdog silence                 stopping
//	                                          cancel                           cancelling
//	                                          close                            closing
//	cancelling  a cancelled turn, interrupted CLI line, callback               (the turn ends) idle, stopping, running
//	                                          CLI exit                         cold, running
//	                                          grace expiry                     cancelling (the next signal)
//	                                          close                            closing
//	stopping    a CLI asked to exit           replay (session/load)            stopping
//	                                          CLI line, callback               stopping
//	                                          CLI exit                         cold, running
//	                                          grace expiry                     stopping (the next signal)
//	                                          close                            closing
//	closing     the last CLI, asked to exit   CLI line, callback (the          closing
//	                                          cancelled turn)
//	                                          CLI exit                         closed
//	                                          grace expiry                     closing
//	closed      nothing                       —                                —
//
// A callback is what a Conversation does once work it ran off the
// session's goroutine has returned (ConversationConfig.Go); it is handed
// the process that runs, if any, as a line of its output is.
//
// Every state but closing queues a prompt while a turn runs or a CLI
// stops; a turn's end or a CLI's exit starts the oldest (see ready).
// Every state takes a mode or model setting, and what anywhere lists; a
// replay comes only between turns, and is refused while one runs.
type session struct {
	a     *Agent
	id    string
	cwd   string
	dirs  []string // additionalDirectories, as the Conversation has them
	log   *slog.Logger
	inbox chan event
	done  chan struct{} // closed once run has returned

	// Owned by run, like everything the states hold.
	conv        Conversation
	ed          *editor // where updates outside a turn go: the editor the session last heard from
	mode, model string
	queue       []*promptReq         // prompts waiting for the turn under way, oldest first
	announced   []byte               // the commands last sent, as JSON
	offered     []byte               // the options Commands or Offer last sent, as JSON
	v2          *v2Render            // names the messages a v2 editor sees; nil before one
	held        map[*editor]*heldFor // what editors not yet told of the session get once told
	owed        *editor              // the editor getting what a response owes it first (see beforeResponse)

	// What session/list shows of the session, as run last published it;
	// guarded by a.mu.
	listed openSession
}

// An event is an input of a session's goroutine: one of the types below,
// or output or exited from its process, or a callback of its
// Conversation's.
type event interface{ isEvent() }

// start starts the session's CLI before its first prompt, so that the
// CLI's commands and models reach the editor at once and the prompt does
// not wait for the CLI to start: a warm start. A per-turn CLI, whose
// process starts with its turn's prompt, is not started.
type start struct{}

// replay is session/load's replay of the stored conversation f (nil
// when it has none yet), shown to ed before load answers; the rest of
// what the session has for ed waits for the answer, by hold.
type replay struct {
	f     *StoredFile
	ed    *editor
	hold  *hold
	reply chan error
}

// retitled is a title the CLI stored for the session, and when it did.
type retitled struct {
	title string
	at    time.Time
}

// prompt is a session/prompt request.
type prompt struct{ req *promptReq }

// promptReq is a prompt, and where its answer goes.
type promptReq struct {
	ed     *editor
	blocks []acp.ContentBlock
	reply  chan promptReply // buffered: the session never waits to answer
	v2     *v2Prompt        // nil for a v1 prompt
}

type promptReply struct {
	res acp.PromptResult
	err error
}

func (r *promptReq) answer(res acp.PromptResult, err error) { r.reply <- promptReply{res, err} }

// end answers req, or, for a v2 prompt whose turn started, ends the turn
// with the idle state.
func (s *session) end(req *promptReq, res acp.PromptResult, err error) {
	if !s.endV2(req, res, err) {
		req.answer(res, err)
	}
}

// abandon is a prompt whose request ended before its answer: the editor
// withdrew it, or the connection ended.
type abandon struct{ req *promptReq }

// cancel is session/cancel.
type cancel struct{}

// setting is a switch of one of the session's settings: its mode or
// model (key configMode or configModel), or a [Tuner]'s option.
type setting struct {
	key, value string
	ctx        context.Context
	ed         *editor
	reply      chan settingReply
}

type settingReply struct {
	view view
	err  error
}

// settled is a setting the CLI has confirmed, or refused with err.
type settled struct {
	setting
	err error
}

// describe asks for the session's modes and options.
type describe struct{ reply chan view }

// closeSession is session/close, or the Agent's Close.
type closeSession struct{ reply chan struct{} }

// Timer expiries; each names its timer, so that a state tells its own
// from one it stopped too late.
type (
	idleExpired  struct{ t *timer }
	graceExpired struct{ t *timer }
	watchTick    struct {
		t    *timer
		step time.Duration
	}
)

// answered is the editor's answer to a permission question.
type answered struct{ q *question }

// callback is what the Conversation does once work it gave
// ConversationConfig.Go has returned: like a line of the CLI's output,
// it is handed the Host of the process that runs, if any.
type callback struct{ f func(Host) }

func (start) isEvent()        {}
func (replay) isEvent()       {}
func (retitled) isEvent()     {}
func (prompt) isEvent()       {}
func (abandon) isEvent()      {}
func (cancel) isEvent()       {}
func (setting) isEvent()      {}
func (settled) isEvent()      {}
func (describe) isEvent()     {}
func (closeSession) isEvent() {}
func (idleExpired) isEvent()  {}
func (graceExpired) isEvent() {}
func (watchTick) isEvent()    {}
func (answered) isEvent()     {}
func (output) isEvent()       {}
func (exited) isEvent()       {}
func (callback) isEvent()     {}

// A state is what a session is doing. Its on method takes one event and
// returns the state that follows.
type state interface {
	on(s *session, ev event) state
}

// cold: no CLI runs.
type cold struct{}

func (st cold) on(s *session, ev event) state {
	switch ev := ev.(type) {
	case start:
		if s.a.info.PerTurn {
			break
		}
		p, err := s.start(s.conv.CommandLine(s.mode, s.model))
		if err != nil {
			s.log.Warn("starting "+s.a.info.Name, "error", err)
			break
		}
		return s.ready(p)
	case replay:
		s.show(ev)
	case prompt:
		if next := s.begin(ev.req, nil); next != nil {
			return next
		}
	case setting:
		s.configure(ev, nil)
	case callback:
		s.deliver(nil, nil, ev)
	case closeSession:
		return s.finalize([]chan struct{}{ev.reply})
	default:
		s.anywhere(ev)
	}
	return st
}

// idle: the CLI runs between turns, until the idle timer, if any, stops
// it.
type idle struct {
	p     *proc
	timer *timer // nil without Config.Idle
}

func (st idle) on(s *session, ev event) state {
	switch ev := ev.(type) {
	case replay:
		s.show(ev)
	case prompt:
		if next := s.begin(ev.req, st.p); next != nil {
			st.timer.stop()
			return next
		}
	case output, callback:
		s.deliver(st.p, nil, ev)
		if st.p.retired {
			st.timer.stop()
			st.p.stop()
			return stopping{st.p}
		}
	case exited:
		st.timer.stop()
		s.exit(st.p, nil, ev)
		return s.ready(nil)
	case idleExpired:
		if ev.t == st.timer {
			s.log.Info("stopping the idle CLI")
			st.p.stop()
			return stopping{st.p}
		}
	case setting:
		s.configure(ev, st.p)
	case closeSession:
		st.timer.stop()
		st.p.stop()
		return closing{p: st.p, waiting: []chan struct{}{ev.reply}}
	default:
		s.anywhere(ev)
	}
	return st
}

// running: a turn runs in the CLI.
type running struct {
	p *proc
	t *turn
}

func (st running) on(s *session, ev event) state {
	switch ev := ev.(type) {
	case prompt:
		s.wait(ev.req)
	case output, callback:
		if h := s.deliver(st.p, st.t, ev); h.ended {
			return s.turnEnded(st.p, st.t, h, false)
		}
	case answered:
		if h := s.answer(st.p, st.t, ev.q); h != nil && h.ended {
			return s.turnEnded(st.p, st.t, h, false)
		}
	case exited:
		return s.turnExited(st.p, st.t, ev, false)
	case watchTick:
		if st.p.silent(ev) {
			return s.timedOut(st.p, st.t)
		}
	case cancel:
		s.cancelQueue()
		s.interrupt(st.p)
		return cancelling(st)
	case abandon:
		if ev.req == st.t.req {
			s.interrupt(st.p)
			return cancelling(st)
		}
		s.anywhere(ev)
	case setting:
		s.configure(ev, st.p)
	case closeSession:
		s.cancelQueue()
		s.interrupt(st.p)
		st.p.in.Close()
		return closing{p: st.p, t: st.t, waiting: []chan struct{}{ev.reply}}
	default:
		s.anywhere(ev)
	}
	return st
}

// cancelling: the turn was cancelled and the CLI interrupted; it is
// signalled, a grace period apart, until the turn ends. The CLI's
// permission questions get no answer: the interrupt makes it withdraw
// them, and an answer after that is one it no longer expects.
type cancelling struct {
	p *proc
	t *turn
}

func (st cancelling) on(s *session, ev event) state {
	switch ev := ev.(type) {
	case prompt:
		s.wait(ev.req)
	case output, callback:
		if h := s.deliver(st.p, st.t, ev); h.ended {
			return s.turnEnded(st.p, st.t, h, true)
		}
	case exited:
		return s.turnExited(st.p, st.t, ev, true)
	case graceExpired:
		st.p.graceExpired(ev.t)
	case setting:
		s.configure(ev, st.p)
	case closeSession:
		s.cancelQueue()
		st.p.in.Close()
		return closing{p: st.p, t: st.t, waiting: []chan struct{}{ev.reply}}
	default:
		s.anywhere(ev)
	}
	return st
}

// stopping: the CLI was asked to exit (its input closed, or killed) and
// is signalled, a grace period apart, until it does.
type stopping struct{ p *proc }

func (st stopping) on(s *session, ev event) state {
	switch ev := ev.(type) {
	case replay:
		s.show(ev)
	case prompt:
		s.wait(ev.req)
	case output, callback:
		s.deliver(st.p, nil, ev)
	case exited:
		s.exit(st.p, nil, ev)
		return s.ready(nil)
	case graceExpired:
		st.p.graceExpired(ev.t)
	case setting:
		s.configure(ev, nil) // for the next CLI
	case closeSession:
		s.cancelQueue()
		return closing{p: st.p, waiting: []chan struct{}{ev.reply}}
	default:
		s.anywhere(ev)
	}
	return st
}

// closing: the session is closing. Its CLI was asked to exit, and the turn
// under way, if any, was cancelled and ends as the CLI ends it.
type closing struct {
	p       *proc
	t       *turn // nil once answered
	waiting []chan struct{}
}

func (st closing) on(s *session, ev event) state {
	switch ev := ev.(type) {
	case prompt:
		ev.req.answer(acp.PromptResult{}, s.closedError())
	case replay:
		ev.reply <- s.closedError()
	case output, callback:
		if h := s.deliver(st.p, st.t, ev); h.ended {
			s.finish(st.p, st.t, h.res, h.err, true)
			st.t = nil
		}
	case exited:
		h := s.exit(st.p, st.t, ev)
		if st.t != nil {
			s.finish(st.p, st.t, h.res, h.err, true)
		}
		return s.finalize(st.waiting)
	case graceExpired:
		st.p.graceExpired(ev.t)
	case setting:
		ev.reply <- settingReply{err: s.closedError()}
	case closeSession:
		st.waiting = append(st.waiting, ev.reply)
	default:
		s.anywhere(ev)
	}
	return st
}

// closed: the session is over; run returns.
type closed struct{}

func (st closed) on(s *session, ev event) state { return st }

// anywhere takes the events every state takes alike.
func (s *session) anywhere(ev event) {
	switch ev := ev.(type) {
	case describe:
		ev.reply <- s.view()
	case settled:
		s.settle(ev)
	case cancel:
		s.cancelQueue()
	case abandon:
		if i := slices.Index(s.queue, ev.req); i >= 0 {
			s.queue = slices.Delete(s.queue, i, i+1)
			ev.req.answer(acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil)
		}
	case start:
		// A CLI runs, or starts with the next prompt.
	case replay:
		ev.reply <- acp.Errorf(acp.CodeInvalidRequest, "session %s is in a turn: load it once the turn has ended", s.id)
	case retitled:
		s.title(ev)
	case relayed:
		s.takeRelayed(ev)
	case released:
		s.release(ev.h)
	case idleExpired, graceExpired, watchTick, answered:
		// From a timer or a question of a state already left.
	default:
		s.log.Error("bridge: a session event no state takes", "event", ev)
	}
}

// goWork is ConversationConfig.Go: it runs work on a goroutine of the
// Agent's, and posts the callback work returns.
func (s *session) goWork(work func() func(Host)) {
	s.a.wg.Go(func() {
		if f := work(); f != nil {
			s.post(callback{f})
		}
	})
}

// run is the session's goroutine.
func (s *session) run() {
	defer close(s.done)
	var st state = cold{}
	for {
		if _, ok := st.(closed); ok {
			return
		}
		ev := <-s.inbox
		switch ev := ev.(type) {
		case stateReport:
			ev.send(s, st)
			continue
		case prompt:
			s.heard(ev.req.ed)
		case setting:
			s.heard(ev.ed)
		}
		st = st.on(s, ev)
	}
}

// post hands ev to the session's goroutine, and reports whether it took
// it: it does not once the session is over.
func (s *session) post(ev event) bool {
	select {
	case s.inbox <- ev:
		return true
	case <-s.done:
		return false
	}
}

// timer is a Clock timer whose expiry comes to the session's goroutine as
// an event.
type timer struct{ cancel func() bool }

// after posts the event ev makes after d.
func (s *session) after(d time.Duration, ev func(*timer) event) *timer {
	t := &timer{}
	e := ev(t)
	t.cancel = s.a.cfg.Clock.AfterFunc(d, func() { s.post(e) })
	return t
}

func (t *timer) stop() {
	if t != nil {
		t.cancel()
	}
}

// turn is one prompt, from its start in a CLI to its answer.
type turn struct {
	req   *promptReq
	ctx   context.Context // ends with the turn, and its questions with it
	end   context.CancelFunc
	mark  int  // writes queued to the CLI's input before the prompt's
	lines int  // lines the CLI had written before the turn
	fresh bool // the CLI was started for the turn

	open  map[string]*question // asked, neither answered nor withdrawn
	asked []*question          // every question asked, to wait for
}

// begin starts req's turn in p, the CLI that runs (nil to start one), and
// returns the running state; nil when the turn did not start, its prompt
// then answered with why. A v2 prompt whose turn started already, in a
// CLI that was gone, has been acknowledged: its turn ends instead, in the
// idle state with the error.
func (s *session) begin(req *promptReq, p *proc) state {
	t := &turn{req: req, open: map[string]*question{}}
	if p != nil {
		t.mark, t.lines = p.in.queued(), p.lines
	}
	if err := s.conv.Prompt(req.blocks); err != nil {
		s.end(req, acp.PromptResult{}, err)
		return nil
	}
	s.ed = req.ed
	if p == nil {
		var err error
		if p, err = s.start(s.conv.CommandLine(s.mode, s.model)); err != nil {
			s.conv.Exited(&host{s: s}, err) // lets go of the prompt
			s.end(req, acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "starting %s: %v", s.a.info.Name, err).WithData(ErrorData{Kind: KindCrash}))
			return nil
		}
		t.fresh = true
	}
	t.ctx, t.end = context.WithCancel(context.Background())
	p.startWatch(s.a.cfg.TurnTimeout)
	s.inserted(req)
	return running{p, t}
}

// wait queues a prompt that comes while a turn runs or a CLI stops.
func (s *session) wait(req *promptReq) {
	s.log.Debug("prompt waits for the turn under way", "waiting", len(s.queue)+1)
	s.queue = append(s.queue, req)
}

// ready is where a session goes once a turn has ended or its CLI has
// exited, with p the CLI that runs (nil for none): the oldest waiting
// prompt starts, or the session waits for one.
func (s *session) ready(p *proc) state {
	for len(s.queue) > 0 {
		req := s.queue[0]
		s.queue = s.queue[1:]
		if next := s.begin(req, p); next != nil {
			return next
		}
	}
	if p == nil {
		return cold{}
	}
	st := idle{p: p}
	if d := s.a.cfg.Idle; d > 0 {
		st.timer = s.after(d, func(t *timer) event { return idleExpired{t} })
	}
	return st
}

// deliver hands a line of the CLI's (an output event) or a callback to
// the Conversation, for the turn t (nil outside one) in the CLI p (nil
// when none runs).
func (s *session) deliver(p *proc, t *turn, ev event) *host {
	h := &host{s: s, p: p, t: t}
	switch ev := ev.(type) {
	case output:
		p.lines++
		s.conv.Line(h, ev.line)
	case callback:
		ev.f(h)
	}
	s.refuse(h)
	return h
}

// exit lets go of a CLI that has exited, ending the turn t (nil for none).
func (s *session) exit(p *proc, t *turn, ev exited) *host {
	if ev.err != nil {
		s.log.Warn(s.a.info.Name+" exited", "error", ev.err)
	}
	p.release()
	h := &host{s: s, p: p, t: t}
	s.conv.Exited(h, ev.err)
	s.refuse(h)
	if t != nil && !h.ended {
		h.ended = true
		h.err = acp.Errorf(acp.CodeInternalError, "%s exited without finishing the turn", s.a.info.Name).WithData(ErrorData{Kind: KindCrash})
	}
	return h
}

// turnEnded follows the end of turn t, which the CLI p ended; cancelled
// reports that the editor cancelled it.
func (s *session) turnEnded(p *proc, t *turn, h *host, cancelled bool) state {
	s.finish(p, t, h.res, h.err, cancelled)
	if p.retired || s.a.info.PerTurn {
		p.stop()
		return stopping{p}
	}
	return s.ready(p)
}

// turnExited follows the exit of the CLI p during turn t.
func (s *session) turnExited(p *proc, t *turn, ev exited, cancelled bool) state {
	if !cancelled && !t.fresh && p.lines == t.lines && ev.delivered <= t.mark {
		// The CLI ended after its last turn, before the prompt reached
		// it: the turn goes to another.
		s.log.Warn(s.a.info.Name+" gone; starting it again", "error", ev.err)
		s.exit(p, nil, ev)
		t.end()
		if next := s.begin(t.req, nil); next != nil {
			return next
		}
		return s.ready(nil)
	}
	h := s.exit(p, t, ev)
	s.finish(p, t, h.res, h.err, cancelled)
	return s.ready(nil)
}

// timedOut fails a turn whose CLI has been silent too long, and kills the
// CLI.
func (s *session) timedOut(p *proc, t *turn) state {
	d := s.a.cfg.TurnTimeout
	s.log.Warn(s.a.info.Name+" silent too long; stopping it", "timeout", d)
	p.signal(Kill)
	s.finish(p, t, acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "%s wrote nothing for %s; the turn was stopped", s.a.info.Name, d).
		WithData(ErrorData{Kind: KindTimeout}), false)
	return stopping{p}
}

// interrupt cancels the turn under way in p: it asks the CLI to end it,
// or signals the CLI when it cannot be asked, and signals it harder each
// grace period until the turn ends.
func (s *session) interrupt(p *proc) {
	p.unwatch()
	if s.conv.Interrupt() {
		p.escalate(Interrupt, Kill)
	} else {
		p.signal(Interrupt)
		p.escalate(Kill)
	}
}

// finish answers the prompt of turn t. Its permission questions are
// withdrawn first, so that the editor closes them before it sees the
// answer. A cancelled turn ends as cancelled whatever the CLI said.
func (s *session) finish(p *proc, t *turn, res acp.PromptResult, err error, cancelled bool) {
	p.unwatch()
	t.end()
	for _, q := range t.asked {
		<-q.done
	}
	if cancelled {
		res, err = acp.PromptResult{StopReason: acp.StopReasonCancelled, Usage: res.Usage}, nil
	}
	if err == nil {
		s.notifyUsage(t.req.ed, s.conv.Usage())
	}
	// What the turn made of the session is published before the editor
	// is answered, which may fork, list or load it at once.
	s.publish(func(l *openSession) {
		l.storedID, l.touched = storedID(s.conv), s.a.cfg.Clock.Now()
		if l.prompt == "" {
			l.prompt = promptTitle(t.req.blocks)
		}
	})
	s.end(t.req, res, err)
	s.lookForTitle()
}

// cancelQueue answers every waiting prompt as cancelled.
func (s *session) cancelQueue() {
	for _, req := range s.queue {
		req.answer(acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil)
	}
	s.queue = nil
}

// finalize ends the session once its CLI has exited.
func (s *session) finalize(waiting []chan struct{}) state {
	s.cancelQueue()
	for _, w := range waiting {
		close(w)
	}
	return closed{}
}
