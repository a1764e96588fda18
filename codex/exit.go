package codex

import (
	"bytes"
	"strconv"

	"github.com/acpkit/acpkit/cli"
)

// ExitStatus is the exit code of `codex exec`, as os.ProcessState.ExitCode
// reports it: -1 when a signal ended the process. Its [ExitStatus.Kind]
// says what it means:
//
//	switch codex.ExitStatus(cmd.ProcessState.ExitCode()).Kind() {
//	case codex.ExitSuccess:
//	case codex.ExitFailure: // the Turn's Err says why, and stderr
//	…
//	}
type ExitStatus int

// ExitKind is what an [ExitStatus] means, for a switch: [cli.ExitKind],
// the same type in packages claude, codex and gemini.
type ExitKind = cli.ExitKind

// What the CLI's exit codes mean. The CLI's output says more than its
// status: a run that exits 1 after a [TurnFailed] failed for the reason the
// event gives, one that exits 1 with a [ResumeFailed] could not resume its
// thread.
const (
	ExitSuccess  = cli.ExitSuccess  // 0: the turn completed
	ExitFailure  = cli.ExitFailure  // 1: the turn failed, an error stopped the CLI, a resume was refused, no prompt
	ExitUsage    = cli.ExitUsage    // 2: the CLI refused its command line (an unknown flag, a bad value)
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
	case 2:
		return ExitUsage
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

// resumeNotFound are the CLI's wordings, lowercased, for a resume whose
// thread it does not have.
var resumeNotFound = [...][]byte{
	[]byte("no saved session found with id"),
	[]byte("no rollout found for thread id"),
}

// ResumeNotFound reports whether stderr, the CLI's standard error, says
// that the thread a resume named does not exist ("ERROR: No saved session
// found with ID …"), as opposed to a resume that failed for another reason.
// It tells the two apart for a run that ended with [ResumeFailed].
func ResumeNotFound(stderr []byte) bool {
	lower := bytes.ToLower(stderr)
	for _, w := range resumeNotFound {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}
