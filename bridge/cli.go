package bridge

import (
	"github.com/acpkit/acpkit/acp"
)

// CLI is a coding-agent CLI an [Agent] can drive: how it runs (one process
// per session or one per turn), the modes and models it offers, and how
// its output maps onto ACP. Use [Claude], [Codex] or [Gemini].
type CLI struct {
	// Name is the CLI's program name, as found in PATH.
	Name string
	// modes are its modes, the default first; with bypass set, the last
	// is offered only with Config.AllowBypass.
	modes  []acp.SessionMode
	bypass int
	// models are offered until the CLI lists its own.
	models []modelChoice
	// open makes a session served by the CLI.
	open func(*base) session
}

// Claude is the Claude Code CLI, one long-lived process per session in
// streaming-input mode, whose permission questions go to the editor.
var Claude = &CLI{
	Name: "claude",
	modes: []acp.SessionMode{
		{ID: "default", Name: "Default", Description: "Ask before each tool that needs permission"},
		{ID: "acceptEdits", Name: "Accept Edits", Description: "Edit files without asking"},
		{ID: "plan", Name: "Plan Mode", Description: "Plan without changing anything"},
		{ID: "dontAsk", Name: "Don't Ask", Description: "Refuse every tool that would need permission"},
		{ID: "bypassPermissions", Name: "Bypass Permissions", Description: "Run every tool without asking"},
	},
	bypass: 1,
	models: []modelChoice{
		{Value: "default", Name: "Default"},
		{Value: "opus", Name: "Opus"},
		{Value: "sonnet", Name: "Sonnet"},
		{Value: "haiku", Name: "Haiku"},
	},
	open: newClaudeSession,
}
