// Package cli holds what the packages of the command-line agents (claude,
// codex and gemini) share, so that a program driving any of them writes
// one switch where it would otherwise write three:
//
//   - [ToolKind]: the kind of action a tool call takes, with the same
//     constants for every CLI;
//   - [ExitKind]: what a CLI's exit status means, each package's
//     ExitStatus.Kind returning one of the same constants, and
//     [ExitStatus], what those ExitStatus types have in common.
//
// The CLI packages name these through aliases (claude.ToolKind is
// cli.ToolKind), so code written against one package keeps compiling and
// works with the others too. What differs between the CLIs stays in
// their packages: the events, the command lines, the stored sessions.
//
// The package is pure: it reads and writes nothing.
package cli
