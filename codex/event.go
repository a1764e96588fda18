package codex

import (
	"encoding/json"

	"github.com/acpkit/acpkit/cli"
)

// Event is one thing a line of `codex exec --json` output, or of `codex
// app-server` output read by a [Session], reports. The set of event types
// is closed: it is exactly the types in this package whose names are
// listed below, so a type switch over them is complete.
//
// Both read the same items as the same events: [Text], [Reasoning],
// [CommandExecution], [FileChange], [WebSearch], [MCPToolCall] and
// [UnknownItem]. A Session sets their ThreadID and TurnID, which `codex
// exec` (one turn of one thread per run) leaves empty, and the members
// only the app-server sends; it reports the rest of the protocol with the
// Session's own events.
//
// Of `codex exec`:
//
//   - [ThreadStarted], [TurnStarted]: the run has begun.
//   - [Text], [Reasoning]: the agent's message and its reasoning summary,
//     each complete.
//   - [CommandExecution], [FileChange], [WebSearch], [MCPToolCall]: tool
//     calls, one event per phase of each.
//   - [TodoList]: the agent's plan of work.
//   - [Notice]: a non-fatal error the CLI reports as an item.
//   - [UnknownItem]: an item of a type this package does not model.
//   - [Retry]: the CLI is reconnecting after a failed request.
//   - [APIError]: an error the CLI reports outside any item.
//   - [TurnCompleted], [TurnFailed]: the final event of a run.
//   - [ResumeFailed], [NoResult]: the final event of a run that ended
//     without one of those (reported by [Turn.Finish] only).
//
// Of `codex app-server`, besides the items:
//
//   - [TextDelta], [ReasoningDelta], [CommandOutputDelta],
//     [MCPToolProgress]: pieces of items as they stream;
//   - [UserMessage]: the prompt of a turn, as the thread records it;
//   - [ThreadStarted], [TurnStarted], [TurnEnd], [ThreadStatusChanged],
//     [ThreadNameChanged]: threads and turns;
//   - [TurnDiff], [PlanUpdate]: the turn's changes and plan;
//   - [TokenUsage], [RateLimits], [ErrorNotification], [Warning],
//     [MCPServerStatus]: usage, limits, failures and notices;
//   - [CommandApproval], [FileChangeApproval], [Elicitation],
//     [UnknownRequest]: the server's requests, each to be answered, and
//     [RequestResolved] when one no longer waits;
//   - [Response]: an answer to a request the client sent;
//   - [UnknownNotification]: any other notification, raw.
//
// Strings and raw JSON in events are copies: they stay valid after the line
// they came from is reused.
type Event interface {
	isEvent()
}

// ThreadStarted is the first line of a run ("thread.started"). ThreadID
// names the thread (the conversation) to pass to `codex exec resume`; the
// CLI prints it nowhere else.
//
// A [Session] reports the app-server's "thread/started" notification as a
// ThreadStarted too, with the whole Thread; nil from `codex exec`.
type ThreadStarted struct {
	ThreadID string
	Thread   *Thread `json:",omitempty"`
}

// TurnStarted reports that the CLI sent the prompt to the model
// ("turn.started"; the app-server's "turn/started", which names the thread
// and the turn).
type TurnStarted struct {
	ThreadID string `json:",omitempty"`
	TurnID   string `json:",omitempty"`
}

// Phase is the point in an item's life that an item line reports.
type Phase uint8

// The phases of an item, from the line types "item.started",
// "item.updated" and "item.completed".
const (
	PhaseStarted Phase = iota + 1
	PhaseUpdated
	PhaseCompleted
)

// String returns "started", "updated" or "completed".
func (p Phase) String() string {
	switch p {
	case PhaseStarted:
		return "started"
	case PhaseUpdated:
		return "updated"
	case PhaseCompleted:
		return "completed"
	}
	return "Phase(?)"
}

// MarshalText writes the phase as [Phase.String] does, so that it reads as
// a word in JSON.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Status is an item's status as the CLI sends it. Values other than the
// constants below are passed through; an item without one has "".
type Status string

// Item statuses. A command whose exit code is 0 ends StatusCompleted, any
// other StatusFailed; StatusDeclined is a command the sandbox or approval
// policy refused.
const (
	StatusInProgress Status = "in_progress"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusDeclined   Status = "declined"
)

// ToolKind is the kind of action a tool call takes: what it does to the
// user's files, the shell or the web, for an editor to show. It is
// [cli.ToolKind], the same type in packages claude, codex and gemini
// (package bridge maps it onto the Agent Client Protocol's tool kinds).
type ToolKind = cli.ToolKind

// Tool kinds. ParseLine sets the Kind of each tool call event from the
// item's type and content.
const (
	ToolKindRead       = cli.ToolKindRead
	ToolKindEdit       = cli.ToolKindEdit
	ToolKindDelete     = cli.ToolKindDelete
	ToolKindMove       = cli.ToolKindMove
	ToolKindSearch     = cli.ToolKindSearch
	ToolKindExecute    = cli.ToolKindExecute
	ToolKindThink      = cli.ToolKindThink
	ToolKindFetch      = cli.ToolKindFetch
	ToolKindSwitchMode = cli.ToolKindSwitchMode // never set: no Codex tool switches modes
	ToolKindOther      = cli.ToolKindOther
)

// Text is the agent's message to the user (an "agent_message" item), whole:
// the CLI prints agent text only once it is complete. ItemID names the item
// within this run; ids restart at "item_0" in every process.
//
// A [Session] reports an "agentMessage" item as a Text once it is
// complete, its text having come as [TextDelta] events meanwhile; an
// interrupted turn leaves its last message without one.
type Text struct {
	ItemID   string
	Text     string
	ThreadID string `json:",omitempty"`
	TurnID   string `json:",omitempty"`
}

// Reasoning is a summary of the model's reasoning (a "reasoning" item),
// whole, like [Text]. From a [Session], Text is the summary's parts
// joined by blank lines, which came as [ReasoningDelta] events meanwhile.
type Reasoning struct {
	ItemID   string
	Text     string
	ThreadID string `json:",omitempty"`
	TurnID   string `json:",omitempty"`
}

// CommandExecution is a shell command the agent ran, at one phase of its
// life: started (Status "in_progress", no exit code yet) and completed.
// Kind is [ToolKindExecute]; from a [Session], [ToolKindRead] or
// [ToolKindSearch] when every one of its Actions only reads files or only
// searches and lists them.
type CommandExecution struct {
	ItemID string
	Phase  Phase
	Kind   ToolKind
	// Command is the command line as run, the CLI's shell wrapper
	// included, e.g. "/bin/bash -lc 'go test ./...'".
	Command string
	// Output is the command's standard output and error interleaved
	// ("aggregated_output"); "" until it has printed something.
	Output string
	// ExitCode is the command's exit code, meaningful only when
	// HasExitCode is true: the CLI sends null while the command runs.
	ExitCode    int
	HasExitCode bool
	Status      Status

	// The members only a [Session] sets: the thread and the turn; the
	// directory the command runs in; what the CLI reads the command as
	// doing ("commandActions"), nil when it does not say; how long it
	// ran, in milliseconds (0 until it has).
	ThreadID   string          `json:",omitempty"`
	TurnID     string          `json:",omitempty"`
	CWD        string          `json:",omitempty"`
	Actions    []CommandAction `json:",omitempty"`
	DurationMs int64           `json:",omitempty"`
}

// CommandAction is what the CLI reads a command as doing: Type "read"
// (Name the file read, Path its path), "listFiles", "search" (Query
// what is searched for, Path where) or "unknown" (other values are passed
// through). Command is the part of the command line that does it.
type CommandAction struct {
	Type    string
	Command string
	Name    string `json:",omitempty"`
	Path    string `json:",omitempty"`
	Query   string `json:",omitempty"`
}

// ChangeKind says what a [FileChange] does to one file: "add", "delete" or
// "update" (other values are passed through).
type ChangeKind string

// The kinds of change to a file.
const (
	ChangeAdd    ChangeKind = "add"
	ChangeDelete ChangeKind = "delete"
	ChangeUpdate ChangeKind = "update"
)

// Change is one file of a [FileChange]. Path is as the CLI printed it,
// usually absolute.
//
// What the change does to the file is in a stored session's items (see
// [ReadEntries]) and in app-server's items (see [Session]); `codex exec --json`
// 0.169.0 prints only the file and its kind, and then Diff is "" and
// Hunks nil.
type Change struct {
	Path string
	Kind ChangeKind
	// MovePath is where an update moves the file ("move_path"); "" when
	// it stays.
	MovePath string `json:",omitempty"`
	// Diff is the change's text as the CLI gives it: the whole text of a
	// file added or deleted, or the unified diff of an update (its "@@"
	// hunks, without file headers); "" when unknown.
	Diff string `json:",omitempty"`
	// Hunks are an update's Diff read as the hunks of a unified diff, in
	// order, in the shape package claude gives the CLI's own; nil for
	// another kind of change, a Diff of no hunk, or one whose hunk does
	// not read (a part of a patch would be a wrong one).
	Hunks []Hunk `json:",omitempty"`
}

// Hunk is one hunk of a unified diff: the OldLines lines from line
// OldStart of the old text became the NewLines lines from line NewStart
// of the new one (lines counted from 1; a start is 0 only for an empty
// side). Lines are the hunk's lines without their line ends, each
// starting with ' ' (kept), '-' (removed) or '+' (added), or '\' (the
// "\ No newline at end of file" marker), as the CLI wrote them.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []string
}

// FileChange is a patch the agent applied (a "file_change" item): Changes
// lists the files it touches, nil when the item has no list. Kind is
// [ToolKindDelete] when every change deletes a file, [ToolKindEdit]
// otherwise.
//
// From a [Session], the item is announced before it is applied, with its
// changes, and a [FileChangeApproval] for it may follow; the changes may
// be revised meanwhile (a FileChange at [PhaseUpdated]).
type FileChange struct {
	ItemID  string
	Phase   Phase
	Kind    ToolKind
	Changes []Change
	Status  Status
	// Stdout and Stderr are what applying the patch printed ("Success.
	// Updated the following files: …", or why it failed), which a stored
	// session keeps; "" when unknown, as on the live stream.
	Stdout   string `json:",omitempty"`
	Stderr   string `json:",omitempty"`
	ThreadID string `json:",omitempty"`
	TurnID   string `json:",omitempty"`
}

// WebSearch is a web search the agent made (a "web_search" item).
//
// The CLI writes two "id" members in this item, the item's own ("item_3")
// and then the search's ("ws_…"); as everywhere in this module the last
// wins, so ItemID is the search's id. It is the same on the item's started
// and completed lines, which is what pairing them needs.
//
// Kind is [ToolKindFetch] when the action opens a page, [ToolKindSearch]
// otherwise.
type WebSearch struct {
	ItemID string
	Phase  Phase
	Kind   ToolKind
	// Query is what was searched for; "" until the search has begun.
	Query string
	// ActionType is the action's "type": "search", "open_page",
	// "find_in_page" or "other" ("" when absent); Action is the whole
	// action object, raw JSON, nil when absent.
	ActionType string
	Action     json.RawMessage
	ThreadID   string `json:",omitempty"`
	TurnID     string `json:",omitempty"`
}

// MCPToolCall is a call to a tool of an MCP server (an "mcp_tool_call"
// item). Kind is always [ToolKindOther]: the CLI says nothing of what the
// tool does.
type MCPToolCall struct {
	ItemID string
	Phase  Phase
	Kind   ToolKind
	Server string
	Tool   string
	// Arguments, Result and Error's message are as the CLI sent them:
	// Arguments and Result raw JSON (nil when absent or null), Error ""
	// when there is none.
	Arguments json.RawMessage
	Result    json.RawMessage
	Error     string
	Status    Status
	// The members only a [Session] sets: the thread and the turn, and
	// how long the call took, in milliseconds (0 until it has).
	ThreadID   string `json:",omitempty"`
	TurnID     string `json:",omitempty"`
	DurationMs int64  `json:",omitempty"`
}

// TodoItem is one step of a [TodoList].
type TodoItem struct {
	Text      string
	Completed bool
}

// TodoList is the agent's running plan of work (a "todo_list" item),
// reported again as it changes. Items is nil when the item has no list.
type TodoList struct {
	ItemID string
	Phase  Phase
	Items  []TodoItem
}

// Notice is a non-fatal error the CLI reports as an "error" item, such as a
// warning about the model or the configuration. The run goes on.
type Notice struct {
	ItemID  string
	Message string
}

// UnknownItem is an item of a type this package does not model ("plan",
// "collab_tool_call", future kinds). Raw is the whole item object as the
// CLI sent it.
type UnknownItem struct {
	ItemID   string
	Phase    Phase
	Type     string
	Raw      json.RawMessage
	ThreadID string `json:",omitempty"`
	TurnID   string `json:",omitempty"`
}

// Retry reports that the CLI is retrying a failed request to the model: a
// top-level "error" line whose message reads
// "Reconnecting... 2/5 (<reason>)".
type Retry struct {
	Attempt    int // 1 for the first retry
	MaxRetries int // how many retries the CLI will make
	// Message is the reason in parentheses, the failure being retried.
	Message string
	// Status is the HTTP status the reason names, in either of the CLI's
	// wordings: "unexpected status 401 Unauthorized: …" and "exceeded
	// retry limit, last status: 429 Too Many Requests". It is 0 when the
	// reason names none; no other number in it is taken for one.
	Status int
}

// APIError is a top-level "error" line that is not a [Retry]: the request
// to the model failed for good (a [TurnFailed] with the same message
// usually follows), or the CLI hit a usage limit, whose reset time
// [ParseResetTime] reads from Message.
type APIError struct {
	Message string
	// Status is the HTTP status Message names, as in [Retry]; 0 when none.
	Status int
}

// TurnCompleted is the final event of a successful run ("turn.completed").
//
// Usage is the "usage" object as raw JSON, nil when absent. Its figures are
// running totals of the whole thread, earlier runs of a resumed thread
// included, not of this turn: the module's usage package reads them with
// usage.ParseCodexUsage, and a turn's own usage is the difference from the
// totals after the turn before.
type TurnCompleted struct {
	Usage json.RawMessage
}

// TurnFailed is the final event of a failed run ("turn.failed"). Message
// is the error's message ("" when absent); a usage limit's names its reset
// time (see [ParseResetTime]). Status is the HTTP status it names, as in
// [Retry].
type TurnFailed struct {
	Message string
	Status  int
}

// ResumeFailed is the final event of a [Turn] that resumed a thread the
// CLI would not resume: it printed no "thread.started" line and exited
// with [ExitFailure], saying why on its standard error (see
// [ResumeNotFound]). ThreadID is the id that was resumed; Exit is the
// process's exit status.
type ResumeFailed struct {
	ThreadID string
	Exit     ExitStatus
}

// NoResult is the final event of a [Turn] whose process ended without a
// "turn.completed" or "turn.failed" line, for any reason other than a
// failed resume: a crash, a signal, an error outside the turn (see the
// [APIError] events, and the CLI's standard error). Exit is the process's
// exit status.
type NoResult struct {
	Exit ExitStatus
}

func (ThreadStarted) isEvent()    {}
func (TurnStarted) isEvent()      {}
func (Text) isEvent()             {}
func (Reasoning) isEvent()        {}
func (CommandExecution) isEvent() {}
func (FileChange) isEvent()       {}
func (WebSearch) isEvent()        {}
func (MCPToolCall) isEvent()      {}
func (TodoList) isEvent()         {}
func (Notice) isEvent()           {}
func (UnknownItem) isEvent()      {}
func (Retry) isEvent()            {}
func (APIError) isEvent()         {}
func (TurnCompleted) isEvent()    {}
func (TurnFailed) isEvent()       {}
func (ResumeFailed) isEvent()     {}
func (NoResult) isEvent()         {}
