package geminitest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/tidwall/gjson"
)

// This file holds the lenient ACP mode (see [EnvLenient]): rather than
// replay a transcript in order, the fake answers any client as the real
// `gemini --acp` would, drawing what it says from the transcript.

// ErrUnplayable is wrapped by the error of an ACP transcript the lenient
// mode cannot play: one without an answered initialize, session/new and
// session/prompt.
var ErrUnplayable = errors.New("geminitest: the ACP transcript cannot be played leniently")

// script is what the lenient mode says, read from a transcript.
type script struct {
	initialize json.RawMessage // initialize's result
	open       []ACPEntry      // the answer to session/new, and available_commands_update
	load       []ACPEntry      // what a successful session/load said, its answer among it
	turns      [][]ACPEntry    // what each prompt not cancelled said, its answer last
	modes      []string        // the ids of the modes session/new lists
}

// readScript reads a script from a transcript. The agent's lines after a
// client's session/prompt or session/load, up to the client's next
// request (skipping available_commands_update), are what it said; those
// after session/new are its answer and that update. Its exits are left
// out.
func readScript(entries []ACPEntry) (script, error) {
	var s script
	var opened, commands *ACPEntry
	methods := map[string]string{} // the client's requests' methods, by id
	var cur *exchange              // the prompt or load being answered
	finish := func() {
		switch {
		case cur == nil:
		case cur.method == acp.SessionLoad.Name && cur.answered && s.load == nil:
			s.load = cur.lines
		case cur.method == acp.SessionPrompt.Name && cur.answered && !cur.cancelled:
			s.turns = append(s.turns, cur.lines)
		}
		cur = nil
	}
	for _, e := range entries {
		if e.Dir == "client" {
			m := acp.Classify(e.Msg)
			switch m.Kind {
			case acp.KindRequest:
				if cur != nil && cur.method == acp.SessionLoad.Name {
					finish()
				}
				methods[m.ID.String()] = m.Method
				if m.Method == acp.SessionPrompt.Name || m.Method == acp.SessionLoad.Name {
					finish()
					cur = &exchange{method: m.Method, id: m.ID.String()}
				}
			case acp.KindNotification:
				if m.Method == acp.SessionCancel.Name && cur != nil {
					cur.cancelled = true
				}
			}
			continue
		}
		if e.Exit != nil {
			continue
		}
		if e.Raw != nil {
			if cur != nil {
				cur.lines = append(cur.lines, e)
			}
			continue
		}
		m := acp.Classify(e.Msg)
		if m.Kind == acp.KindNotification && gjson.GetBytes(e.Msg, "params.update.sessionUpdate").Str == "available_commands_update" {
			if commands == nil {
				commands = &e
			}
			continue
		}
		if m.Kind == acp.KindResponse {
			method := methods[m.ID.String()]
			switch {
			case m.Err != nil:
			case method == acp.Initialize.Name && s.initialize == nil:
				s.initialize = json.RawMessage(m.Result)
			case method == acp.SessionNew.Name && opened == nil:
				opened = &e
				for _, mode := range gjson.GetBytes(m.Result, "modes.availableModes.#.id").Array() {
					s.modes = append(s.modes, mode.Str)
				}
			}
			if cur == nil || m.ID.String() != cur.id {
				continue // the answer to another request of the client's
			}
			cur.answered = m.Err == nil || cur.method == acp.SessionPrompt.Name
			cur.cancelled = cur.cancelled || gjson.GetBytes(m.Result, "stopReason").Str == string(acp.StopReasonCancelled)
			cur.lines = append(cur.lines, e)
			if cur.method == acp.SessionPrompt.Name {
				finish()
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, e)
		}
	}
	finish()
	if s.initialize == nil || opened == nil || len(s.turns) == 0 {
		return script{}, fmt.Errorf("%w: it needs an answered initialize, session/new and session/prompt", ErrUnplayable)
	}
	s.open = []ACPEntry{*opened}
	if s.load == nil {
		// Loaded, a session is answered as a new one is, without its id.
		var res map[string]json.RawMessage
		if err := json.Unmarshal([]byte(gjson.GetBytes(opened.Msg, "result").Raw), &res); err != nil {
			return script{}, fmt.Errorf("%w: session/new's result: %v", ErrUnplayable, err)
		}
		delete(res, "sessionId")
		line, err := acp.MarshalResponse(acp.IntID(0), res)
		if err != nil {
			return script{}, fmt.Errorf("%w: session/new's result: %v", ErrUnplayable, err)
		}
		s.load = []ACPEntry{{Dir: "agent", Msg: line}}
	}
	if commands != nil {
		s.open = append(s.open, *commands)
		s.load = append(slices.Clip(s.load), *commands)
	}
	return s, nil
}

// exchange is a prompt or a load of the transcript's, as read.
type exchange struct {
	method, id string
	lines      []ACPEntry
	answered   bool // successfully, or a prompt with any answer
	cancelled  bool
}

// playState is where a play stands.
type playState int

const (
	playDue    playState = iota // its next line is on its way
	playAsking                  // it waits for the client's answer to its request
	playOver                    // it has said all, or was cancelled
)

// play is the agent's answer to one request of the client's, a line at a
// time.
type play struct {
	session string
	id      acp.ID // the client's request
	lines   []ACPEntry
	next    int
	state   playState
	ctx     context.Context
	stop    context.CancelFunc
	// tool and options are those of the permission asked for, refused
	// the tool whose permission the client refused: its updates and the
	// file requests after it are left out, as the real CLI does not run
	// it.
	tool, refused string
	options       gjson.Result
}

// sessionState is a session the lenient agent has opened.
type sessionState struct {
	turn    *play // the prompt being answered, or nil
	prompts int   // prompts taken so far
}

// lenient is the lenient ACP agent; one goroutine, its run loop, owns it.
type lenient struct {
	*runner
	script    script
	delay     time.Duration
	trusted   bool // --skip-trust, or GEMINI_CLI_TRUST_WORKSPACE=true
	ctx       context.Context
	sessions  map[string]*sessionState
	asking    map[string]*play // by the id of the agent's request
	nextID    int64            // the agent's next request id
	due       chan *play       // plays whose next line is due
	scheduled int              // plays on their way to due
	done      chan struct{}    // closed when the run ends
}

// runLenient answers the client leniently: see [EnvLenient].
func (r *runner) runLenient(entries []ACPEntry, delay time.Duration, trusted bool) int {
	s, err := readScript(entries)
	if err != nil {
		r.Errorf("fakegemini: %v", err)
		return ExitError
	}
	ctx, cancel := context.WithCancel(r.Ctx)
	defer cancel()
	l := &lenient{runner: r, script: s, delay: delay, trusted: trusted, ctx: ctx,
		sessions: map[string]*sessionState{}, asking: map[string]*play{}, due: make(chan *play), done: make(chan struct{})}
	defer close(l.done)
	input := fakecli.ReadLines(r.Env.Stdin, 64<<20, l.done)
	for input != nil || l.scheduled > 0 {
		var err error
		select {
		case <-r.Ctx.Done():
			return r.Stop()
		case in := <-input:
			if in.Err != nil {
				// The client closed the agent's input: what the agent
				// is saying is said, then it exits.
				input = nil
				continue
			}
			err = l.take(in.Line)
		case p := <-l.due:
			l.scheduled--
			err = l.step(p)
		}
		if err != nil {
			return r.Exit(err)
		}
	}
	return ExitOK
}

// lenientMethods answer the client's requests, as the real CLI does.
var lenientMethods = map[string]func(*lenient, acp.Message) error{
	acp.Initialize.Name:     func(l *lenient, m acp.Message) error { return l.respond(m.ID, l.script.initialize) },
	acp.Authenticate.Name:   func(l *lenient, m acp.Message) error { return l.respond(m.ID, struct{}{}) },
	acp.SessionNew.Name:     (*lenient).open,
	acp.SessionLoad.Name:    (*lenient).load,
	acp.SessionPrompt.Name:  (*lenient).prompt,
	acp.SessionSetMode.Name: (*lenient).setMode,
	acp.SessionSetModel.Name: func(l *lenient, m acp.Message) error {
		return l.inSession(m, func(*sessionState) error { return l.respond(m.ID, struct{}{}) })
	},
}

// take answers a line of the client's.
func (l *lenient) take(line []byte) error {
	m := acp.Classify(line)
	switch m.Kind {
	case acp.KindRequest:
		if answer, ok := lenientMethods[m.Method]; ok {
			return answer(l, m)
		}
		return l.fail(m.ID, acp.Errorf(acp.CodeMethodNotFound, "%q: %s", "Method not found", m.Method).WithData(map[string]string{"method": m.Method}))
	case acp.KindNotification:
		if m.Method == acp.SessionCancel.Name {
			if s := l.sessions[gjson.GetBytes(m.Params, "sessionId").Str]; s != nil && s.turn != nil {
				return l.cancel(s)
			}
		}
		return nil // the real CLI answers no notification
	case acp.KindResponse:
		return l.answered(m)
	default:
		return l.fail(m.ID, m.Err)
	}
}

// open answers session/new with a session of a fresh id.
func (l *lenient) open(m acp.Message) error {
	id := newSessionID()
	l.sessions[id] = &sessionState{}
	l.start(id, m.ID, l.script.open)
	return nil
}

// load answers session/load of any session as of one the CLI has
// stored: the fake keeps no store.
func (l *lenient) load(m acp.Message) error {
	id := gjson.GetBytes(m.Params, "sessionId").Str
	if id == "" {
		return l.fail(m.ID, internalError(fmt.Sprintf("Invalid session identifier %q.", id)))
	}
	if l.sessions[id] == nil {
		l.sessions[id] = &sessionState{}
	}
	l.start(id, m.ID, l.script.load)
	return nil
}

// prompt plays the session's next turn of the transcript's, the first
// again after the last. A turn still going on is cancelled first.
func (l *lenient) prompt(m acp.Message) error {
	return l.inSession(m, func(s *sessionState) error {
		if s.turn != nil {
			if err := l.cancel(s); err != nil {
				return err
			}
		}
		turn := l.script.turns[s.prompts%len(l.script.turns)]
		s.prompts++
		s.turn = l.start(gjson.GetBytes(m.Params, "sessionId").Str, m.ID, turn)
		return nil
	})
}

// setMode takes the modes session/new lists, but for the privileged ones
// in a folder not trusted.
func (l *lenient) setMode(m acp.Message) error {
	return l.inSession(m, func(*sessionState) error {
		mode := gjson.GetBytes(m.Params, "modeId").Str
		switch {
		case !slices.Contains(l.script.modes, mode):
			return l.fail(m.ID, internalError("Invalid or unavailable mode: "+mode))
		case !l.trusted && (mode == "yolo" || mode == "autoEdit"):
			return l.fail(m.ID, internalError("Cannot enable privileged approval modes in an untrusted folder."))
		}
		return l.respond(m.ID, struct{}{})
	})
}

// inSession calls f with the session m names, or answers m that there is
// no such session.
func (l *lenient) inSession(m acp.Message, f func(*sessionState) error) error {
	id := gjson.GetBytes(m.Params, "sessionId").Str
	s := l.sessions[id]
	if s == nil {
		return l.fail(m.ID, acp.Errorf(acp.CodeInvalidParams, "Session not found: %s", id))
	}
	return f(s)
}

// cancel ends the session's turn at once, as the real CLI does.
func (l *lenient) cancel(s *sessionState) error {
	p := s.turn
	s.turn = nil
	p.stop()
	p.state = playOver
	return l.respond(p.id, acp.PromptResult{StopReason: acp.StopReasonCancelled})
}

// answered takes the client's answer to a request of the agent's.
func (l *lenient) answered(m acp.Message) error {
	p := l.asking[m.ID.String()]
	delete(l.asking, m.ID.String())
	if p == nil || p.state != playAsking {
		return nil
	}
	if p.tool != "" && refused(m, p.options) {
		p.refused = p.tool
	}
	p.state = playDue
	l.schedule(p)
	return nil
}

// refused reports whether m answers a permission request with options
// by refusing it.
func refused(m acp.Message, options gjson.Result) bool {
	outcome := gjson.GetBytes(m.Result, "outcome")
	if m.Err != nil || outcome.Get("outcome").Str == "cancelled" {
		return true
	}
	chosen := outcome.Get("optionId").Str
	for _, o := range options.Array() {
		if o.Get("optionId").Str == chosen {
			return strings.HasPrefix(o.Get("kind").Str, "reject")
		}
	}
	return false
}

// start plays lines in session as the answer to the client's request id.
func (l *lenient) start(session string, id acp.ID, lines []ACPEntry) *play {
	ctx, stop := context.WithCancel(l.ctx)
	p := &play{session: session, id: id.Clone(), lines: lines, ctx: ctx, stop: stop}
	l.schedule(p)
	return p
}

// schedule has p's next line come after the delay.
// A play cancelled meanwhile comes all the same, to be ignored.
func (l *lenient) schedule(p *play) {
	l.scheduled++
	go func() {
		if l.delay > 0 && l.Env.Sleep != nil {
			l.Env.Sleep(p.ctx, l.delay)
		}
		select {
		case l.due <- p:
		case <-l.done:
		}
	}()
}

// step writes p's next line, and has the one after it come.
func (l *lenient) step(p *play) error {
	if p.state != playDue {
		return nil
	}
	if p.next == len(p.lines) {
		p.state = playOver
		if s := l.sessions[p.session]; s != nil && s.turn == p {
			s.turn = nil
		}
		p.stop()
		return nil
	}
	e := p.lines[p.next]
	p.next++
	line, ask := l.say(p, e)
	if line != nil {
		if err := l.Emit(line, 0); err != nil {
			return err
		}
	}
	if ask != "" {
		p.state = playAsking
		l.asking[ask] = p
		return nil
	}
	if p.next == len(p.lines) {
		return l.step(p) // over at once
	}
	l.schedule(p)
	return nil
}

// say returns e as p says it, nil for a line left out, and the id of the
// request it makes, if it does.
func (l *lenient) say(p *play, e ACPEntry) (line []byte, ask string) {
	if e.Raw != nil {
		return []byte(*e.Raw), ""
	}
	msg := setString(setString(e.Msg, "params.sessionId", p.session), "result.sessionId", p.session)
	m := acp.Classify(msg)
	switch m.Kind {
	case acp.KindResponse:
		return setRaw(msg, "id", p.id.Raw()), ""
	case acp.KindRequest:
		if p.refused != "" && strings.HasPrefix(m.Method, "fs/") {
			return nil, ""
		}
		if m.Method == acp.SessionRequestPermission.Name {
			p.tool = gjson.GetBytes(m.Params, "toolCall.toolCallId").Str
			p.options = gjson.GetBytes(m.Params, "options")
		}
		id := acp.IntID(l.nextID)
		l.nextID++
		return setRaw(msg, "id", id.Raw()), id.String()
	}
	if p.refused != "" && gjson.GetBytes(m.Params, "update.toolCallId").Str == p.refused {
		return nil, ""
	}
	return msg, ""
}

// respond answers the client's request id with result.
func (l *lenient) respond(id acp.ID, result any) error {
	line, err := acp.MarshalResponse(id, result)
	if err != nil {
		return err
	}
	return l.Emit(line, 0)
}

// fail answers the client's request id with e.
func (l *lenient) fail(id acp.ID, e *acp.Error) error {
	line, err := acp.MarshalErrorResponse(id, e)
	if err != nil {
		return err
	}
	return l.Emit(line, 0)
}

// internalError is the real CLI's answer to much that goes wrong: -32603
// with the words in data.details.
func internalError(details string) *acp.Error {
	return acp.Errorf(acp.CodeInternalError, "Internal error").WithData(map[string]string{"details": details})
}

// setString returns msg with the string at path, when there is one, set
// to s.
func setString(msg []byte, path, s string) []byte {
	if v := gjson.GetBytes(msg, path); v.Type != gjson.String {
		return msg
	}
	q, _ := json.Marshal(s)
	return setRaw(msg, path, q)
}

// setRaw returns a copy of msg with the value at path replaced by raw
// JSON; msg itself when there is no value there.
func setRaw(msg []byte, path string, raw []byte) []byte {
	v := gjson.GetBytes(msg, path)
	if !v.Exists() || v.Index <= 0 {
		return msg
	}
	out := append([]byte(nil), msg[:v.Index]...)
	out = append(out, raw...)
	return append(out, msg[v.Index+len(v.Raw):]...)
}

// newSessionID returns a random UUID, as the real CLI's session ids are.
func newSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
