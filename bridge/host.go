package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

// What a session's Conversation sees of it (host), its permission
// questions and its settings, all on the session's goroutine.

// question is a question put to the editor: a permission question or a
// form.
type question struct {
	Question
	cancel  context.CancelFunc
	done    chan struct{} // closed once the editor answered or the call failed
	outcome acp.PermissionOutcome
	form    acp.CreateElicitationResult // a form's answer
	err     error
}

// ask puts question q of turn t to the editor, on a goroutine of its own.
func (s *session) ask(t *turn, q Question) {
	ctx, cancel := context.WithCancel(t.ctx)
	aq := &question{Question: q, cancel: cancel, done: make(chan struct{})}
	if old := t.open[q.ID]; old != nil {
		old.cancel() // the CLI asked again: the newer question counts
	}
	t.open[q.ID] = aq
	t.asked = append(t.asked, aq)
	ed := t.req.ed
	s.a.wg.Go(func() {
		defer cancel()
		if q.Form != nil {
			aq.form, aq.err = s.elicit(ctx, ed, q)
		} else {
			aq.outcome, aq.err = s.requestPermission(ctx, ed, q)
		}
		close(aq.done)
		s.post(answered{aq})
	})
}

// answer hands the editor's answer to question q of turn t to the
// Conversation, unless the question was withdrawn; nil when it was.
func (s *session) answer(p *proc, t *turn, q *question) *host {
	if t.open[q.ID] != q {
		return nil
	}
	delete(t.open, q.ID)
	h := &host{s: s, p: p, t: t}
	if q.Form != nil {
		s.conv.(FormAnswerer).AnswerForm(h, q.Question, q.form, q.err)
	} else {
		s.conv.Answer(h, q.Question, q.outcome, q.err)
	}
	s.refuse(h)
	return h
}

// refuse answers the questions a Conversation asked outside a turn as
// cancelled.
func (s *session) refuse(h *host) {
	for len(h.refused) > 0 {
		q := h.refused[0]
		h.refused = h.refused[1:]
		if q.Form != nil {
			s.conv.(FormAnswerer).AnswerForm(h, q, acp.CreateElicitationResult{Action: acp.ElicitationCancel}, nil)
			continue
		}
		s.conv.Answer(h, q, acp.PermissionOutcome{Outcome: acp.PermissionCancelled}, nil)
	}
}

// configure handles a setting: the mode, the model, or one of a
// [Tuner]'s; p is the CLI that runs and takes it at once, nil for none.
func (s *session) configure(ev setting, p *proc) {
	if err := s.a.checkSetting(ev.key, ev.value); err != nil {
		ev.reply <- settingReply{err: err}
		return
	}
	var confirm func(context.Context) error
	switch ev.key {
	case configMode:
		if p != nil {
			confirm = s.conv.SetMode(ev.value)
		}
	case configModel:
		if p != nil {
			confirm = s.conv.SetModel(ev.value)
		}
	default:
		t, ok := s.conv.(Tuner)
		if !ok {
			ev.reply <- settingReply{err: acp.InvalidParam("configId", "no config option %q", ev.key)}
			return
		}
		var err error
		if confirm, err = t.SetOption(ev.key, ev.value, s.model); err != nil {
			ev.reply <- settingReply{err: err}
			return
		}
		if p == nil {
			confirm = nil // for the next CLI
		}
	}
	if confirm == nil {
		s.settle(settled{setting: ev})
		return
	}
	ctx, cancel := context.WithCancelCause(ev.ctx)
	var stop func() bool
	if p != nil {
		stop = context.AfterFunc(p.ctx, func() { cancel(errExited) })
	}
	s.a.wg.Go(func() {
		defer cancel(nil)
		if stop != nil {
			defer stop()
		}
		err := confirm(ctx)
		if err != nil && context.Cause(ctx) == errExited {
			err = acp.Errorf(acp.CodeInternalError, "%s exited before answering", s.a.info.Name)
		}
		s.post(settled{ev, err})
	})
}

// settle applies a setting the CLI took, or answers why it did not.
func (s *session) settle(ev settled) {
	if ev.err != nil {
		ev.reply <- settingReply{err: ev.err}
		return
	}
	switch ev.key {
	case configMode:
		s.modeChanged(ev.ed, ev.value)
	case configModel:
		s.model = ev.value
	default:
		s.conv.(Tuner).OptionSet(ev.key, ev.value)
	}
	ev.reply <- settingReply{view: s.view()}
}

// modeChanged records the session's mode and tells the editor, as a mode
// and as a config option.
func (s *session) modeChanged(ed *editor, mode string) {
	s.mode = mode
	s.notify(ed, []acp.Update{acp.CurrentModeUpdate{CurrentModeID: mode}, acp.ConfigOptionUpdate{ConfigOptions: s.view().options}})
}

// view is what the editor sees of a session's settings.
type view struct {
	modes   *acp.SessionModeState
	options []acp.SessionConfigOption
}

func (s *session) view() view {
	modes := s.a.modes()
	modeValues := make([]acp.SessionConfigSelectOption, len(modes))
	for i, m := range modes {
		modeValues[i] = acp.SessionConfigSelectOption{Value: m.ID, Name: m.Name, Description: m.Description}
	}
	options := []acp.SessionConfigOption{
		{ID: configMode, Name: "Mode", Category: acp.ConfigCategoryMode, Type: acp.ConfigOptionSelect, CurrentValue: s.mode,
			Options: acp.SessionConfigSelectOptions{Options: modeValues}},
		{ID: configModel, Name: "Model", Category: acp.ConfigCategoryModel, Type: acp.ConfigOptionSelect, CurrentValue: s.model,
			Options: acp.SessionConfigSelectOptions{Options: s.a.modelChoices(s.model)}},
	}
	if t, ok := s.conv.(Tuner); ok {
		options = append(options, t.Options(s.model)...)
	}
	return view{modes: &acp.SessionModeState{CurrentModeID: s.mode, AvailableModes: modes}, options: options}
}

// host is the Host of one call of the Agent's to the Conversation: t is the
// turn under way, nil outside one.
type host struct {
	s *session
	p *proc // nil when no CLI runs
	t *turn

	ended   bool // EndTurn was called
	res     acp.PromptResult
	err     error
	refused []Question // asked outside a turn
}

// editor returns where the host's updates go: the turn's editor, or the
// one the session last heard from.
func (h *host) editor() *editor {
	if h.t != nil {
		return h.t.req.ed
	}
	return h.s.ed
}

func (h *host) Notify(updates ...acp.Update) { h.s.notify(h.editor(), updates) }

func (h *host) Ask(q Question) {
	if q.Form != nil {
		if _, ok := h.s.conv.(FormAnswerer); !ok {
			h.s.log.Error("bridge: a form asked by a Conversation that is no FormAnswerer, left unasked", "tool", q.ToolCall.Title)
			return
		}
		if !h.Forms() {
			h.s.log.Warn("a form put to an editor that takes none, refused", "tool", q.ToolCall.Title)
			h.refused = append(h.refused, q)
			return
		}
	}
	if h.t == nil {
		h.s.log.Warn("a permission question outside a turn, refused", "tool", q.ToolCall.Title)
		h.refused = append(h.refused, q)
		return
	}
	h.s.ask(h.t, q)
}

func (h *host) Forms() bool { return h.editor().acceptsForms() }

func (h *host) Withdraw(id string) {
	if h.t == nil {
		return
	}
	if q := h.t.open[id]; q != nil {
		delete(h.t.open, id)
		q.cancel()
	}
}

func (h *host) ModeChanged(mode string) { h.s.modeChanged(h.editor(), mode) }

func (h *host) Commands(commands []acp.AvailableCommand, models []Model) {
	if models != nil {
		h.s.a.learn(nil, models)
	}
	if commands == nil {
		commands = []acp.AvailableCommand{}
	}
	// A CLI started again for the session (after an idle stop, a crash or
	// a cancel it ignored) lists the same commands: say only what changed.
	update := acp.AvailableCommandsUpdate{AvailableCommands: commands}
	announced, _ := json.Marshal(update)
	if !bytes.Equal(announced, h.s.announced) {
		h.s.announced = announced
		h.Notify(update)
	}
	h.offer()
}

func (h *host) Offer(modes []acp.SessionMode, models []Model) {
	h.s.a.learn(modes, models)
	h.offer()
}

// offer tells the editor the session's options, unless a Commands or an
// Offer last told it the same.
func (h *host) offer() {
	options := h.s.view().options
	offered, _ := json.Marshal(options)
	if bytes.Equal(offered, h.s.offered) {
		return
	}
	h.s.offered = offered
	h.Notify(acp.ConfigOptionUpdate{ConfigOptions: options})
}

func (h *host) EndTurn(res acp.PromptResult, err error) {
	if h.t == nil || h.ended {
		return
	}
	h.ended, h.res, h.err = true, res, err
}

func (h *host) Retire() {
	if h.p != nil {
		h.p.retired = true
	}
}

// modelArg is the model to pass to a CLI: "" for its default.
func modelArg(model string) string {
	if model == "default" {
		return ""
	}
	return model
}

// validModel reports whether model can go on a command line.
func validModel(model string) bool { return model != "" && !strings.HasPrefix(model, "-") }
