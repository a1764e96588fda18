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

// TestExitKindIsShared checks that every CLI package's ExitStatus says
// what it means with the same kinds, and that each is a cli.ExitStatus.
func TestExitKindIsShared(t *testing.T) {
	statuses := []cli.ExitStatus{claude.ExitStatus(1), codex.ExitStatus(2), gemini.ExitStatus(53), claude.ExitStatus(-1)}
	var got []string
	for _, s := range statuses {
		got = append(got, s.Kind().String())
	}
	want := []string{"failure", "usage error", "max turns reached", "killed by a signal"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("kinds = %q, want %q", got, want)
			break
		}
	}
	if k := claude.ExitStatus(2).Kind(); k != codex.ExitOther || gemini.ExitOther != cli.ExitOther {
		t.Errorf("claude's exit status 2 is %v, want the kind every package calls other", k)
	}
	if s := cli.ExitKind(9).String(); s != "ExitKind(9)" {
		t.Errorf("ExitKind(9).String() = %q, want ExitKind(9): 9 names no kind", s)
	}
}
