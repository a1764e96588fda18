package claude

import (
	"encoding/json"
	"strings"
	"time"
)

// Event is one thing a line of the CLI's stream-json output reports. The set
// of event types is closed: it is exactly the types in this package whose
// names are listed below, so a type switch over them is complete.
//
//   - [Heartbeat]: the CLI is alive (system lines, including init).
//   - [Retry]: the CLI is retrying a failed API call.
//   - [PermissionDenied]: the CLI refused a tool call, as it happens.
//   - [Text], [Thinking], [ToolUse], [UnknownBlock]: content blocks of an
//     assistant message.
//   - [MessageUsage]: the tokens of an assistant message, one model call.
//   - [ToolResult]: the outcome of a tool call, from a user line.
//   - [PartialText], [PartialThinking], [PartialToolUse],
//     [PartialToolInput]: streamed pieces, only with
//     --include-partial-messages.
//   - [APIError]: an assistant line that reports an API failure.
//   - [RateLimit]: the account's rate-limit state.
//   - [Unknown]: a line this package does not model, reported only when
//     asked for ([Parser.ReportUnknown], [Turn.ReportUnknown]).
//   - [Result]: the final event of a run.
//   - [ResumeFailed], [NoResult]: the final event of a run whose resume
//     found no conversation, or that ended without a result line
//     (reported by [Turn] only).
//   - [PermissionRequest], [MCPRequest], [HookRequest], [UnknownRequest],
//     [ControlResponse], [ControlCancel], [TurnEnd]: the control protocol
//     of streaming-input mode (reported by [Session] only).
//
// Strings, slices and raw JSON in events are copies the caller owns: they
// stay valid after the line they came from is reused.
//
// Every event type that [ParseLine] reports has a Timestamp (a
// [ResumeFailed] has its Result's): when the CLI wrote the line the event
// comes from (the line's "timestamp", RFC 3339 or an epoch), in Unix epoch
// milliseconds, or 0 when the line carries none or an unreadable one; it
// is omitted when 0 if the event is marshalled as JSON. Claude Code
// 2.1.328 stamps its assistant and user lines, and not its system,
// stream_event, rate_limit_event or result lines.
type Event interface {
	isEvent()
}

// Heartbeat reports a system line: proof that the CLI is alive and working,
// nothing a user needs to read. Subtype is the line's subtype ("init",
// "status", "compact_boundary", "hook_started", …; empty when absent),
// including subtypes this package does not know, unless they are asked
// for as [Unknown] events. Model is the model the CLI announced; only init
// lines carry it.
type Heartbeat struct {
	Subtype   string
	Model     string
	Timestamp int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// Retry reports that the CLI is retrying an API request after a failure
// (system subtype "api_retry"). Fields the line does not carry are zero.
type Retry struct {
	Attempt    int           // 1 for the first retry
	MaxRetries int           // how many retries the CLI will make
	Delay      time.Duration // wait before the retry
	Status     int           // HTTP status of the failure (e.g. 429, 529); 0 if unknown
	Error      string        // the CLI's error kind, e.g. "overloaded"
	Timestamp  int64         `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// PermissionDenied reports a tool call the CLI refused under its
// permission mode, as the refusal happens (system subtype
// "permission_denied"). The run goes on: the model sees the refusal as the
// call's error result, and the final [Result] lists every refusal in
// PermissionDenials. Fields the line does not carry are empty.
type PermissionDenied struct {
	ToolName        string // "Write", "Bash", …
	ToolUseID       string // the refused [ToolUse]'s ID
	Message         string // the CLI's explanation
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// Text is a text block of an assistant message: model output meant for the
// user. ParentToolUseID is empty for the main agent and names the Task tool
// call that started the subagent otherwise.
type Text struct {
	Text            string
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// Thinking is a thinking block of an assistant message (the model's visible
// reasoning).
type Thinking struct {
	Text            string
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// ToolUse is a tool call the model made. Input is the tool's argument object,
// raw JSON exactly as the CLI sent it.
type ToolUse struct {
	ID              string
	Name            string
	Input           json.RawMessage
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// UnknownBlock is an assistant content block of a type this package does not
// model ("redacted_thinking", "server_tool_use", future kinds). Raw is the
// whole block as the CLI sent it.
type UnknownBlock struct {
	Type            string
	Raw             json.RawMessage
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// MessageUsage is the token usage of one assistant message, that is of one
// call to the model, as far as the line it comes from knows it. The CLI
// repeats a message's usage on each of its assistant lines, one per
// content block, with the output count of the message's start (usually
// 1); with --include-partial-messages the message_start and message_delta
// stream events carry it too, the delta with the message's final output
// count. Of one message's MessageUsage events the last knows the most:
// read each with usage.FromAnthropic and lay it over the earlier ones with
// usage.Report.Overlay.
//
// MessageID is the message's id ("msg_…"); "" for a message_delta, which
// belongs to the message the last message_start began. Usage is the usage
// object, raw JSON as the CLI sent it. ParentToolUseID is empty for the
// main agent and names the Task tool call of a subagent's message (a
// subagent has a context of its own). An assistant line that stands for an
// API failure ([APIError]) has no MessageUsage: no model answered.
type MessageUsage struct {
	MessageID       string
	Usage           json.RawMessage
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// ToolResult is the outcome of a tool call, reported on a user line. Text is
// the result's text content: the string itself, or the text blocks of a
// block list joined with newlines; non-text blocks (images) are left out.
type ToolResult struct {
	ToolUseID       string
	IsError         bool
	Text            string
	ParentToolUseID string
	// Details is the CLI's own account of the call, raw JSON as it sent
	// it ("tool_use_result" on the stream, "toolUseResult" in a stored
	// session): an object whose shape depends on the tool, or a string
	// (an error's text); nil when the line has none, or a null one. The
	// CLI puts one on a line, so a line of several results (which Claude
	// Code 2.1.328 does not write) gives it to none of them.
	Details json.RawMessage `json:",omitempty"`
	// FileChange is what a file-editing tool (Write, Edit, MultiEdit)
	// says it did, read from Details; nil when Details does not describe
	// a change to a file.
	FileChange *FileChange `json:",omitempty"`
	Timestamp  int64       `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// FileChange is a change a tool made to one file, as the CLI reports it
// in a result's Details: an object with a "filePath" and a
// "structuredPatch". [FileChange.NewText] gives the file's text after
// it.
type FileChange struct {
	// Path is the file's path ("filePath"), absolute.
	Path string
	// Type is "create" or "update" as Write reports it ("type"): whether
	// the file was new or overwritten. Edit and MultiEdit, which always
	// change a file that exists, report none: "".
	Type string `json:",omitempty"`
	// Original is the file's whole text before the change
	// ("originalFile"); nil when absent or null, as for a file Write
	// created.
	Original *string `json:",omitempty"`
	// Content is the file's whole text after the change, as Write
	// reports it ("content"); nil when absent: Edit and MultiEdit report
	// the strings they replaced, and Hunks.
	Content *string `json:",omitempty"`
	// Hunks are the change as the hunks of a unified diff, in order
	// ("structuredPatch"); empty when the file did not change in lines
	// the CLI counts (a created file has none), and nil when a hunk is
	// not readable, since a part of a patch would be a wrong one.
	Hunks []Hunk `json:",omitempty"`
}

// Hunk is one hunk of a unified diff: the OldLines lines from line
// OldStart of the old text became the NewLines lines from line NewStart
// of the new one (lines counted from 1; a start is 0 only for an empty
// side). Lines are the hunk's lines without their line ends, each
// starting with ' ' (kept), '-' (removed) or '+' (added), or '\' (the
// "\ No newline at end of file" marker), as the CLI sent them.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []string
}

// PartialText is a streamed piece of a text block (a "text_delta" of a
// stream_event line). The complete block arrives again as a [Text] event on
// the assistant line that follows, so a consumer shows either the partial
// events or the complete ones, never both.
type PartialText struct {
	Text            string
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// PartialThinking is a streamed piece of a thinking block; see [PartialText].
type PartialThinking struct {
	Text            string
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// PartialToolUse is the start of a tool call in a streamed message (a
// "content_block_start" of a tool_use block): its id and name, before its
// input, so that a bridge can show the call while the model still writes
// it. Its input follows as [PartialToolInput] pieces with the same Index,
// and the complete call arrives as a [ToolUse] on the assistant line; see
// [PartialText] for showing one or the other.
type PartialToolUse struct {
	// Index is the block's position in its message, which the input's
	// pieces name; -1 when absent.
	Index           int
	ID              string
	Name            string
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// PartialToolInput is a piece of a streamed tool call's input (an
// "input_json_delta"). The pieces of the block at Index, concatenated in
// order, are the call's input as JSON text; one piece alone is seldom
// valid JSON.
type PartialToolInput struct {
	// Index is the position of the block, and so of the [PartialToolUse]
	// that started it, in its message; -1 when absent.
	Index           int
	JSON            string // the piece ("partial_json")
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// APIError is an assistant line that carries an "error" field: the CLI
// could not get an answer from the API and wrote a synthetic message
// instead. It is not model output.
//
// Kind is the CLI's classification, the error field ("rate_limit",
// "authentication_failed", "billing_error", "invalid_request",
// "server_error", "unknown", …). Text is the message's text, which for a
// usage limit names the reset time in words; when the line carries the
// limit itself, RateLimit.ResetsAt has it exactly, and [ParseResetTime]
// reads the words otherwise.
type APIError struct {
	Kind string
	// Status is the HTTP status of the failed request
	// ("api_error_status"); 0 when absent.
	Status int
	// Type is the API's error type ("api_error_type": "rate_limit_error",
	// "overloaded_error", …); empty when absent.
	Type string
	// Code names the failure more precisely when the CLI knows it
	// ("api_error": "usage_limit_reached", …); empty when absent.
	Code string
	// RateLimit is the limit that refused the request
	// ("api_error_params.rate_limit_info"), with its window and reset
	// time; nil when the line has none.
	RateLimit       *RateLimit
	Text            string
	ParentToolUseID string
	Timestamp       int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// RateLimitStatus is the state the CLI reports in a rate_limit_event.
type RateLimitStatus string

// Rate-limit states. The CLI sends "allowed" on ordinary runs too, so only
// [RateLimitRejected] means that requests are being refused.
const (
	RateLimitAllowed  RateLimitStatus = "allowed"
	RateLimitWarning  RateLimitStatus = "allowed_warning"
	RateLimitRejected RateLimitStatus = "rejected"
)

// RateLimit is the account's rate-limit state from a rate_limit_event line
// (or from an [APIError] that a limit caused).
type RateLimit struct {
	// Status is "allowed", "allowed_warning" or "rejected" (empty if absent;
	// other values are passed through).
	Status RateLimitStatus
	// Type names the limit window the status is about: "five_hour",
	// "seven_day", "seven_day_opus", "seven_day_sonnet", "overage", …
	// (empty if absent).
	Type string
	// Utilization is the fraction of that window used (0.0–1.0); nil when
	// absent: the CLI sends it only when a threshold is crossed.
	Utilization *float64
	// ResetsAt is when that window resets, in Unix epoch milliseconds; 0
	// means unknown.
	ResetsAt int64
	// Windows are the states of every window the account has
	// ("unifiedWindows"), sorted by name; nil when the line has none.
	Windows []RateLimitWindow
	// OverageStatus is the state of pay-as-you-go use beyond the plan's
	// limits ("overageStatus"); empty when absent.
	OverageStatus RateLimitStatus
	// UsingOverage reports that requests are being billed as overage
	// ("isUsingOverage"); false when the line does not say so.
	UsingOverage bool
	// Raw is the whole rate_limit_info object, for the members not modelled
	// here (overageDisabledReason, surpassedThreshold, …); nil when the
	// line has none.
	Raw       json.RawMessage
	Timestamp int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// RateLimitWindow is one window of a [RateLimit]'s Windows.
type RateLimitWindow struct {
	// Name is the window's key in unifiedWindows: "five_hour",
	// "seven_day", …
	Name string
	// Status is the window's own state (empty if absent).
	Status RateLimitStatus
	// Utilization is the fraction of the window used (0.0–1.0); nil when
	// absent.
	Utilization *float64
	// ResetsAt is when the window resets, in Unix epoch milliseconds; 0
	// means unknown.
	ResetsAt int64
}

// Blocked reports whether the limit is refusing requests now.
func (r RateLimit) Blocked() bool { return r.Status == RateLimitRejected }

// Result is the final line of a run: its outcome, cost and token usage.
type Result struct {
	// Subtype is "success", "error_max_turns", "error_during_execution",
	// "error_max_budget_usd", … A usage-limit stop arrives as "success"
	// with IsError set, so decide on both fields (see [Result.Failed]).
	Subtype string
	IsError bool
	// Text is the final answer ("result"); empty on error subtypes, which
	// carry Errors instead.
	Text string
	// Errors are the messages of an error subtype (nil when absent).
	Errors []string
	// APIErrorStatus, APIErrorType and APIErrorCode describe the API error
	// that ended the run, as the [APIError] before the result did
	// ("api_error_status", "api_error_type", "api_error"); 0 or empty
	// when absent.
	APIErrorStatus int
	APIErrorType   string
	APIErrorCode   string
	// TerminalReason is why the run ended ("terminal_reason":
	// "completed", "api_error", "max_turns", "aborted_streaming",
	// "aborted_tools", …); empty when absent (older releases omit it).
	TerminalReason string
	NumTurns       int           // agentic turns the run took (num_turns)
	Duration       time.Duration // wall time of the run (duration_ms)
	APIDuration    time.Duration // time spent waiting on the API (duration_api_ms)
	// TotalCostUSD is total_cost_usd, the CLI's running cost of the
	// session in dollars, which a resumed run continues: the decimal
	// literal exactly as the CLI sent it, or "" when the member is absent
	// or not a number (absent, never $0). Use its Float64 method for
	// display; usage.FromClaudeResult reads it exactly, as integer
	// picodollars. It is omitted when "" if the Result is marshalled as
	// JSON.
	TotalCostUSD json.Number `json:",omitempty"`
	StopReason   string
	// PermissionDenials are the tool calls the CLI refused under its
	// permission mode ("permission_denials"); nil when absent.
	PermissionDenials []PermissionDenial
	// Usage, ModelUsage and RunModelUsage are the token accounting of the
	// result, raw JSON objects as the CLI sent them; nil when absent. On a
	// resumed run they cover different spans:
	//
	//   - Usage ("usage") is this run's tokens, all models together.
	//   - ModelUsage ("modelUsage") is the whole session's, per model,
	//     with each model's cost: running totals like TotalCostUSD.
	//   - RunModelUsage ("model_usage_since_last_result") is this run's,
	//     per model, with each model's cost: the CLI's own per-run
	//     accounting, absent from older releases.
	//
	// usage.FromClaudeResult reads all three. Accounting must use these,
	// never the usage repeated on each assistant line. The three share
	// one backing array; each is capped, so appending to one cannot
	// overwrite another.
	Usage         json.RawMessage
	ModelUsage    json.RawMessage
	RunModelUsage json.RawMessage
	Timestamp     int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// PermissionDenial is a tool call the CLI did not run because its
// permission mode refused it. Input is the call's argument object, raw JSON
// as the CLI sent it ("tool_input"; nil when absent).
type PermissionDenial struct {
	ToolName  string
	ToolUseID string
	Input     json.RawMessage
}

// Failed reports whether the run did not succeed: an error subtype, or
// is_error set on a "success" (which is how usage limits arrive).
func (r Result) Failed() bool { return r.IsError || r.Subtype != "success" }

// resumeNotFound is the CLI's wording when --resume names an unknown id.
const resumeNotFound = "No conversation found with session ID"

// ResumeNotFound reports whether the result is the CLI's answer to a
// --resume whose conversation does not exist.
func (r Result) ResumeNotFound() bool {
	if r.Subtype != "error_during_execution" {
		return false
	}
	for _, e := range r.Errors {
		if strings.Contains(e, resumeNotFound) {
			return true
		}
	}
	return strings.Contains(r.Text, resumeNotFound)
}

// Unknown reports a line [ParseLine] does not model, so that a bridge can
// log what it did not understand without parsing the line again: a line
// of a type it does not read (Type is that type, empty when the line has
// none or a type that is not a string; control messages, which only a
// [Session] reads, are among them), or a system line whose subtype it does
// not know (Type is "system", and the line is a sign of life as a
// [Heartbeat] is). Subtype is the line's "subtype", empty when absent.
//
// Only a [Parser] or a [Turn] with ReportUnknown set reports Unknown
// events; otherwise the first kind of line yields no event and the second
// a Heartbeat.
type Unknown struct {
	Type      string
	Subtype   string
	Timestamp int64 `json:",omitempty"` // epoch ms the line was written; 0 if unstamped (see [Event])
}

// ResumeFailed is the final event of a [Turn] that resumed a conversation
// the CLI could not find. SessionID is the id that was resumed; Result is
// the CLI's result line, whose own session id must not be used.
type ResumeFailed struct {
	SessionID string
	Result    Result
}

// NoResult is the final event of a [Turn] whose process ended without a
// result line: a crash, a signal, an error before the run began (see the
// [APIError] events, and the CLI's standard error). Exit is the process's
// exit status.
type NoResult struct {
	Exit ExitStatus
}

func (NoResult) isEvent()         {}
func (Heartbeat) isEvent()        {}
func (Retry) isEvent()            {}
func (PermissionDenied) isEvent() {}
func (Text) isEvent()             {}
func (Thinking) isEvent()         {}
func (ToolUse) isEvent()          {}
func (UnknownBlock) isEvent()     {}
func (MessageUsage) isEvent()     {}
func (ToolResult) isEvent()       {}
func (PartialText) isEvent()      {}
func (PartialThinking) isEvent()  {}
func (PartialToolUse) isEvent()   {}
func (PartialToolInput) isEvent() {}
func (APIError) isEvent()         {}
func (RateLimit) isEvent()        {}
func (Unknown) isEvent()          {}
func (Result) isEvent()           {}
func (ResumeFailed) isEvent()     {}
