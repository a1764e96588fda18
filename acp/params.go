package acp

import (
	"bytes"
	"encoding/json"
)

// unmarshalParams implements json.Unmarshaler for the params types, so that
// encoding/json applies the same checks as DecodeParams wherever they are
// nested. By the Unmarshaler convention, null is a no-op.
func unmarshalParams[T any](data []byte, dst *T) error {
	if isNull(data) {
		return nil
	}
	v, err := DecodeParams[T](data)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// Implementation names and versions a client or an agent.
type Implementation struct {
	// Name is the programmatic name, also shown when Title is empty.
	Name string `json:"name"`
	// Title is the human-readable name; "" means use Name.
	Title   string          `json:"title,omitempty"`
	Version string          `json:"version"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// implementation reads an optional Implementation member. The member is
// informational, so, as the schema prescribes, a malformed one reads as
// absent rather than failing the request.
func (f *fields) implementation(key string, dst **Implementation) {
	if f.err != nil || !f.has(key) {
		return
	}
	var impl Implementation
	o := readValid(f.get(key), f.sub(key))
	o.str("name", &impl.Name, false)
	o.str("title", &impl.Title, false)
	o.str("version", &impl.Version, false)
	o.meta(&impl.Meta)
	if o.err == nil {
		*dst = &impl
	}
}

// InitializeParams are the params of initialize, the first request a client
// sends.
type InitializeParams struct {
	// ProtocolVersion is the latest protocol version the client supports.
	// Answer with [NegotiateVersion].
	ProtocolVersion int `json:"protocolVersion"`
	// ClientCapabilities is what the client declared; absent means none,
	// and a member of the wrong type reads as not declared.
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	// ClientInfo names the client; nil when it did not say or the member
	// was malformed.
	ClientInfo *Implementation `json:"clientInfo,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *InitializeParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *InitializeParams) decodeParams(f *fields) {
	var v uint64
	f.uint("protocolVersion", &v, true)
	if f.err == nil && v > 65535 {
		f.fail("protocolVersion", "must be at most 65535")
	}
	p.ProtocolVersion = int(v)
	// As the schema prescribes, malformed capabilities are read as best
	// they can be (a member of the wrong type reads as not declared)
	// instead of failing initialize.
	if f.err == nil && f.has("clientCapabilities") {
		_ = json.Unmarshal(f.get("clientCapabilities"), &p.ClientCapabilities)
	}
	f.implementation("clientInfo", &p.ClientInfo)
	f.meta(&p.Meta)
}

// AuthenticateParams are the params of authenticate.
type AuthenticateParams struct {
	// MethodID is one of the auth methods the agent advertised.
	MethodID string          `json:"methodId"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *AuthenticateParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *AuthenticateParams) decodeParams(f *fields) {
	f.str("methodId", &p.MethodID, true)
	f.meta(&p.Meta)
}

// MCPServer is the configuration of an MCP server the agent should connect
// to: [MCPServerStdio], [MCPServerHTTP], [MCPServerSSE], or
// [UnknownMCPServer] for a transport this package does not know.
type MCPServer interface {
	// mcpTransport returns "stdio", "http", "sse" or the unknown type.
	mcpTransport() string
}

// NameValue is a name and a value: an environment variable of an MCP
// server or a terminal, or an HTTP header.
type NameValue struct {
	Name  string          `json:"name"`
	Value string          `json:"value"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// MCPServerStdio is an MCP server the agent launches as a process speaking
// on its stdin and stdout. Every agent supports it. On the wire it carries
// no "type" member.
type MCPServerStdio struct {
	Name string `json:"name"`
	// Command is the absolute path of the executable.
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Env lists environment variables set for the process.
	Env  []NameValue     `json:"env"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// MCPServerHTTP is an MCP server reached over streamable HTTP, for agents
// that declared the http MCP capability.
type MCPServerHTTP struct {
	Name    string          `json:"name"`
	URL     string          `json:"url"`
	Headers []NameValue     `json:"headers"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// MCPServerSSE is an MCP server reached over server-sent events, for agents
// that declared the sse MCP capability.
type MCPServerSSE struct {
	Name    string          `json:"name"`
	URL     string          `json:"url"`
	Headers []NameValue     `json:"headers"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// UnknownMCPServer is an MCP server of a transport type this package does
// not know, kept as received.
type UnknownMCPServer struct {
	// Type is the server's "type" member.
	Type string
	// Raw is the whole server object as received, byte for byte.
	Raw json.RawMessage
}

func (MCPServerStdio) mcpTransport() string     { return "stdio" }
func (MCPServerHTTP) mcpTransport() string      { return "http" }
func (MCPServerSSE) mcpTransport() string       { return "sse" }
func (s UnknownMCPServer) mcpTransport() string { return s.Type }

// MarshalJSON encodes the server untagged, with args and env as arrays even
// when nil, since the schema requires them.
func (s MCPServerStdio) MarshalJSON() ([]byte, error) {
	type plain MCPServerStdio
	p := plain(s)
	p.Args = nonNil(p.Args)
	p.Env = nonNil(p.Env)
	return json.Marshal(p)
}

// MarshalJSON encodes the server with "type":"http".
func (s MCPServerHTTP) MarshalJSON() ([]byte, error) {
	type plain MCPServerHTTP
	p := plain(s)
	p.Headers = nonNil(p.Headers)
	return marshalTagged("type", s.mcpTransport(), p)
}

// MarshalJSON encodes the server with "type":"sse".
func (s MCPServerSSE) MarshalJSON() ([]byte, error) {
	type plain MCPServerSSE
	p := plain(s)
	p.Headers = nonNil(p.Headers)
	return marshalTagged("type", s.mcpTransport(), p)
}

// MarshalJSON returns Raw unchanged, or {"type":Type} when Raw is empty.
func (s UnknownMCPServer) MarshalJSON() ([]byte, error) {
	if len(s.Raw) == 0 {
		return marshalTagged("type", s.Type, struct{}{})
	}
	return s.Raw, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func decodeNameValue(f *fields, nv *NameValue) {
	f.str("name", &nv.Name, true)
	f.str("value", &nv.Value, true)
	f.meta(&nv.Meta)
}

// mcpServers reads the mcpServers member. Absent means none: the result is
// an empty, non-nil slice either way.
func (f *fields) mcpServers(dst *[]MCPServer) {
	out := []MCPServer{}
	f.array("mcpServers", false, func(raw json.RawMessage, path string) error {
		s := readValidObject(raw, path)
		var typ string
		s.str("type", &typ, false)
		switch typ {
		case "", "stdio":
			var v MCPServerStdio
			s.str("name", &v.Name, true)
			s.str("command", &v.Command, true)
			s.strings("args", &v.Args)
			objects(s, "env", &v.Env, false, decodeNameValue)
			s.meta(&v.Meta)
			v.Args, v.Env = nonNil(v.Args), nonNil(v.Env)
			out = append(out, v)
		case "http", "sse":
			var name, url string
			var headers []NameValue
			var meta json.RawMessage
			s.str("name", &name, true)
			s.str("url", &url, true)
			objects(s, "headers", &headers, false, decodeNameValue)
			s.meta(&meta)
			headers = nonNil(headers)
			if typ == "http" {
				out = append(out, MCPServerHTTP{Name: name, URL: url, Headers: headers, Meta: meta})
			} else {
				out = append(out, MCPServerSSE{Name: name, URL: url, Headers: headers, Meta: meta})
			}
		default:
			out = append(out, UnknownMCPServer{Type: typ, Raw: bytes.Clone(raw)})
		}
		return s.err
	})
	*dst = out
}

// NewSessionParams are the params of session/new.
type NewSessionParams struct {
	// Cwd is the session's working directory, an absolute path.
	Cwd string `json:"cwd"`
	// AdditionalDirectories are further workspace roots, absolute paths.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// MCPServers lists the MCP servers to connect to. Decoding yields a
	// non-nil slice, empty when the member was absent.
	MCPServers []MCPServer `json:"mcpServers"`
	// SystemPrompt is instructions for the agent's system prompt; nil
	// means absent, which differs from a present empty prompt.
	SystemPrompt *SystemPrompt   `json:"systemPrompt,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *NewSessionParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *NewSessionParams) decodeParams(f *fields) {
	f.str("cwd", &p.Cwd, true)
	f.strings("additionalDirectories", &p.AdditionalDirectories)
	f.mcpServers(&p.MCPServers)
	f.systemPrompt(&p.SystemPrompt)
	f.meta(&p.Meta)
}

// MarshalJSON encodes the params with mcpServers as an array even when nil,
// since the schema requires it.
func (p NewSessionParams) MarshalJSON() ([]byte, error) {
	type plain NewSessionParams
	q := plain(p)
	q.MCPServers = nonNil(q.MCPServers)
	return json.Marshal(q)
}

// SystemPrompt is session/new's systemPrompt: instructions the client gives
// the agent at system level rather than as the user. Peers send it in two
// forms, both read into this type: a plain string (as buzz and goose do),
// kept in Text, and the object {"mode", "content"} of ACP's unstable
// schema, kept in Mode and Content.
//
// The builders send the string form, which every peer that reads the
// member accepts, unless Content is non-nil, which selects the object
// form. Unstable: the member is not in the stable schema.
type SystemPrompt struct {
	// Text is the prompt of the string form; "" is a present, empty
	// prompt.
	Text string
	// Mode is the object form's mode: [SystemPromptAppend],
	// [SystemPromptOverride], another mode, or "" when the object left it
	// out (append, by the RFD's default).
	Mode string
	// Content is the object form's prompt; non-nil (even empty) for the
	// object form, nil for the string form.
	Content ContentBlocks
}

// The modes of a [SystemPrompt]'s object form.
const (
	// SystemPromptAppend adds Content to the agent's own instructions.
	SystemPromptAppend = "append"
	// SystemPromptOverride replaces the agent's default instructions,
	// for agents that declared they allow it.
	SystemPromptOverride = "override"
)

// MarshalJSON encodes the string form, or the object form when Content is
// non-nil.
func (s SystemPrompt) MarshalJSON() ([]byte, error) {
	if s.Content == nil {
		return json.Marshal(s.Text)
	}
	return json.Marshal(struct {
		Mode    string        `json:"mode,omitempty"`
		Content ContentBlocks `json:"content"`
	}{s.Mode, s.Content})
}

// systemPrompt reads the optional systemPrompt member in either form.
func (f *fields) systemPrompt(dst **SystemPrompt) {
	if f.err != nil || !f.has("systemPrompt") {
		return
	}
	var sp SystemPrompt
	switch f.get("systemPrompt")[0] {
	case '"':
		f.str("systemPrompt", &sp.Text, true)
	case '{':
		f.object("systemPrompt", true, func(o *fields) {
			o.str("mode", &sp.Mode, false)
			if o.require("content") {
				sp.Content = o.contentBlocks("content")
			}
		})
	default:
		f.fail("systemPrompt", "must be a string or an object")
	}
	if f.err == nil {
		*dst = &sp
	}
}

// LoadSessionParams are the params of session/load, which replays a
// session's history as session/update notifications before answering.
type LoadSessionParams struct {
	SessionID             string          `json:"sessionId"`
	Cwd                   string          `json:"cwd"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	MCPServers            []MCPServer     `json:"mcpServers"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *LoadSessionParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *LoadSessionParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("cwd", &p.Cwd, true)
	f.strings("additionalDirectories", &p.AdditionalDirectories)
	f.mcpServers(&p.MCPServers)
	f.meta(&p.Meta)
}

// MarshalJSON encodes the params with mcpServers as an array even when nil.
func (p LoadSessionParams) MarshalJSON() ([]byte, error) {
	type plain LoadSessionParams
	q := plain(p)
	q.MCPServers = nonNil(q.MCPServers)
	return json.Marshal(q)
}

// ResumeSessionParams are the params of session/resume, which reopens a
// session without replaying its history.
type ResumeSessionParams struct {
	SessionID             string          `json:"sessionId"`
	Cwd                   string          `json:"cwd"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	MCPServers            []MCPServer     `json:"mcpServers,omitempty"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *ResumeSessionParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *ResumeSessionParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("cwd", &p.Cwd, true)
	f.strings("additionalDirectories", &p.AdditionalDirectories)
	f.mcpServers(&p.MCPServers)
	f.meta(&p.Meta)
}

// ForkSessionParams are the params of session/fork, which creates a new
// session holding a copy of an existing one's history. Unstable: the
// method is in ACP's unstable schema only.
type ForkSessionParams struct {
	// SessionID is the session to copy.
	SessionID             string          `json:"sessionId"`
	Cwd                   string          `json:"cwd"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	MCPServers            []MCPServer     `json:"mcpServers,omitempty"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *ForkSessionParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *ForkSessionParams) decodeParams(f *fields) {
	(*ResumeSessionParams)(p).decodeParams(f)
}

// ListSessionsParams are the params of session/list. Every member is
// optional.
type ListSessionsParams struct {
	// Cwd filters the sessions by working directory; "" means all.
	Cwd string `json:"cwd,omitempty"`
	// Cursor is a previous result's NextCursor; "" asks for the first page.
	Cursor string          `json:"cursor,omitempty"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *ListSessionsParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *ListSessionsParams) decodeParams(f *fields) {
	f.str("cwd", &p.Cwd, false)
	f.str("cursor", &p.Cursor, false)
	f.meta(&p.Meta)
}

// EmptyParams are the params of the methods that take nothing but _meta:
// logout.
type EmptyParams struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *EmptyParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *EmptyParams) decodeParams(f *fields) { f.meta(&p.Meta) }

// SessionParams are the params of the methods that name only a session:
// session/close, session/delete and the session/cancel notification.
type SessionParams struct {
	SessionID string          `json:"sessionId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *SessionParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *SessionParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.meta(&p.Meta)
}

// SetSessionModeParams are the params of session/set_mode.
type SetSessionModeParams struct {
	SessionID string `json:"sessionId"`
	// ModeID is one of the modes the agent advertised.
	ModeID string          `json:"modeId"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *SetSessionModeParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *SetSessionModeParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("modeId", &p.ModeID, true)
	f.meta(&p.Meta)
}

// SetSessionConfigOptionParams are the params of session/set_config_option.
type SetSessionConfigOptionParams struct {
	SessionID string `json:"sessionId"`
	ConfigID  string `json:"configId"`
	// Value is the id of one of a select option's values; unused when
	// BoolValue is set.
	Value string `json:"value"`
	// BoolValue is the new value of a boolean option, sent as
	// {"type":"boolean","value":…}; nil means the value is the id Value.
	BoolValue *bool           `json:"-"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *SetSessionConfigOptionParams) UnmarshalJSON(data []byte) error {
	return unmarshalParams(data, p)
}

// MarshalJSON encodes Value as the value id, or BoolValue with
// "type":"boolean" when it is set.
func (p SetSessionConfigOptionParams) MarshalJSON() ([]byte, error) {
	type plain SetSessionConfigOptionParams
	if p.BoolValue == nil {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		SessionID string          `json:"sessionId"`
		ConfigID  string          `json:"configId"`
		Type      string          `json:"type"`
		Value     bool            `json:"value"`
		Meta      json.RawMessage `json:"_meta,omitempty"`
	}{p.SessionID, p.ConfigID, ConfigOptionBoolean, *p.BoolValue, p.Meta})
}

func (p *SetSessionConfigOptionParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("configId", &p.ConfigID, true)
	// The type member names the value's shape; absent or any other type
	// means a value id, as in the schema.
	var typ string
	f.str("type", &typ, false)
	if typ == ConfigOptionBoolean {
		var b bool
		f.boolean("value", &b, true)
		p.BoolValue = &b
	} else {
		f.str("value", &p.Value, true)
	}
	f.meta(&p.Meta)
}

// SetSessionModelParams are the params of the legacy session/set_model.
// Unstable: the method predates session/set_config_option and may be
// removed from the protocol.
type SetSessionModelParams struct {
	SessionID string          `json:"sessionId"`
	ModelID   string          `json:"modelId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *SetSessionModelParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *SetSessionModelParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("modelId", &p.ModelID, true)
	f.meta(&p.Meta)
}

// PromptParams are the params of session/prompt.
type PromptParams struct {
	SessionID string `json:"sessionId"`
	// Prompt is the user's message. Text and resource links are always
	// allowed; images, audio and embedded resources only when the agent
	// declared the matching prompt capability.
	Prompt ContentBlocks   `json:"prompt"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *PromptParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *PromptParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	if f.require("prompt") {
		p.Prompt = f.contentBlocks("prompt")
	}
	f.meta(&p.Meta)
}

// CancelRequestParams are the params of $/cancel_request.
type CancelRequestParams struct {
	// RequestID is the id of the request to cancel, byte-exact as sent.
	RequestID ID              `json:"requestId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *CancelRequestParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *CancelRequestParams) decodeParams(f *fields) {
	f.id("requestId", &p.RequestID, true)
	f.meta(&p.Meta)
}
