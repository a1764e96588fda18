// Package gemini reads the output of the Gemini CLI and builds its command
// line, so that a Go program can drive `gemini --output-format
// stream-json` as a coding agent, and has what a client of its ACP mode,
// `gemini --acp`, needs beyond ACP itself.
//
// Run that way, the CLI prints one JSON object per line: init, message,
// tool_use, tool_result, error and result lines. Whatever this package
// does not know (a new line type, a new member) it skips, and it answers a
// line that is not JSON with an error the caller can log before reading
// on.
//
// The package is pure: it starts no process, reads no file and no clock.
// Callers own the process (see [CommandLine]) and pass the current time
// where one is needed ([ParseResetTime]).
//
// # Reading a run
//
// [ParseLine] turns one line into [Event] values: the run's [Init], the
// echoed [UserMessage], the answer's [PartialText] chunks (the CLI streams
// the answer and never repeats it whole), [ToolUse] and [ToolResult],
// non-fatal notices ([Notice]), the [APIError] that ended a run and the
// final [Result] with the run's statistics. When a member name is repeated
// in one object, the last occurrence wins, as with encoding/json.
//
// [Turn] wraps ParseLine for one run of the CLI. It joins the answer's
// chunks into [Text], names the tool of each [ToolResult] (the line gives
// only the call's id), keeps the session id to resume with, and, told the
// process's exit code by [Turn.Finish], ends a run that printed no result
// with [ResumeFailed] (the resumed session does not exist) or [NoResult].
// [Turn.Err] says why a run failed. [Turn.Events] ranges over the events of
// the CLI's whole output, read from an [io.Reader]: it skips, and reports,
// lines that are not JSON or longer than [MaxLineLength], and never stops
// on one.
//
// With --output-format json the CLI prints one object for the whole run
// instead; [ParseJSONOutput] reads it.
//
// # Exit status
//
// The CLI's exit code says more than its output: an API error exits with
// the HTTP status modulo 256, a bad --resume with 42, the turn limit with
// 53, an untrusted folder with 55. [ExitStatus.Kind] names them and
// [ExitStatus.HTTPStatus] recovers the HTTP status.
//
// # Usage
//
// A [Result]'s Stats hold the token counts of one process (not of the
// session: a resumed session starts again from zero), with one entry per
// model that answered, a router's classifier included. The module's usage
// package reads them: usage.ParseGeminiStats(r.Stats).
//
// # Rate limits
//
// The CLI retries a failed request itself, saying so only on its standard
// error, where [Stderr] finds each [Retry]; it reports the last failure in
// the result's error: "… Suggested retry after 3s." [ParseResetTime] turns
// such a text into the time to retry at, and says why when it cannot.
//
// # Command line
//
// [CommandLine] builds the arguments from [Options] and returns the prompt
// as the bytes to write to the CLI's standard input, where no prompt can be
// mistaken for a flag.
//
// # ACP mode
//
// Run as `gemini --acp` ([ACPCommandLine]), the CLI is an ACP agent on
// its standard input and output, one process for any number of
// sessions: it asks permission, takes images, audio and the client's MCP
// servers, and can be interrupted, where a headless run can do none of
// these; package acp speaks with it, and package bridge puts it behind
// any editor, mending where it strays from ACP. What it says beyond ACP
// is read here: the token use of a turn, in the _meta of its answer to
// session/prompt ([ParseQuota]), and the API errors it answers a prompt
// with, coded with their HTTP status ([ACPAPIError]). Its sessions are
// stored as a headless run's are.
//
// # Stored sessions
//
// The Gemini CLI keeps every session on disk as a log of JSON records, one
// per line, and a resumed session goes on in its file. [ReadEntries] reads
// such a file from an [io.Reader], streaming, and yields one [Entry] per
// record: a message, with the person's [Prompt] or the [Event] values the
// live stream shows of the model's answer and tool calls, a change to the
// session's fields, a rewind, or the session's metadata; a record it does
// not know keeps its bytes in Raw, and a corrupt line is reported where
// it is, never fatal. Because a later record may replace any message, or
// the whole list, the conversation is known only once the file is read:
// [Conversation] applies the records as the CLI does and holds the
// messages still in the list.
//
// [ReadInfo] reads what a list of sessions shows (id, project hash, title,
// last time, and whether it holds a message at all: the CLI lists only
// those that do) from the head and the tail of a file, through an
// [io.ReaderAt]. [ChatsDir], [SessionFile], [SessionFilePattern],
// [ReadProjects] and [ProjectHash] say where the CLI keeps a session and
// for which cwd, and [ValidSessionID] checks an id before it becomes part
// of a path.
package gemini
