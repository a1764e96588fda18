package main

import (
	"context"
	"errors"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// This file is the editor in ACP v2 (a draft; see package acpv2). A
// prompt's response only acknowledges it: the turn goes on in updates,
// and ends with an idle state carrying its stop reason. Tool calls are
// upserts, patched by id.

// editorV2 is the editor in ACP v2.
type editorV2 struct {
	conn      *acp.Conn
	v         *view
	sessionID string
}

func (e *editorV2) newSession(ctx context.Context, cwd string) (string, error) {
	s, err := acpv2.SessionNew.Call(ctx, e.conn, acpv2.NewSessionParams{Cwd: cwd})
	if err != nil {
		return "", err
	}
	e.sessionID = s.SessionID
	// v2 has no session modes of their own: a mode is a config option.
	for _, o := range s.ConfigOptions {
		if o.Category == acpv2.ConfigCategoryMode {
			return o.CurrentValue, nil
		}
	}
	return "", nil
}

// prompt sends the prompt, and returns once the agent has said the
// session is idle, with the stop reason it gave.
func (e *editorV2) prompt(ctx context.Context, text string) (string, error) {
	// Awaited before the prompt is sent: the idle update may come before
	// its acknowledgement.
	idle := e.v.awaitIdle()
	if _, err := acpv2.SessionPrompt.Call(ctx, e.conn, acpv2.PromptParams{SessionID: e.sessionID, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: text}}}); err != nil {
		return "", err
	}
	select {
	case reason := <-idle:
		return reason, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	case <-e.conn.Done():
		return "", errors.New("the connection ended before the turn did")
	}
}

// awaitIdle returns a channel that yields the stop reason of the next
// idle update that carries one.
func (v *view) awaitIdle() <-chan string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.idle = make(chan string, 1)
	return v.idle
}

func (v *view) methodsV2() acp.Methods {
	var m acp.Methods
	acpv2.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acpv2.SessionNotification) { v.updateV2(n.Update) })
	acpv2.SessionRequestPermission.Handle(&m, func(_ context.Context, _ *acp.Conn, p acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error) {
		return v.permissionV2(p), nil
	})
	return m
}

func (v *view) updateV2(u acpv2.Update) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch u := u.(type) {
	case acpv2.AgentMessageChunk:
		if t, ok := u.Content.(acpv2.TextContent); ok {
			v.textLocked(t.Text)
		}
	case acpv2.AgentThoughtChunk:
		if t, ok := u.Content.(acpv2.TextContent); ok {
			v.printlnLocked("  (thinking) %s", t.Text)
		}
	case acpv2.ToolCallUpdate:
		// An upsert: what it omits stays as it was.
		c := v.callLocked(u.ToolCallID)
		if u.Title != nil {
			c.title = *u.Title
		}
		if u.Kind != nil {
			c.kind = string(*u.Kind)
		}
		if u.Content != nil {
			c.output = textsV2(u.Content)
		}
		v.toolCallLocked(c)
		if u.Status != nil {
			v.toolEndLocked(c, string(*u.Status), c.output)
		}
	case acpv2.ToolCallContentChunk:
		c := v.callLocked(u.ToolCallID)
		c.output = append(c.output, textsV2([]acpv2.ToolCallContent{u.Content})...)
	case acpv2.PlanUpdate:
		for _, e := range u.Plan.Entries {
			v.printlnLocked("  ☐ %s (%s)", e.Content, e.Status)
		}
	case acpv2.Notice:
		v.noticeLocked(string(u.Severity), u.Title, u.Description)
	case acpv2.UsageUpdate:
		v.used, v.size = u.Used, u.Size
		if u.Cost != nil {
			v.costUSD = u.Cost.Amount
		}
	case acpv2.SessionStateUpdate:
		if idle, ok := u.State.(acpv2.IdleStateUpdate); ok && idle.StopReason != "" && v.idle != nil {
			v.idle <- string(idle.StopReason)
			v.idle = nil
		}
	}
}

// textsV2 returns the texts of a tool call's content blocks.
func textsV2(content []acpv2.ToolCallContent) []string {
	var out []string
	for _, c := range content {
		if b, ok := c.(acpv2.ToolCallContentBlock); ok {
			if t, ok := b.Content.(acpv2.TextContent); ok {
				out = append(out, t.Text)
			}
		}
	}
	return out
}

// permissionV2 shows the question, which in v2 has a title of its own,
// and answers it as permission does.
func (v *view) permissionV2(p acpv2.RequestPermissionParams) acpv2.RequestPermissionResult {
	v.mu.Lock()
	defer v.mu.Unlock()
	choice := v.askLocked(p.Title, len(p.Options), func(i int) (string, bool) {
		return p.Options[i].Name, p.Options[i].Kind == acpv2.PermissionAllowOnce
	})
	if choice < 0 {
		return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionCancelled}}
	}
	return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: p.Options[choice].OptionID}}
}
