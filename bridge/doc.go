// Package bridge makes a coding-agent CLI an ACP agent: it turns the
// CLI's events into ACP session updates and prompt responses, and serves
// ACP sessions with it: the Claude Code CLI ([Claude], one long-lived
// process per session), the OpenAI Codex CLI ([Codex]) or the Gemini CLI
// ([Gemini]), one process per turn.
//
// The package is pure, like the rest of the module: it starts no process
// and reads no clock of its own. A program gives it a [Starter] that
// starts the CLI (examples/claude-acp uses os/exec, a test can run
// claude/claudetest in-process) and a [Clock] for its timeouts.
//
// # Translation
//
// [ClaudeTranslator] is Claude Code's mapping alone, one per session, for
// a program that runs the CLI its own way:
//
//   - text and thinking become agent_message_chunk and agent_thought_chunk
//     updates as they stream, and the complete block that repeats them is
//     skipped;
//   - a tool call becomes a tool_call with the tool use's id, a kind
//     ([ClaudeToolKind]), a title, its input, the files it touches and, for
//     edits, the diff; its result a tool_call_update, completed or failed;
//     TodoWrite becomes a plan;
//   - a rate limit close to or at its end becomes a notice (or agent text,
//     for a client that takes no notices) naming the reset time;
//   - each result brings a usage_update with the session's cost;
//   - [ClaudeTranslator.End] gives the prompt's response: a stop reason,
//     or an *acp.Error whose data, an [ErrorData], says why the turn
//     failed and when a limit resets.
//
// # Agent
//
// [Agent] registers typed handlers for initialize, session/new, load,
// resume, list, close, set_mode, set_config_option, prompt and cancel,
// and serves them with the CLI [Config.CLI] names.
//
// With Claude Code, a session's CLI starts with its first prompt, in the
// session's directory, and stays for the next ones; the editor answers
// its permission questions; session/cancel interrupts the turn and keeps
// the process. One idle past [Config.Idle] is stopped and resumed by the
// next prompt.
//
// Codex and Gemini CLI run headless once per turn, resuming the
// conversation the turn before named; they ask no permission, so a
// session's mode is the CLI's sandbox policy (Codex) or approval mode
// (Gemini), which the next turn takes. session/cancel interrupts the
// turn's process. What differs between the CLIs lives in one small
// translator each; the editor sees the same updates, stop reasons and
// [ErrorData] from all three.
//
// Whatever the CLI, one that stays silent past [Config.TurnTimeout] is
// stopped and its turn fails, and [Agent.Close] stops every CLI and waits
// for it.
package bridge
