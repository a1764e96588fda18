package claude

import (
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/cli"
)

// ExitStatus is the exit code of `claude -p`, as os.ProcessState.ExitCode
// reports it: -1 when a signal ended the process. Its [ExitStatus.Kind]
// says what it means. The CLI's output says more than its status: a run
// that exits 1 after a [Result] failed for the reason the result gives.
type ExitStatus int

// ExitKind is what an [ExitStatus] means, for a switch: [cli.ExitKind],
// the same type in packages claude, codex and gemini.
type ExitKind = cli.ExitKind

// What the CLI's exit codes mean.
const (
	ExitSuccess  = cli.ExitSuccess  // 0: the run succeeded
	ExitFailure  = cli.ExitFailure  // 1: the run failed, a resume was refused, or the CLI refused its command line
	ExitSignaled = cli.ExitSignaled // -1: a signal ended the process
	ExitOther    = cli.ExitOther    // any other code
)

// Kind returns what the status means.
func (s ExitStatus) Kind() ExitKind {
	switch s {
	case 0:
		return ExitSuccess
	case 1:
		return ExitFailure
	case -1:
		return ExitSignaled
	}
	return ExitOther
}

// String describes the status, as "exit status 1 (failure)".
func (s ExitStatus) String() string {
	if s.Kind() == ExitSignaled {
		return "killed by a signal"
	}
	return "exit status " + strconv.Itoa(int(s)) + " (" + s.Kind().String() + ")"
}

// joinErrors is a failed result's own words: its error messages, or its
// text when it has none.
func joinErrors(r Result) string {
	if msg := strings.Join(r.Errors, "; "); msg != "" {
		return msg
	}
	return r.Text
}
