package cli

import "strconv"

// ExitKind is what a CLI's exit status means, for a switch: each CLI
// package's ExitStatus.Kind returns one of the constants below, those its
// CLI can give, which that package names too (claude.ExitFailure is
// ExitFailure).
type ExitKind uint8

// What exit statuses mean. The first five are common to the CLIs (a CLI
// whose command-line errors exit 1 reports them as ExitFailure); the
// others are Gemini CLI's own, whose exit codes say more. They start at 16
// so that a common kind added later keeps every value.
const (
	ExitSuccess  ExitKind = iota // 0: the run succeeded
	ExitFailure                  // 1: the run failed
	ExitSignaled                 // -1: a signal ended the process
	ExitOther                    // a code the CLI does not document
	ExitUsage                    // the CLI refused its command line
)

// Gemini CLI's exit kinds.
const (
	ExitAuthentication  ExitKind = iota + 16 // authentication failed
	ExitInput                                // bad input, such as a resume naming no session
	ExitSandbox                              // the sandbox failed
	ExitConfig                               // the settings are invalid
	ExitMaxTurns                             // the session reached its maximum number of turns
	ExitToolFailure                          // a tool failed fatally
	ExitUntrustedFolder                      // the folder is not trusted
	ExitCancelled                            // cancelled, as by SIGINT
	ExitAPIError                             // an API error, the HTTP status in the code
)

var exitKindNames = [...]string{
	ExitSuccess:         "success",
	ExitFailure:         "failure",
	ExitSignaled:        "killed by a signal",
	ExitOther:           "unknown",
	ExitUsage:           "usage error",
	ExitAuthentication:  "authentication failed",
	ExitInput:           "bad input",
	ExitSandbox:         "sandbox error",
	ExitConfig:          "invalid settings",
	ExitMaxTurns:        "max turns reached",
	ExitToolFailure:     "fatal tool error",
	ExitUntrustedFolder: "untrusted folder",
	ExitCancelled:       "cancelled",
	ExitAPIError:        "API error",
}

// String names the kind, as "usage error"; a value that names no kind
// gives "ExitKind(n)".
func (k ExitKind) String() string {
	if int(k) < len(exitKindNames) && exitKindNames[k] != "" {
		return exitKindNames[k]
	}
	return "ExitKind(" + strconv.Itoa(int(k)) + ")"
}

// ExitStatus is a CLI's exit status as its package types it
// (claude.ExitStatus, codex.ExitStatus, gemini.ExitStatus): a code whose
// meaning depends on the CLI, which Kind says for a switch and String for
// a person, as "exit status 1 (failure)".
type ExitStatus interface {
	Kind() ExitKind
	String() string
}
