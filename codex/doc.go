// Package codex reads the output of the OpenAI Codex CLI, so that a Go
// program can drive it as a coding agent: one turn per process with
// `codex exec --json`, or a long-lived `codex app-server` through a
// [Session].
//
// Run as `codex exec --json`, the CLI prints one JSON object per line, from
// "thread.started" to "turn.completed" or "turn.failed", with the agent's
// work in between as items: messages, reasoning, commands, file changes,
// web searches, MCP tool calls and its to-do list, each item started,
// perhaps updated, and completed. Its format changes between releases; this
// package never breaks on that: a line type it does not know is skipped, an
// item type it does not know is reported as an [UnknownItem], and a line
// that is not JSON is an error the caller can log before reading on.
//
// The package is pure: it starts no process, reads no file and no clock;
// a Session reads and writes only the reader and writer it is given.
//
// # Reading a run
//
// [ParseLine] turns one line into an [Event] and returns the thread id
// the line names, as package claude's and package gemini's ParseLine
// return their session ids: [ThreadStarted] with the thread id to resume
// with, [Text] and [Reasoning], the tool calls
// [CommandExecution], [FileChange], [WebSearch] and [MCPToolCall] with
// their phase, status and [ToolKind] (the kind of action, as packages
// claude and gemini name it), [TodoList], [Notice] for non-fatal errors,
// [Retry] and [APIError] for
// failed requests, and the final [TurnCompleted] or [TurnFailed]. When a
// member name is repeated in one object, the last occurrence wins, as with
// encoding/json.
//
// [Turn] wraps ParseLine for one run of the CLI, which is one turn of a
// thread: it keeps the thread id to resume with (the CLI prints it only on
// the first line) and stops at the final event. [Turn.Events] ranges over
// the events of the CLI's whole output, read from an [io.Reader]: it skips,
// and reports, lines that are not JSON or longer than [MaxLineLength], and
// never stops on one. [Turn.Finish] takes the exit code once the output is
// over and ends a run that printed no final line: a resume the CLI refused,
// which prints nothing on stdout, as [ResumeFailed], anything else as
// [NoResult]. [Turn.Err] then says why the run failed, if it did.
//
// # Usage
//
// [TurnCompleted.Usage] keeps the CLI's usage object as raw JSON for the
// module's usage package: usage.ParseCodexUsage reads it. Its figures are
// running totals of the whole thread, earlier runs that resumed it
// included, so a turn's own usage is the difference from the totals of the
// turn before: cur.Since(prev).Report(). The first turn of a thread
// resumed in a new process has no such baseline unless the caller kept the
// previous run's totals with the thread id.
//
// # Command line and exit status
//
// [CommandLine] builds the arguments from [Options], new thread or resume,
// and returns the prompt as the bytes to write to the CLI's standard
// input, where no prompt can be mistaken for a flag. [ExitStatus] types the
// CLI's exit code, [ExitStatus.Kind] what it means, and [ResumeNotFound]
// reads its standard error to tell a resume of an unknown thread from one
// that failed otherwise.
//
// # Limits
//
// Codex gives no machine-readable reset time: a usage limit says "try again
// at 2:00 PM" in the local time of the machine the CLI runs on, and an API
// rate limit "try again in 11.054s". [ParseResetTime] reads either, with
// the caller passing the current time in the CLI's zone; it takes the
// parameters package claude's and package gemini's ParseResetTime take.
//
// # A long-lived app-server
//
// `codex app-server` is the CLI's JSON-RPC interface on stdio: one process
// holds threads (conversations), each a sequence of turns, and streams
// each turn's items as they happen, asking the client before it runs a
// command or changes a file. [Session] is its client, written against
// [AppServerVersion]: [Session.Initialize], then [Session.StartThread] (or
// [Session.ResumeThread], [Session.ForkThread]) and [Session.StartTurn]
// with [Input] made of text, images and resources; [Session.Interrupt]
// stops a turn without stopping the process. The thread methods
// ([Session.ListThreads], [Session.ReadThread], [Session.ListTurns],
// [Session.SetThreadName], [Session.ArchiveThread]) and
// [Session.ListModels], each model with its reasoning efforts, are typed;
// [Session.Request] sends any other method.
//
// The process's output is read by one loop over [Session.Events]: the
// items of `codex exec` come as the same events ([Text], [Reasoning],
// [CommandExecution], [FileChange], [WebSearch], [MCPToolCall], with
// their thread and turn), the text and reasoning as they stream
// ([TextDelta], [ReasoningDelta]), a command's output live
// ([CommandOutputDelta]), and the rest of the protocol as typed events:
// token usage counted over the whole thread ([TokenUsage]), rate-limit
// windows ([RateLimits]), errors ([ErrorNotification]) and the end of
// each turn ([TurnEnd], whose Err is a [*RunError] as [Turn.Err] gives).
// The server's approval requests ([CommandApproval],
// [FileChangeApproval], and [Elicitation] for an MCP tool) are answered
// with [Session.Decide]: accept, accept for the session, decline or
// cancel. What this package does not model is kept raw
// ([UnknownNotification], [UnknownRequest], [UnknownItem]); a line that
// is not JSON is reported where it is and reading goes on; a process that
// dies mid-turn ends the loop with an error wrapping [ErrOutputEnded].
//
// Package codextest replays recorded transcripts of the real server in
// both directions, so that a client is tested without the CLI.
//
// # Stored sessions
//
// Codex keeps every thread on disk as a rollout file, one JSON record per
// line, and a resumed thread goes on in its first file. [ReadEntries]
// reads such a file from an [io.Reader], streaming, and yields one
// [Entry] per line: the person's [Prompt], the [Event] values the live
// stream shows of each completed item (with what only the store keeps: a
// [FileChange]'s text of each change and what applying it printed), the
// thread's name, and the CLI's
// bookkeeping and model-facing history, flagged Internal; a record of a
// type it does not know keeps its bytes in Raw, and a corrupt line is
// reported where it is, never fatal.
//
// [ReadInfo] reads what a list of sessions shows (id, cwd, title, last
// time) from the head and the tail of a file, through an [io.ReaderAt].
// [SessionFile], [SessionFilePattern] and [ParseSessionFile] say where
// the CLI keeps a thread, and [ValidSessionID] checks an id before it
// becomes part of a path.
package codex
