package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

//go:generate go test -run TestAppServerSchema -refresh-schema

// The app-server's messages as they are on the wire: one struct per
// message of the protocol's JSON schema that [Session] reads or writes,
// named wire…, with the members it uses. TestAppServerSchema checks each
// against the schema vendored in testdata/appserver/schema.json, which
// `go generate ./codex` refreshes from the real CLI of AppServerVersion
// (installed with npm into the user's cache). They are decoded with
// encoding/json, leniently (see [decodeWire]): a member of an unexpected
// type is left zero and the rest is kept, so that a newer server never
// breaks an older client.

// decodeWire decodes raw into v, leniently: a member whose value has the
// wrong type is left as it is, and the others are read. It reports
// whether raw was a JSON object (or null), which is all that can make it
// fail. Of a repeated member, the last counts.
func decodeWire(raw []byte, v any) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return len(raw) == 0 || string(raw) == "null"
	}
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	return err == nil || errors.As(err, &te)
}

// wireMessage is one line of the protocol: a request, a notification, a
// response or an error. The server sends no "jsonrpc" member; every
// notification has "emittedAtMs" besides.
type wireMessage struct {
	ID          json.RawMessage `json:"id"`
	Method      json.RawMessage `json:"method"`
	Params      json.RawMessage `json:"params"`
	Result      json.RawMessage `json:"result"`
	Error       json.RawMessage `json:"error"`
	EmittedAtMs int64           `json:"emittedAtMs"`
}

// wireError is a response's error.
type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// wireClientInfo names the client in initialize.
type wireClientInfo struct {
	Name    string  `json:"name"`
	Title   *string `json:"title,omitempty"`
	Version string  `json:"version"`
}

type wireInitializeCapabilities struct {
	ExperimentalAPI           bool     `json:"experimentalApi,omitempty"`
	OptOutNotificationMethods []string `json:"optOutNotificationMethods,omitempty"`
}

type wireInitializeParams struct {
	ClientInfo   wireClientInfo              `json:"clientInfo"`
	Capabilities *wireInitializeCapabilities `json:"capabilities,omitempty"`
}

type wireInitializeResponse struct {
	UserAgent      string `json:"userAgent"`
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOS     string `json:"platformOs"`
}

// wireThreadOptions are the members thread/start, thread/resume and
// thread/fork share.
type wireThreadOptions struct {
	CWD                   string          `json:"cwd,omitempty"`
	Model                 string          `json:"model,omitempty"`
	ModelProvider         string          `json:"modelProvider,omitempty"`
	ApprovalPolicy        json.RawMessage `json:"approvalPolicy,omitempty"`
	Sandbox               string          `json:"sandbox,omitempty"`
	Config                json.RawMessage `json:"config,omitempty"`
	BaseInstructions      string          `json:"baseInstructions,omitempty"`
	DeveloperInstructions string          `json:"developerInstructions,omitempty"`
}

type wireThreadStartParams struct {
	wireThreadOptions
	Ephemeral bool `json:"ephemeral,omitempty"`
}

type wireThreadResumeParams struct {
	ThreadID string `json:"threadId"`
	wireThreadOptions
	ExcludeTurns bool `json:"excludeTurns,omitempty"`
}

type wireThreadForkParams struct {
	ThreadID string `json:"threadId"`
	wireThreadOptions
	Ephemeral    bool `json:"ephemeral,omitempty"`
	ExcludeTurns bool `json:"excludeTurns,omitempty"`
}

// wireThreadResponse is the answer to thread/start, thread/resume and
// thread/fork.
type wireThreadResponse struct {
	Thread            wireThread        `json:"thread"`
	Model             string            `json:"model"`
	ModelProvider     string            `json:"modelProvider"`
	ReasoningEffort   string            `json:"reasoningEffort"`
	CWD               string            `json:"cwd"`
	ApprovalPolicy    json.RawMessage   `json:"approvalPolicy"`
	ApprovalsReviewer string            `json:"approvalsReviewer"`
	Sandbox           wireSandboxPolicy `json:"sandbox"`
}

type wireSandboxPolicy struct {
	Type          string   `json:"type"`
	NetworkAccess any      `json:"networkAccess,omitempty"` // a bool, or "restricted"/"enabled" for externalSandbox
	WritableRoots []string `json:"writableRoots,omitempty"`
}

type wireThread struct {
	ID              string           `json:"id"`
	SessionID       string           `json:"sessionId"`
	ForkedFromID    string           `json:"forkedFromId"`
	Name            string           `json:"name"`
	Preview         string           `json:"preview"`
	CWD             string           `json:"cwd"`
	Path            string           `json:"path"`
	Model           string           `json:"model"`
	ModelProvider   string           `json:"modelProvider"`
	ReasoningEffort string           `json:"reasoningEffort"`
	CLIVersion      string           `json:"cliVersion"`
	Source          json.RawMessage  `json:"source"`
	ProjectID       string           `json:"projectId"`
	Ephemeral       bool             `json:"ephemeral"`
	CreatedAt       int64            `json:"createdAt"`
	UpdatedAt       int64            `json:"updatedAt"`
	Status          wireThreadStatus `json:"status"`
	Turns           []wireTurn       `json:"turns"`
}

type wireThreadStatus struct {
	Type        string   `json:"type"`
	ActiveFlags []string `json:"activeFlags"`
}

type wireTurn struct {
	ID          string            `json:"id"`
	Items       []json.RawMessage `json:"items"`
	ItemsView   string            `json:"itemsView"`
	Status      string            `json:"status"`
	Error       *wireTurnError    `json:"error"`
	StartedAt   int64             `json:"startedAt"`
	CompletedAt int64             `json:"completedAt"`
	DurationMs  int64             `json:"durationMs"`
}

type wireTurnError struct {
	Message           string          `json:"message"`
	CodexErrorInfo    json.RawMessage `json:"codexErrorInfo"`
	AdditionalDetails string          `json:"additionalDetails"`
}

type wireThreadListParams struct {
	Cursor     string `json:"cursor,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Archived   bool   `json:"archived,omitempty"`
	SearchTerm string `json:"searchTerm,omitempty"`
}

type wireThreadListResponse struct {
	Data       []wireThread `json:"data"`
	NextCursor string       `json:"nextCursor"`
}

type wireThreadReadParams struct {
	ThreadID     string `json:"threadId"`
	IncludeTurns bool   `json:"includeTurns,omitempty"`
}

// wireThreadIDParams are the params of the methods that take a thread id
// alone: thread/archive and thread/unarchive.
type wireThreadIDParams struct {
	ThreadID string `json:"threadId"`
}

// wireThreadAnswer is the answer to thread/read and thread/unarchive.
type wireThreadAnswer struct {
	Thread wireThread `json:"thread"`
}

type wireThreadSetNameParams struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
}

type wireThreadTurnsListParams struct {
	ThreadID string `json:"threadId"`
	Cursor   string `json:"cursor,omitempty"`
	Limit    int    `json:"limit,omitempty"`
}

type wireThreadTurnsListResponse struct {
	Data       []wireTurn `json:"data"`
	NextCursor string     `json:"nextCursor"`
}

type wireTurnStartParams struct {
	ThreadID       string             `json:"threadId"`
	Input          []wireUserInput    `json:"input"`
	CWD            string             `json:"cwd,omitempty"`
	Model          string             `json:"model,omitempty"`
	Effort         string             `json:"effort,omitempty"`
	ApprovalPolicy json.RawMessage    `json:"approvalPolicy,omitempty"`
	SandboxPolicy  *wireSandboxPolicy `json:"sandboxPolicy,omitempty"`
	Summary        string             `json:"summary,omitempty"`
	OutputSchema   json.RawMessage    `json:"outputSchema,omitempty"`
}

// wireUserInput is one part of a turn's input.
type wireUserInput struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text,omitempty"`
	TextElements json.RawMessage `json:"text_elements,omitempty"`
	URL          string          `json:"url,omitempty"`
	Path         string          `json:"path,omitempty"`
	Name         string          `json:"name,omitempty"`
}

// wireTurnAnswer is the answer to turn/start, and the params of
// turn/started and turn/completed.
type wireTurnAnswer struct {
	ThreadID string   `json:"threadId,omitempty"`
	Turn     wireTurn `json:"turn"`
}

type wireTurnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

type wireModelListParams struct {
	Cursor        string `json:"cursor,omitempty"`
	Limit         int    `json:"limit,omitempty"`
	IncludeHidden bool   `json:"includeHidden,omitempty"`
}

type wireModelListResponse struct {
	Data       []wireModel `json:"data"`
	NextCursor string      `json:"nextCursor"`
}

type wireModel struct {
	ID                        string                `json:"id"`
	Model                     string                `json:"model"`
	DisplayName               string                `json:"displayName"`
	Description               string                `json:"description"`
	Hidden                    bool                  `json:"hidden"`
	IsDefault                 bool                  `json:"isDefault"`
	DefaultReasoningEffort    string                `json:"defaultReasoningEffort"`
	SupportedReasoningEfforts []wireReasoningEffort `json:"supportedReasoningEfforts"`
	InputModalities           []string              `json:"inputModalities"`
}

type wireReasoningEffort struct {
	ReasoningEffort string `json:"reasoningEffort"`
	Description     string `json:"description"`
}

// Notifications.

type wireThreadStarted struct {
	Thread wireThread `json:"thread"`
}

type wireThreadStatusChanged struct {
	ThreadID string           `json:"threadId"`
	Status   wireThreadStatus `json:"status"`
}

type wireThreadNameUpdated struct {
	ThreadID   string `json:"threadId"`
	ThreadName string `json:"threadName"`
}

type wireItemStarted struct {
	Item        json.RawMessage `json:"item"`
	ThreadID    string          `json:"threadId"`
	TurnID      string          `json:"turnId"`
	StartedAtMs int64           `json:"startedAtMs"`
}

type wireItemCompleted struct {
	Item          json.RawMessage `json:"item"`
	ThreadID      string          `json:"threadId"`
	TurnID        string          `json:"turnId"`
	CompletedAtMs int64           `json:"completedAtMs"`
}

// wireItemDelta is a streamed piece of an item: of an agent message, a
// command's output.
type wireItemDelta struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Delta    string `json:"delta"`
}

type wireSummaryDelta struct {
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	Delta        string `json:"delta"`
	SummaryIndex int    `json:"summaryIndex"`
}

type wireReasoningTextDelta struct {
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	Delta        string `json:"delta"`
	ContentIndex int    `json:"contentIndex"`
}

type wireMcpToolCallProgress struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Message  string `json:"message"`
}

type wireTurnDiffUpdated struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Diff     string `json:"diff"`
}

type wireTurnPlanUpdated struct {
	ThreadID    string         `json:"threadId"`
	TurnID      string         `json:"turnId"`
	Explanation string         `json:"explanation"`
	Plan        []wirePlanStep `json:"plan"`
}

type wirePlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

type wireTokenUsageUpdated struct {
	ThreadID   string               `json:"threadId"`
	TurnID     string               `json:"turnId"`
	TokenUsage wireThreadTokenUsage `json:"tokenUsage"`
}

type wireThreadTokenUsage struct {
	Total              wireTokenCounts `json:"total"`
	Last               wireTokenCounts `json:"last"`
	ModelContextWindow int64           `json:"modelContextWindow"`
}

type wireTokenCounts struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

type wireRateLimitsUpdated struct {
	RateLimits wireRateLimits `json:"rateLimits"`
}

type wireRateLimits struct {
	LimitID              string               `json:"limitId"`
	LimitName            string               `json:"limitName"`
	Primary              *wireRateLimitWindow `json:"primary"`
	Secondary            *wireRateLimitWindow `json:"secondary"`
	Credits              json.RawMessage      `json:"credits"`
	PlanType             string               `json:"planType"`
	RateLimitReachedType string               `json:"rateLimitReachedType"`
}

type wireRateLimitWindow struct {
	UsedPercent        float64 `json:"usedPercent"`
	WindowDurationMins int64   `json:"windowDurationMins"`
	ResetsAt           int64   `json:"resetsAt"`
}

type wireErrorNotification struct {
	Error     wireTurnError `json:"error"`
	WillRetry bool          `json:"willRetry"`
	ThreadID  string        `json:"threadId"`
	TurnID    string        `json:"turnId"`
}

type wireServerRequestResolved struct {
	ThreadID  string          `json:"threadId"`
	RequestID json.RawMessage `json:"requestId"`
}

type wireMcpServerStatusUpdated struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Error    string `json:"error"`
}

type wireWarning struct {
	ThreadID string `json:"threadId"`
	Message  string `json:"message"`
}

// wireNotice is a configWarning or a deprecationNotice.
type wireNotice struct {
	Summary string `json:"summary"`
	Details string `json:"details"`
}

// Items: one struct per type of ThreadItem this package models.

type wireItemHeader struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type wireUserMessageItem struct {
	Type    string            `json:"type"`
	ID      string            `json:"id"`
	Content []json.RawMessage `json:"content"`
}

type wireAgentMessageItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Text string `json:"text"`
}

type wireReasoningItem struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	Summary []string `json:"summary"`
	Content []string `json:"content"`
}

type wireCommandItem struct {
	Type             string              `json:"type"`
	ID               string              `json:"id"`
	Command          string              `json:"command"`
	CWD              string              `json:"cwd"`
	Status           string              `json:"status"`
	CommandActions   []wireCommandAction `json:"commandActions"`
	AggregatedOutput string              `json:"aggregatedOutput"`
	ExitCode         *int                `json:"exitCode"`
	DurationMs       int64               `json:"durationMs"`
}

type wireCommandAction struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name"`
	Path    string `json:"path"`
	Query   string `json:"query"`
}

type wireFileChangeItem struct {
	Type    string           `json:"type"`
	ID      string           `json:"id"`
	Changes []wireFileChange `json:"changes"`
	Status  string           `json:"status"`
}

type wireFileChange struct {
	Path string        `json:"path"`
	Kind wirePatchKind `json:"kind"`
	Diff string        `json:"diff"`
}

type wirePatchKind struct {
	Type     string `json:"type"`
	MovePath string `json:"move_path"`
}

type wireFileChangePatchUpdated struct {
	ThreadID string           `json:"threadId"`
	TurnID   string           `json:"turnId"`
	ItemID   string           `json:"itemId"`
	Changes  []wireFileChange `json:"changes"`
}

type wireMcpToolCallItem struct {
	Type       string            `json:"type"`
	ID         string            `json:"id"`
	Server     string            `json:"server"`
	Tool       string            `json:"tool"`
	Status     string            `json:"status"`
	Arguments  json.RawMessage   `json:"arguments"`
	Result     json.RawMessage   `json:"result"`
	Error      *wireMcpToolError `json:"error"`
	DurationMs int64             `json:"durationMs"`
}

type wireMcpToolError struct {
	Message string `json:"message"`
}

type wireWebSearchItem struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Query  string          `json:"query"`
	Action json.RawMessage `json:"action"`
}

// Server requests and their answers.

type wireCommandApprovalParams struct {
	ThreadID                    string              `json:"threadId"`
	TurnID                      string              `json:"turnId"`
	ItemID                      string              `json:"itemId"`
	ApprovalID                  string              `json:"approvalId"`
	Command                     string              `json:"command"`
	CWD                         string              `json:"cwd"`
	CommandActions              []wireCommandAction `json:"commandActions"`
	Reason                      string              `json:"reason"`
	ProposedExecpolicyAmendment []string            `json:"proposedExecpolicyAmendment"`
	NetworkApprovalContext      json.RawMessage     `json:"networkApprovalContext"`
	StartedAtMs                 int64               `json:"startedAtMs"`
	// AvailableDecisions is sent by the server but not in its schema.
	AvailableDecisions []json.RawMessage `json:"availableDecisions"`
}

type wireFileChangeApprovalParams struct {
	ThreadID    string `json:"threadId"`
	TurnID      string `json:"turnId"`
	ItemID      string `json:"itemId"`
	Reason      string `json:"reason"`
	GrantRoot   string `json:"grantRoot"`
	StartedAtMs int64  `json:"startedAtMs"`
}

type wireElicitationParams struct {
	ThreadID        string          `json:"threadId"`
	TurnID          string          `json:"turnId"`
	ServerName      string          `json:"serverName"`
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
	Meta            json.RawMessage `json:"_meta"`
}

// wireElicitationMeta are the members of an elicitation's _meta that the
// CLI sets on a tool approval; not in the schema, where _meta is any.
type wireElicitationMeta struct {
	ApprovalKind string          `json:"codex_approval_kind"`
	ToolName     string          `json:"tool_name"`
	ToolParams   json.RawMessage `json:"tool_params"`
	Persist      json.RawMessage `json:"persist"`
}

// wireApprovalResponse answers a command or file change approval.
type wireApprovalResponse struct {
	Decision Decision `json:"decision"`
}

// wireElicitationResponse answers an elicitation.
type wireElicitationResponse struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// Conversions from the wire to the package's types.

// secondsToMillis converts the server's epoch seconds to milliseconds,
// keeping 0 (unknown) and refusing what would overflow.
func secondsToMillis(s int64) int64 {
	if s <= 0 || s > 1<<53/1000 {
		return 0
	}
	return s * 1000
}

func (w *wireThread) thread() Thread {
	t := Thread{
		ID: w.ID, SessionID: w.SessionID, ForkedFromID: w.ForkedFromID, Name: w.Name,
		Preview: w.Preview, CWD: w.CWD, Path: w.Path, Model: w.Model, ModelProvider: w.ModelProvider,
		ReasoningEffort: w.ReasoningEffort, CLIVersion: w.CLIVersion, Source: stringOrJSON(w.Source),
		ProjectID: w.ProjectID, Ephemeral: w.Ephemeral,
		CreatedAt: secondsToMillis(w.CreatedAt), UpdatedAt: secondsToMillis(w.UpdatedAt),
		Status: w.Status.status(),
	}
	for i := range w.Turns {
		t.Turns = append(t.Turns, w.Turns[i].turn(w.ID))
	}
	return t
}

// stringOrJSON is a string value as a string, any other value as its JSON
// text; "" for null or absent.
func stringOrJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return b.String()
}

func (w wireThreadStatus) status() ThreadStatus {
	return ThreadStatus{Type: w.Type, Flags: w.ActiveFlags}
}

func (w *wireTurn) turn(threadID string) ThreadTurn {
	t := ThreadTurn{
		ID: w.ID, Status: TurnStatus(w.Status), ItemsView: w.ItemsView,
		StartedAt: secondsToMillis(w.StartedAt), CompletedAt: secondsToMillis(w.CompletedAt),
		DurationMs: max(w.DurationMs, 0),
	}
	if w.Error != nil {
		e := w.Error.turnError()
		t.Error = &e
	}
	for _, raw := range w.Items {
		if e, ok := parseAppItem(raw, PhaseCompleted, threadID, w.ID); ok {
			t.Items = append(t.Items, e)
		}
	}
	return t
}

func (w *wireTurnError) turnError() TurnError {
	e := TurnError{Message: w.Message, Details: w.AdditionalDetails}
	e.Kind, e.HTTPStatus = errorInfo(w.CodexErrorInfo)
	return e
}

// errorInfo reads a codexErrorInfo: a string naming the failure, or an
// object of one member naming it, whose value may hold an
// httpStatusCode.
func errorInfo(raw json.RawMessage) (kind string, status int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", 0
	}
	if raw[0] == '"' {
		_ = json.Unmarshal(raw, &kind)
		return kind, 0
	}
	var obj map[string]json.RawMessage
	if !decodeWire(raw, &obj) || len(obj) != 1 {
		return "", 0
	}
	for k, v := range obj {
		kind = k
		var inner struct {
			HTTPStatusCode int `json:"httpStatusCode"`
		}
		if decodeWire(v, &inner) && inner.HTTPStatusCode >= 100 && inner.HTTPStatusCode <= 999 {
			status = inner.HTTPStatusCode
		}
	}
	return kind, status
}

func (w *wireSandboxPolicy) policy() SandboxPolicy {
	p := SandboxPolicy{Type: w.Type, WritableRoots: w.WritableRoots}
	switch v := w.NetworkAccess.(type) {
	case bool:
		p.NetworkAccess = v
	case string:
		p.NetworkAccess = v == "enabled"
	}
	return p
}

func (w *wireThreadResponse) result() ThreadResult {
	return ThreadResult{
		Thread: w.Thread.thread(), Model: w.Model, ModelProvider: w.ModelProvider,
		ReasoningEffort: w.ReasoningEffort, CWD: w.CWD,
		ApprovalPolicy: ApprovalPolicy(stringOrJSON(w.ApprovalPolicy)), Sandbox: w.Sandbox.policy(),
	}
}

func (w *wireModel) model() Model {
	m := Model{
		ID: w.ID, Model: w.Model, DisplayName: w.DisplayName, Description: w.Description,
		Hidden: w.Hidden, IsDefault: w.IsDefault, DefaultEffort: w.DefaultReasoningEffort,
		InputModalities: w.InputModalities,
	}
	for _, e := range w.SupportedReasoningEfforts {
		m.Efforts = append(m.Efforts, Effort{Effort: e.ReasoningEffort, Description: e.Description})
	}
	return m
}

func (w wireTokenCounts) counts() TokenCounts {
	return TokenCounts{
		Input: max(w.InputTokens, 0), CachedInput: max(w.CachedInputTokens, 0),
		CacheWriteInput: max(w.CacheWriteInputTokens, 0), Output: max(w.OutputTokens, 0),
		ReasoningOutput: max(w.ReasoningOutputTokens, 0), Total: max(w.TotalTokens, 0),
	}
}

func (w *wireRateLimitWindow) window() *RateLimitWindow {
	if w == nil {
		return nil
	}
	return &RateLimitWindow{
		UsedPercent:   int(min(max(w.UsedPercent, 0), 100)),
		WindowMinutes: max(w.WindowDurationMins, 0),
		ResetsAt:      secondsToMillis(w.ResetsAt),
	}
}

func (w wireCommandAction) action() CommandAction {
	return CommandAction(w)
}

func commandActions(w []wireCommandAction) []CommandAction {
	var out []CommandAction
	for _, a := range w {
		out = append(out, a.action())
	}
	return out
}

// commandKind is a command's kind of action from what the CLI reads it as
// doing: read when every action reads a file, search when every one lists
// or searches files, execute otherwise.
func commandKind(actions []CommandAction) ToolKind {
	kind := ToolKind("")
	for _, a := range actions {
		k := ToolKindExecute
		switch a.Type {
		case "read":
			k = ToolKindRead
		case "listFiles", "search":
			k = ToolKindSearch
		}
		if kind != "" && k != kind {
			return ToolKindExecute
		}
		kind = k
	}
	if kind == "" {
		return ToolKindExecute
	}
	return kind
}

// appStatus maps the app-server's item statuses onto the ones `codex
// exec` prints, so that one set of constants serves both.
func appStatus(s string) Status {
	if s == "inProgress" {
		return StatusInProgress
	}
	return Status(s)
}

func fileChanges(w []wireFileChange) []Change {
	var out []Change
	for _, c := range w {
		out = append(out, withHunks(Change{Path: c.Path, Kind: ChangeKind(c.Kind.Type), Diff: c.Diff, MovePath: c.Kind.MovePath}))
	}
	return out
}

// webSearchAction maps the app-server's action types onto the ones `codex
// exec` prints.
var webSearchAction = map[string]string{"openPage": "open_page", "findInPage": "find_in_page"}

// parseAppItem reads a ThreadItem of the app-server as the event `codex
// exec` gives for the same item; an agent message or a reasoning item
// gives one only when complete. ok is false for an item that gives none,
// and for a value that is not an object.
func parseAppItem(raw json.RawMessage, phase Phase, threadID, turnID string) (Event, bool) {
	var h wireItemHeader
	if !decodeWire(raw, &h) || len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, false
	}
	switch h.Type {
	case "userMessage":
		var w wireUserMessageItem
		decodeWire(raw, &w)
		if phase != PhaseCompleted {
			return nil, false
		}
		m := UserMessage{ItemID: w.ID, ThreadID: threadID, TurnID: turnID}
		var texts []string
		for _, in := range w.Content {
			m.Inputs = append(m.Inputs, compactJSON(in))
			var part wireUserInput
			if decodeWire(in, &part) && part.Type == "text" && part.Text != nil {
				texts = append(texts, *part.Text)
			}
		}
		m.Text = strings.Join(texts, "\n")
		return m, true
	case "agentMessage":
		var w wireAgentMessageItem
		decodeWire(raw, &w)
		if phase != PhaseCompleted {
			return nil, false
		}
		return Text{ItemID: w.ID, Text: w.Text, ThreadID: threadID, TurnID: turnID}, true
	case "reasoning":
		var w wireReasoningItem
		decodeWire(raw, &w)
		if phase != PhaseCompleted {
			return nil, false
		}
		return Reasoning{ItemID: w.ID, Text: strings.Join(w.Summary, "\n\n"), ThreadID: threadID, TurnID: turnID}, true
	case "commandExecution":
		var w wireCommandItem
		decodeWire(raw, &w)
		actions := commandActions(w.CommandActions)
		e := CommandExecution{
			ItemID: w.ID, Phase: phase, Kind: commandKind(actions), Command: w.Command,
			Output: w.AggregatedOutput, Status: appStatus(w.Status),
			ThreadID: threadID, TurnID: turnID, CWD: w.CWD, Actions: actions, DurationMs: max(w.DurationMs, 0),
		}
		if w.ExitCode != nil {
			e.ExitCode, e.HasExitCode = *w.ExitCode, true
		}
		return e, true
	case "fileChange":
		var w wireFileChangeItem
		decodeWire(raw, &w)
		changes := fileChanges(w.Changes)
		return FileChange{ItemID: w.ID, Phase: phase, Kind: changeKind(changes), Changes: changes,
			Status: appStatus(w.Status), ThreadID: threadID, TurnID: turnID}, true
	case "webSearch":
		var w wireWebSearchItem
		decodeWire(raw, &w)
		var action wireItemHeader
		decodeWire(w.Action, &action)
		typ := action.Type
		if t, ok := webSearchAction[typ]; ok {
			typ = t
		}
		kind := ToolKindSearch
		if typ == "open_page" {
			kind = ToolKindFetch
		}
		return WebSearch{ItemID: w.ID, Phase: phase, Kind: kind, Query: w.Query, ActionType: typ,
			Action: objectJSON(w.Action), ThreadID: threadID, TurnID: turnID}, true
	case "mcpToolCall":
		var w wireMcpToolCallItem
		decodeWire(raw, &w)
		e := MCPToolCall{ItemID: w.ID, Phase: phase, Kind: ToolKindOther, Server: w.Server, Tool: w.Tool,
			Arguments: valueJSON(w.Arguments), Result: valueJSON(w.Result), Status: appStatus(w.Status),
			ThreadID: threadID, TurnID: turnID, DurationMs: max(w.DurationMs, 0)}
		if w.Error != nil {
			e.Error = w.Error.Message
		}
		return e, true
	}
	return UnknownItem{ItemID: h.ID, Phase: phase, Type: h.Type, Raw: compactJSON(raw), ThreadID: threadID, TurnID: turnID}, true
}

// compactJSON returns raw without insignificant white space, in a slice of
// its own.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// valueJSON is compactJSON, with nil for null and absent.
func valueJSON(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return compactJSON(raw)
}

// objectJSON is valueJSON for an object, nil for any other value.
func objectJSON(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	return compactJSON(raw)
}

// idText returns a request id's JSON text, compact: 0, or "abc" with its
// quotes; "" for an id that is neither a string nor an integer.
func idText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		b, _ := json.Marshal(s)
		return string(b)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
