package acp

// This file holds the questions about declared capabilities that take more
// than reading one field.

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
	return c.Session != nil && c.Session.Notices != nil
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
