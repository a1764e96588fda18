package acp

import (
	"encoding/json"
)

// This file holds the client's side of the conversation: the results a
// client reads from an agent, and the methods an agent calls on a client
// (session/request_permission, fs/*, terminal/*) with their params and
// results.

// InitializeResult is the result of initialize.
type InitializeResult struct {
	// ProtocolVersion is the version the agent chose (see
	// [NegotiateVersion]); a client that does not support it should
	// disconnect.
	ProtocolVersion   int               `json:"protocolVersion" acp:"required"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	// AgentInfo names the agent; nil when it did not say.
	AgentInfo *Implementation `json:"agentInfo,omitempty"`
	// AuthMethods lists the ways to authenticate; empty means none needed.
	AuthMethods []AuthMethod    `json:"authMethods"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON encodes the result with authMethods as an array even when nil.
func (r InitializeResult) MarshalJSON() ([]byte, error) {
	type plain InitializeResult
	p := plain(r)
	p.AuthMethods = nonNil(p.AuthMethods)
	return json.Marshal(p)
}

// AuthMethod is a way for the client to authenticate. The client passes
// an agent method's ID back as [AuthenticateParams.MethodID]; for a
// terminal method it runs the agent's program itself instead.
type AuthMethod struct {
	// Type is "" for a method the agent handles through authenticate, or
	// [AuthMethodTerminal]; others may appear and should be skipped.
	Type        string `json:"type,omitempty"`
	ID          string `json:"id" acp:"required"`
	Name        string `json:"name" acp:"required"`
	Description string `json:"description,omitempty"`
	// Args and Env are what a terminal method adds to the agent's command
	// line and environment (Env overriding the same names); nil when none.
	Args []string          `json:"args,omitempty"`
	Env  map[string]string `json:"env,omitempty"`
	Meta json.RawMessage   `json:"_meta,omitempty"`
}

// AuthMethodTerminal is the [AuthMethod] type with which the client runs
// the agent's program, with Args and Env added, as an interactive process
// in a terminal for the user to log in; exit status 0 means success. An
// agent offers it only to a client that declared auth.terminal, and the
// client never passes it to authenticate.
const AuthMethodTerminal = "terminal"

// SessionModeState is the modes a session can be in and the current one.
type SessionModeState struct {
	CurrentModeID  string          `json:"currentModeId" acp:"required"`
	AvailableModes []SessionMode   `json:"availableModes" acp:"required"`
	Meta           json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON encodes the state with availableModes as an array even when
// nil.
func (s SessionModeState) MarshalJSON() ([]byte, error) {
	type plain SessionModeState
	p := plain(s)
	p.AvailableModes = nonNil(p.AvailableModes)
	return json.Marshal(p)
}

// SessionMode is a mode an agent can work in, such as "ask" or "code".
type SessionMode struct {
	ID          string          `json:"id" acp:"required"`
	Name        string          `json:"name" acp:"required"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// NewSessionResult is the result of session/new, and of session/fork
// (Unstable), whose SessionID names the new copy.
type NewSessionResult struct {
	SessionID string `json:"sessionId" acp:"required"`
	// Modes is nil when the agent has no modes.
	Modes *SessionModeState `json:"modes,omitempty"`
	// ConfigOptions is nil when the agent has none.
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
}

// LoadSessionResult is the result of session/load and of session/resume.
type LoadSessionResult struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
}

// ListSessionsResult is the result of session/list.
type ListSessionsResult struct {
	Sessions []SessionInfo `json:"sessions" acp:"required"`
	// NextCursor, when not "", fetches the next page as
	// [ListSessionsParams.Cursor]; "" means this was the last page.
	NextCursor string          `json:"nextCursor,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON encodes the result with sessions as an array even when nil.
func (r ListSessionsResult) MarshalJSON() ([]byte, error) {
	type plain ListSessionsResult
	p := plain(r)
	p.Sessions = nonNil(p.Sessions)
	return json.Marshal(p)
}

// SessionInfo describes a session in a [ListSessionsResult].
type SessionInfo struct {
	SessionID             string   `json:"sessionId" acp:"required"`
	Cwd                   string   `json:"cwd" acp:"required"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	Title                 string   `json:"title,omitempty"`
	// UpdatedAt is an ISO 8601 timestamp of the last activity.
	UpdatedAt string          `json:"updatedAt,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// EmptyResult is the result of the methods that return nothing but _meta:
// authenticate, logout, session/close, session/delete, session/set_mode,
// session/set_model, fs/write_text_file, terminal/release and
// terminal/kill.
type EmptyResult struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionConfigOptionResult is the result of session/set_config_option.
type SetSessionConfigOptionResult struct {
	// ConfigOptions is the full set of options with their new values.
	ConfigOptions []SessionConfigOption `json:"configOptions" acp:"required"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
}

// MarshalJSON encodes the result with configOptions as an array even when
// nil.
func (r SetSessionConfigOptionResult) MarshalJSON() ([]byte, error) {
	type plain SetSessionConfigOptionResult
	p := plain(r)
	p.ConfigOptions = nonNil(p.ConfigOptions)
	return json.Marshal(p)
}

// PromptResult is the result of session/prompt, sent when the turn ends.
type PromptResult struct {
	StopReason StopReason `json:"stopReason" acp:"required"`
	// Usage is the turn's token use; nil when the agent did not report it.
	// Unstable: it is not in the stable ACP schema (the unstable one has it).
	Usage *Usage          `json:"usage,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// Usage counts the tokens of a prompt turn. The optional counts are nil
// when the agent did not report them, which differs from 0. Unstable, as
// [PromptResult].Usage.
type Usage struct {
	// TotalTokens is the sum of every category the agent counted.
	TotalTokens       uint64          `json:"totalTokens" acp:"required"`
	InputTokens       uint64          `json:"inputTokens" acp:"required"`
	OutputTokens      uint64          `json:"outputTokens" acp:"required"`
	ThoughtTokens     *uint64         `json:"thoughtTokens,omitempty"`
	CachedReadTokens  *uint64         `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens *uint64         `json:"cachedWriteTokens,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

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

// ReadTextFileParams are the params of fs/read_text_file, which an agent
// may send only if the client declared fs.readTextFile.
type ReadTextFileParams struct {
	SessionID string `json:"sessionId"`
	// Path is absolute.
	Path string `json:"path"`
	// Line is the 1-based line to start at; nil means the first.
	Line *uint64 `json:"line,omitempty"`
	// Limit is the maximum number of lines; nil means all.
	Limit *uint64         `json:"limit,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *ReadTextFileParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *ReadTextFileParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("path", &p.Path, true)
	f.optUint("line", &p.Line)
	f.optUint("limit", &p.Limit)
	f.meta(&p.Meta)
}

// ReadTextFileResult is the result of fs/read_text_file.
type ReadTextFileResult struct {
	Content string          `json:"content" acp:"required"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileParams are the params of fs/write_text_file, which an agent
// may send only if the client declared fs.writeTextFile.
type WriteTextFileParams struct {
	SessionID string `json:"sessionId"`
	// Path is absolute.
	Path    string          `json:"path"`
	Content string          `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *WriteTextFileParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *WriteTextFileParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("path", &p.Path, true)
	f.str("content", &p.Content, true)
	f.meta(&p.Meta)
}

// CreateTerminalParams are the params of terminal/create, which an agent
// may send only if the client declared terminal.
type CreateTerminalParams struct {
	SessionID string      `json:"sessionId"`
	Command   string      `json:"command"`
	Args      []string    `json:"args,omitempty"`
	Env       []NameValue `json:"env,omitempty"`
	// Cwd is an absolute path; "" means the client's choice.
	Cwd string `json:"cwd,omitempty"`
	// OutputByteLimit caps the output kept, in bytes, dropping the oldest
	// first; nil means the client's default.
	OutputByteLimit *uint64         `json:"outputByteLimit,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *CreateTerminalParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *CreateTerminalParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("command", &p.Command, true)
	f.strings("args", &p.Args)
	objects(f, "env", &p.Env, false, decodeNameValue)
	f.str("cwd", &p.Cwd, false)
	f.optUint("outputByteLimit", &p.OutputByteLimit)
	f.meta(&p.Meta)
}

// CreateTerminalResult is the result of terminal/create.
type CreateTerminalResult struct {
	TerminalID string          `json:"terminalId" acp:"required"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalParams are the params of terminal/output, terminal/release,
// terminal/wait_for_exit and terminal/kill.
type TerminalParams struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *TerminalParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *TerminalParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("terminalId", &p.TerminalID, true)
	f.meta(&p.Meta)
}

// TerminalExitStatus is how a terminal's command ended.
type TerminalExitStatus struct {
	// ExitCode is nil when the process was killed by a signal.
	ExitCode *int `json:"exitCode,omitempty"`
	// Signal names the signal that killed the process; "" if none.
	Signal string          `json:"signal,omitempty"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOutputResult is the result of terminal/output.
type TerminalOutputResult struct {
	Output string `json:"output" acp:"required"`
	// Truncated reports that output was dropped to respect the byte limit.
	Truncated bool `json:"truncated" acp:"required"`
	// ExitStatus is nil while the command runs.
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       json.RawMessage     `json:"_meta,omitempty"`
}

// WaitForTerminalExitResult is the result of terminal/wait_for_exit.
type WaitForTerminalExitResult TerminalExitStatus
