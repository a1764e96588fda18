package acp

import (
	"encoding/json"

	"github.com/acpkit/acpkit/internal/wire"
)

// This file holds schema types written by hand, each for the reason the
// naming table (schema/names.txt) gives: shapes the generator does not
// take apart by itself. They keep the generated codec's contract (see
// internal/acpgen).

// SystemPrompt is the systemPrompt of session/new, session/load,
// session/resume and session/fork: instructions the client gives the agent
// at system level rather than as the user. It is written by hand because
// peers send it in two forms, both read into this type: the object
// {"mode", "content"} of ACP's schema, and a plain string (as buzz and
// goose send it), read as the object with that text as its one content
// block and the append mode. It is sent as the object, which is what the
// schema and the official SDK accept.
//
// Unstable: ACP's unstable schema defines it, the stable one does not; it
// may change or be removed.
type SystemPrompt struct {
	// Mode is how the prompt combines with the agent's own instructions:
	// [SystemPromptAppend], [SystemPromptOverride] (only for an agent that
	// declared it), or another mode, which the agent must refuse. It is
	// sent as append when "".
	Mode SystemPromptMode
	// Content is the prompt, sent as [] when nil.
	Content ContentBlocks
	Meta    json.RawMessage
}

// readSystemPrompt reads a systemPrompt member in either form.
func readSystemPrompt(f *wire.Fields, key string, m wire.Mode, dst *SystemPrompt) bool {
	v := f.Value(key, m, "an object")
	switch {
	case v == nil:
		return false
	case v[0] == '"':
		var text string
		if !f.String(key, &text, m) {
			return false
		}
		*dst = SystemPrompt{Mode: SystemPromptAppend, Content: ContentBlocks{TextContent{Text: text}}}
		return true
	case v[0] != '{':
		f.Invalid(key, m, "must be an object or a string")
		return false
	}
	sub := f.Sub(key, m)
	var sp SystemPrompt
	sub.String("mode", (*string)(&sp.Mode), wire.Required)
	wire.Unions(sub, "content", wire.Required, &sp.Content, readContentBlock)
	sub.Meta(&sp.Meta)
	if !f.Done(key, m, sub) {
		return false
	}
	*dst = sp
	return true
}

func appendSystemPrompt(e *wire.Encoder, s SystemPrompt) {
	mode := s.Mode
	if mode == "" {
		mode = SystemPromptAppend
	}
	e.Open()
	e.Key("mode")
	e.String(string(mode))
	e.Key("content")
	s.Content.appendJSON(e)
	e.Meta(s.Meta)
	e.Close()
}

// MarshalJSON encodes the prompt as the schema's object.
func (s SystemPrompt) MarshalJSON() ([]byte, error) {
	var e wire.Encoder
	appendSystemPrompt(&e, s)
	return e.Result()
}

// ResourceContents is the contents of an [EmbeddedResource]: text or, for
// binary data, a base64 blob. The schema has two types for them,
// TextResourceContents and BlobResourceContents, told apart by which of
// text and blob is present; both are read into this one, with Text or
// Blob set.
type ResourceContents struct {
	URI string `json:"uri"`
	// MimeType is the MIME type of the contents; "" when not given. It is
	// read leniently: an invalid value reads as absent.
	MimeType string `json:"mimeType,omitempty"`
	// Text is the contents of a text resource; nil for a blob.
	Text *string `json:"text,omitempty"`
	// Blob is the base64-encoded contents of a binary resource; nil for
	// text.
	Blob *string         `json:"blob,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

func (r *ResourceContents) decodeFields(f *wire.Fields) {
	f.String("uri", &r.URI, wire.Required)
	f.String("mimeType", &r.MimeType, wire.Lenient)
	f.OptString("text", &r.Text, wire.Optional)
	f.OptString("blob", &r.Blob, wire.Optional)
	if f.Err() == nil && r.Text == nil && r.Blob == nil {
		f.Fail("text", `or "blob" is required`)
	}
	f.Meta(&r.Meta)
}

func (r ResourceContents) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Key("uri")
	e.String(r.URI)
	if r.MimeType != "" {
		e.Key("mimeType")
		e.String(r.MimeType)
	}
	if r.Text != nil {
		e.Key("text")
		e.String(*r.Text)
	}
	if r.Blob != nil {
		e.Key("blob")
		e.String(*r.Blob)
	}
	e.Meta(r.Meta)
	e.Close()
}

// MCPMessageResult is the result of [MCPMessage] (mcp/message): the one
// outcome of the inner MCP request, its result or its MCP error, told
// apart by which member is present (result wins when both are). Outer ACP
// errors are reserved for failures of the binding itself.
//
// Unstable: ACP's unstable schema defines it, the stable one does not; it
// may change or be removed.
type MCPMessageResult struct {
	// Result is the inner MCP result, any JSON value, null included, kept
	// raw; nil when the outcome is Error. It is sent as null when both
	// Result and Error are nil.
	Result json.RawMessage
	// Error is the inner MCP error; nil when the outcome is Result.
	Error *MCPError
	Meta  json.RawMessage
}

func (r *MCPMessageResult) decodeFields(f *wire.Fields) {
	if _, ok := f.Lookup("result"); ok || !f.Has("error") {
		f.Raw("result", &r.Result, wire.Required|wire.KeepNull)
	} else {
		wire.OptObject(f, "error", wire.Required, &r.Error, (*MCPError).decodeFields)
	}
	f.Meta(&r.Meta)
}

func (r MCPMessageResult) appendJSON(e *wire.Encoder) {
	e.Open()
	switch {
	case r.Error != nil && r.Result == nil:
		e.Key("error")
		r.Error.appendJSON(e)
	case r.Result == nil:
		e.Key("result")
		e.Null()
	default:
		e.Key("result")
		e.Raw(r.Result)
	}
	e.Meta(r.Meta)
	e.Close()
}

// MarshalJSON encodes the outcome the result holds.
func (r MCPMessageResult) MarshalJSON() ([]byte, error) { return marshal(r) }

// SessionConfigSelectOptions are the values of a select
// [SessionConfigOption]: a list of values, or a list of groups of values.
// The schema's two shapes are both arrays, told apart by their items, so
// the type is written by hand. Groups, when non-nil, holds the grouped
// shape and Options is nil; otherwise Options holds the values (sent as
// [] when nil).
type SessionConfigSelectOptions struct {
	Options []SessionConfigSelectOption
	Groups  []SessionConfigSelectGroup
}

// readSessionConfigSelectOptions reads the options member: the grouped
// shape when its first item has a group member, the list of values
// otherwise.
func readSessionConfigSelectOptions(f *wire.Fields, key string, m wire.Mode, dst *SessionConfigSelectOptions) bool {
	var o SessionConfigSelectOptions
	if !wire.EitherObjects(f, key, m, "group", &o.Options, (*SessionConfigSelectOption).decodeFields, &o.Groups, (*SessionConfigSelectGroup).decodeFields) {
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
