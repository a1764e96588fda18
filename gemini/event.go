package gemini

import (
	"encoding/json"
	"time"

	"github.com/acpkit/acpkit/cli"
)

// Event is one thing a line of the CLI's stream-json output reports. The set
// of event types is closed: it is exactly the types in this package whose
// names are listed below, so a type switch over them is complete.
//
//   - [Init]: the run started (an init line).
//   - [UserMessage]: the prompt, echoed back by the CLI.
//   - [PartialText]: a chunk of the assistant's answer (delta: true).
//   - [Text]: a complete piece of the assistant's answer: a message line
//     without delta, or the chunks before a tool call or the end, joined
//     by [Turn].
//   - [ToolUse], [ToolResult]: a tool call and its outcome, matched by ID.
//   - [Notice]: a non-fatal warning or error the CLI reports (error lines).
//   - [APIError]: the API failure that ended the run.
//   - [Result]: the final line of a run.
//   - [ResumeFailed], [NoResult]: the end of a run that printed no result
//     (reported by [Turn.Finish] only).
//   - [Retry]: a failed API request the CLI retries (reported by [Stderr]
//     only, from the CLI's standard error).
//
// Strings and raw JSON in events are copies: they stay valid after the line
// they came from is reused.
type Event interface {
	isEvent()
}

// Init reports the init line that starts a run. Model is the model the CLI
// was asked for, which may be "auto": the models that answered are the keys
// of the result's per-model stats. The session id comes back from
// [ParseLine] separately.
type Init struct {
	Model string
}

// UserMessage is the prompt as the CLI echoes it (a message line with role
// "user"). A prompt written to standard input ends with the "\n\n" the CLI
// appends to it.
type UserMessage struct {
	Text string
}

// PartialText is one chunk of the assistant's answer, as the API streamed
// it (a message line with role "assistant" and delta: true). [Turn] also
// returns the chunks joined as a [Text] once the answer is interrupted by a
// tool call or ends, so a consumer shows either the partial events or the
// complete ones, never both.
type PartialText struct {
	Text string
}

// Text is a complete piece of the assistant's answer: a message line with
// role "assistant" and no delta, or consecutive [PartialText] chunks joined
// by [Turn].
type Text struct {
	Text string
}

// ToolKind is the kind of action a tool call takes: what it does to the
// user's files, the shell or the web, for an editor to show. It is
// [cli.ToolKind], the same type in packages claude, codex and gemini
// (package bridge maps it onto the Agent Client Protocol's tool kinds).
type ToolKind = cli.ToolKind

// Tool kinds. [ToolKindOf] maps the CLI's built-in tool names to them.
const (
	ToolKindRead       = cli.ToolKindRead
	ToolKindEdit       = cli.ToolKindEdit
	ToolKindDelete     = cli.ToolKindDelete
	ToolKindMove       = cli.ToolKindMove
	ToolKindSearch     = cli.ToolKindSearch
	ToolKindExecute    = cli.ToolKindExecute
	ToolKindThink      = cli.ToolKindThink
	ToolKindFetch      = cli.ToolKindFetch
	ToolKindSwitchMode = cli.ToolKindSwitchMode // never set: no Gemini CLI tool switches modes
	ToolKindOther      = cli.ToolKindOther
)

// ToolUse is a tool call the model made (a tool_use line). Input is the
// call's parameters, raw JSON exactly as the CLI sent them (nil when
// absent). Kind is [ToolKindOf] Name.
type ToolUse struct {
	ID    string
	Name  string
	Kind  ToolKind
	Input json.RawMessage
}

// ToolStatus is the outcome a tool_result line reports.
type ToolStatus string

// Tool outcomes. Other values are passed through.
const (
	ToolSuccess ToolStatus = "success"
	ToolError   ToolStatus = "error"
)

// ToolResult is the outcome of a tool call (a tool_result line). The line
// names only the call's ID; [Turn] fills in Name and Kind from the
// [ToolUse] with the same ID, and [ParseLine] leaves them empty.
//
// Output is what the tool returned for the model ("" when absent: the CLI
// leaves it out or empty for some tools, such as read_file). ErrorType and
// ErrorMessage come from the line's error object, "" when it has none.
type ToolResult struct {
	ID           string
	Name         string
	Kind         ToolKind
	Status       ToolStatus
	Output       string
	ErrorType    string
	ErrorMessage string
}

// Failed reports whether the tool call did not succeed.
func (r ToolResult) Failed() bool { return r.Status != ToolSuccess }

// Notice is a warning or error the CLI reports while it goes on (an error
// line). Severity is "warning" or "error" (other values are passed
// through; "" when absent). An error may be the reason the run then
// fails, when its result gives none: [Turn.Err] keeps the last one that
// is not a warning.
type Notice struct {
	Severity string
	Message  string
}

// APIError is the failure of a request to the model's API that ended the
// run. The CLI reports it only inside the result line's error, as
// "[API Error: …]"; [ParseLine] returns it just before that [Result].
//
// Status is the HTTP status when the message carries the API's JSON error
// body ({"error":{"code":401,…}}), and 0 otherwise: a quota error (429)
// arrives as text. The process's exit status holds it too (see
// [ExitStatus.HTTPStatus]). Message is the whole text, which for a rate
// limit may give a retry time (see [ParseResetTime]).
type APIError struct {
	Status  int
	Message string
}

// Result is the final line of a run: its outcome and statistics.
type Result struct {
	// Status is "success" or "error" (other values are passed through).
	Status string
	// ErrorType and ErrorMessage come from the line's error object, ""
	// when it has none. ErrorType is the CLI's error class, such as
	// "FatalTurnLimitedError", or "unknown" for an API error.
	ErrorType    string
	ErrorMessage string
	// Duration is the run's wall time (stats.duration_ms); 0 when absent
	// (the CLI reports 0 for runs that fail early).
	Duration time.Duration
	// ToolCalls is the number of tool calls of the run
	// (stats.tool_calls); 0 when absent.
	ToolCalls int
	// Stats is the stats object, raw JSON as the CLI sent it; nil when
	// absent. Its token counts cover this process only, across every
	// model it called; read them with the usage package's
	// ParseGeminiStats.
	Stats json.RawMessage
}

// Failed reports whether the run did not succeed.
func (r Result) Failed() bool { return r.Status != "success" }

// ResumeFailed is the final event of a [Turn] that resumed a session the
// CLI could not find: it printed nothing and exited with [ExitInput].
// SessionID is the id that was resumed.
type ResumeFailed struct {
	SessionID string
	Exit      ExitStatus
}

// NoResult is the final event of a [Turn] whose process ended without a
// result line, for any reason other than a failed resume: a crash, a
// signal, an error before the run started (the reason is on the CLI's
// standard error). Exit is the process's exit status.
type NoResult struct {
	Exit ExitStatus
}

func (Init) isEvent()         {}
func (UserMessage) isEvent()  {}
func (PartialText) isEvent()  {}
func (Text) isEvent()         {}
func (ToolUse) isEvent()      {}
func (ToolResult) isEvent()   {}
func (Notice) isEvent()       {}
func (APIError) isEvent()     {}
func (Result) isEvent()       {}
func (ResumeFailed) isEvent() {}
func (NoResult) isEvent()     {}
