package codex

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// AppServerVersion is the release of the Codex CLI whose `codex
// app-server` protocol [Session] was written against and tested with: the
// transcripts under testdata/appserver and the JSON schema vendored beside
// them come from it. A newer release is read as far as its messages
// agree; what it adds is kept raw.
const AppServerVersion = "0.171.0"

// ClientInfo names the client in the initialize request. Name becomes
// the "originator" of the CLI's requests to the model and the start of
// its user agent; Title is for display ("" for none).
type ClientInfo struct {
	Name    string
	Title   string
	Version string
}

// InitializeOptions are the initialize request's options besides the
// client's name.
type InitializeOptions struct {
	// ExperimentalAPI asks for the methods and members the CLI marks
	// experimental.
	ExperimentalAPI bool
	// OptOutNotifications lists notification methods the server should
	// not send, such as "item/agentMessage/delta" for a client that shows
	// only complete messages.
	OptOutNotifications []string
}

// ServerInfo is the answer to the initialize request.
type ServerInfo struct {
	// UserAgent is the server's user agent, "<client name>/<CLI
	// version> (<platform>) …".
	UserAgent string
	// Version is the CLI's release, read from UserAgent ("0.171.0"); ""
	// when UserAgent names none.
	Version string
	// CodexHome is the CLI's home directory, where it keeps its
	// configuration and sessions.
	CodexHome      string
	PlatformFamily string // "unix", "windows"
	PlatformOS     string // "linux", "macos", …
}

// ApprovalPolicy is when the CLI asks the client before it runs a command
// or changes a file.
type ApprovalPolicy string

// Approval policies. Values other than these are passed through.
const (
	// ApprovalUntrusted asks before any command not known to be safe.
	ApprovalUntrusted ApprovalPolicy = "untrusted"
	// ApprovalOnRequest lets the model decide, asking when it wants to
	// leave the sandbox (the CLI's default).
	ApprovalOnRequest ApprovalPolicy = "on-request"
	// ApprovalNever never asks: what the sandbox refuses fails.
	ApprovalNever ApprovalPolicy = "never"
)

// SandboxPolicy is the sandbox a turn runs in, as turn/start takes it and
// the thread methods report it. Type is "readOnly", "workspaceWrite",
// "dangerFullAccess" or "externalSandbox" (others are passed through).
type SandboxPolicy struct {
	Type string
	// NetworkAccess lets commands reach the network, for the readOnly and
	// workspaceWrite types.
	NetworkAccess bool
	// WritableRoots are directories writable besides the workspace, for
	// the workspaceWrite type; absolute paths.
	WritableRoots []string
}

// Policy returns the app-server's sandbox policy for s, without network
// access and with no writable roots besides the workspace: what a turn
// passes to switch the sandbox for itself and the turns after it
// ([TurnOptions]). A value it does not know gives the zero SandboxPolicy,
// which sets nothing.
func (s Sandbox) Policy() SandboxPolicy {
	switch s {
	case SandboxReadOnly:
		return SandboxPolicy{Type: "readOnly"}
	case SandboxWorkspaceWrite:
		return SandboxPolicy{Type: "workspaceWrite"}
	case SandboxDangerFullAccess:
		return SandboxPolicy{Type: "dangerFullAccess"}
	}
	return SandboxPolicy{}
}

// ThreadOptions are the settings thread/start, thread/resume and
// thread/fork take. A zero field is not sent, and the CLI then uses its
// configuration (for a resumed or forked thread, the thread's own).
type ThreadOptions struct {
	CWD            string // the working directory, absolute
	Model          string
	ModelProvider  string
	ApprovalPolicy ApprovalPolicy
	Sandbox        Sandbox
	// Config overrides the CLI's configuration for the thread, as
	// config.toml's keys would: {"mcp_servers": {"echo": {"command":
	// "node", "args": ["echo.mjs"]}}}. It must be a JSON object; nil sends
	// none.
	Config                json.RawMessage
	BaseInstructions      string
	DeveloperInstructions string
	// Ephemeral keeps the thread out of the CLI's store.
	Ephemeral bool
	// WithoutTurns asks thread/resume and thread/fork not to send the
	// thread's earlier turns back (excludeTurns): their result's
	// Thread.Turns is then empty, and the CLI skips its notice that
	// full-history loading is deprecated. thread/start ignores it.
	WithoutTurns bool
}

// Thread is a conversation as the server describes it.
type Thread struct {
	ID string
	// SessionID is the id of the session the thread belongs to; the same
	// as ID for a thread the client started.
	SessionID string
	// ForkedFromID is the thread this one was forked from; "" for none.
	ForkedFromID string
	// Name is the thread's name (thread/name/set); "" for none.
	Name string
	// Preview is the start of its first prompt; "" before there is one.
	Preview string
	// CWD is its working directory; Path its file in the CLI's store, ""
	// for an ephemeral thread.
	CWD  string
	Path string
	// Model and ReasoningEffort are those of its last turn; "" when
	// unknown.
	Model           string
	ModelProvider   string
	ReasoningEffort string
	// CLIVersion is the release of the CLI that started it.
	CLIVersion string
	// Source is what started it ("vscode" for an app-server client,
	// "cli", "exec", …); the source's JSON when it is not a string.
	Source    string
	ProjectID string
	Ephemeral bool
	// CreatedAt and UpdatedAt are in Unix epoch milliseconds (the server
	// sends seconds); 0 when unknown.
	CreatedAt int64
	UpdatedAt int64
	Status    ThreadStatus
	// Turns are its turns, oldest first, when the method that returned the
	// thread loads them (thread/resume without WithoutTurns, thread/read
	// with turns); nil otherwise.
	Turns []ThreadTurn
}

// ThreadStatus is a thread's state in the server: Type "notLoaded",
// "idle", "active" or "systemError" (others are passed through). Flags,
// for an active thread, say what it waits for: "waitingOnApproval",
// "waitingOnUserInput"; nil for none.
type ThreadStatus struct {
	Type  string
	Flags []string
}

// TurnStatus is how far a turn has got.
type TurnStatus string

// Turn statuses. Values other than these are passed through.
const (
	TurnStatusInProgress  TurnStatus = "inProgress"
	TurnStatusCompleted   TurnStatus = "completed"
	TurnStatusInterrupted TurnStatus = "interrupted"
	TurnStatusFailed      TurnStatus = "failed"
)

// ThreadTurn is one turn of a thread, as the server describes it.
type ThreadTurn struct {
	ID     string
	Status TurnStatus
	// Error is what failed the turn; nil unless Status is TurnStatusFailed.
	Error *TurnError
	// Items are the turn's items as events (a [UserMessage], [Text],
	// [Reasoning], [CommandExecution], …, each at PhaseCompleted), when
	// the server sends them: in full for the turns of a loaded thread, as
	// a summary (the agent's messages only) in a completed turn's
	// [TurnEnd], not at all in a turn that failed or was interrupted.
	Items []Event
	// ItemsView says which: "full", "summary" or "notLoaded".
	ItemsView string
	// StartedAt and CompletedAt are in Unix epoch milliseconds (the
	// server sends seconds); 0 when unknown. DurationMs is the turn's
	// length in milliseconds; 0 when unknown.
	StartedAt   int64
	CompletedAt int64
	DurationMs  int64
}

// TurnError is what failed a turn, or a request to the model that the
// server retries, as the server says it.
type TurnError struct {
	Message string
	// Kind names the failure ("codexErrorInfo"): "usageLimitExceeded",
	// "rateLimitExceeded", "internalServerError", "unauthorized",
	// "serverOverloaded", "contextWindowExceeded", "sandboxError",
	// "httpConnectionFailed", "responseStreamDisconnected", …; "" when the
	// server names none.
	Kind string
	// HTTPStatus is the HTTP status the failure names
	// (codexErrorInfo.<kind>.httpStatusCode); 0 when it names none.
	HTTPStatus int
	// Details is more for a person ("additionalDetails"); "" for none.
	Details string
}

// apiErrorKinds are the TurnError kinds of a failed request to the
// model.
var apiErrorKinds = map[string]bool{
	"contextWindowExceeded": true, "sessionBudgetExceeded": true, "usageLimitExceeded": true,
	"rateLimitExceeded": true, "flexUnavailable": true, "serverOverloaded": true,
	"modelNotFound": true, "policyCapacityUnavailable": true, "internalServerError": true,
	"unauthorized": true, "badRequest": true, "httpConnectionFailed": true,
	"responseStreamConnectionFailed": true, "responseStreamDisconnected": true,
	"responseTooManyFailedAttempts": true,
}

// APIError reports whether the error is a failed request to the model's
// API, a usage or rate limit included, as opposed to a failure of the CLI
// itself (a sandbox error, a failed rollback, "other").
func (e *TurnError) APIError() bool {
	return e != nil && (apiErrorKinds[e.Kind] || e.HTTPStatus != 0)
}

// Limit reports whether the error is a usage or rate limit, whose reset
// time the latest [RateLimits] event gives, or [ParseResetTime] reads from
// Message.
func (e *TurnError) Limit() bool {
	return e != nil && (e.Kind == "usageLimitExceeded" || e.Kind == "rateLimitExceeded" || e.HTTPStatus == 429)
}

// ThreadResult is the answer to thread/start, thread/resume and
// thread/fork: the thread, and the settings its turns run with.
type ThreadResult struct {
	Thread          Thread
	Model           string
	ModelProvider   string
	ReasoningEffort string // "" for the model's default
	CWD             string
	// ApprovalPolicy is the policy in force: one of the constants, or the
	// JSON of a granular policy.
	ApprovalPolicy ApprovalPolicy
	Sandbox        SandboxPolicy
}

// ThreadListOptions select the threads thread/list returns.
type ThreadListOptions struct {
	// Cursor is a page's NextCursor, "" for the first page.
	Cursor string
	// Limit is the most threads to return; 0 for the server's default.
	Limit int
	// Archived lists archived threads instead of the others.
	Archived bool
	// Search keeps the threads whose text holds it; "" for all.
	Search string
}

// ThreadList is one page of threads, newest first. NextCursor asks for the
// next page; "" when this is the last.
type ThreadList struct {
	Threads    []Thread
	NextCursor string
}

// TurnList is one page of a thread's turns, newest first. NextCursor asks
// for the next page; "" when this is the last.
type TurnList struct {
	Turns      []ThreadTurn
	NextCursor string
}

// TurnOptions are what turn/start takes besides the input. A zero field
// is not sent; the settings a turn sets (model, effort, approval policy,
// sandbox, cwd) stay in force for the thread's later turns.
type TurnOptions struct {
	CWD            string
	Model          string
	Effort         string // a reasoning effort the model supports
	ApprovalPolicy ApprovalPolicy
	// Sandbox, when its Type is set, is the sandbox of this turn and the
	// later ones (see [Sandbox.Policy]).
	Sandbox SandboxPolicy
	// Summary is how much of its reasoning the model summarizes: "auto",
	// "concise", "detailed" or "none".
	Summary string
	// OutputSchema is a JSON schema the turn's final message must match;
	// nil for none.
	OutputSchema json.RawMessage
}

// Input is one part of a turn's input: made by [TextInput], [ImageInput],
// [ImageDataInput], [LocalImageInput], [MentionInput], [ResourceInput] or
// [SkillInput].
type Input struct {
	kind string // "text", "image", "localImage", "mention", "skill"
	text string // the text, the image's URL, or the mention's or skill's name
	path string
}

// TextInput is text the person wrote.
func TextInput(text string) Input { return Input{kind: "text", text: text} }

// ImageInput is an image at url: an https URL, or a data URL.
func ImageInput(url string) Input { return Input{kind: "image", text: url} }

// ImageDataInput is an image of the given media type ("image/png"), sent
// as a data URL.
func ImageDataInput(mediaType string, data []byte) Input {
	return ImageInput("data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(data))
}

// LocalImageInput is the image file at path, which the CLI reads.
func LocalImageInput(path string) Input { return Input{kind: "localImage", path: path} }

// MentionInput points the model at the file or resource at path, named
// name (as an editor's @-mention does).
func MentionInput(name, path string) Input { return Input{kind: "mention", text: name, path: path} }

// SkillInput runs the skill named name, defined at path.
func SkillInput(name, path string) Input { return Input{kind: "skill", text: name, path: path} }

// ResourceInput is the content of a resource the person attached, such as
// a file's text from an editor: the model reads it as text, in a
// <context ref="uri"> block, as ACP agents commonly pass an embedded
// resource on to a model.
func ResourceInput(uri, text string) Input {
	var b strings.Builder
	b.WriteString("<context ref=\"")
	b.WriteString(uri)
	b.WriteString("\">\n")
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("</context>")
	return TextInput(b.String())
}

// ModelListOptions select the models model/list returns.
type ModelListOptions struct {
	Cursor        string // a page's NextCursor, "" for the first page
	Limit         int    // 0 for the server's default
	IncludeHidden bool
}

// ModelList is one page of models. NextCursor asks for the next page; ""
// when this is the last.
type ModelList struct {
	Models     []Model
	NextCursor string
}

// Model is a model the CLI offers.
type Model struct {
	// ID is what turn/start's Model and thread/start's Model take.
	ID          string
	Model       string
	DisplayName string
	Description string
	Hidden      bool
	// IsDefault marks the model the CLI uses when none is chosen.
	IsDefault bool
	// DefaultEffort is the reasoning effort the model uses when none is
	// chosen; Efforts are those it supports, in the server's order.
	DefaultEffort string
	Efforts       []Effort
	// InputModalities are what its input may hold: "text", "image".
	InputModalities []string
}

// Effort is a reasoning effort a model supports: "low", "medium",
// "high", "xhigh", …, with its description for a person.
type Effort struct {
	Effort      string
	Description string
}
