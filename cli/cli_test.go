package cli_test

import (
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/cli"
	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/gemini"
)

// TestToolKindIsShared checks that the CLI packages' tool kinds are one
// type: a kind from one package is a kind of the others, with no
// conversion, and the constants are the same values.
func TestToolKindIsShared(t *testing.T) {
	kinds := []cli.ToolKind{claude.ToolKindEdit, codex.ToolKindExecute, gemini.ToolKindFetch}
	var fromClaude codex.ToolKind = claude.ToolKindOf("Bash")
	if fromClaude != gemini.ToolKindExecute || kinds[0] != codex.ToolKindEdit || kinds[2] != claude.ToolKindFetch {
		t.Errorf("kinds differ across packages: %v, %v", fromClaude, kinds)
	}
}
