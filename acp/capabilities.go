package acp

import (
	"encoding/json"
)

// ClientCapabilities is what a client declared in initialize. A member the
// client left out reads as false or nil: not supported.
type ClientCapabilities struct {
	FS FileSystemCapabilities `json:"fs"`
	// Terminal reports support for every terminal/* method.
	Terminal bool `json:"terminal"`
	// Session holds the client's session capabilities; nil when absent.
	Session *ClientSessionCapabilities `json:"session,omitempty"`
	// Auth holds the client's authentication capabilities; nil when absent.
	Auth *ClientAuthCapabilities `json:"auth,omitempty"`
	// Elicitation tells which elicitation/create modes the client serves;
	// nil means none.
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
	// Plan declares that the client accepts [PlanUpdate] and
	// [PlanRemoved] session updates; nil means it does not. Unstable:
	// ACP's unstable schema defines it, the stable one does not.
	Plan *Capability     `json:"plan,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ClientAuthCapabilities are a client's authentication capabilities.
type ClientAuthCapabilities struct {
	// Terminal reports that the client can run [AuthMethodTerminal]
	// methods.
	Terminal bool            `json:"terminal,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// ElicitationCapabilities lists the elicitation modes a client serves; a
// nil member means unsupported.
type ElicitationCapabilities struct {
	Form *Capability     `json:"form,omitempty"`
	URL  *Capability     `json:"url,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// FileSystemCapabilities tells which fs/* methods a client serves.
type FileSystemCapabilities struct {
	ReadTextFile  bool            `json:"readTextFile"`
	WriteTextFile bool            `json:"writeTextFile"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ClientSessionCapabilities are a client's session-level capabilities.
type ClientSessionCapabilities struct {
	// ConfigOptions tells which kinds of session config option, beyond
	// select, the client handles; nil means none.
	ConfigOptions *ConfigOptionsCapabilities `json:"configOptions,omitempty"`
	// Compaction declares that the client accepts [CompactionUpdate] and
	// [CompactionSummaryChunk] session updates; nil means it does not.
	// Unstable: ACP's unstable schema defines it, the stable one does not.
	Compaction *Capability `json:"compaction,omitempty"`
	// Notices, when present and neither null nor false, declares that the
	// client accepts notice session updates. It is kept raw because peers
	// declare it either as true or as an object ({}). Unstable: no
	// edition of the ACP schema defines it.
	Notices json.RawMessage `json:"notices,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ConfigOptionsCapabilities lists the kinds of session config option a
// client handles beyond select; a nil member means unsupported.
type ConfigOptionsCapabilities struct {
	// Boolean allows [ConfigOptionBoolean] options in configOptions and
	// session/set_config_option with a boolean value
	// ([SetSessionConfigOptionParams.BoolValue]).
	Boolean *Capability     `json:"boolean,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// AcceptsBooleanConfigOptions reports whether the client declared
// clientCapabilities.session.configOptions.boolean. An agent must not send
// a [ConfigOptionBoolean] option to a client that did not.
func (c ClientCapabilities) AcceptsBooleanConfigOptions() bool {
	return c.Session != nil && c.Session.ConfigOptions != nil && c.Session.ConfigOptions.Boolean != nil
}

// AcceptsNotices reports whether the client declared
// clientCapabilities.session.notices. An agent must not send a [Notice]
// update to a client that did not.
func (c ClientCapabilities) AcceptsNotices() bool {
	if c.Session == nil {
		return false
	}
	v := trimSpace(c.Session.Notices)
	return len(v) > 0 && string(v) != "null" && string(v) != "false"
}

// AgentCapabilities is what an agent declared in its initialize result. A
// member the agent left out reads as not supported.
type AgentCapabilities struct {
	// LoadSession reports support for session/load.
	LoadSession        bool               `json:"loadSession,omitempty"`
	PromptCapabilities PromptCapabilities `json:"promptCapabilities"`
	MCPCapabilities    MCPCapabilities    `json:"mcpCapabilities"`
	// SessionCapabilities lists the optional session methods supported;
	// nil means none.
	SessionCapabilities *SessionCapabilities `json:"sessionCapabilities,omitempty"`
	// Auth lists the optional authentication methods supported; nil means
	// none.
	Auth *AgentAuthCapabilities `json:"auth,omitempty"`
	Meta json.RawMessage        `json:"_meta,omitempty"`
}

// AgentAuthCapabilities lists the optional authentication methods an
// agent supports; a nil member means unsupported.
type AgentAuthCapabilities struct {
	// Logout reports support for logout.
	Logout *Capability     `json:"logout,omitempty"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// PromptCapabilities tells which content blocks, beyond text and resource
// links, an agent accepts in session/prompt.
type PromptCapabilities struct {
	Image bool `json:"image"`
	Audio bool `json:"audio"`
	// EmbeddedContext allows [EmbeddedResource] blocks.
	EmbeddedContext bool            `json:"embeddedContext"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// MCPCapabilities tells which MCP transports, beyond stdio, an agent
// supports.
type MCPCapabilities struct {
	HTTP bool            `json:"http"`
	SSE  bool            `json:"sse"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Capability is a capability declared by its presence: a non-nil
// *Capability (sent as {}) means supported.
type Capability struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SessionCapabilities lists the optional session methods an agent
// supports; a nil member means unsupported.
type SessionCapabilities struct {
	List                  *Capability `json:"list,omitempty"`
	Delete                *Capability `json:"delete,omitempty"`
	Resume                *Capability `json:"resume,omitempty"`
	Close                 *Capability `json:"close,omitempty"`
	AdditionalDirectories *Capability `json:"additionalDirectories,omitempty"`
	// Fork reports support for session/fork. Unstable: ACP's unstable
	// schema defines it, the stable one does not.
	Fork *Capability     `json:"fork,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Accepts reports whether block may be sent in a prompt to this agent: text
// and resource links always, the other known kinds when declared, unknown
// kinds never.
func (c AgentCapabilities) Accepts(block ContentBlock) bool {
	switch block.(type) {
	case TextContent, ResourceLink:
		return true
	case ImageContent:
		return c.PromptCapabilities.Image
	case AudioContent:
		return c.PromptCapabilities.Audio
	case EmbeddedResource:
		return c.PromptCapabilities.EmbeddedContext
	}
	return false
}

// SupportsSessionList reports whether the agent serves session/list.
func (c AgentCapabilities) SupportsSessionList() bool {
	return c.SessionCapabilities != nil && c.SessionCapabilities.List != nil
}

// SupportsSessionDelete reports whether the agent serves session/delete.
func (c AgentCapabilities) SupportsSessionDelete() bool {
	return c.SessionCapabilities != nil && c.SessionCapabilities.Delete != nil
}

// SupportsSessionResume reports whether the agent serves session/resume.
func (c AgentCapabilities) SupportsSessionResume() bool {
	return c.SessionCapabilities != nil && c.SessionCapabilities.Resume != nil
}

// SupportsSessionFork reports whether the agent serves session/fork.
// Unstable, as [SessionFork].
func (c AgentCapabilities) SupportsSessionFork() bool {
	return c.SessionCapabilities != nil && c.SessionCapabilities.Fork != nil
}

// SupportsSessionClose reports whether the agent serves session/close.
func (c AgentCapabilities) SupportsSessionClose() bool {
	return c.SessionCapabilities != nil && c.SessionCapabilities.Close != nil
}
