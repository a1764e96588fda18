package codex

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// How a Session reads the server's answers, requests and notifications.

// response reads an answer to a request the client sent and hands it to
// the call waiting for it; s.mu is held.
func (s *Session) response(m wireMessage) Response {
	r := Response{ID: idText(m.ID)}
	id, err := strconv.ParseInt(r.ID, 10, 64)
	c := s.calls[id]
	if err != nil || c == nil {
		c = &call{}
	} else {
		r.Method = c.method
		delete(s.calls, id)
		s.unpend(r.ID, false)
	}
	if m.Error != nil {
		var w wireError
		r.Err = &RPCError{Method: r.Method}
		if decodeWire(m.Error, &w) && bytes.HasPrefix(bytes.TrimSpace(m.Error), []byte("{")) {
			r.Err.Code, r.Err.Message, r.Err.Data = w.Code, w.Message, valueJSON(w.Data)
		} else {
			r.Err.Message = stringOrJSON(m.Error)
		}
	} else {
		r.Result = compactJSON(m.Result)
		if c.method == "turn/start" {
			var w wireTurnAnswer
			if decodeWire(m.Result, &w) && w.Turn.ID != "" {
				s.turns[c.threadID] = w.Turn.ID
			}
		}
	}
	if c.answer != nil {
		c.answer <- r
	}
	return r
}

// serverRequest reads a request of the server and records it as waiting
// for an answer; s.mu is held.
func (s *Session) serverRequest(id, method string, params json.RawMessage) Request {
	var r Request
	switch method {
	case methodCommandApproval:
		var w wireCommandApprovalParams
		if decodeWire(params, &w) {
			r = CommandApproval{
				ID: id, ThreadID: w.ThreadID, TurnID: w.TurnID, ItemID: w.ItemID, ApprovalID: w.ApprovalID,
				Command: w.Command, CWD: w.CWD, Actions: commandActions(w.CommandActions), Reason: w.Reason,
				ExecPolicyAmendment: w.ProposedExecpolicyAmendment, AvailableDecisions: compactAll(w.AvailableDecisions),
				NetworkContext: valueJSON(w.NetworkApprovalContext), StartedAt: max(w.StartedAtMs, 0),
			}
		}
	case methodFileChangeApproval:
		var w wireFileChangeApprovalParams
		if decodeWire(params, &w) {
			r = FileChangeApproval{ID: id, ThreadID: w.ThreadID, TurnID: w.TurnID, ItemID: w.ItemID,
				Reason: w.Reason, GrantRoot: w.GrantRoot, StartedAt: max(w.StartedAtMs, 0)}
		}
	case methodElicitation:
		var w wireElicitationParams
		if decodeWire(params, &w) {
			e := Elicitation{ID: id, ThreadID: w.ThreadID, TurnID: w.TurnID, ServerName: w.ServerName,
				Mode: w.Mode, Message: w.Message, RequestedSchema: valueJSON(w.RequestedSchema), URL: w.URL,
				ElicitationID: w.ElicitationID, Meta: objectJSON(w.Meta)}
			var meta wireElicitationMeta
			if decodeWire(e.Meta, &meta) {
				e.ApprovalKind, e.ToolName, e.ToolParams = meta.ApprovalKind, meta.ToolName, valueJSON(meta.ToolParams)
				e.Persist = persistScopes(meta.Persist)
			}
			r = e
		}
	}
	if r == nil {
		r = UnknownRequest{ID: id, MethodName: method, Params: valueJSON(params)}
	}
	if id != "" {
		if _, dup := s.requests[id]; dup {
			s.unpend(id, true) // asked again: the newer one counts
		}
		s.requests[id] = r
		delete(s.resolved, id)
		s.pending = append(s.pending, Pending{ID: id, Method: method, FromCLI: true})
	}
	return r
}

// persistScopes reads an elicitation's _meta.persist: a scope, or a list
// of them.
func persistScopes(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil && one != "" {
		return []string{one}
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return slices.DeleteFunc(list, func(s string) bool { return s == "" })
	}
	return nil
}

// compactAll is compactJSON of each of raws; nil for none.
func compactAll(raws []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, r := range raws {
		if c := compactJSON(r); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// notification appends a notification's event; s.mu is held. A known
// method whose params are not an object is reported raw.
func (s *Session) notification(events []Event, method string, params json.RawMessage, emittedAt int64) []Event {
	unknown := UnknownNotification{Method: method, Params: valueJSON(params), EmittedAt: max(emittedAt, 0)}
	decode := func(v any) bool {
		p := bytes.TrimSpace(params)
		return len(p) > 0 && p[0] == '{' && decodeWire(p, v)
	}
	switch method {
	case "thread/started":
		var w wireThreadStarted
		if decode(&w) {
			t := w.Thread.thread()
			return append(events, ThreadStarted{ThreadID: t.ID, Thread: &t})
		}
	case "thread/status/changed":
		var w wireThreadStatusChanged
		if decode(&w) {
			return append(events, ThreadStatusChanged{ThreadID: w.ThreadID, Status: w.Status.status()})
		}
	case "thread/name/updated":
		var w wireThreadNameUpdated
		if decode(&w) {
			return append(events, ThreadNameChanged{ThreadID: w.ThreadID, Name: w.ThreadName})
		}
	case "turn/started":
		var w wireTurnAnswer
		if decode(&w) {
			if w.Turn.ID != "" {
				s.turns[w.ThreadID] = w.Turn.ID
			}
			return append(events, TurnStarted{ThreadID: w.ThreadID, TurnID: w.Turn.ID})
		}
	case "turn/completed":
		var w wireTurnAnswer
		if decode(&w) {
			if s.turns[w.ThreadID] == w.Turn.ID {
				delete(s.turns, w.ThreadID)
			}
			return append(events, TurnEnd{ThreadID: w.ThreadID, Turn: w.Turn.turn(w.ThreadID)})
		}
	case "item/started":
		var w wireItemStarted
		if decode(&w) {
			if e, ok := parseAppItem(w.Item, PhaseStarted, w.ThreadID, w.TurnID); ok {
				return append(events, e)
			}
			if bytes.HasPrefix(bytes.TrimSpace(w.Item), []byte("{")) {
				return events // an item whose start is not reported
			}
		}
	case "item/completed":
		var w wireItemCompleted
		if decode(&w) {
			if e, ok := parseAppItem(w.Item, PhaseCompleted, w.ThreadID, w.TurnID); ok {
				return append(events, e)
			}
		}
	case "item/fileChange/patchUpdated":
		var w wireFileChangePatchUpdated
		if decode(&w) {
			changes := fileChanges(w.Changes)
			return append(events, FileChange{ItemID: w.ItemID, Phase: PhaseUpdated, Kind: changeKind(changes),
				Changes: changes, Status: StatusInProgress, ThreadID: w.ThreadID, TurnID: w.TurnID})
		}
	case "item/agentMessage/delta":
		var w wireItemDelta
		if decode(&w) {
			return append(events, TextDelta(w))
		}
	case "item/reasoning/summaryTextDelta":
		var w wireSummaryDelta
		if decode(&w) {
			return append(events, ReasoningDelta{ThreadID: w.ThreadID, TurnID: w.TurnID, ItemID: w.ItemID, Delta: w.Delta, Part: max(w.SummaryIndex, 0)})
		}
	case "item/reasoning/textDelta":
		var w wireReasoningTextDelta
		if decode(&w) {
			return append(events, ReasoningDelta{ThreadID: w.ThreadID, TurnID: w.TurnID, ItemID: w.ItemID, Delta: w.Delta, Part: max(w.ContentIndex, 0), Content: true})
		}
	case "item/reasoning/summaryPartAdded":
		// Each ReasoningDelta carries its part's index: nothing to add.
		return events
	case "item/commandExecution/outputDelta":
		var w wireItemDelta
		if decode(&w) {
			return append(events, CommandOutputDelta(w))
		}
	case "item/mcpToolCall/progress":
		var w wireMcpToolCallProgress
		if decode(&w) {
			return append(events, MCPToolProgress(w))
		}
	case "turn/diff/updated":
		var w wireTurnDiffUpdated
		if decode(&w) {
			return append(events, TurnDiff(w))
		}
	case "turn/plan/updated":
		var w wireTurnPlanUpdated
		if decode(&w) {
			p := PlanUpdate{ThreadID: w.ThreadID, TurnID: w.TurnID, Explanation: w.Explanation}
			for _, st := range w.Plan {
				p.Steps = append(p.Steps, PlanStep(st))
			}
			return append(events, p)
		}
	case "thread/tokenUsage/updated":
		var w wireTokenUsageUpdated
		if decode(&w) {
			return append(events, TokenUsage{ThreadID: w.ThreadID, TurnID: w.TurnID, Total: w.TokenUsage.Total.counts(),
				Last: w.TokenUsage.Last.counts(), ContextWindow: max(w.TokenUsage.ModelContextWindow, 0)})
		}
	case "account/rateLimits/updated":
		var w wireRateLimitsUpdated
		if decode(&w) {
			l := w.RateLimits
			return append(events, RateLimits{LimitID: l.LimitID, LimitName: l.LimitName, Primary: l.Primary.window(),
				Secondary: l.Secondary.window(), PlanType: l.PlanType, ReachedType: l.RateLimitReachedType, Credits: objectJSON(l.Credits)})
		}
	case "error":
		var w wireErrorNotification
		if decode(&w) {
			return append(events, ErrorNotification{ThreadID: w.ThreadID, TurnID: w.TurnID, Error: w.Error.turnError(), WillRetry: w.WillRetry})
		}
	case "serverRequest/resolved":
		var w wireServerRequestResolved
		if decode(&w) {
			e := RequestResolved{ThreadID: w.ThreadID, RequestID: idText(w.RequestID)}
			if r, ok := s.requests[e.RequestID]; ok && e.RequestID != "" {
				e.Request = r
				delete(s.requests, e.RequestID)
				s.unpend(e.RequestID, true)
				s.resolved[e.RequestID] = true
			}
			return append(events, e)
		}
	case "mcpServer/startupStatus/updated":
		var w wireMcpServerStatusUpdated
		if decode(&w) {
			return append(events, MCPServerStatus(w))
		}
	case "warning":
		var w wireWarning
		if decode(&w) {
			return append(events, Warning{Method: method, ThreadID: w.ThreadID, Message: w.Message})
		}
	case "configWarning", "deprecationNotice":
		var w wireNotice
		if decode(&w) {
			return append(events, Warning{Method: method, Message: w.Summary, Details: w.Details})
		}
	}
	return append(events, unknown)
}
