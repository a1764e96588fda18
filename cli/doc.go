// Package cli holds what the packages of the command-line agents (claude,
// codex and gemini) share, so that a program driving any of them writes
// one switch where it would otherwise write three:
//
//   - [ToolKind]: the kind of action a tool call takes, with the same
//     constants for every CLI;
//   - [ExitKind]: what a CLI's exit status means, each package's
//     ExitStatus.Kind returning one of the same constants, and
//     [ExitStatus], what those ExitStatus types have in common;
//   - [RunError] and its reasons [ErrResumeNotFound], [ErrMaxTurns],
//     [ErrAPI], [ErrNoResult] and [ErrFailed]: why a run or a turn failed,
//     one errors.As and one errors.Is for every CLI;
//   - [ErrLineTooLong]: a line of output or of a stored session longer
//     than the reader's maximum, which each package's LineTooLongError
//     matches;
//   - [ErrNotPending], [ErrCancelled] and [ErrOutputEnded]: what the
//     client of a long-lived CLI process (claude.Session, codex.Session)
//     cannot answer or wait for.
//
// The CLI packages name these through aliases (claude.ToolKind is
// cli.ToolKind, codex.ErrAPI is cli.ErrAPI), so code written against one
// package keeps compiling and works with the others too; each package's
// documentation says what its RunError's fields hold, and the error's text
// keeps that CLI's words. What differs between the CLIs stays in
// their packages: the events, the command lines, the stored sessions.
//
// The package is pure: it reads and writes nothing.
package cli
