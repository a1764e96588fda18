// Package acp implements the wire format of the Agent Client Protocol (ACP):
// JSON-RPC 2.0 messages, one JSON object per line, exchanged between an
// editor (the client) and a coding agent.
//
// The package is pure: it reads and writes only the readers, writers and
// byte slices its callers hand it, and never opens files, processes or
// network connections.
package acp
