package acp

import "encoding/json"

// This file holds the results of the methods a client calls on an agent.

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

// StopReason tells why an agent ended a prompt turn.
type StopReason string

// The stop reasons of ACP v1.
const (
	StopReasonEndTurn         StopReason = "end_turn"          // the turn ended normally
	StopReasonMaxTokens       StopReason = "max_tokens"        // the model's token limit was reached
	StopReasonMaxTurnRequests StopReason = "max_turn_requests" // the agent's limit of model requests per turn was reached
	StopReasonRefusal         StopReason = "refusal"           // the agent refused to continue
	StopReasonCancelled       StopReason = "cancelled"         // the client sent session/cancel
)

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
