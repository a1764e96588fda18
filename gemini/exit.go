package gemini

import (
	"strconv"

	"github.com/acpkit/acpkit/cli"
)

// ExitStatus is the Gemini CLI's exit code, as os.ProcessState.ExitCode
// reports it: -1 when a signal ended the process. Its [ExitStatus.Kind]
// says what it means.
type ExitStatus int

// ExitKind is what an [ExitStatus] means, for a switch: [cli.ExitKind],
// the same type in packages claude, codex and gemini.
type ExitKind = cli.ExitKind

// What the CLI's exit codes mean. The CLI exits with the code of the fatal
// error that stopped it, and, for a failed API request, with the request's
// HTTP status modulo 256 (401 → 145, 429 → 173, 500 → 244).
const (
	ExitSuccess         = cli.ExitSuccess         // 0
	ExitFailure         = cli.ExitFailure         // 1: a general error
	ExitAuthentication  = cli.ExitAuthentication  // 41: authentication failed
	ExitInput           = cli.ExitInput           // 42: bad input, such as a --resume naming no session
	ExitSandbox         = cli.ExitSandbox         // 44: the sandbox failed
	ExitConfig          = cli.ExitConfig          // 52: settings.json is invalid
	ExitMaxTurns        = cli.ExitMaxTurns        // 53: the session reached its maximum number of turns
	ExitToolFailure     = cli.ExitToolFailure     // 54: a tool failed fatally
	ExitUntrustedFolder = cli.ExitUntrustedFolder // 55: the folder is not trusted (see --skip-trust)
	ExitCancelled       = cli.ExitCancelled       // 130: cancelled, as by SIGINT
	ExitAPIError        = cli.ExitAPIError        // 144–255: an API error; see [ExitStatus.HTTPStatus]
	ExitSignaled        = cli.ExitSignaled        // -1: a signal ended the process
	ExitOther           = cli.ExitOther           // any other code
)

// Kind returns what the status means. Codes 144 to 255 are HTTP statuses
// 400 to 511 modulo 256; a status of 512 or more wraps around to a small
// code that cannot be told from others, and is ExitOther.
func (s ExitStatus) Kind() ExitKind {
	switch {
	case s == 0:
		return ExitSuccess
	case s == 1:
		return ExitFailure
	case s == 41:
		return ExitAuthentication
	case s == 42:
		return ExitInput
	case s == 44:
		return ExitSandbox
	case s == 52:
		return ExitConfig
	case s == 53:
		return ExitMaxTurns
	case s == 54:
		return ExitToolFailure
	case s == 55:
		return ExitUntrustedFolder
	case s == 130:
		return ExitCancelled
	case s >= 144 && s <= 255:
		return ExitAPIError
	case s == -1:
		return ExitSignaled
	}
	return ExitOther
}

// HTTPStatus returns the HTTP status of the API error the status stands for
// (400–511), or 0 when its kind is not [ExitAPIError].
func (s ExitStatus) HTTPStatus() int {
	if s.Kind() != ExitAPIError {
		return 0
	}
	return int(s) + 256
}

// String describes the status, as "exit status 173 (API error, HTTP 429)".
func (s ExitStatus) String() string {
	text := "exit status " + strconv.Itoa(int(s))
	switch k := s.Kind(); k {
	case ExitAPIError:
		return text + " (API error, HTTP " + strconv.Itoa(s.HTTPStatus()) + ")"
	case ExitSignaled:
		return "killed by a signal"
	default:
		return text + " (" + k.String() + ")"
	}
}
