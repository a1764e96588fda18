package acpcheck

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/tidwall/gjson"
)

var (
	srcV2Version = Source{"protocol/v2/initialization#protocol-version", "If the Agent supports the requested version, it MUST respond with the same version. Otherwise, the Agent MUST respond with the latest version it supports."}
	srcV2Info    = Source{"protocol/v2/initialization#implementation-information", "Both Clients and Agents MUST provide information about their implementation in the info field."}
	srcV2Ack     = Source{"protocol/v2/prompt-lifecycle#2-prompt-acceptance", "Upon receiving a prompt request, the Agent MUST respond once it has accepted the prompt. / After accepting the prompt, the Agent MUST report where the user message was inserted in session history."}
	srcV2Idle    = Source{"protocol/v2/prompt-lifecycle#session-state", "When foreground work starts or resumes, the Agent MUST send a state_update notification with state: \"running\". / When the Agent is ready to process a new prompt, it MUST report idle with a state_update notification. When the transition ends foreground work, the Agent MUST include the corresponding StopReason."}
	srcV2IDs     = Source{"protocol/v2/prompt-lifecycle#message-ids", "The Agent MUST include an opaque messageId on message updates and message chunks."}
	srcV2Cancel  = Source{"protocol/v2/prompt-lifecycle#cancellation", "After all ongoing operations have been successfully aborted and pending updates have been sent, the Agent MUST send an idle state_update session update with the cancelled stop reason."}
)

var v2Checks = []checkDef{
	{
		Check: Check{ID: "v2.negotiate", Level: Must, Source: srcV2Version,
			Doc: "initialize for version 2 is answered with 2, or with 1 by an agent that speaks only v1"},
		conn: connFresh, run: checkV2Negotiate,
	},
	{
		Check: Check{ID: "v2.info", Level: Must, Source: srcV2Info,
			Doc: "an agent that offers v2 names itself and its version in initialize's info"},
		conn: connV2, run: checkV2Info,
	},
	{
		Check: Check{ID: "v2.prompt-ack", Level: Must, Source: srcV2Ack,
			Doc: "a v2 prompt is answered with the messageId of the user message, which a user_message update reports"},
		conn: connV2, run: checkV2Ack,
	},
	{
		Check: Check{ID: "v2.turn-state", Level: Must, Source: srcV2Idle,
			Doc: "a v2 turn reports state running, then idle with a stop reason"},
		conn: connV2, run: checkV2Turn,
	},
	{
		Check: Check{ID: "v2.message-ids", Level: Must, Source: srcV2IDs,
			Doc: "every message update and chunk of a v2 turn carries a messageId"},
		conn: connV2, run: checkV2MessageIDs,
	},
	{
		Check: Check{ID: "v2.cancel", Level: Must, Source: srcV2Cancel,
			Doc: "session/cancel of a running v2 turn ends it with an idle state_update with stop reason cancelled, and no message or tool call update of the turn follows"},
		conn: connV2, run: checkV2Cancel,
	},
}

// decodeV2Update decodes a v2 session/update's params strictly.
func decodeV2Update(params json.RawMessage) error {
	_, err := acp.DecodeParams[acpv2.SessionNotification](params)
	return err
}

func checkV2Negotiate(ctx context.Context, k *checker) verdict {
	init, err := initialize(ctx, k.p, 2)
	if err != nil {
		return failf("initialize for version 2: %v", err)
	}
	if init.version == 1 {
		return passf("answered version 1: the agent speaks only v1")
	}
	return passf("answered version 2")
}

func checkV2Info(_ context.Context, k *checker) verdict {
	info := k.init.v2.Info
	if info.Name == "" || info.Version == "" {
		return failf("info is %+v", info)
	}
	return passf("%s %s", info.Name, info.Version)
}

// v2Turn runs one v2 turn in a new session and returns the session, the
// prompt's messageId and the turn's updates, up to its idle state.
func v2Turn(ctx context.Context, p *peer, cwd string) (sid, msgID string, us []*event, err error) {
	r, err := call(ctx, p, acpv2.SessionNew, acpv2.NewSessionParams{Cwd: cwd})
	if err != nil {
		return "", "", nil, fmt.Errorf("session/new: %w", err)
	}
	sid = r.SessionID
	pr, err := call(ctx, p, acpv2.SessionPrompt, acpv2.PromptParams{SessionID: sid, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: p.prompt}}})
	if err != nil {
		return sid, "", nil, fmt.Errorf("session/prompt: %w", err)
	}
	if err := waitIdle(ctx, p, sid, 0); err != nil {
		return sid, pr.MessageID, nil, err
	}
	return sid, pr.MessageID, updates(p.log.snapshot(), sid), nil
}

// isIdle reports whether e is an idle state_update.
func isIdle(e *event) bool {
	return e.updateKind() == "state_update" && gjson.GetBytes(e.msg.Params, "update.state").String() == "idle"
}

// waitIdle waits for the session's idle state_update after the first
// skip of them.
func waitIdle(ctx context.Context, p *peer, sid string, skip int) error {
	return p.log.waitFor(ctx, "idle state_update", func(events []event) bool {
		n := 0
		for _, u := range updates(events, sid) {
			if isIdle(u) {
				if n == skip {
					return true
				}
				n++
			}
		}
		return false
	})
}

func checkV2Ack(ctx context.Context, k *checker) verdict {
	_, msgID, us, err := v2Turn(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	if msgID == "" {
		return failf("the prompt's response has no messageId")
	}
	for _, u := range us {
		kind := u.updateKind()
		if (kind == "user_message" || kind == "user_message_chunk") && gjson.GetBytes(u.msg.Params, "update.messageId").String() == msgID {
			return passf("")
		}
	}
	return failf("no user_message update has the prompt's messageId %q", msgID)
}

func checkV2Turn(ctx context.Context, k *checker) verdict {
	_, _, us, err := v2Turn(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	running := false
	for _, u := range us {
		if u.updateKind() == "state_update" && gjson.GetBytes(u.msg.Params, "update.state").String() == "running" {
			running = true
		}
		if isIdle(u) {
			reason := gjson.GetBytes(u.msg.Params, "update.stopReason").String()
			switch {
			case !running:
				return failf("the turn went idle without reporting running first")
			case reason == "":
				return failf("the idle state_update that ends the turn has no stopReason")
			}
			return passf("stop reason %s", reason)
		}
	}
	return failf("no idle state_update")
}

func checkV2MessageIDs(ctx context.Context, k *checker) verdict {
	_, _, us, err := v2Turn(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	n := 0
	for _, u := range us {
		switch u.updateKind() {
		case "user_message", "user_message_chunk", "agent_message", "agent_message_chunk", "agent_thought", "agent_thought_chunk":
			n++
			if gjson.GetBytes(u.msg.Params, "update.messageId").String() == "" {
				return failf("a %s without a messageId: %s", u.updateKind(), quote(u.line))
			}
		}
	}
	return passf("%d message updates", n)
}

func checkV2Cancel(ctx context.Context, k *checker) verdict {
	r, err := call(ctx, k.p, acpv2.SessionNew, acpv2.NewSessionParams{Cwd: k.cwd()})
	if err != nil {
		return failf("session/new: %v", err)
	}
	sid := r.SessionID
	since := len(k.p.log.snapshot())
	if _, err := call(ctx, k.p, acpv2.SessionPrompt, acpv2.PromptParams{SessionID: sid, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: k.p.longPrompt}}}); err != nil {
		return failf("session/prompt: %v", err)
	}
	if err := turnStarted(ctx, k.p, sid, since); err != nil {
		return failf("%v", err)
	}
	if idle := firstIdle(k.p, sid); idle >= 0 {
		return skipf("the turn went idle before it could be cancelled: it needs a turn that lasts longer")
	}
	if err := cancel(ctx, k.p, sid); err != nil {
		return failf("sending session/cancel: %v", err)
	}
	if err := waitIdle(ctx, k.p, sid, 0); err != nil {
		return failf("%v", err)
	}
	if err := barrier(ctx, k.p); err != nil {
		return failf("%v", err)
	}
	events := k.p.log.snapshot()
	idle := firstIdle(k.p, sid)
	var cancelAt int
	for i := range events {
		if e := &events[i]; e.from == fromClient && e.msg.Method == acp.SessionCancel.Name && e.session == sid {
			cancelAt = i
		}
	}
	if idle < cancelAt {
		return skipf("the turn went idle before session/cancel was sent: it needs a turn that lasts longer")
	}
	reason := gjson.GetBytes(events[idle].msg.Params, "update.stopReason").String()
	if reason != "cancelled" {
		return failf("the cancelled turn went idle with stop reason %q", reason)
	}
	for _, e := range events[idle+1:] {
		if e.isUpdate() && e.session == sid && (turnUpdates[e.updateKind()] || e.updateKind() == "agent_message" || e.updateKind() == "tool_call_content_chunk") {
			return failf("a %s came after the idle state_update that ended the cancelled turn: %s", e.updateKind(), quote(e.line))
		}
	}
	return passf("")
}

// firstIdle returns the index of the session's first idle state_update,
// or -1.
func firstIdle(p *peer, sid string) int {
	events := p.log.snapshot()
	for i := range events {
		if e := &events[i]; e.isUpdate() && e.session == sid && isIdle(e) {
			return i
		}
	}
	return -1
}
