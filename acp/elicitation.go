package acp

import (
	"bytes"
	"encoding/json"
)

// This file holds elicitation/create and elicitation/complete, with which
// an agent asks the user, through the client, for structured input: a form
// the client renders from a JSON schema, or a URL the client opens.

// The elicitation modes of ACP v1. Peers may send others (those starting
// with "_" are extensions); a client must not render those as a known mode.
const (
	ElicitationForm = "form" // the client renders RequestedSchema as a form
	ElicitationURL  = "url"  // the client directs the user to URL
)

// CreateElicitationParams are the params of elicitation/create, which an
// agent may send only if the client declared the elicitation capability
// for the mode.
//
// An elicitation is tied either to a session (SessionID, and optionally
// ToolCallID) or, outside any session, to a request (RequestID).
type CreateElicitationParams struct {
	// Message tells the user what input is needed.
	Message string `json:"message"`
	// Mode is [ElicitationForm], [ElicitationURL] or another mode.
	Mode string `json:"mode"`
	// SessionID ties the elicitation to a session; "" when it is tied to
	// a request.
	SessionID string `json:"sessionId,omitempty"`
	// ToolCallID narrows it to a tool call of the session; "" means none.
	ToolCallID string `json:"toolCallId,omitempty"`
	// RequestID ties the elicitation to a JSON-RPC request when there is
	// no session (during authentication, say); absent otherwise.
	RequestID ID `json:"requestId,omitzero"`
	// RequestedSchema is the form's JSON schema, kept raw: an object of
	// type "object" whose properties are strings, numbers, booleans or
	// enums. Required in form mode, nil otherwise.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// ElicitationID names a URL elicitation, to match the
	// elicitation/complete that ends it. Required in URL mode.
	ElicitationID string `json:"elicitationId,omitempty"`
	// URL is the page to open. Required in URL mode.
	URL  string          `json:"url,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole params object as received when Mode is neither form
	// nor url, for a client to keep or forward; MarshalJSON sends it
	// unchanged.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *CreateElicitationParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

// MarshalJSON encodes the params; those of an unknown mode with a Raw are
// Raw unchanged.
func (p CreateElicitationParams) MarshalJSON() ([]byte, error) {
	if p.Mode != ElicitationForm && p.Mode != ElicitationURL && len(p.Raw) > 0 {
		return p.Raw, nil
	}
	type plain CreateElicitationParams
	return json.Marshal(plain(p))
}

func (p *CreateElicitationParams) decodeParams(f *fields) {
	f.str("message", &p.Message, true)
	f.str("mode", &p.Mode, true)
	f.str("sessionId", &p.SessionID, false)
	f.str("toolCallId", &p.ToolCallID, false)
	if _, ok := f.lookup("requestId"); ok {
		f.id("requestId", &p.RequestID, false)
	} else if p.SessionID == "" {
		// The elicitation is tied to a session or to a request.
		f.fail("sessionId", "is required (or requestId)")
	}
	switch p.Mode {
	case ElicitationForm:
		f.raw("requestedSchema", &p.RequestedSchema)
		if f.err == nil && (p.RequestedSchema == nil || p.RequestedSchema[0] != '{') {
			f.fail("requestedSchema", "must be an object")
		}
	case ElicitationURL:
		f.str("elicitationId", &p.ElicitationID, true)
		f.str("url", &p.URL, true)
	default:
		if f.err == nil {
			p.Raw = bytes.Clone(f.src)
		}
	}
	f.meta(&p.Meta)
}

// The elicitation actions of ACP v1. Peers may send others (those starting
// with "_" are extensions); an agent must not treat those as known ones.
const (
	ElicitationAccept  = "accept"  // the user submitted Content
	ElicitationDecline = "decline" // the user said no
	ElicitationCancel  = "cancel"  // the user dismissed the request
)

// CreateElicitationResult is the result of elicitation/create.
type CreateElicitationResult struct {
	// Action is [ElicitationAccept], [ElicitationDecline],
	// [ElicitationCancel] or another action.
	Action string `json:"action" acp:"required"`
	// Content is the submitted form when Action is accept, an object
	// mapping field names to strings, numbers, booleans or arrays of
	// strings, kept raw; nil means none.
	Content json.RawMessage `json:"content,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// CompleteElicitationParams are the params of elicitation/complete, the
// notification an agent sends when a URL elicitation is done.
type CompleteElicitationParams struct {
	ElicitationID string          `json:"elicitationId"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *CompleteElicitationParams) UnmarshalJSON(data []byte) error {
	return unmarshalParams(data, p)
}

func (p *CompleteElicitationParams) decodeParams(f *fields) {
	f.str("elicitationId", &p.ElicitationID, true)
	f.meta(&p.Meta)
}
