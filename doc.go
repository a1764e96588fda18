// Package acpkit is a Go SDK for building coding agents that speak the Agent
// Client Protocol (ACP) and that drive command-line agents such as the
// Claude Code CLI. This package holds no code; it documents how the
// subpackages fit together.
//
// # The protocol
//
// ACP is JSON-RPC 2.0 carried as one JSON object per line, usually over an
// agent process's stdin and stdout. The editor (the client) starts the agent,
// calls initialize and session/new, and sends each user turn as a
// session/prompt request. The agent streams its progress back as
// session/update notifications (message chunks, tool calls, plans, usage)
// and answers the prompt with a stop reason when the turn ends.
//
// # Packages
//
//   - [github.com/acpkit/acpkit/acp] is the wire: it classifies inbound lines,
//     decodes typed params, builds responses and session/update
//     notifications, frames lines with a bounded reader and a safe writer,
//     and runs a JSON-RPC connection ([github.com/acpkit/acpkit/acp.Conn])
//     over any reader and writer, with concurrent requests, ordered
//     notifications and cancellation. [github.com/acpkit/acpkit/acp/acpv2]
//     is the ACP v2 draft beside it, on the same connection: its types, and
//     a router that serves a v1 and a v2 agent, chosen at initialize.
//     [github.com/acpkit/acpkit/acp/acptest] joins a client
//     and an agent in memory for tests, and
//     [github.com/acpkit/acpkit/acp/goose] holds goose's extensions (steer,
//     run metadata, its usage payload).
//   - [github.com/acpkit/acpkit/claude] reads the Claude Code CLI's
//     stream-json output (claude -p --output-format stream-json --verbose)
//     one line at a time and turns it into events; it also builds the
//     command line and parses rate-limit reset times.
//     [github.com/acpkit/acpkit/claude/claudetest] replays recorded
//     transcripts as a fake CLI.
//   - [github.com/acpkit/acpkit/codex] does the same for the OpenAI Codex
//     CLI (codex exec --json): events, the thread id to resume with, exit
//     statuses, usage-limit reset times and the command line;
//     [github.com/acpkit/acpkit/codex/codextest] is its fake CLI.
//   - [github.com/acpkit/acpkit/gemini] does the same for the Gemini CLI
//     (gemini --output-format stream-json), and also names its exit
//     statuses; [github.com/acpkit/acpkit/gemini/geminitest] is its fake.
//   - [github.com/acpkit/acpkit/usage] keeps session-cumulative token usage
//     honestly (absent is not zero, overflow is not a number), proves which
//     price list applies, prices turns, and computes per-turn deltas on the
//     consumer side.
//   - [github.com/acpkit/acpkit/timeparse] turns epoch seconds, epoch
//     milliseconds and RFC 3339 strings into epoch milliseconds.
//   - [github.com/acpkit/acpkit/bridge] serves ACP sessions with one of
//     those CLIs, or one of the program's own: one goroutine per session
//     owns its state and its CLI process, and the CLI's output becomes
//     session updates, stop reasons and errors.
//     [github.com/acpkit/acpkit/bridge/bridgeos] gives a program the
//     operating system's process starter, clock and session ids for it.
//
// How they fit in an agent that bridges an editor to a CLI, which is what
// package bridge does and examples/claude-acp runs:
//
//	editor ──stdin──▶ acp.Conn ──▶ bridge.Agent ──▶ a session's goroutine ──▶ claude, codex or gemini process
//	editor ◀─stdout── acp.Conn ◀── session/update ◀── its Conversation ◀── claude.Session.Feed, codex.Turn.Feed, …
//	                                      ▲
//	                            usage.Accumulator (tokens, cost)
//
// The library packages are pure: they read and write only the readers,
// writers and byte slices their callers hand them, and take the current time
// as a parameter or from a clock the caller gives. Where a program needs the
// operating system, a small package named for it supplies the default
// (bridge/bridgeos), which the pure package never imports. Only the programs
// under examples/ open files and standard I/O.
//
// # Examples
//
// The examples directory holds small programs to copy from:
// examples/minimal-agent, an agent in fifty lines; examples/echo-agent, a
// complete agent with sessions, cancellation, goose's extensions and usage
// reports, in ACP v1 and v2; examples/claude-acp, package bridge behind an editor, in flags,
// signals and logging; and examples/fakeclaude, examples/fakecodex and
// examples/fakegemini, stand-ins for the claude, codex and gemini binaries
// that replay recorded transcripts.
//
// # Stability
//
// acpkit is at v0. APIs that follow protocol extensions which may change
// (goose's _goose/unstable methods and _meta.goose keys, the legacy
// session/set_model, and the parts of ACP found only in its unstable
// schema, such as session/fork, providers/*, mcp/message and the prompt
// response's usage) say "Unstable" in their doc comments; everything in
// acp/acpv2, which follows the v2 draft, says "Experimental".
package acpkit
