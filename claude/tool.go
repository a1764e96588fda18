package claude

// ToolKind is the kind of action a tool call takes: what it does to the
// user's files, the shell or the web, for an editor to show. Packages
// codex and gemini have the same type, with the same constants and values
// (package bridge maps them onto the Agent Client Protocol's tool kinds).
type ToolKind string

// Tool kinds. [ToolKindOf] maps the CLI's built-in tool names to them.
const (
	ToolKindRead       ToolKind = "read"
	ToolKindEdit       ToolKind = "edit"
	ToolKindDelete     ToolKind = "delete" // no Claude Code tool deletes
	ToolKindMove       ToolKind = "move"   // no Claude Code tool moves
	ToolKindSearch     ToolKind = "search"
	ToolKindExecute    ToolKind = "execute"
	ToolKindThink      ToolKind = "think"
	ToolKindFetch      ToolKind = "fetch"
	ToolKindSwitchMode ToolKind = "switch_mode"
	ToolKindOther      ToolKind = "other"
)

// ToolKindOf returns the kind of action of the tool named name: execute
// for Bash, read for Read, edit for the tools that change files, search
// for Grep and Glob, fetch for the web tools, think for Task (a
// subagent), switch_mode for ExitPlanMode, and other for every other
// tool, MCP tools included.
func ToolKindOf(name string) ToolKind {
	switch name {
	case "Bash", "BashOutput", "KillShell":
		return ToolKindExecute
	case "Read":
		return ToolKindRead
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return ToolKindEdit
	case "Grep", "Glob":
		return ToolKindSearch
	case "WebFetch", "WebSearch":
		return ToolKindFetch
	case "Task", "Agent":
		return ToolKindThink
	case "ExitPlanMode":
		return ToolKindSwitchMode
	}
	return ToolKindOther
}
