package acpv2

import (
	"encoding/json"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/wire"
)

// This file holds the schema types written by hand, each for the reason
// the naming table (schema/names.txt) gives: shapes the generator does
// not take apart by itself. Package acp writes the v1 shapes of the same
// names; these differ from them in the types they hold (ACP v2's
// elicitation schema, a select group's groupId), so they cannot be acp's.
// They keep the generated codec's contract (see internal/acpgen).

// SessionConfigSelectOptions are the values of a select
// [SessionConfigOption]: a list of values, or a list of groups of values.
// The schema's two shapes are both arrays, told apart by their items, so
// the type is written by hand. Groups, when non-nil, holds the grouped
// shape and Options is nil; otherwise Options holds the values (sent as
// [] when nil).
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
type SessionConfigSelectOptions struct {
	Options []SessionConfigSelectOption
	Groups  []SessionConfigSelectGroup
}

// readSessionConfigSelectOptions reads the options member: the grouped
// shape when its first item has a groupId member, the list of values
// otherwise.
func readSessionConfigSelectOptions(f *wire.Fields, key string, m wire.Mode, dst *SessionConfigSelectOptions) bool {
	var o SessionConfigSelectOptions
	if !wire.EitherObjects(f, key, m, "groupId", &o.Options, (*SessionConfigSelectOption).decodeFields, &o.Groups, (*SessionConfigSelectGroup).decodeFields) {
		return false
	}
	*dst = o
	return true
}

func appendSessionConfigSelectOptions(e *wire.Encoder, o SessionConfigSelectOptions) {
	if o.Groups != nil {
		wire.AppendArray(e, o.Groups, SessionConfigSelectGroup.appendJSON)
		return
	}
	wire.AppendArray(e, o.Options, SessionConfigSelectOption.appendJSON)
}

// MarshalJSON encodes the shape the options hold.
func (o SessionConfigSelectOptions) MarshalJSON() ([]byte, error) {
	var e wire.Encoder
	appendSessionConfigSelectOptions(&e, o)
	return e.Result()
}

// The elicitation modes of ACP v2. Peers may send others (those starting
// with "_" are extensions); a client must not render those as a known
// mode.
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
const (
	ElicitationForm = "form" // the client renders RequestedSchema as a form
	ElicitationURL  = "url"  // the client directs the user to URL
)

// CreateElicitationParams are the params of [ElicitationCreate]
// (elicitation/create), with which an agent asks the user, through the
// client, for structured input: a form the client renders from a schema,
// or a URL the client opens. An agent may send it only if the client
// declared the elicitation capability for the mode. It is written by
// hand: the schema makes it a union tagged by mode whose variants are
// themselves unions of a session scope and a request scope, told apart
// by which member is present.
//
// An elicitation is tied either to a session (SessionID, and optionally
// ToolCallID) or, outside any session, to a request (RequestID).
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
type CreateElicitationParams struct {
	// Message tells the user what input is needed.
	Message string `json:"message"`
	// Mode is [ElicitationForm], [ElicitationURL] or another mode.
	Mode string `json:"mode"`
	// SessionID ties the elicitation to a session; "" when it is tied to
	// a request.
	SessionID string `json:"sessionId,omitempty"`
	// ToolCallID narrows it to a tool call of the session; "" means none.
	// It is read leniently: an invalid value reads as absent.
	ToolCallID string `json:"toolCallId,omitempty"`
	// RequestID ties the elicitation to a JSON-RPC request when there is
	// no session (during authentication, say); absent otherwise.
	RequestID acp.ID `json:"requestId,omitzero"`
	// RequestedSchema is the form to render: an object whose properties
	// are strings, numbers, booleans or enums. Required in form mode, nil
	// otherwise.
	RequestedSchema *ElicitationSchema `json:"requestedSchema,omitempty"`
	// ElicitationID names a URL elicitation, to match the
	// elicitation/complete that ends it. Required in URL mode.
	ElicitationID string `json:"elicitationId,omitempty"`
	// URL is the page to open. Required in URL mode.
	URL  string          `json:"url,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole params object as received when Mode is neither form
	// nor url, for a client to keep or forward; it is sent unchanged.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the params with the rules of [acp.DecodeParams];
// null leaves p unchanged.
func (p *CreateElicitationParams) UnmarshalJSON(data []byte) error {
	return wire.UnmarshalParams(data, p, (*CreateElicitationParams).decodeFields)
}

// MarshalJSON encodes the params; those of an unknown mode with a Raw are
// Raw unchanged.
func (p CreateElicitationParams) MarshalJSON() ([]byte, error) { return marshal(p) }

func (p *CreateElicitationParams) decodeFields(f *wire.Fields) {
	f.String("message", &p.Message, wire.Required)
	f.String("mode", &p.Mode, wire.Required)
	// The scope: a session, or a request.
	if f.Has("requestId") {
		readID(f, "requestId", wire.Required, &p.RequestID)
	} else {
		f.String("sessionId", &p.SessionID, wire.Required)
		f.String("toolCallId", &p.ToolCallID, wire.Lenient)
	}
	switch p.Mode {
	case ElicitationForm:
		wire.OptObject(f, "requestedSchema", wire.Required, &p.RequestedSchema, (*ElicitationSchema).decodeFields)
	case ElicitationURL:
		f.String("elicitationId", &p.ElicitationID, wire.Required)
		f.String("url", &p.URL, wire.Required)
	default:
		if f.Err() == nil {
			p.Raw = f.Clone()
		}
	}
	f.Meta(&p.Meta)
}

func (p CreateElicitationParams) appendJSON(e *wire.Encoder) {
	if p.Mode != ElicitationForm && p.Mode != ElicitationURL && len(p.Raw) > 0 {
		e.Raw(p.Raw)
		return
	}
	e.Open()
	e.Key("message")
	e.String(p.Message)
	e.Key("mode")
	e.String(p.Mode)
	if p.SessionID != "" {
		e.Key("sessionId")
		e.String(p.SessionID)
	}
	if p.ToolCallID != "" {
		e.Key("toolCallId")
		e.String(p.ToolCallID)
	}
	if !p.RequestID.IsAbsent() {
		e.Key("requestId")
		appendID(e, p.RequestID)
	}
	if p.RequestedSchema != nil {
		e.Key("requestedSchema")
		p.RequestedSchema.appendJSON(e)
	}
	if p.ElicitationID != "" {
		e.Key("elicitationId")
		e.String(p.ElicitationID)
	}
	if p.URL != "" {
		e.Key("url")
		e.String(p.URL)
	}
	e.Meta(p.Meta)
	e.Close()
}
