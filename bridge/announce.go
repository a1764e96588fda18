package bridge

import (
	"context"

	"github.com/acpkit/acpkit/acp"
)

// An editor hears of a session first in the response to the request that
// opened or attached it: session/new, fork, resume or load. The session's
// updates come from its own goroutine, which the acp.Conn does not order
// with the response it queues once the handler returns, so until then the
// session holds what it has for that editor: the handler asks for a hold,
// and acp.AfterResponse has the session let go of it once the response is
// queued, or the editor names the session in a request, whichever
// comes first. Only what ACP wants before the response goes first:
// session/load's replay, and ACP v2's state after session/resume. The
// session's goroutine owns the holds, as it owns the rest of its state.

// maxHeld bounds the notifications a session holds for an editor: the
// hold lasts from the handler's last word with the session to the
// response, not long enough for a CLI to say much.
const maxHeld = 1024

// A hold is one request's: it keeps the session's notifications to ed
// until the request's response is queued.
type hold struct{ ed *editor }

// released is the end of a hold: the response that tells the editor of
// the session is queued.
type released struct{ h *hold }

func (released) isEvent() {}

// heldFor is what a session holds for one editor: the holds on it, and
// the notifications, in order, each a function that sends it.
type heldFor struct {
	holds   []*hold
	sends   []func()
	dropped int // notifications past maxHeld, dropped
}

// newHold returns a hold on the session's notifications to ed, which ends
// once the response to the request of ctx is queued; nil, for no hold,
// when ctx is no acp.Conn request's, whose response nothing orders. s must
// take the hold (see holdFrom) before the handler returns.
func (s *session) newHold(ctx context.Context, ed *editor) *hold {
	h := &hold{ed}
	if !acp.AfterResponse(ctx, func() { s.post(released{h}) }) {
		return nil
	}
	return h
}

// holdFrom makes the session hold its notifications to h's editor until
// h is released; a nil h holds nothing. Only the session's goroutine,
// or open before it starts, calls it.
func (s *session) holdFrom(h *hold) {
	if h == nil {
		return
	}
	if s.held == nil {
		s.held = map[*editor]*heldFor{}
	}
	f := s.held[h.ed]
	if f == nil {
		f = &heldFor{}
		s.held[h.ed] = f
	}
	f.holds = append(f.holds, h)
}

// holding reports whether the session holds its notifications to ed.
func (s *session) holding(ed *editor) bool {
	return s.held[ed] != nil && s.owed != ed
}

// beforeResponse runs send, whose notifications to ed go at once, held
// or not: they are what a response owes ed before it (session/load's
// replay, ACP v2's state after session/resume), sent while its handler
// waits.
func (s *session) beforeResponse(ed *editor, send func()) {
	s.owed = ed
	defer func() { s.owed = nil }()
	send()
}

// hold keeps send, which sends a notification to ed, until ed is told of
// the session.
func (s *session) hold(ed *editor, send func()) {
	f := s.held[ed]
	if len(f.sends) == maxHeld {
		f.dropped++
		return
	}
	f.sends = append(f.sends, send)
}

// release ends the hold h, and sends what the session held for its
// editor once no hold is left on it.
func (s *session) release(h *hold) {
	f := s.held[h.ed]
	if f == nil {
		return
	}
	for i, o := range f.holds {
		if o == h {
			f.holds = append(f.holds[:i], f.holds[i+1:]...)
			break
		}
	}
	if len(f.holds) == 0 {
		s.heard(h.ed)
	}
}

// heard ends every hold on ed, and sends what the session held for it:
// ed has named the session in a request (a prompt, a setting), so it
// was told of it, even if the release (which follows the response) has
// not come yet. Otherwise what the request makes the session say would
// wait for that release, and might follow the request's own response.
func (s *session) heard(ed *editor) {
	f := s.held[ed]
	if f == nil {
		return
	}
	delete(s.held, ed)
	if f.dropped > 0 {
		s.log.Warn("notifications dropped while the editor had not been told of the session", "dropped", f.dropped, "max", maxHeld)
	}
	for _, send := range f.sends {
		send()
	}
}
