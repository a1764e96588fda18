package claude_test

import (
	"testing"

	"github.com/acpkit/acpkit/claude"
)

func TestToolKindOf(t *testing.T) {
	for name, want := range map[string]claude.ToolKind{
		"Bash": claude.ToolKindExecute, "Read": claude.ToolKindRead, "Edit": claude.ToolKindEdit, "Write": claude.ToolKindEdit,
		"MultiEdit": claude.ToolKindEdit, "NotebookEdit": claude.ToolKindEdit, "Grep": claude.ToolKindSearch, "Glob": claude.ToolKindSearch,
		"WebFetch": claude.ToolKindFetch, "WebSearch": claude.ToolKindFetch, "Task": claude.ToolKindThink,
		"ExitPlanMode": claude.ToolKindSwitchMode, "mcp__github__search": claude.ToolKindOther, "": claude.ToolKindOther,
	} {
		if got := claude.ToolKindOf(name); got != want {
			t.Errorf("ToolKindOf(%q) = %q, want %q", name, got, want)
		}
	}
}
