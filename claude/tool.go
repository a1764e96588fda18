package claude

import "github.com/acpkit/acpkit/cli"

// ToolKind is the kind of action a tool call takes: what it does to the
// user's files, the shell or the web, for an editor to show. It is
// [cli.ToolKind], the same type in packages claude, codex and gemini
// (package bridge maps it onto the Agent Client Protocol's tool kinds).
type ToolKind = cli.ToolKind

// Tool kinds. [ToolKindOf] maps the CLI's built-in tool names to them.
const (
	ToolKindRead       = cli.ToolKindRead
	ToolKindEdit       = cli.ToolKindEdit
	ToolKindDelete     = cli.ToolKindDelete // no Claude Code tool deletes
	ToolKindMove       = cli.ToolKindMove   // no Claude Code tool moves
	ToolKindSearch     = cli.ToolKindSearch
	ToolKindExecute    = cli.ToolKindExecute
	ToolKindThink      = cli.ToolKindThink
	ToolKindFetch      = cli.ToolKindFetch
	ToolKindSwitchMode = cli.ToolKindSwitchMode
	ToolKindOther      = cli.ToolKindOther
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
