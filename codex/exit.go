package codex

import (
	"bytes"
	"strconv"
)

// ExitStatus is the exit code of `codex exec`, typed so that a caller can
// switch on what it means:
//
//	switch codex.ExitStatus(cmd.ProcessState.ExitCode()) {
//	case codex.ExitOK:
//	case codex.ExitFailed: // see the Turn's Failed, and stderr
//	…
//	}
//
// The CLI's output says more than its status: a run that exits 1 after a
// [TurnFailed] failed for the reason the event gives, one that exits 1
// with a [ResumeFailed] could not resume its thread.
type ExitStatus int

// The statuses `codex exec` exits with. Any other value is passed through.
const (
	// ExitOK: the turn completed.
	ExitOK ExitStatus = 0
	// ExitFailed: the turn failed, the CLI stopped on an error (a usage
	// limit, a failed resume, no prompt), or it could not start.
	ExitFailed ExitStatus = 1
	// ExitUsage: the CLI refused its command line (an unknown flag, a
	// missing value); the reason is on its standard error.
	ExitUsage ExitStatus = 2
	// ExitSignaled: a signal ended the process. It is the value
	// os.ProcessState.ExitCode reports for that, not a code the CLI
	// chooses.
	ExitSignaled ExitStatus = -1
)

// String says what the status means, e.g. "failed (1)".
func (s ExitStatus) String() string {
	var what string
	switch s {
	case ExitOK:
		what = "ok"
	case ExitFailed:
		what = "failed"
	case ExitUsage:
		what = "usage error"
	case ExitSignaled:
		return "killed by a signal"
	default:
		what = "exit status"
	}
	return what + " (" + strconv.Itoa(int(s)) + ")"
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
