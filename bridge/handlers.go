package bridge

import (
	"context"

	"github.com/acpkit/acpkit/acp"
)

// The handlers' side of a session: each posts an event and waits for
// its reply.

// await waits for the reply to an event the session took. The session
// answers every event it takes before it ends.
func await[T any](s *session, reply <-chan T) (T, bool) {
	select {
	case r := <-reply:
		return r, true
	case <-s.done:
		select {
		case r := <-reply:
			return r, true
		default:
			var zero T
			return zero, false
		}
	}
}

func (s *session) prompt(ctx context.Context, ed *editor, blocks []acp.ContentBlock) (acp.PromptResult, error) {
	req := &promptReq{ed: ed, blocks: blocks, reply: make(chan promptReply, 1)}
	if !s.post(prompt{req}) {
		return acp.PromptResult{}, s.closedError()
	}
	select {
	case r := <-req.reply:
		return r.res, r.err
	case <-ctx.Done(): // the request was cancelled, or the connection ended
		s.post(abandon{req})
	}
	r, ok := await(s, req.reply)
	if !ok {
		return acp.PromptResult{}, s.closedError()
	}
	return r.res, r.err
}

func (s *session) cancel() { s.post(cancel{}) }

// warm starts the session's CLI in the background: it does not wait for
// the CLI.
func (s *session) warm() { s.post(start{}) }

func (s *session) set(ctx context.Context, ed *editor, key, value string) (view, error) {
	reply := make(chan settingReply, 1)
	if !s.post(setting{key: key, value: value, ctx: ctx, ed: ed, reply: reply}) {
		return view{}, s.closedError()
	}
	r, ok := await(s, reply)
	if !ok {
		return view{}, s.closedError()
	}
	return r.view, r.err
}

func (s *session) describe() (view, error) {
	reply := make(chan view, 1)
	if !s.post(describe{reply}) {
		return view{}, s.closedError()
	}
	v, ok := await(s, reply)
	if !ok {
		return view{}, s.closedError()
	}
	return v, nil
}

// close closes the session: it cancels the turn under way and every
// prompt waiting, stops the CLI, and returns once it has exited.
func (s *session) close() {
	reply := make(chan struct{})
	if s.post(closeSession{reply}) {
		await(s, reply)
	}
	<-s.done
}

// replay shows ed the stored conversation f (nil for none yet), and
// returns once it has. The session holds the rest of what it has for ed
// until the response to the request of ctx is queued.
func (s *session) replay(ctx context.Context, ed *editor, f *StoredFile) error {
	reply := make(chan error, 1)
	if !s.post(replay{f: f, ed: ed, hold: s.newHold(ctx, ed), reply: reply}) {
		return s.closedError()
	}
	err, ok := await(s, reply)
	if !ok {
		return s.closedError()
	}
	return err
}

// storedID returns the id the CLI keeps the session under, as the
// session last published it; "" before the CLI has one.
func (s *session) storedID() string {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.listed.storedID
}

func (s *session) closedError() error {
	return acp.Errorf(acp.CodeResourceNotFound, "session %s is closed", s.id)
}
