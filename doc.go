// Package acpkit is the root of a Go SDK for building coding agents that
// speak the Agent Client Protocol (ACP) and that drive command-line agents
// such as the Claude Code CLI.
//
// The importable code lives in the subpackages; this package has none.
package acpkit
