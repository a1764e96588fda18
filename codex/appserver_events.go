package codex

import (
	"encoding/json"
	"strings"
)

// UserMessage is the person's input to a turn as the server records it
// (a "userMessage" item): in the turns of a loaded thread, and once a turn
// has begun. Inputs are its parts as JSON objects, raw ({"type": "text",
// "text": …}, {"type": "localImage", "path": …}, …); Text joins the text
// parts.
type UserMessage struct {
	ItemID   string
	Text     string
	Inputs   []json.RawMessage
	ThreadID string
	TurnID   string
}

// TextDelta is a piece of the agent's message as it streams
// ("item/agentMessage/delta"): ItemID's message is the concatenation of
// its deltas, and its [Text] follows once it is complete.
type TextDelta struct {
	ThreadID, TurnID, ItemID string
	Delta                    string
}

// ReasoningDelta is a piece of the model's reasoning as it streams.
// Part counts the parts of the reasoning summary from 0
// ("item/reasoning/summaryTextDelta"); a delta of a new part begins a new
// paragraph. Content reports a piece of the reasoning's raw text instead
// ("item/reasoning/textDelta"), which only some models send; Part then
// counts its parts.
type ReasoningDelta struct {
	ThreadID, TurnID, ItemID string
	Delta                    string
	Part                     int
	Content                  bool
}

// CommandOutputDelta is output of a running command
// ("item/commandExecution/outputDelta"), standard output and error
// interleaved; the command's [CommandExecution] at [PhaseCompleted] holds
// all of it. The CLI may not send any for a short command.
type CommandOutputDelta struct {
	ThreadID, TurnID, ItemID string
	Delta                    string
}

// MCPToolProgress is a progress message of a running MCP tool call
// ("item/mcpToolCall/progress").
type MCPToolProgress struct {
	ThreadID, TurnID, ItemID string
	Message                  string
}

// TurnDiff is the diff of every file the turn has changed so far, as a
// unified git diff ("turn/diff/updated"), sent after each change.
type TurnDiff struct {
	ThreadID, TurnID string
	Diff             string
}

// PlanUpdate is the agent's plan of work for the turn, whole, each time it
// changes ("turn/plan/updated"). Explanation is why it changed; "" for
// none.
type PlanUpdate struct {
	ThreadID, TurnID string
	Explanation      string
	Steps            []PlanStep
}

// PlanStep is one step of a [PlanUpdate]. Status is "pending",
// "inProgress" or "completed" (others are passed through).
type PlanStep struct {
	Step   string
	Status string
}

// TokenCounts are token counts of a [TokenUsage]. Input includes
// CachedInput (read from the cache) and CacheWriteInput; Output includes
// ReasoningOutput; Total is Input plus Output.
type TokenCounts struct {
	Input           int64
	CachedInput     int64
	CacheWriteInput int64
	Output          int64
	ReasoningOutput int64
	Total           int64
}

// Sub returns c minus prev, figure by figure: the tokens between two
// readings of one thread's totals, such as a turn's own usage from the
// totals after it and after the turn before. A figure below prev's, which
// no two readings of one thread give, is 0.
func (c TokenCounts) Sub(prev TokenCounts) TokenCounts {
	sub := func(a, b int64) int64 { return max(a-b, 0) }
	return TokenCounts{
		Input:           sub(c.Input, prev.Input),
		CachedInput:     sub(c.CachedInput, prev.CachedInput),
		CacheWriteInput: sub(c.CacheWriteInput, prev.CacheWriteInput),
		Output:          sub(c.Output, prev.Output),
		ReasoningOutput: sub(c.ReasoningOutput, prev.ReasoningOutput),
		Total:           sub(c.Total, prev.Total),
	}
}

// TokenUsage is a thread's token usage ("thread/tokenUsage/updated"),
// sent after each request to the model. Total is the thread's running
// total, earlier processes that resumed it included; Last is the last
// request's own. A turn's usage is Total after it minus Total after the
// turn before ([TokenCounts.Sub]). ContextWindow is the model's context
// window in tokens; 0 when unknown.
//
// A resumed thread's first turn begins with the totals restored from its
// store, named by the previous turn's id: the baseline for that turn.
type TokenUsage struct {
	ThreadID, TurnID string
	Total, Last      TokenCounts
	ContextWindow    int64
}

// RateLimits is the state of the account's rate limits
// ("account/rateLimits/updated"), sent after each request to the model;
// with an API key, every member is empty.
type RateLimits struct {
	// LimitID names the limit ("codex"); LimitName is for a person.
	LimitID   string
	LimitName string
	// Primary is the short window (five hours), Secondary the long one
	// (a week); nil when the server sends none.
	Primary, Secondary *RateLimitWindow
	// PlanType is the account's plan ("plus", "pro", …); "" when unknown.
	PlanType string
	// ReachedType says which limit was reached ("rate_limit_reached", …);
	// "" when none is.
	ReachedType string
	// Credits is the account's credits, raw JSON ({"hasCredits": …,
	// "unlimited": …, "balance": …}); nil when absent.
	Credits json.RawMessage
}

// RateLimitWindow is one window of [RateLimits].
type RateLimitWindow struct {
	// UsedPercent is how much of the window is used, 0 to 100; at 100
	// requests are refused until ResetsAt.
	UsedPercent int
	// WindowMinutes is the window's length in minutes; 0 when unknown.
	WindowMinutes int64
	// ResetsAt is when the window resets, in Unix epoch milliseconds (the
	// server sends seconds); 0 when unknown.
	ResetsAt int64
}

// ErrorNotification is an error the server reports during a turn
// ("error"): a request to the model that failed. With WillRetry the
// server tries again and the turn goes on (Error.Message is then
// "Reconnecting... 1/5"); without it the turn fails, and its [TurnEnd]
// carries the same error.
type ErrorNotification struct {
	ThreadID, TurnID string
	Error            TurnError
	WillRetry        bool
}

// TurnEnd is the end of a turn ("turn/completed"), whatever ended it:
// Turn.Status is [TurnStatusCompleted], [TurnStatusInterrupted] or
// [TurnStatusFailed], Turn.Error what failed it. An interrupted turn's
// last message may have had no [Text].
type TurnEnd struct {
	ThreadID string
	Turn     ThreadTurn
}

// Interrupted reports whether the turn was interrupted ([Session.Interrupt],
// or a [DecisionCancel] answer).
func (t TurnEnd) Interrupted() bool { return t.Turn.Status == TurnStatusInterrupted }

// Err returns nil unless the turn failed, and then a [*RunError] saying
// why: [ErrAPI] for a failed request to the model, a usage or rate limit
// included ([TurnError.APIError]), [ErrFailed] otherwise. Its Type is the
// error's Kind, Message its message, and Status its HTTP status, or the
// one its kind stands for when it names none: 429 for a usage or rate
// limit, 500 for internalServerError, 401 for unauthorized, 400 for
// badRequest.
func (t TurnEnd) Err() error {
	if t.Turn.Status != TurnStatusFailed {
		return nil
	}
	te := t.Turn.Error
	if te == nil {
		te = &TurnError{}
	}
	reason := ErrFailed
	if te.APIError() {
		reason = ErrAPI
	}
	e := reasons.RunError(reason, te.Message)
	e.Type, e.Status = te.Kind, te.HTTPStatus
	if e.Status == 0 {
		e.Status = kindStatus[te.Kind]
	}
	return e
}

// kindStatus is the HTTP status a kind of TurnError stands for, when the
// server names none.
var kindStatus = map[string]int{
	"usageLimitExceeded": 429, "rateLimitExceeded": 429, "internalServerError": 500,
	"unauthorized": 401, "badRequest": 400,
}

// ThreadStatusChanged reports a thread's new status
// ("thread/status/changed").
type ThreadStatusChanged struct {
	ThreadID string
	Status   ThreadStatus
}

// ThreadNameChanged reports a thread's new name ("thread/name/updated");
// Name is "" when the name was cleared.
type ThreadNameChanged struct {
	ThreadID string
	Name     string
}

// MCPServerStatus reports the state of an MCP server the CLI starts for a
// thread ("mcpServer/startupStatus/updated"): Status "starting", "ready",
// "failed" or "cancelled" (others are passed through), Error why it
// failed ("" for none).
type MCPServerStatus struct {
	ThreadID string
	Name     string
	Status   string
	Error    string
}

// Warning is a notice for a person that the server sends outside any
// item: Method is "warning", "configWarning" (a problem with the CLI's
// configuration) or "deprecationNotice"; Message its summary, Details
// more ("" for none). ThreadID is "" when it concerns no thread.
type Warning struct {
	Method   string
	ThreadID string
	Message  string
	Details  string
}

// RequestResolved reports that a request of the server no longer waits
// for an answer ("serverRequest/resolved"): it was answered, or the
// server settled it itself, as when its turn was interrupted. Request is
// the request when it was still waiting for the client's answer, which
// the [Session] then no longer sends ([ErrCancelled]); nil when the client
// had answered it.
type RequestResolved struct {
	ThreadID  string
	RequestID string
	Request   Request
}

// Response is the server's answer to a request the client sent, reported
// whether or not a call waits for it. ID is the request's id and Method
// its method ("" when the id names no request the [Session] sent).
// Result is the result, raw JSON (nil for an error); Err the error, nil
// for a result.
type Response struct {
	ID     string
	Method string
	Result json.RawMessage
	Err    *RPCError
}

// UnknownNotification is a notification this package does not model
// (there are many: "remoteControl/status/changed", "thread/archived",
// "model/rerouted", …). Params is its params, raw (nil when absent).
// EmittedAt is when the server sent it, in Unix epoch milliseconds
// ("emittedAtMs"); 0 when it did not say.
type UnknownNotification struct {
	Method    string
	Params    json.RawMessage
	EmittedAt int64
}

// Request is a request the server sent and waits for an answer to: a
// [CommandApproval], [FileChangeApproval], [Elicitation] or
// [UnknownRequest]. Every one must be answered once, through the
// [Session] that read it ([Session.Decide], [Session.Respond],
// [Session.RespondError], [Session.Decline]), unless a [RequestResolved]
// withdraws it first; the turn waits meanwhile.
type Request interface {
	Event
	// RequestID returns the request's id as its JSON text: 0, or "abc"
	// with its quotes; the answer echoes it.
	RequestID() string
	// Method returns the request's method.
	Method() string
}

// Decision is an answer to an approval request.
type Decision string

// Decisions. The server honours DecisionDecline even when a request's
// AvailableDecisions do not list it.
const (
	// DecisionAccept runs the command or applies the change.
	DecisionAccept Decision = "accept"
	// DecisionAcceptForSession does, and lets the same again without
	// asking for the rest of the session.
	DecisionAcceptForSession Decision = "acceptForSession"
	// DecisionDecline refuses; the model is told and the turn goes on.
	DecisionDecline Decision = "decline"
	// DecisionCancel refuses and interrupts the turn.
	DecisionCancel Decision = "cancel"
)

// CommandApproval asks whether a command may run
// ("item/commandExecution/requestApproval"). The command's
// [CommandExecution] was announced first, with ItemID as its id; once
// answered it completes, or ends [StatusDeclined].
type CommandApproval struct {
	ID                       string
	ThreadID, TurnID, ItemID string
	// ApprovalID tells apart the approvals of one item (a command with
	// several network requests to approve); "" for the item's only one.
	ApprovalID string
	// Command is the command line as it would run, CWD where; Actions
	// what the CLI reads it as doing.
	Command string
	CWD     string
	Actions []CommandAction
	// Reason is why the model asks, when it asks to leave the sandbox;
	// "" otherwise.
	Reason string
	// ExecPolicyAmendment is the command prefix that an
	// acceptWithExecpolicyAmendment answer would allow from now on; nil
	// when the server proposes none.
	ExecPolicyAmendment []string
	// AvailableDecisions are the answers the server offers, raw: "accept",
	// {"acceptWithExecpolicyAmendment": …}, "cancel", …; nil when it does
	// not say. The schema does not have them.
	AvailableDecisions []json.RawMessage
	// NetworkContext says which network access is asked for, raw; nil
	// for a plain command.
	NetworkContext json.RawMessage
	// StartedAt is when the command was proposed, in Unix epoch
	// milliseconds; 0 when unknown.
	StartedAt int64
}

// FileChangeApproval asks whether a change to files may be applied
// ("item/fileChange/requestApproval"). The change itself, with its paths
// and diffs, is the [FileChange] announced first with ItemID as its id.
type FileChangeApproval struct {
	ID                       string
	ThreadID, TurnID, ItemID string
	// Reason is why the model asks; "" for none. GrantRoot is a
	// directory the model asks to be able to write in for the rest of
	// the session; "" for none.
	Reason    string
	GrantRoot string
	StartedAt int64
}

// Elicitation is an MCP server's request for input from the person
// ("mcpServer/elicitation/request"); the CLI also asks this way whether a
// tool of an MCP server may run, and ApprovalKind is then "mcp_tool_call",
// with ToolName and ToolParams saying which call.
type Elicitation struct {
	ID               string
	ThreadID, TurnID string // TurnID is "" outside a turn
	ServerName       string
	// Mode is "form" (answer with content matching RequestedSchema),
	// "url" (the person opens URL) or another the server adds.
	Mode            string
	Message         string
	RequestedSchema json.RawMessage
	URL             string
	ElicitationID   string
	// Meta is the request's "_meta", raw; ApprovalKind, ToolName and
	// ToolParams are read from it, and Persist: the scopes an
	// acceptForSession answer may remember it for ("session", "always").
	Meta         json.RawMessage
	ApprovalKind string
	ToolName     string
	ToolParams   json.RawMessage
	Persist      []string
}

// UnknownRequest is a request of a method this package does not model
// ("item/tool/requestUserInput", "item/permissions/requestApproval", …).
// [Session.Decline] answers it with an error, so that the server never
// waits forever.
type UnknownRequest struct {
	ID         string
	MethodName string
	Params     json.RawMessage
}

// RequestID returns r.ID.
func (r CommandApproval) RequestID() string { return r.ID }

// RequestID returns r.ID.
func (r FileChangeApproval) RequestID() string { return r.ID }

// RequestID returns r.ID.
func (r Elicitation) RequestID() string { return r.ID }

// RequestID returns r.ID.
func (r UnknownRequest) RequestID() string { return r.ID }

// Method returns "item/commandExecution/requestApproval".
func (CommandApproval) Method() string { return methodCommandApproval }

// Method returns "item/fileChange/requestApproval".
func (FileChangeApproval) Method() string { return methodFileChangeApproval }

// Method returns "mcpServer/elicitation/request".
func (Elicitation) Method() string { return methodElicitation }

// Method returns r.MethodName.
func (r UnknownRequest) Method() string { return r.MethodName }

// The server requests this package models.
const (
	methodCommandApproval    = "item/commandExecution/requestApproval"
	methodFileChangeApproval = "item/fileChange/requestApproval"
	methodElicitation        = "mcpServer/elicitation/request"
)

// RPCError is the server's error answer to a request. The server gives
// -32600 for every error, so Message says what went wrong; errors.Is
// matches [ErrResumeNotFound] for a thread/resume or thread/fork of a
// thread the CLI does not have.
type RPCError struct {
	Method  string // the failed request's method; "" when unknown
	Code    int
	Message string
	Data    json.RawMessage // nil when absent
}

// Error names the method and the server's message.
func (e *RPCError) Error() string {
	s := "codex: "
	if e.Method != "" {
		s += e.Method + ": "
	}
	return s + e.Message
}

// Is reports whether target is [ErrResumeNotFound] and the error says the
// thread does not exist.
func (e *RPCError) Is(target error) bool {
	if target != ErrResumeNotFound {
		return false
	}
	return strings.Contains(strings.ToLower(e.Message), "no rollout found for thread id")
}

func (UserMessage) isEvent()         {}
func (TextDelta) isEvent()           {}
func (ReasoningDelta) isEvent()      {}
func (CommandOutputDelta) isEvent()  {}
func (MCPToolProgress) isEvent()     {}
func (TurnDiff) isEvent()            {}
func (PlanUpdate) isEvent()          {}
func (TokenUsage) isEvent()          {}
func (RateLimits) isEvent()          {}
func (ErrorNotification) isEvent()   {}
func (TurnEnd) isEvent()             {}
func (ThreadStatusChanged) isEvent() {}
func (ThreadNameChanged) isEvent()   {}
func (MCPServerStatus) isEvent()     {}
func (Warning) isEvent()             {}
func (RequestResolved) isEvent()     {}
func (Response) isEvent()            {}
func (UnknownNotification) isEvent() {}
func (CommandApproval) isEvent()     {}
func (FileChangeApproval) isEvent()  {}
func (Elicitation) isEvent()         {}
func (UnknownRequest) isEvent()      {}
