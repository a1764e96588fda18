package cli_test

import (
	"errors"
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

// TestRunErrorIsShared checks that a failed run of any CLI is one error
// type, matched by the same reasons, while its text keeps each CLI's
// words.
func TestRunErrorIsShared(t *testing.T) {
	ct := codex.NewTurn("")
	events, _ := ct.Feed([]byte(`{"type":"turn.failed","error":{"message":"unexpected status 500 Internal Server Error: boom"}}`), nil)
	ct.Finish(1, events)
	gt := gemini.NewTurn("")
	gt.Finish(-1, nil)
	var claudeTurn claude.Turn
	claudeTurn.Finish(2, nil)

	tests := []struct {
		err    error
		reason error
		text   string
		status int
		exit   cli.ExitStatus
	}{
		{ct.Err(), cli.ErrAPI, "codex: API error: unexpected status 500 Internal Server Error: boom (exit status 1 (failure))", 500, codex.ExitStatus(1)},
		{gt.Err(), claude.ErrNoResult, "gemini: run ended without a result (killed by a signal)", 0, gemini.ExitStatus(-1)},
		{claudeTurn.Err(), gemini.ErrNoResult, "claude: run ended without a result (exit status 2 (unknown))", 0, claude.ExitStatus(2)},
	}
	for _, tt := range tests {
		var re *cli.RunError
		if !errors.As(tt.err, &re) {
			t.Errorf("%v is not a *cli.RunError", tt.err)
			continue
		}
		if !errors.Is(tt.err, tt.reason) || re.Error() != tt.text || re.Status != tt.status || re.Exit != tt.exit || !re.Exited {
			t.Errorf("got %q (status %d, exit %v), want %q matching %v (status %d, exit %v)",
				re.Error(), re.Status, re.Exit, tt.text, tt.reason, tt.status, tt.exit)
		}
	}
	if bare := (cli.Reasons{}).RunError(cli.ErrFailed, ""); bare.Error() != "run failed" || !errors.Is(bare, codex.ErrFailed) {
		t.Errorf("Reasons{}.RunError(ErrFailed, \"\") = %q", bare.Error())
	}
}

// TestLineTooLongIsShared checks that each package's error for a line
// over its maximum matches the one sentinel.
func TestLineTooLongIsShared(t *testing.T) {
	for _, err := range []error{
		&claude.LineTooLongError{Length: 10, Max: 5},
		&codex.LineTooLongError{Length: 10, Max: 5},
		&gemini.LineTooLongError{Length: 10, Max: 5},
	} {
		if !errors.Is(err, cli.ErrLineTooLong) || !errors.Is(err, claude.ErrLineTooLong) {
			t.Errorf("%T does not match cli.ErrLineTooLong", err)
		}
	}
	if claude.ErrNotPending != cli.ErrNotPending || claude.ErrCancelled != cli.ErrCancelled || claude.ErrOutputEnded != cli.ErrOutputEnded {
		t.Error("claude.Session's errors are not package cli's")
	}
}

// TestErrAuthIsAnAPIError checks that a run refused for its credentials
// is matched by ErrAuth and, as the API error it is, by ErrAPI, and that
// other API errors are not ErrAuth.
func TestErrAuthIsAnAPIError(t *testing.T) {
	auth := (cli.Reasons{}).RunError(cli.ErrAuth, "Invalid API key")
	if !errors.Is(auth, cli.ErrAuth) || !errors.Is(auth, cli.ErrAPI) || !errors.Is(auth, codex.ErrAPI) {
		t.Errorf("%v: want it matched by ErrAuth and ErrAPI", auth)
	}
	if api := (cli.Reasons{}).RunError(cli.ErrAPI, "Overloaded"); errors.Is(api, cli.ErrAuth) {
		t.Errorf("%v is matched by ErrAuth", api)
	}
}
