package acp

import (
	"bytes"
	"encoding/json"
)

// This file holds tool calls: the tool_call and tool_call_update session
// updates and what they carry.

// ToolKind is the category of a tool call, for choosing an icon.
type ToolKind string

// The tool kinds of ACP v1.
const (
	ToolKindRead       ToolKind = "read"
	ToolKindEdit       ToolKind = "edit"
	ToolKindDelete     ToolKind = "delete"
	ToolKindMove       ToolKind = "move"
	ToolKindSearch     ToolKind = "search"
	ToolKindExecute    ToolKind = "execute"
	ToolKindThink      ToolKind = "think"
	ToolKindFetch      ToolKind = "fetch"
	ToolKindSwitchMode ToolKind = "switch_mode"
	ToolKindOther      ToolKind = "other" // the default
)

// ToolCallStatus is where a tool call is in its life.
type ToolCallStatus string

// The tool call statuses of ACP v1.
const (
	ToolCallStatusPending    ToolCallStatus = "pending" // not started: input streaming or awaiting permission
	ToolCallStatusInProgress ToolCallStatus = "in_progress"
	ToolCallStatusCompleted  ToolCallStatus = "completed"
	ToolCallStatusFailed     ToolCallStatus = "failed"
)

// ToolCall reports a tool call the model asked for.
type ToolCall struct {
	// ToolCallID identifies the call within the session.
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	// Name is the tool's programmatic name, such as "Bash"; "" means not
	// given. Unstable: ACP's unstable schema defines it, the stable one
	// does not.
	Name string `json:"name,omitempty"`
	// Kind is the tool's category; "" means other.
	Kind ToolKind `json:"kind,omitempty"`
	// Status is the call's status; "" means pending.
	Status    ToolCallStatus     `json:"status,omitempty"`
	Content   []ToolCallContent  `json:"content,omitempty"`
	Locations []ToolCallLocation `json:"locations,omitempty"`
	// RawInput and RawOutput are the tool's input and output as JSON; nil
	// means absent.
	RawInput  json.RawMessage `json:"rawInput,omitempty"`
	RawOutput json.RawMessage `json:"rawOutput,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallUpdate changes some fields of an earlier [ToolCall]; a zero field
// is left unchanged. Content and Locations replace the call's lists when
// non-nil: a non-nil empty slice clears them.
type ToolCallUpdate struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title,omitempty"`
	// Name is the tool's programmatic name; "" leaves it unchanged.
	// Unstable, as [ToolCall].Name.
	Name      string             `json:"name,omitempty"`
	Kind      ToolKind           `json:"kind,omitempty"`
	Status    ToolCallStatus     `json:"status,omitempty"`
	Content   []ToolCallContent  `json:"content,omitempty"`
	Locations []ToolCallLocation `json:"locations,omitempty"`
	RawInput  json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput json.RawMessage    `json:"rawOutput,omitempty"`
	Meta      json.RawMessage    `json:"_meta,omitempty"`
}

// ToolCallLocation is a file a tool call reads or changes, so a client can
// follow along.
type ToolCallLocation struct {
	// Path is absolute.
	Path string `json:"path"`
	// Line is 1-based; nil means the whole file.
	Line *int            `json:"line,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallContent is an item of a tool call's output: [ToolCallContentBlock],
// [ToolCallDiff], [ToolCallTerminal], or [UnknownToolCallContent]. The set
// is closed; each variant marshals with its "type" discriminator.
type ToolCallContent interface {
	toolContentType() string
}

// ToolCallContentBlock is a content block produced by a tool.
type ToolCallContentBlock struct {
	Content ContentBlock    `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallDiff is a change to a file.
type ToolCallDiff struct {
	// Path is absolute.
	Path string `json:"path"`
	// OldText is the text before the change; nil for a new file.
	OldText *string         `json:"oldText,omitempty"`
	NewText string          `json:"newText"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallTerminal embeds a terminal created with terminal/create.
type ToolCallTerminal struct {
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnknownToolCallContent is tool output of a type this package does not
// know, kept as received.
type UnknownToolCallContent struct {
	Type string
	// Raw is the item as received, byte for byte.
	Raw json.RawMessage
}

func (ToolCallContentBlock) toolContentType() string     { return "content" }
func (ToolCallDiff) toolContentType() string             { return "diff" }
func (ToolCallTerminal) toolContentType() string         { return "terminal" }
func (c UnknownToolCallContent) toolContentType() string { return c.Type }

// MarshalJSON encodes the item with "type":"content".
func (c ToolCallContentBlock) MarshalJSON() ([]byte, error) {
	type plain ToolCallContentBlock
	return marshalTagged("type", c.toolContentType(), plain(c))
}

// MarshalJSON encodes the item with "type":"diff".
func (c ToolCallDiff) MarshalJSON() ([]byte, error) {
	type plain ToolCallDiff
	return marshalTagged("type", c.toolContentType(), plain(c))
}

// MarshalJSON encodes the item with "type":"terminal".
func (c ToolCallTerminal) MarshalJSON() ([]byte, error) {
	type plain ToolCallTerminal
	return marshalTagged("type", c.toolContentType(), plain(c))
}

// MarshalJSON returns Raw unchanged, or {"type":Type} when Raw is empty.
func (c UnknownToolCallContent) MarshalJSON() ([]byte, error) {
	if len(c.Raw) == 0 {
		return marshalTagged("type", c.Type, struct{}{})
	}
	return c.Raw, nil
}

// MarshalJSON encodes the update with "sessionUpdate":"tool_call".
func (u ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"tool_call_update".
// A non-nil empty Content or Locations is sent as [], clearing the list.
func (u ToolCallUpdate) MarshalJSON() ([]byte, error) {
	return marshalTagged(updateTag, u.updateKind(), u.wire())
}

// wire returns the update's fields with Content and Locations sent when
// non-nil, even when empty.
func (u ToolCallUpdate) wire() any {
	type plain ToolCallUpdate
	return struct {
		plain
		Content   *[]ToolCallContent  `json:"content,omitempty"`
		Locations *[]ToolCallLocation `json:"locations,omitempty"`
	}{plain(u), ptrIfNonNil(u.Content), ptrIfNonNil(u.Locations)}
}

func ptrIfNonNil[T any](s []T) *[]T {
	if s == nil {
		return nil
	}
	return &s
}

func (f *fields) toolKind(dst *ToolKind) {
	var s string
	f.str("kind", &s, false)
	*dst = ToolKind(s)
}

func (f *fields) toolStatus(dst *ToolCallStatus) {
	var s string
	f.str("status", &s, false)
	*dst = ToolCallStatus(s)
}

// toolCall reads the members of a tool call or tool call update (the two
// differ only in whether title is required), for the session update
// variants and session/request_permission.
func (f *fields) toolCall(v *ToolCallUpdate, titleRequired bool) {
	f.str("toolCallId", &v.ToolCallID, true)
	f.str("title", &v.Title, titleRequired)
	f.str("name", &v.Name, false)
	f.toolKind(&v.Kind)
	f.toolStatus(&v.Status)
	f.toolContents(&v.Content)
	objects(f, "locations", &v.Locations, false, decodeLocation)
	f.raw("rawInput", &v.RawInput)
	f.raw("rawOutput", &v.RawOutput)
	f.meta(&v.Meta)
}

func decodeLocation(f *fields, l *ToolCallLocation) {
	f.str("path", &l.Path, true)
	if f.has("line") {
		var n uint64
		f.uint("line", &n, true)
		line := int(min(n, 1<<31-1))
		l.Line = &line
	}
	f.meta(&l.Meta)
}

// toolContents reads a tool call's content member; present yields a non-nil
// slice.
func (f *fields) toolContents(dst *[]ToolCallContent) {
	out := []ToolCallContent{}
	if !f.array("content", false, func(raw json.RawMessage, path string) error {
		c := readValidObject(raw, path)
		var typ string
		c.str("type", &typ, true)
		switch typ {
		case "content":
			var v ToolCallContentBlock
			c.contentBlock("content", &v.Content)
			c.meta(&v.Meta)
			out = append(out, v)
		case "diff":
			var v ToolCallDiff
			c.str("path", &v.Path, true)
			c.optStr("oldText", &v.OldText)
			c.str("newText", &v.NewText, true)
			c.meta(&v.Meta)
			out = append(out, v)
		case "terminal":
			var v ToolCallTerminal
			c.str("terminalId", &v.TerminalID, true)
			c.meta(&v.Meta)
			out = append(out, v)
		default:
			if c.err == nil {
				out = append(out, UnknownToolCallContent{Type: typ, Raw: bytes.Clone(raw)})
			}
		}
		return c.err
	}) {
		return
	}
	*dst = out
}
