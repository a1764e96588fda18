package acpcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/tidwall/gjson"
)

var (
	srcLoad      = Source{"protocol/v1/session-setup#loading-sessions", "The Agent MUST replay the entire conversation to the Client in the form of session/update notifications (like session/prompt). / When all the conversation entries have been streamed to the Client, the Agent MUST respond to the original session/load request."}
	srcList      = Source{"protocol/v1/session-list", "The Agent MUST respond with a list of sessions and optional pagination metadata. / cwd: Filter sessions by working directory. Must be an absolute path. / Clients MUST treat a missing nextCursor as the end of results."}
	srcCursor    = Source{"protocol/v1/session-list#pagination", "Agents SHOULD return an error if the cursor is invalid."}
	srcResume    = Source{"protocol/v1/session-setup#resuming-sessions", "Unlike session/load, the Agent MUST NOT replay the conversation history via session/update notifications before responding."}
	srcClose     = Source{"protocol/v1/session-setup#closing-active-sessions", "The Agent MUST cancel any ongoing work for that session as if session/cancel had been called, then free the resources associated with the session."}
	srcDelete    = Source{"protocol/v1/session-delete", "Deleting an already-deleted session, or a session that never existed, SHOULD succeed silently."}
	srcDeleteGet = Source{"protocol/v1/session-delete", "The session/delete method removes a session from the Agent's list of sessions (session/list)."}
)

var methodChecks = []checkDef{
	{
		Check: Check{ID: "load.replay", Level: Must, Source: srcLoad,
			Doc: "when the agent advertises loadSession, session/load on a new connection replays the earlier turn (the user's prompt and the agent's text) before answering (over Streamable HTTP, which carries the two on separate streams, at all)"},
		conn: connNone, run: checkLoad,
	},
	{
		Check: Check{ID: "list.paging", Level: Must, Source: srcList,
			Doc: "when the agent advertises sessionCapabilities.list, listing a cwd (the parent of the suite's, where no other check makes sessions meanwhile) page by page through nextCursor gives each session once, every one in that cwd, the suite's among them"},
		conn: connV1, run: checkList,
	},
	{
		Check: Check{ID: "list.invalid-cursor", Level: Should, Source: srcCursor,
			Doc: "session/list with a cursor the agent never gave is refused with an error"},
		conn: connV1, run: checkListCursor,
	},
	{
		Check: Check{ID: "resume.no-replay", Level: Must, Source: srcResume,
			Doc: "when the agent advertises sessionCapabilities.resume, session/resume on a new connection answers without replaying, and the session then takes a prompt"},
		conn: connNone, run: checkResume,
	},
	{
		Check: Check{ID: "close.cancels", Level: Must, Source: srcClose,
			Doc: "when the agent advertises sessionCapabilities.close, closing a session whose turn runs answers the turn with stop reason cancelled, and the close succeeds"},
		conn: connV1, run: checkClose,
	},
	{
		Check: Check{ID: "delete.unlisted", Level: Must, Source: srcDeleteGet,
			Doc: "when the agent advertises sessionCapabilities.delete, a deleted session is gone from session/list (when advertised)"},
		conn: connV1, run: checkDelete,
	},
	{
		Check: Check{ID: "delete.idempotent", Level: Should, Source: srcDelete,
			Doc: "deleting a session twice, and (over stdio) one that never existed, succeeds"},
		conn: connV1, run: checkDeleteTwice,
	},
}

// sessionCaps returns the agent's session capabilities, never nil.
func (k *checker) sessionCaps() *acp.SessionCapabilities {
	if sc := k.init.v1.AgentCapabilities.SessionCapabilities; sc != nil {
		return sc
	}
	return &acp.SessionCapabilities{}
}

// recordedTurn runs one turn in a new session on a connection of its own,
// closes it, and returns the session and the agent's text in the turn.
func recordedTurn(ctx context.Context, k *checker) (sid, agentText string, init initResult, v *verdict) {
	p, init, err := k.initialized(ctx)
	if err != nil {
		f := failf("%v", err)
		return "", "", init, &f
	}
	defer p.close()
	sid, err = newSession(ctx, p, k.cwd())
	if err != nil {
		f := failf("%v", err)
		return "", "", init, &f
	}
	r, err := prompt(ctx, p, sid, text(p.prompt))
	if err := validTurn(r, err); err != nil {
		f := failf("the turn to replay: %v", err)
		return "", "", init, &f
	}
	agentText = chunkText(updates(p.log.snapshot(), sid), "agent_message_chunk")
	return sid, agentText, init, nil
}

func checkLoad(ctx context.Context, k *checker) verdict {
	p, init, err := k.initialized(ctx)
	if err != nil {
		return failf("%v", err)
	}
	defer p.close()
	if !init.v1.AgentCapabilities.LoadSession {
		return skipf("the agent does not advertise loadSession")
	}
	sid, said, _, v := recordedTurn(ctx, k)
	if v != nil {
		return *v
	}
	raw, err := p.request(ctx, acp.SessionLoad.Name, map[string]any{"sessionId": sid, "cwd": k.cwd(), "mcpServers": []any{}})
	if err == nil {
		_, err = acp.DecodeResult[acp.LoadSessionResult](raw)
	}
	if err != nil {
		return failf("session/load of a session that ran a turn, on a new connection: %v", err)
	}
	events := p.log.snapshot()
	_, resp := requestEvent(events, acp.SessionLoad.Name, sid)
	before := updates(events[:max(resp, 0)], sid)
	order := "before its response, "
	if p.split {
		// The response and the replay come on two streams: wait for the
		// replay, whenever it comes.
		order = ""
		p.log.waitFor(ctx, "the replay of the user's prompt", func(events []event) bool {
			return strings.Contains(chunkText(updates(events, sid), "user_message_chunk"), p.prompt)
		})
		barrier(ctx, p)
		before = updates(p.log.snapshot(), sid)
	}
	user := chunkText(before, "user_message_chunk")
	agent := chunkText(before, "agent_message_chunk")
	// The agent's text is compared loosely: a live turn may hold text
	// that is no message of the conversation (a notice of the CLI's, say),
	// which a replay leaves out; a replay must not leave out the answer.
	said, agent = strings.Join(strings.Fields(said), " "), strings.Join(strings.Fields(agent), " ")
	switch {
	case !strings.Contains(user, p.prompt):
		return failf("%ssession/load replayed the user's text %q, not the prompt %q", order, user, p.prompt)
	case said != "" && (agent == "" || !strings.Contains(said, agent) && !strings.Contains(agent, said)):
		return failf("%ssession/load replayed the agent's text %q, not the turn's %q", order, agent, said)
	}
	return passf("replayed %d updates", len(before))
}

func checkList(ctx context.Context, k *checker) verdict {
	if k.sessionCaps().List == nil {
		return skipf("the agent does not advertise sessionCapabilities.list")
	}
	other := k.otherCwd()
	if other == k.cwd() {
		return skipf("the cwd %s has no parent to make a session in", k.cwd())
	}
	// The listed sessions are in the parent of the suite's cwd, where no
	// other check makes sessions meanwhile; some agents list only
	// sessions that hold a turn, so each gets one.
	listCwd, elsewhereCwd := other, k.cwd()
	mine := map[string]bool{}
	var elsewhere string
	for i, cwd := range []string{listCwd, listCwd, elsewhereCwd} {
		sid, err := newSession(ctx, k.p, cwd)
		if err != nil {
			return failf("%v", err)
		}
		r, err := prompt(ctx, k.p, sid, text(k.p.prompt))
		if err := validTurn(r, err); err != nil {
			return failf("a turn in a session to list: %v", err)
		}
		if i < 2 {
			mine[sid] = true
		} else {
			elsewhere = sid
		}
	}
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		r, err := call(ctx, k.p, acp.SessionList, acp.ListSessionsParams{Cwd: listCwd, Cursor: cursor})
		if err != nil {
			return failf("session/list (page %d): %v", pages+1, err)
		}
		pages++
		for _, s := range r.Sessions {
			if seen[s.SessionID] {
				return failf("session/list gave session %s twice (page %d)", s.SessionID, pages)
			}
			seen[s.SessionID] = true
			if s.Cwd != listCwd {
				return failf("session/list for cwd %s gave session %s in %s", listCwd, s.SessionID, s.Cwd)
			}
		}
		if r.NextCursor == "" {
			break
		}
		if pages >= 1000 {
			return failf("session/list gave a nextCursor on each of %d pages", pages)
		}
		cursor = r.NextCursor
	}
	var missing []string
	for sid := range mine {
		if !seen[sid] {
			missing = append(missing, sid)
		}
	}
	slices.Sort(missing)
	switch {
	case len(missing) > 0:
		return failf("session/list for cwd %s lacks the suite's sessions %v there", listCwd, missing)
	case seen[elsewhere]:
		return failf("session/list for cwd %s gave session %s of %s", listCwd, elsewhere, elsewhereCwd)
	}
	return passf("%d sessions in %d pages", len(seen), pages)
}

func checkListCursor(ctx context.Context, k *checker) verdict {
	if k.sessionCaps().List == nil {
		return skipf("the agent does not advertise sessionCapabilities.list")
	}
	raw, err := k.p.request(ctx, acp.SessionList.Name, map[string]any{"cursor": "acpcheck-not-a-cursor"})
	if _, ok := errorCode(err); !ok {
		return failf("session/list with a cursor it never gave: %s", describe(raw, err))
	}
	return passf("refused: %v", err)
}

func checkResume(ctx context.Context, k *checker) verdict {
	p, init, err := k.initialized(ctx)
	if err != nil {
		return failf("%v", err)
	}
	defer p.close()
	if sc := init.v1.AgentCapabilities.SessionCapabilities; sc == nil || sc.Resume == nil {
		return skipf("the agent does not advertise sessionCapabilities.resume")
	}
	sid, _, _, v := recordedTurn(ctx, k)
	if v != nil {
		return *v
	}
	raw, err := p.request(ctx, acp.SessionResume.Name, map[string]any{"sessionId": sid, "cwd": k.cwd(), "mcpServers": []any{}})
	if err == nil {
		_, err = acp.DecodeResult[acp.ResumeSessionResult](raw)
	}
	if err != nil {
		return failf("session/resume of a session that ran a turn, on a new connection: %v", err)
	}
	events := p.log.snapshot()
	_, resp := requestEvent(events, acp.SessionResume.Name, sid)
	for _, u := range updates(events[:max(resp, 0)], sid) {
		if turnUpdates[u.updateKind()] {
			return failf("session/resume replayed a %s before its response", u.updateKind())
		}
	}
	r, err := prompt(ctx, p, sid, text(p.prompt))
	if err := validTurn(r, err); err != nil {
		return failf("a prompt in the resumed session: %v", err)
	}
	return passf("")
}

func checkClose(ctx context.Context, k *checker) verdict {
	if k.sessionCaps().Close == nil {
		return skipf("the agent does not advertise sessionCapabilities.close")
	}
	sid, done, v := runningTurn(ctx, k.p, k.cwd())
	if v != nil {
		return *v
	}
	k.p.ed.cancelTurn(sid)
	closed := make(chan error, 1)
	go func() {
		_, err := call(ctx, k.p, acp.SessionClose, acp.CloseSessionParams{SessionID: sid})
		closed <- err
	}()
	var res promptResult
	select {
	case res = <-done:
	case <-ctx.Done():
		return failf("no answer to the prompt after session/close before the check's time ran out")
	}
	if err := <-closed; err != nil {
		return failf("session/close of a session whose turn ran: %v", err)
	}
	events := k.p.log.snapshot()
	_, resp := requestEvent(events, acp.SessionPrompt.Name, sid)
	closeReq, _ := requestEvent(events, acp.SessionClose.Name, sid)
	if resp >= 0 && resp < closeReq {
		return skipf("the turn ended (%s) before session/close was sent: it needs a turn that lasts longer", describeTurn(res))
	}
	if res.err != nil || res.r.StopReason != acp.StopReasonCancelled {
		return failf("the prompt of a session closed mid-turn was answered %s, not stop reason cancelled", describeTurn(res))
	}
	return passf("")
}

// listed reports whether session/list (all pages, any cwd) gives sid.
func listed(ctx context.Context, p *peer, sid string) (bool, error) {
	cursor := ""
	for range 1000 {
		r, err := call(ctx, p, acp.SessionList, acp.ListSessionsParams{Cursor: cursor})
		if err != nil {
			return false, err
		}
		for _, s := range r.Sessions {
			if s.SessionID == sid {
				return true, nil
			}
		}
		if r.NextCursor == "" {
			return false, nil
		}
		cursor = r.NextCursor
	}
	return false, fmt.Errorf("session/list gave a nextCursor on each of 1000 pages")
}

func checkDelete(ctx context.Context, k *checker) verdict {
	sc := k.sessionCaps()
	if sc.Delete == nil {
		return skipf("the agent does not advertise sessionCapabilities.delete")
	}
	if sc.List == nil {
		return skipf("the agent does not advertise sessionCapabilities.list, which shows a deleted session gone")
	}
	sid, err := newSession(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	r, err := prompt(ctx, k.p, sid, text(k.p.prompt))
	if err := validTurn(r, err); err != nil {
		return failf("a turn in the session to delete: %v", err)
	}
	if _, err := call(ctx, k.p, acp.SessionDelete, acp.DeleteSessionParams{SessionID: sid}); err != nil {
		return failf("session/delete: %v", err)
	}
	still, err := listed(ctx, k.p, sid)
	if err != nil {
		return failf("session/list after session/delete: %v", err)
	}
	if still {
		return failf("session/list still gives session %s after session/delete", sid)
	}
	return passf("")
}

func checkDeleteTwice(ctx context.Context, k *checker) verdict {
	if k.sessionCaps().Delete == nil {
		return skipf("the agent does not advertise sessionCapabilities.delete")
	}
	sid, err := newSession(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	ids := []string{sid, sid, "acpcheck-never-existed"}
	if k.p.remote {
		// A remote transport keeps a connection to the sessions it holds,
		// and cannot tell one that never existed from another's.
		ids = ids[:2]
	}
	for i, id := range ids {
		if _, err := call(ctx, k.p, acp.SessionDelete, acp.DeleteSessionParams{SessionID: id}); err != nil {
			return failf("session/delete #%d (%s): %v", i+1, id, err)
		}
	}
	return passf("")
}

// The checks below judge every connection's messages once the others are
// done.

var (
	srcNoTerminal = Source{"protocol/v1/terminals#checking-support", "If terminal is false or not present, the Agent MUST NOT attempt to call any terminal methods."}
	srcLate       = Source{"protocol/v1/prompt-turn#cancellation", "The Agent MAY send session/update notifications with content or tool call updates after receiving the session/cancel notification, but it MUST ensure that it does so before responding to the session/prompt request."}
	srcHeld       = Source{"protocol/v1/session-setup#session-id; schema SessionNotification", "Clients use this ID to send prompt requests via session/prompt, cancel ongoing operations via session/cancel, load previous sessions via session/load. / sessionId: The ID of the session this update pertains to."}
	srcAfterNew   = Source{"protocol/v1/slash-commands#advertising-commands; protocol/v1/session-setup#creating-a-session", "After creating a session, the Agent MAY send a list of available commands via the available_commands_update session notification. / The Agent MUST respond with a unique Session ID that identifies this conversation."}
	srcSchema     = Source{"schema SessionNotification", "Handles session update notifications from the agent. (Every session/update must match the schema, read as leniently as it allows.)"}
)

var passiveChecks = []checkDef{
	{
		Check: Check{ID: "prompt.no-late-updates", Level: Must, Source: srcLate,
			Doc: "on every v1 connection, no message or tool call update of a turn comes after its session/prompt response, nor a replay after session/load's (but over Streamable HTTP, which carries session/load's response and the replay on two streams)"},
		conn: connPassive, run: checkLateUpdates,
	},
	{
		Check: Check{ID: "session.updates-held", Level: Must, Source: srcHeld,
			Doc: "every session/update names a session its connection created (before or after the update: see session.updates-after-new), loaded or resumed"},
		conn: connPassive, run: checkUpdatesHeld,
	},
	{
		Check: Check{ID: "session.updates-after-new", Level: Should, Source: srcAfterNew,
			Doc: "no session/update for a new session comes before the session/new response that gives its id (over stdio and WebSocket, which keep the order)"},
		conn: connPassive, run: checkUpdatesAfterNew,
	},
	{
		Check: Check{ID: "schema.updates", Level: Must, Source: srcSchema,
			Doc: "every session/update the agent sent is valid against the schema of its connection's version"},
		conn: connPassive, run: checkUpdateSchema,
	},
	{
		Check: Check{ID: "client.no-terminal", Level: Must, Source: srcNoTerminal,
			Doc: "the agent calls no terminal/* method of a client that did not advertise terminals"},
		conn: connPassive, run: checkNoTerminal,
	},
}

// v1Peers returns the connections that spoke v1.
func (s *suite) v1Peers() []*peer {
	var out []*peer
	for _, p := range s.allPeers() {
		if !p.isV2() {
			out = append(out, p)
		}
	}
	return out
}

// isV2 reports whether the connection was initialized in v2: its first
// initialize asked for 2 and was answered 2.
func (p *peer) isV2() bool {
	events := p.log.snapshot()
	req, resp := requestEvent(events, acp.Initialize.Name, "")
	if req < 0 || resp < 0 {
		return false
	}
	return gjson.GetBytes(events[req].msg.Params, "protocolVersion").Int() == 2 && gjson.GetBytes(events[resp].msg.Result, "protocolVersion").Int() == 2
}

func checkLateUpdates(_ context.Context, k *checker) verdict {
	turns := 0
	for _, p := range k.s.v1Peers() {
		events := p.log.snapshot()
		// open: the session's prompt, load or resume awaiting its response
		// (by request id); done: a turn of the session was answered.
		open := map[string]string{}
		done := map[string]string{}
		byID := map[string]string{}
		for i := range events {
			e := &events[i]
			switch {
			case e.from == fromClient && e.msg.Kind == acp.KindRequest && e.session != "" &&
				(e.msg.Method == acp.SessionPrompt.Name || !p.split && (e.msg.Method == acp.SessionLoad.Name || e.msg.Method == acp.SessionResume.Name)):
				open[e.session] = e.msg.Method
				delete(done, e.session)
				byID[string(e.msg.ID.Raw())] = e.session
			case e.from == fromAgent && e.msg.Kind == acp.KindResponse:
				if sid, ok := byID[string(e.msg.ID.Raw())]; ok {
					if open[sid] != "" {
						done[sid] = open[sid]
						delete(open, sid)
						turns++
					}
				}
			case e.isUpdate() && turnUpdates[e.updateKind()]:
				if m := done[e.session]; m != "" {
					return failf("connection %d: a %s update for session %s came after the response to its %s: %s", p.n, e.updateKind(), e.session, m, quote(e.line))
				}
			}
		}
	}
	if turns == 0 {
		return skipf("no turn was answered")
	}
	return passf("%d answered", turns)
}

func checkUpdatesHeld(_ context.Context, k *checker) verdict {
	n := 0
	for _, p := range k.s.allPeers() {
		events := p.log.snapshot()
		held := map[string]bool{}
		pending := map[string]string{} // request id -> the session it attaches
		for i := range events {
			e := &events[i]
			switch {
			case e.from == fromClient && e.msg.Kind == acp.KindRequest && e.session != "":
				// session/load and resume attach the session before their
				// response, and replay it meanwhile.
				if e.msg.Method == acp.SessionLoad.Name || e.msg.Method == acp.SessionResume.Name {
					held[e.session] = true
				}
				pending[string(e.msg.ID.Raw())] = e.session
			case e.from == fromAgent && e.msg.Kind == acp.KindResponse && e.msg.Result != nil:
				if sid := gjson.GetBytes(e.msg.Result, "sessionId").String(); sid != "" {
					held[sid] = true
				}
			case e.isUpdate():
				n++
				if !held[e.session] && !heldLater(events[i+1:], e.session) {
					return failf("connection %d: a %s update for session %q, which the connection does not hold", p.n, e.updateKind(), e.session)
				}
			}
		}
	}
	if n == 0 {
		return skipf("the agent sent no session/update")
	}
	return passf("%d updates", n)
}

// heldLater reports whether a response among events gives the session
// id.
func heldLater(events []event, sid string) bool {
	for _, e := range events {
		if e.from == fromAgent && e.msg.Kind == acp.KindResponse && gjson.GetBytes(e.msg.Result, "sessionId").String() == sid {
			return true
		}
	}
	return false
}

func checkUpdatesAfterNew(_ context.Context, k *checker) verdict {
	n := 0
	for _, p := range k.s.allPeers() {
		if p.split {
			continue // session/new's response and the updates on two streams
		}
		events := p.log.snapshot()
		held := map[string]bool{}
		for i := range events {
			e := &events[i]
			switch {
			case e.from == fromClient && e.msg.Kind == acp.KindRequest && e.session != "":
				held[e.session] = true
			case e.from == fromAgent && e.msg.Kind == acp.KindResponse && e.msg.Result != nil:
				if sid := gjson.GetBytes(e.msg.Result, "sessionId").String(); sid != "" {
					held[sid] = true
				}
			case e.isUpdate():
				n++
				if !held[e.session] && heldLater(events[i+1:], e.session) {
					return failf("connection %d: a %s update for session %s came before the session/new response that gives its id", p.n, e.updateKind(), e.session)
				}
			}
		}
	}
	if n == 0 {
		return skipf("the agent sent no session/update")
	}
	return passf("")
}

func checkUpdateSchema(_ context.Context, k *checker) verdict {
	n := 0
	for _, p := range k.s.allPeers() {
		v2 := p.isV2()
		for _, e := range p.log.snapshot() {
			if !e.isUpdate() {
				continue
			}
			n++
			var err error
			if v2 {
				err = decodeV2Update(e.msg.Params)
			} else {
				_, err = acp.DecodeParams[acp.SessionNotification](e.msg.Params)
			}
			if err != nil {
				return failf("connection %d: %v: %s", p.n, err, quote(e.line))
			}
		}
	}
	if n == 0 {
		return skipf("the agent sent no session/update")
	}
	return passf("%d updates", n)
}

func checkNoTerminal(_ context.Context, k *checker) verdict {
	for _, p := range k.s.allPeers() {
		for _, e := range p.log.snapshot() {
			if e.from == fromAgent && e.msg.Kind == acp.KindRequest && strings.HasPrefix(e.msg.Method, "terminal/") {
				return failf("connection %d: the agent called %s", p.n, e.msg.Method)
			}
		}
	}
	return passf("")
}
