package claude

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Request is a control request the CLI sent and waits for an answer to:
// a [PermissionRequest], [MCPRequest], [HookRequest] or [UnknownRequest].
// Every one must be answered exactly once, through the [Session] that read
// it; [Session.Decline] answers any of them for a caller that does not
// serve it, so that the CLI never waits forever.
type Request interface {
	Event
	// RequestID returns the request's id ("request_id"), which the answer
	// echoes; "" when the CLI sent none, and then no answer is possible.
	RequestID() string
}

// PermissionRequest is the CLI asking whether a tool may run (a
// control_request with subtype "can_use_tool"); it comes only when the CLI
// runs with --permission-prompt-tool stdio. Answer it with [Session.Allow]
// or [Session.Deny]. The CLI may withdraw it with a [ControlCancel], after
// which no answer is sent.
//
// Strings the CLI did not send are empty; Input is the tool's argument
// object, raw JSON as sent (nil when absent).
type PermissionRequest struct {
	ID        string // request_id
	ToolName  string
	Input     json.RawMessage
	ToolUseID string // the tool_use block's id, as in [ToolUse]
	// Suggestions are the permission rules the CLI proposes to remember
	// with an allow ("permission_suggestions"); nil when absent.
	Suggestions []PermissionUpdate
	// BlockedPath is the file the call would touch outside the allowed
	// directories ("blocked_path").
	BlockedPath string
	// DisplayName is a short name for the action, Title a whole prompt
	// sentence, Description a subtitle, DecisionReason why the CLI asks;
	// each is for showing to a person.
	DisplayName    string
	Title          string
	Description    string
	DecisionReason string
	// AgentID names the subagent that made the call; empty for the main
	// agent.
	AgentID string
}

// PermissionUpdate is a change to the CLI's permission settings: one of a
// [PermissionRequest]'s Suggestions, which [Session.Allow] can send back to
// apply it. Type is "addRules", "replaceRules", "removeRules", "setMode",
// "addDirectories" or "removeDirectories" (others are passed through).
// Fields the update does not carry are zero.
type PermissionUpdate struct {
	Type string
	// Destination is where the change is kept: "session",
	// "localSettings", "projectSettings" or "userSettings".
	Destination string
	Behavior    string // "allow", "deny" or "ask", for rule updates
	Rules       []PermissionRule
	Mode        string // for "setMode"
	Directories []string
	// Raw is the whole update object as the CLI sent it; [Session.Allow]
	// sends it back unchanged, members not modelled here included.
	Raw json.RawMessage
}

// PermissionRule is a tool rule such as Bash with content "git log:*".
// RuleContent is empty for a rule that covers the whole tool.
type PermissionRule struct {
	ToolName    string
	RuleContent string
}

// MCPRequest is a JSON-RPC message for an MCP server that the client hosts
// in-process (subtype "mcp_message"). Answer it with [Session.Respond],
// payload {"mcp_response": <JSON-RPC response>}, or [Session.Decline].
type MCPRequest struct {
	ID         string
	ServerName string
	Message    json.RawMessage // the JSON-RPC message, raw; nil when absent
}

// HookRequest asks the client to run a hook callback it registered with
// its initialize request (subtype "hook_callback"). Answer it with
// [Session.Respond] and the hook's output, or [Session.Decline].
type HookRequest struct {
	ID         string
	CallbackID string
	Input      json.RawMessage // the hook's input, raw; nil when absent
	ToolUseID  string
}

// UnknownRequest is a control request of a subtype this package does not
// model. Raw is the whole "request" object as the CLI sent it (nil when
// absent). [Session.Decline] answers it as the CLI itself answers an
// unsupported subtype.
type UnknownRequest struct {
	ID      string
	Subtype string
	Raw     json.RawMessage
}

// RequestID returns r.ID.
func (r PermissionRequest) RequestID() string { return r.ID }

// RequestID returns r.ID.
func (r MCPRequest) RequestID() string { return r.ID }

// RequestID returns r.ID.
func (r HookRequest) RequestID() string { return r.ID }

// RequestID returns r.ID.
func (r UnknownRequest) RequestID() string { return r.ID }

// ControlResponse is the CLI's answer to a control request the client sent
// (see [Session.Initialize]). ID is the request's id. Subtype is the
// answered request's subtype ("initialize", "interrupt", …), filled in by
// the [Session] that sent it; "" when the id names no request the Session
// is waiting for.
//
// On success Err is nil and Payload is the "response" object, raw (nil
// when absent or null). On failure Err says why and Payload is nil.
type ControlResponse struct {
	ID      string
	Subtype string
	Payload json.RawMessage
	Err     *ControlError
}

// ControlError is a control request the CLI refused. Message is its "error"
// text; Code its "error_code" ("invalid_mode", "bypass_not_launched",
// "unsupported_request", …; empty when absent). Subtype is the refused
// request's subtype, as in [ControlResponse].
type ControlError struct {
	Subtype string
	Message string
	Code    string
}

// Error describes the refusal.
func (e *ControlError) Error() string {
	s := "claude: control request"
	if e.Subtype != "" {
		s += " " + e.Subtype
	}
	s += " failed: " + e.Message
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	return s
}

// ControlCancel is the CLI withdrawing a request it sent (a
// control_cancel_request), as it does for a pending permission request
// when the turn is interrupted. Request is the withdrawn request, nil when
// it was not pending; either way the [Session] no longer sends an answer
// to ID.
type ControlCancel struct {
	ID      string
	Request Request
}

// TurnEnd follows the [Result] that ends a turn of a [Session]. Index is
// the result's "result_index", counting the process's turns from 0 (the
// Session's own count when the line has none). TerminalReason is why the
// turn ended: "completed", "aborted_streaming" (interrupted while the
// model wrote), "aborted_tools" (interrupted during tool calls, or by a
// deny with interrupt), …; empty when absent.
type TurnEnd struct {
	Index          int
	TerminalReason string
}

// Interrupted reports whether the turn was cut short by an interrupt or
// by a deny that asked for one.
func (t TurnEnd) Interrupted() bool { return strings.HasPrefix(t.TerminalReason, "aborted_") }

func (PermissionRequest) isEvent() {}
func (MCPRequest) isEvent()        {}
func (HookRequest) isEvent()       {}
func (UnknownRequest) isEvent()    {}
func (ControlResponse) isEvent()   {}
func (ControlCancel) isEvent()     {}
func (TurnEnd) isEvent()           {}

// controlLine holds the top-level members of a line that ParseLine left
// without events; of a repeated name, the last value.
type controlLine struct {
	typ, requestID, request, response gjson.Result
	resultIndex, terminalReason       gjson.Result
}

// readControlLine reads the members of a line that jsonscan has validated.
func readControlLine(line []byte) controlLine {
	var c controlLine
	gjson.Parse(view(line)).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			c.typ = v
		case "request_id":
			c.requestID = v
		case "request":
			c.request = v
		case "response":
			c.response = v
		case "result_index":
			c.resultIndex = v
		case "terminal_reason":
			c.terminalReason = v
		}
		return true
	})
	return c
}

// event returns the event of a control line, and false for any other line.
func (c *controlLine) event() (Event, bool) {
	switch c.typ.Str {
	case "control_request":
		return parseRequest(str(c.requestID), c.request), true
	case "control_response":
		return parseResponse(c.response), true
	case "control_cancel_request":
		return ControlCancel{ID: str(c.requestID)}, true
	}
	return nil, false
}

func parseRequest(id string, req gjson.Result) Request {
	var f struct {
		subtype, toolName, input, toolUseID, suggestions, blockedPath gjson.Result
		displayName, title, description, decisionReason, agentID      gjson.Result
		serverName, message, callbackID                               gjson.Result
	}
	req.ForEach(func(k, v gjson.Result) bool { // nothing for a non-object
		switch k.Str {
		case "subtype":
			f.subtype = v
		case "tool_name":
			f.toolName = v
		case "input":
			f.input = v
		case "tool_use_id":
			f.toolUseID = v
		case "permission_suggestions":
			f.suggestions = v
		case "blocked_path":
			f.blockedPath = v
		case "display_name":
			f.displayName = v
		case "title":
			f.title = v
		case "description":
			f.description = v
		case "decision_reason":
			f.decisionReason = v
		case "agent_id":
			f.agentID = v
		case "server_name":
			f.serverName = v
		case "message":
			f.message = v
		case "callback_id":
			f.callbackID = v
		}
		return true
	})
	if !req.IsObject() {
		return UnknownRequest{ID: id, Raw: rawCopy(req)}
	}
	switch f.subtype.Str {
	case "can_use_tool":
		return PermissionRequest{
			ID:             id,
			ToolName:       str(f.toolName),
			Input:          rawCopy(f.input),
			ToolUseID:      str(f.toolUseID),
			Suggestions:    parseUpdates(f.suggestions),
			BlockedPath:    str(f.blockedPath),
			DisplayName:    str(f.displayName),
			Title:          str(f.title),
			Description:    str(f.description),
			DecisionReason: str(f.decisionReason),
			AgentID:        str(f.agentID),
		}
	case "mcp_message":
		return MCPRequest{ID: id, ServerName: str(f.serverName), Message: rawCopy(f.message)}
	case "hook_callback":
		return HookRequest{ID: id, CallbackID: str(f.callbackID), Input: rawCopy(f.input), ToolUseID: str(f.toolUseID)}
	}
	return UnknownRequest{ID: id, Subtype: str(f.subtype), Raw: rawCopy(req)}
}

// parseUpdates reads permission_suggestions; nil when it is not an array.
func parseUpdates(list gjson.Result) []PermissionUpdate {
	if !list.IsArray() {
		return nil
	}
	out := []PermissionUpdate{}
	list.ForEach(func(_, obj gjson.Result) bool {
		if !obj.IsObject() {
			return true
		}
		u := PermissionUpdate{Raw: rawCopy(obj)}
		var rules, dirs gjson.Result
		obj.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "type":
				u.Type = str(v)
			case "destination":
				u.Destination = str(v)
			case "behavior":
				u.Behavior = str(v)
			case "mode":
				u.Mode = str(v)
			case "rules":
				rules = v
			case "directories":
				dirs = v
			}
			return true
		})
		rules.ForEach(func(_, r gjson.Result) bool {
			if r.IsObject() {
				var name, content gjson.Result
				r.ForEach(func(k, v gjson.Result) bool {
					switch k.Str {
					case "toolName":
						name = v
					case "ruleContent":
						content = v
					}
					return true
				})
				u.Rules = append(u.Rules, PermissionRule{ToolName: str(name), RuleContent: str(content)})
			}
			return true
		})
		dirs.ForEach(func(_, d gjson.Result) bool {
			if d.Type == gjson.String {
				u.Directories = append(u.Directories, str(d))
			}
			return true
		})
		out = append(out, u)
		return true
	})
	return out
}

func parseResponse(resp gjson.Result) ControlResponse {
	var subtype, id, payload, msg, code gjson.Result
	resp.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "subtype":
			subtype = v
		case "request_id":
			id = v
		case "response":
			payload = v
		case "error":
			msg = v
		case "error_code":
			code = v
		}
		return true
	})
	r := ControlResponse{ID: str(id)}
	if subtype.Type == gjson.String && subtype.Str == "success" {
		r.Payload = objectCopy(payload)
		if r.Payload == nil && payload.Exists() && payload.Type != gjson.Null {
			r.Payload = rawCopy(payload) // not an object: kept as sent
		}
		return r
	}
	// "error", or a subtype this package does not know: not a success.
	r.Err = &ControlError{Message: str(msg), Code: str(code)}
	switch {
	case msg.Exists() && msg.Type != gjson.String && msg.Type != gjson.Null:
		r.Err.Message = strings.Clone(msg.Raw)
	case r.Err.Message == "" && str(subtype) != "error":
		r.Err.Message = "unexpected response subtype " + strconv.Quote(str(subtype))
	}
	return r
}

// turnEnd returns the TurnEnd for a result line; index is used when the
// line has no result_index.
func (c *controlLine) turnEnd(index int) TurnEnd {
	if c.resultIndex.Type == gjson.Number {
		index = int(integer(c.resultIndex))
	}
	return TurnEnd{Index: index, TerminalReason: str(c.terminalReason)}
}
