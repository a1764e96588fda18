package cli

// ToolKind is the kind of action a tool call takes: what it does to the
// user's files, the shell or the web, for an editor to show. Each CLI
// package sets it on its tool-call events (package bridge maps it onto the
// Agent Client Protocol's tool kinds, which have the same values).
type ToolKind string

// Tool kinds.
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
	ToolKindOther      ToolKind = "other"
)
