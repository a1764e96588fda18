package cli

import "errors"

// ErrLineTooLong is matched, with errors.Is, by the error each CLI
// package gives for a line of output or of a stored session longer than
// the reader's maximum (its LineTooLongError); the line was skipped.
var ErrLineTooLong = errors.New("line too long")

// Errors of the client of a long-lived CLI process (claude.Session,
// codex.Session) answering the CLI's requests and waiting for its answers.
var (
	// ErrNotPending is the error of an answer to a request of the CLI that
	// the client does not hold: never read, already answered, or sent
	// without an id. Nothing is written.
	ErrNotPending = errors.New("no such pending request")
	// ErrCancelled is the error of an answer to a request the CLI withdrew
	// or settled itself: the answer is not needed, and dropping it is the
	// right outcome. Nothing is written.
	ErrCancelled = errors.New("request cancelled by the CLI")
	// ErrOutputEnded is the error of a request whose answer can no longer
	// come: the CLI's output ended first.
	ErrOutputEnded = errors.New("the CLI's output ended before its answer")
)
