// Package claude reads the output of the Claude Code CLI and builds its
// command line, so that a Go program can drive `claude -p` as a coding
// agent.
//
// Run as `claude -p --output-format stream-json --verbose`, the CLI prints
// one JSON object per line. Its format changes often: new line types,
// subtypes and content blocks appear between releases, and some SDKs have
// broken on each. This package never does: whatever it does not know, it
// skips or reports as a typed unknown, and it answers a line that is not
// JSON with an error the caller can log before reading on.
//
// The package is pure: it starts no process, reads no file and no clock.
// Callers own the process (see [CommandLine]) and pass the current time
// where one is needed ([ParseResetTime]).
//
// # Reading a run
//
// [ParseLine] turns one line into [Event] values: [Text], [Thinking] and
// [ToolUse] blocks of the assistant's messages, [ToolResult] outcomes,
// [Heartbeat] and [Retry] signs of life, [PermissionDenied] refusals,
// [RateLimit] state, [APIError] failures, each message's [MessageUsage],
// streamed pieces ([PartialText], [PartialToolUse], …) and the final
// [Result], each with the time its line was written. Its session id comes
// back as a slice of the line, so that the common case, a line repeating
// the id already known, costs nothing. When a member name is repeated in
// one object, the last occurrence wins, as with encoding/json. A [Parser]
// with ReportUnknown also reports the lines it does not model, as
// [Unknown] events a bridge can log.
//
// [Turn] wraps ParseLine for one run of the CLI: it keeps the session id to
// resume with, stops at the final event, and reports a resume of a
// conversation that no longer exists as [ResumeFailed]. [Turn.Events]
// ranges over the events of the CLI's whole output, read from an
// [io.Reader]: it skips lines that are not JSON or longer than
// [MaxLineLength], reports each as a [*LineError] with its line number and
// byte offset, and never stops on one. [Turn.Finish] takes the exit code
// once the output is over and ends a run that printed no result
// ([NoResult]); [Turn.Err] then says why the run failed, if it did, as a
// [*RunError] matching one of the sentinel reasons, the same as package
// codex's and package gemini's. [Result.Err] says it for one result, such
// as the one that ends each turn of a [Session].
//
// # Usage and cost
//
// The CLI writes one assistant line per content block and repeats the
// message's token usage on each, so usage read from assistant lines would
// be counted several times. Accounting takes the [Result] instead: this
// run's usage ([Result.Usage], and per model with its cost
// [Result.RunModelUsage]) and the session's running totals
// ([Result.ModelUsage] and [Result.TotalCostUSD]), which a resumed run
// continues. The Result keeps them as the CLI sent them, the cost's decimal
// literal exactly, so that the module's usage package reads them all from
// it, once the line is gone: usage.FromClaudeResult(r) gives the session's
// totals and this run's own usage and cost.
//
// How full the context window is, though, is one model call's figure, not
// a run's: the last call's input, cache reads and writes included, plus
// its output. Each [MessageUsage] event reports one call's usage, the
// last of one message's events the most complete.
//
// # Rate limits
//
// A rate_limit_event becomes a [RateLimit] with its reset time in epoch
// milliseconds and the state of each of the account's windows. The CLI
// sends one with status "allowed" on ordinary runs, so only
// [RateLimit.Blocked] means requests are refused. When a limit stops a
// run, the CLI writes an [APIError] whose RateLimit holds the exact reset
// time, and says so in words too ("You've hit your limit · resets 8pm
// (America/New_York)"). For lines that carry only the words,
// [ParseResetTime] reads them, given the resolver time.LoadLocation, and
// tells a zone it could not resolve ([*ZoneError]) from a text without a
// reset time ([ErrNoResetTime]).
//
// # Command line
//
// [CommandLine] builds the arguments from [Options] and returns the prompt
// as the bytes to write to the CLI's standard input, where no prompt can be
// mistaken for a flag.
//
// # Streaming input
//
// The official Claude Agent SDKs drive the CLI differently: one long-lived
// process per conversation ([SessionCommandLine]), with user turns and
// control requests written to its standard input and control messages
// mixed into its output, so that a client can grant or refuse each tool
// call, interrupt a turn and keep the process, and switch the permission
// mode or the model between turns. [Session] is that client, still pure:
// it writes whole, validated lines to the io.Writer it is given (a
// malformed line kills the CLI) and reads the output the caller feeds it.
// Besides the events above, it reports the CLI's requests
// ([PermissionRequest] and the others, each to be answered once, by
// [Session.Decline] if by nothing else), the answers to the client's own
// requests ([ControlResponse]), withdrawn requests ([ControlCancel]) and
// the end of each turn ([TurnEnd]). [Session.Initialize] opens the
// conversation as the SDKs do, registering the client's hooks, its
// in-process MCP servers and a JSON schema for the answer
// ([InitializeOptions]). [Session.Request] sends a control request and
// waits for its answer, while another goroutine reads on.
//
// # Stored sessions
//
// Claude Code keeps every session on disk, one JSON object per line, and
// a resumed session goes on in its file. [ReadEntries] reads such a file
// from an [io.Reader], streaming, and yields one [Entry] per line: the
// person's [Prompt], the [Event] values the live stream shows of the
// model's output and the tool results, titles, the entries the CLI wrote
// for the model itself, flagged Meta (a background task's
// [TaskNotification] among them), and the CLI's bookkeeping, flagged
// Internal; a line of a type it does not know keeps its bytes in
// Raw, and a corrupt line is reported where it is, never fatal.
// [ReadSubagent] reads a subagent's file, whose events the live stream
// marks with the call that launched it, and [Interleave] merges the
// subagents into their session in the order the live stream showed.
//
// [ReadInfo] reads what a list of sessions shows (id, cwd, title, last
// time) from the head and the tail of a file, through an [io.ReaderAt].
// [ProjectFolder], [SessionFile], [SessionFilePattern], [SessionDir] and
// [SubagentFile] say where the CLI keeps a session, and [ValidSessionID] checks an id before
// it becomes part of a path.
package claude
