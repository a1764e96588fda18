package acp

import "encoding/json"

// This file holds session/request_permission, with which an agent asks the
// user, through the client, before running a sensitive tool call.

// PermissionOptionKind hints how a client should present a
// [PermissionOption].
type PermissionOptionKind string

// The permission option kinds of ACP v1.
const (
	PermissionAllowOnce    PermissionOptionKind = "allow_once"
	PermissionAllowAlways  PermissionOptionKind = "allow_always"
	PermissionRejectOnce   PermissionOptionKind = "reject_once"
	PermissionRejectAlways PermissionOptionKind = "reject_always"
)

// PermissionOption is a choice offered to the user.
type PermissionOption struct {
	OptionID string               `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
	Meta     json.RawMessage      `json:"_meta,omitempty"`
}

// PermissionToolCall describes the tool call a permission request is
// about. It has the members of a [ToolCallUpdate] but is sent without a
// "sessionUpdate" discriminator.
type PermissionToolCall ToolCallUpdate

// MarshalJSON encodes the tool call as a [ToolCallUpdate] without its
// discriminator: a non-nil empty Content or Locations is sent as [].
func (c PermissionToolCall) MarshalJSON() ([]byte, error) {
	return json.Marshal(ToolCallUpdate(c).wire())
}

// RequestPermissionParams are the params of session/request_permission,
// which an agent sends before running a sensitive tool call.
type RequestPermissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  PermissionToolCall `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	Meta      json.RawMessage    `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *RequestPermissionParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *RequestPermissionParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.object("toolCall", true, func(t *fields) {
		t.toolCall((*ToolCallUpdate)(&p.ToolCall), false)
	})
	objects(f, "options", &p.Options, true, func(o *fields, opt *PermissionOption) {
		o.str("optionId", &opt.OptionID, true)
		o.str("name", &opt.Name, true)
		var kind string
		o.str("kind", &kind, true)
		opt.Kind = PermissionOptionKind(kind)
		o.meta(&opt.Meta)
	})
	f.meta(&p.Meta)
}

// MarshalJSON encodes the params with options as an array even when nil.
func (p RequestPermissionParams) MarshalJSON() ([]byte, error) {
	type plain RequestPermissionParams
	q := plain(p)
	q.Options = nonNil(q.Options)
	return json.Marshal(q)
}

// PermissionOutcomeKind is what became of a permission request.
type PermissionOutcomeKind string

// The permission outcomes of ACP v1.
const (
	// PermissionCancelled is the outcome a client must answer every pending
	// permission request with after it sends session/cancel.
	PermissionCancelled PermissionOutcomeKind = "cancelled"
	// PermissionSelected means the user chose the option OptionID.
	PermissionSelected PermissionOutcomeKind = "selected"
)

// RequestPermissionResult is the result of session/request_permission.
type RequestPermissionResult struct {
	Outcome PermissionOutcome `json:"outcome" acp:"required"`
	Meta    json.RawMessage   `json:"_meta,omitempty"`
}

// PermissionOutcome is the user's decision.
type PermissionOutcome struct {
	Outcome PermissionOutcomeKind `json:"outcome" acp:"required"`
	// OptionID is the chosen option when Outcome is PermissionSelected.
	OptionID string          `json:"optionId,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}
