package acp

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Update is the update member of a session/update notification, one of:
//
//   - [UserMessageChunk], [AgentMessageChunk], [AgentThoughtChunk]: streamed content;
//   - [ToolCall], [ToolCallUpdate]: a tool call starting and progressing;
//   - [Plan]: the agent's execution plan, replaced whole on each update;
//   - [AvailableCommandsUpdate], [CurrentModeUpdate], [ConfigOptionUpdate],
//     [SessionInfoUpdate]: session state that changed;
//   - [UsageUpdate]: context window use and cost;
//   - [Notice]: a message for the user, sent only to clients that accept it;
//   - [PlanUpdate], [PlanRemoved]: one of several plans changed (Unstable);
//   - [CompactionUpdate], [CompactionSummaryChunk]: the context is being
//     compacted (Unstable);
//   - [UnknownUpdate]: a variant this package does not know, kept raw.
//
// The set is closed: only package acp adds variants. Each variant marshals
// with its "sessionUpdate" discriminator; send and receive them in a
// [SessionNotification] with [SessionUpdate].
type Update interface {
	// updateKind returns the "sessionUpdate" discriminator.
	updateKind() string
}

// StopReason tells why an agent ended a prompt turn.
type StopReason string

// The stop reasons of ACP v1.
const (
	StopReasonEndTurn         StopReason = "end_turn"          // the turn ended normally
	StopReasonMaxTokens       StopReason = "max_tokens"        // the model's token limit was reached
	StopReasonMaxTurnRequests StopReason = "max_turn_requests" // the agent's limit of model requests per turn was reached
	StopReasonRefusal         StopReason = "refusal"           // the agent refused to continue
	StopReasonCancelled       StopReason = "cancelled"         // the client sent session/cancel
)

// ToolKind is the category of a tool call, for choosing an icon.
type ToolKind string

// The tool kinds of ACP v1.
const (
	ToolKindRead       ToolKind = "read"
	ToolKindEdit       ToolKind = "edit"
	ToolKindDelete     ToolKind = "delete"
	ToolKindMove       ToolKind = "move"
	ToolKindSearch     ToolKind = "search"
	ToolKindExecute    ToolKind = "execute"
	ToolKindThink      ToolKind = "think"
	ToolKindFetch      ToolKind = "fetch"
	ToolKindSwitchMode ToolKind = "switch_mode"
	ToolKindOther      ToolKind = "other" // the default
)

// ToolCallStatus is where a tool call is in its life.
type ToolCallStatus string

// The tool call statuses of ACP v1.
const (
	ToolCallStatusPending    ToolCallStatus = "pending" // not started: input streaming or awaiting permission
	ToolCallStatusInProgress ToolCallStatus = "in_progress"
	ToolCallStatusCompleted  ToolCallStatus = "completed"
	ToolCallStatusFailed     ToolCallStatus = "failed"
)

// PlanEntryPriority is the importance of a plan entry.
type PlanEntryPriority string

// The plan entry priorities of ACP v1.
const (
	PlanPriorityHigh   PlanEntryPriority = "high"
	PlanPriorityMedium PlanEntryPriority = "medium"
	PlanPriorityLow    PlanEntryPriority = "low"
)

// PlanEntryStatus is the progress of a plan entry.
type PlanEntryStatus string

// The plan entry statuses of ACP v1.
const (
	PlanStatusPending    PlanEntryStatus = "pending"
	PlanStatusInProgress PlanEntryStatus = "in_progress"
	PlanStatusCompleted  PlanEntryStatus = "completed"
)

// ContentChunk is a piece of a streamed message: the fields of
// [UserMessageChunk], [AgentMessageChunk] and [AgentThoughtChunk].
type ContentChunk struct {
	Content ContentBlock `json:"content"`
	// MessageID groups the chunks of one message; "" means unspecified.
	MessageID string          `json:"messageId,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UserMessageChunk is a piece of the user's message, sent while replaying a
// session's history (session/load).
type UserMessageChunk ContentChunk

// AgentMessageChunk is a piece of the agent's reply.
type AgentMessageChunk ContentChunk

// AgentThoughtChunk is a piece of the agent's reasoning.
type AgentThoughtChunk ContentChunk

// ToolCall reports a tool call the model asked for.
type ToolCall struct {
	// ToolCallID identifies the call within the session.
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	// Kind is the tool's category; "" means other.
	Kind ToolKind `json:"kind,omitempty"`
	// Status is the call's status; "" means pending.
	Status    ToolCallStatus     `json:"status,omitempty"`
	Content   []ToolCallContent  `json:"content,omitempty"`
	Locations []ToolCallLocation `json:"locations,omitempty"`
	// RawInput and RawOutput are the tool's input and output as JSON; nil
	// means absent.
	RawInput  json.RawMessage `json:"rawInput,omitempty"`
	RawOutput json.RawMessage `json:"rawOutput,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallUpdate changes some fields of an earlier [ToolCall]; a zero field
// is left unchanged. Content and Locations replace the call's lists when
// non-nil: a non-nil empty slice clears them.
type ToolCallUpdate struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
	Meta       json.RawMessage    `json:"_meta,omitempty"`
}

// ToolCallLocation is a file a tool call reads or changes, so a client can
// follow along.
type ToolCallLocation struct {
	// Path is absolute.
	Path string `json:"path"`
	// Line is 1-based; nil means the whole file.
	Line *int            `json:"line,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallContent is an item of a tool call's output: [ToolCallContentBlock],
// [ToolCallDiff], [ToolCallTerminal], or [UnknownToolCallContent]. The set
// is closed; each variant marshals with its "type" discriminator.
type ToolCallContent interface {
	toolContentType() string
}

// ToolCallContentBlock is a content block produced by a tool.
type ToolCallContentBlock struct {
	Content ContentBlock    `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallDiff is a change to a file.
type ToolCallDiff struct {
	// Path is absolute.
	Path string `json:"path"`
	// OldText is the text before the change; nil for a new file.
	OldText *string         `json:"oldText,omitempty"`
	NewText string          `json:"newText"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ToolCallTerminal embeds a terminal created with terminal/create.
type ToolCallTerminal struct {
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnknownToolCallContent is tool output of a type this package does not
// know, kept as received.
type UnknownToolCallContent struct {
	Type string
	// Raw is the item as received, byte for byte.
	Raw json.RawMessage
}

func (ToolCallContentBlock) toolContentType() string     { return "content" }
func (ToolCallDiff) toolContentType() string             { return "diff" }
func (ToolCallTerminal) toolContentType() string         { return "terminal" }
func (c UnknownToolCallContent) toolContentType() string { return c.Type }

// MarshalJSON encodes the item with "type":"content".
func (c ToolCallContentBlock) MarshalJSON() ([]byte, error) {
	type plain ToolCallContentBlock
	return marshalTagged("type", c.toolContentType(), plain(c))
}

// MarshalJSON encodes the item with "type":"diff".
func (c ToolCallDiff) MarshalJSON() ([]byte, error) {
	type plain ToolCallDiff
	return marshalTagged("type", c.toolContentType(), plain(c))
}

// MarshalJSON encodes the item with "type":"terminal".
func (c ToolCallTerminal) MarshalJSON() ([]byte, error) {
	type plain ToolCallTerminal
	return marshalTagged("type", c.toolContentType(), plain(c))
}

// MarshalJSON returns Raw unchanged, or {"type":Type} when Raw is empty.
func (c UnknownToolCallContent) MarshalJSON() ([]byte, error) {
	if len(c.Raw) == 0 {
		return marshalTagged("type", c.Type, struct{}{})
	}
	return c.Raw, nil
}

// Plan is the agent's execution plan. Each Plan replaces the previous one
// whole.
type Plan struct {
	Entries []PlanEntry     `json:"entries"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// PlanEntry is one task of a [Plan].
type PlanEntry struct {
	Content  string            `json:"content"`
	Priority PlanEntryPriority `json:"priority"`
	Status   PlanEntryStatus   `json:"status"`
	Meta     json.RawMessage   `json:"_meta,omitempty"`
}

// AvailableCommandsUpdate announces the slash commands the agent offers,
// replacing any earlier list.
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands"`
	Meta              json.RawMessage    `json:"_meta,omitempty"`
}

// AvailableCommand is a command the user can invoke.
type AvailableCommand struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Input describes the command's free-text input; nil means none.
	Input *CommandInput   `json:"input,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// CommandInput says a command takes the text typed after its name.
type CommandInput struct {
	// Hint is shown while the input is empty.
	Hint string          `json:"hint"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CurrentModeUpdate reports that the session's mode changed.
type CurrentModeUpdate struct {
	CurrentModeID string          `json:"currentModeId"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ConfigOptionUpdate reports the full set of session configuration options
// and their current values.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
}

// SessionConfigOption is a session setting the user can change with
// session/set_config_option, such as the model or the mode.
type SessionConfigOption struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Category is a UX hint: "mode", "model", "model_config",
	// "thought_level", or a name starting with "_"; "" means none.
	Category string `json:"category,omitempty"`
	// Type is the kind of control: [ConfigOptionSelect] (CurrentValue and
	// Options), [ConfigOptionBoolean] (CurrentBool), or another kind kept in Raw.
	Type string `json:"type"`
	// CurrentValue is the id of the selected value of a select option.
	CurrentValue string `json:"currentValue"`
	// Options holds a select option's values as sent: an array of
	// {value, name, description?} or of groups {group, name, options}.
	Options json.RawMessage `json:"options"`
	// CurrentBool is the value of a boolean option.
	CurrentBool bool            `json:"-"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole option as received when Type is neither select nor
	// boolean; MarshalJSON sends it unchanged.
	Raw json.RawMessage `json:"-"`
}

// The kinds of [SessionConfigOption] this package reads member by member.
const (
	ConfigOptionSelect  = "select"
	ConfigOptionBoolean = "boolean"
)

// MarshalJSON encodes the option with the members of its Type: a select
// option's currentValue is its id and options an array (nil is sent as
// []), a boolean option's currentValue is true or false, and an option of
// another type is Raw unchanged.
func (o SessionConfigOption) MarshalJSON() ([]byte, error) {
	type common struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Category    string `json:"category,omitempty"`
		Type        string `json:"type"`
	}
	c := common{o.ID, o.Name, o.Description, o.Category, o.Type}
	switch o.Type {
	case ConfigOptionSelect:
		opts := o.Options
		if len(opts) == 0 {
			opts = json.RawMessage("[]")
		}
		return json.Marshal(struct {
			common
			CurrentValue string          `json:"currentValue"`
			Options      json.RawMessage `json:"options"`
			Meta         json.RawMessage `json:"_meta,omitempty"`
		}{c, o.CurrentValue, opts, o.Meta})
	case ConfigOptionBoolean:
		return json.Marshal(struct {
			common
			CurrentValue bool            `json:"currentValue"`
			Meta         json.RawMessage `json:"_meta,omitempty"`
		}{c, o.CurrentBool, o.Meta})
	}
	if len(o.Raw) == 0 {
		return json.Marshal(struct {
			common
			Meta json.RawMessage `json:"_meta,omitempty"`
		}{c, o.Meta})
	}
	return o.Raw, nil
}

// UnmarshalJSON decodes the option with the checks of [DecodeParams]; null
// leaves o unchanged.
func (o *SessionConfigOption) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var v SessionConfigOption
	f := readFields(data, "")
	if f.err == nil {
		decodeConfigOption(f, &v)
	}
	if f.err != nil {
		return invalidParams(f.err)
	}
	*o = v
	return nil
}

// SessionInfoUpdate changes session metadata. Title and UpdatedAt are nil
// when unchanged; a pointer to "" clears the value (sent as null).
type SessionInfoUpdate struct {
	Title *string `json:"title,omitempty"`
	// UpdatedAt is an ISO 8601 timestamp of the last activity.
	UpdatedAt *string         `json:"updatedAt,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UsageUpdate reports the session's context window use and cost.
type UsageUpdate struct {
	// Used is the number of tokens now in the context.
	Used uint64 `json:"used"`
	// Size is the context window's size in tokens.
	Size uint64 `json:"size"`
	// Cost is the session's cumulative cost; nil means unknown.
	Cost *Cost           `json:"cost,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Cost is an amount of money.
type Cost struct {
	// Amount is in whole units of Currency (dollars, not cents).
	Amount float64 `json:"amount"`
	// Currency is an ISO 4217 code such as "USD".
	Currency string          `json:"currency"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// NoticeSeverity is the presentation severity of a [Notice]. Peers may send
// values beyond the constants (those starting with "_" are extensions);
// they are kept as sent. Unstable, as [Notice].
type NoticeSeverity string

// The notice severities.
const (
	NoticeInfo    NoticeSeverity = "info"
	NoticeWarning NoticeSeverity = "warning"
	NoticeError   NoticeSeverity = "error"
)

// Notice is advisory information for the user that is not part of the
// session's history, such as a rate-limit warning. An agent may send it
// only to a client that declared clientCapabilities.session.notices (see
// [ClientCapabilities.AcceptsNotices]).
//
// Unstable: the notice variant is in ACP's unstable schema only.
type Notice struct {
	Severity NoticeSeverity `json:"severity"`
	// Title is plain text that can stand alone; the schema requires it to
	// be non-empty.
	Title string `json:"title"`
	// Description is optional plain-text detail; "" means none.
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// UnknownUpdate is a session update of a variant this package does not
// know. Decoding one is never an error.
type UnknownUpdate struct {
	// Kind is the "sessionUpdate" discriminator.
	Kind string
	// Raw is the whole update object as received, byte for byte.
	Raw json.RawMessage
}

func (UserMessageChunk) updateKind() string        { return "user_message_chunk" }
func (AgentMessageChunk) updateKind() string       { return "agent_message_chunk" }
func (AgentThoughtChunk) updateKind() string       { return "agent_thought_chunk" }
func (ToolCall) updateKind() string                { return "tool_call" }
func (ToolCallUpdate) updateKind() string          { return "tool_call_update" }
func (Plan) updateKind() string                    { return "plan" }
func (AvailableCommandsUpdate) updateKind() string { return "available_commands_update" }
func (CurrentModeUpdate) updateKind() string       { return "current_mode_update" }
func (ConfigOptionUpdate) updateKind() string      { return "config_option_update" }
func (SessionInfoUpdate) updateKind() string       { return "session_info_update" }
func (UsageUpdate) updateKind() string             { return "usage_update" }
func (Notice) updateKind() string                  { return "notice" }
func (u UnknownUpdate) updateKind() string         { return u.Kind }

const updateTag = "sessionUpdate"

// MarshalJSON encodes the chunk with "sessionUpdate":"user_message_chunk".
func (u UserMessageChunk) MarshalJSON() ([]byte, error) {
	return marshalTagged(updateTag, u.updateKind(), ContentChunk(u))
}

// MarshalJSON encodes the chunk with "sessionUpdate":"agent_message_chunk".
func (u AgentMessageChunk) MarshalJSON() ([]byte, error) {
	return marshalTagged(updateTag, u.updateKind(), ContentChunk(u))
}

// MarshalJSON encodes the chunk with "sessionUpdate":"agent_thought_chunk".
func (u AgentThoughtChunk) MarshalJSON() ([]byte, error) {
	return marshalTagged(updateTag, u.updateKind(), ContentChunk(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"tool_call".
func (u ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"tool_call_update".
// A non-nil empty Content or Locations is sent as [], clearing the list.
func (u ToolCallUpdate) MarshalJSON() ([]byte, error) {
	return marshalTagged(updateTag, u.updateKind(), u.wire())
}

// wire returns the update's fields with Content and Locations sent when
// non-nil, even when empty.
func (u ToolCallUpdate) wire() any {
	type plain ToolCallUpdate
	return struct {
		plain
		Content   *[]ToolCallContent  `json:"content,omitempty"`
		Locations *[]ToolCallLocation `json:"locations,omitempty"`
	}{plain(u), ptrIfNonNil(u.Content), ptrIfNonNil(u.Locations)}
}

func ptrIfNonNil[T any](s []T) *[]T {
	if s == nil {
		return nil
	}
	return &s
}

// MarshalJSON encodes the plan with "sessionUpdate":"plan"; nil Entries is
// sent as [].
func (u Plan) MarshalJSON() ([]byte, error) {
	type plain Plan
	p := plain(u)
	p.Entries = nonNil(p.Entries)
	return marshalTagged(updateTag, u.updateKind(), p)
}

// MarshalJSON encodes the update with
// "sessionUpdate":"available_commands_update"; nil AvailableCommands is sent
// as [].
func (u AvailableCommandsUpdate) MarshalJSON() ([]byte, error) {
	type plain AvailableCommandsUpdate
	p := plain(u)
	p.AvailableCommands = nonNil(p.AvailableCommands)
	return marshalTagged(updateTag, u.updateKind(), p)
}

// MarshalJSON encodes the update with "sessionUpdate":"current_mode_update".
func (u CurrentModeUpdate) MarshalJSON() ([]byte, error) {
	type plain CurrentModeUpdate
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"config_option_update";
// nil ConfigOptions is sent as [].
func (u ConfigOptionUpdate) MarshalJSON() ([]byte, error) {
	type plain ConfigOptionUpdate
	p := plain(u)
	p.ConfigOptions = nonNil(p.ConfigOptions)
	return marshalTagged(updateTag, u.updateKind(), p)
}

// MarshalJSON encodes the update with "sessionUpdate":"session_info_update";
// a pointer to "" is sent as null.
func (u SessionInfoUpdate) MarshalJSON() ([]byte, error) {
	return marshalTagged(updateTag, u.updateKind(), struct {
		Title     json.RawMessage `json:"title,omitempty"`
		UpdatedAt json.RawMessage `json:"updatedAt,omitempty"`
		Meta      json.RawMessage `json:"_meta,omitempty"`
	}{clearable(u.Title), clearable(u.UpdatedAt), u.Meta})
}

// clearable encodes nil as absent, "" as null, and any other string as
// itself.
func clearable(s *string) json.RawMessage {
	switch {
	case s == nil:
		return nil
	case *s == "":
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(*s) // a string always marshals
	return b
}

// MarshalJSON encodes the update with "sessionUpdate":"usage_update".
func (u UsageUpdate) MarshalJSON() ([]byte, error) {
	type plain UsageUpdate
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"notice".
func (u Notice) MarshalJSON() ([]byte, error) {
	type plain Notice
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON returns Raw unchanged, or {"sessionUpdate":Kind} when Raw is
// empty.
func (u UnknownUpdate) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return marshalTagged(updateTag, u.Kind, struct{}{})
	}
	return u.Raw, nil
}

// SessionNotification is the params of a session/update notification.
type SessionNotification struct {
	SessionID string          `json:"sessionId"`
	Update    Update          `json:"update"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the notification with the rules of
// [DecodeParams]; null leaves n unchanged.
func (n *SessionNotification) UnmarshalJSON(data []byte) error { return unmarshalParams(data, n) }

// decodeParams reads a session/update's params. An update of an unknown
// variant becomes an [UnknownUpdate] and is not an error. A known variant
// that breaks the schema (a chunk without content, say) is an error naming
// the member ("update.content"); a client should skip such an update and
// keep reading, as the official TypeScript client does.
func (n *SessionNotification) decodeParams(f *fields) {
	f.str("sessionId", &n.SessionID, true)
	if f.require("update") {
		u, err := decodeUpdate(f.get("update"), "update")
		f.failWith(err)
		n.Update = u
	}
	f.meta(&n.Meta)
}

var errNilUpdate = errors.New("acp: session update is nil")

// MarshalJSON encodes the notification; a nil Update is an error, since
// the schema requires the update.
func (n SessionNotification) MarshalJSON() ([]byte, error) {
	if n.Update == nil {
		return nil, errNilUpdate
	}
	type plain SessionNotification
	return json.Marshal(plain(n))
}

// decodeUpdate decodes one update object (the update member of a
// session/update notification) into its variant; path names it in errors.
func decodeUpdate(raw json.RawMessage, path string) (Update, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		name := path
		if name == "" {
			name = "update"
		}
		return nil, &fieldError{name, "must be an object"}
	}
	f := readFields(raw, path)
	var kind string
	f.str(updateTag, &kind, true)
	if f.err != nil {
		return nil, f.err
	}
	var u Update
	switch kind {
	case "user_message_chunk":
		u = UserMessageChunk(f.contentChunk())
	case "agent_message_chunk":
		u = AgentMessageChunk(f.contentChunk())
	case "agent_thought_chunk":
		u = AgentThoughtChunk(f.contentChunk())
	case "tool_call":
		var v ToolCallUpdate
		f.toolCall(&v, true)
		u = ToolCall(v)
	case "tool_call_update":
		var v ToolCallUpdate
		f.toolCall(&v, false)
		u = v
	case "plan":
		var v Plan
		objects(f, "entries", &v.Entries, true, decodePlanEntry)
		f.meta(&v.Meta)
		u = v
	case "available_commands_update":
		var v AvailableCommandsUpdate
		objects(f, "availableCommands", &v.AvailableCommands, true, func(c *fields, cmd *AvailableCommand) {
			c.str("name", &cmd.Name, true)
			c.str("description", &cmd.Description, true)
			c.object("input", false, func(in *fields) {
				cmd.Input = &CommandInput{}
				in.str("hint", &cmd.Input.Hint, true)
				in.meta(&cmd.Input.Meta)
			})
			c.meta(&cmd.Meta)
		})
		f.meta(&v.Meta)
		u = v
	case "current_mode_update":
		var v CurrentModeUpdate
		f.str("currentModeId", &v.CurrentModeID, true)
		f.meta(&v.Meta)
		u = v
	case "config_option_update":
		var v ConfigOptionUpdate
		objects(f, "configOptions", &v.ConfigOptions, true, decodeConfigOption)
		f.meta(&v.Meta)
		u = v
	case "session_info_update":
		var v SessionInfoUpdate
		f.clearable("title", &v.Title)
		f.clearable("updatedAt", &v.UpdatedAt)
		f.meta(&v.Meta)
		u = v
	case "usage_update":
		var v UsageUpdate
		f.uint("used", &v.Used, true)
		f.uint("size", &v.Size, true)
		f.object("cost", false, func(c *fields) {
			v.Cost = &Cost{}
			c.value("amount", &v.Cost.Amount, true)
			c.str("currency", &v.Cost.Currency, true)
			c.meta(&v.Cost.Meta)
		})
		f.meta(&v.Meta)
		u = v
	case "notice":
		var v Notice
		var severity string
		f.str("severity", &severity, true)
		v.Severity = NoticeSeverity(severity)
		f.str("title", &v.Title, true)
		f.str("description", &v.Description, false)
		f.meta(&v.Meta)
		u = v
	default:
		var ok bool
		if u, ok = decodeUnstableUpdate(f, kind); !ok {
			return UnknownUpdate{Kind: kind, Raw: bytes.Clone(raw)}, nil
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	return u, nil
}

func decodePlanEntry(f *fields, p *PlanEntry) {
	f.str("content", &p.Content, true)
	var s string
	f.str("priority", &s, true)
	p.Priority = PlanEntryPriority(s)
	f.str("status", &s, true)
	p.Status = PlanEntryStatus(s)
	f.meta(&p.Meta)
}

func (f *fields) contentChunk() ContentChunk {
	var c ContentChunk
	f.contentBlock("content", &c.Content)
	f.str("messageId", &c.MessageID, false)
	f.meta(&c.Meta)
	return c
}

func (f *fields) toolKind(dst *ToolKind) {
	var s string
	f.str("kind", &s, false)
	*dst = ToolKind(s)
}

func (f *fields) toolStatus(dst *ToolCallStatus) {
	var s string
	f.str("status", &s, false)
	*dst = ToolCallStatus(s)
}

// toolCall reads the members of a tool call or tool call update (the two
// differ only in whether title is required), for the session update
// variants and session/request_permission.
func (f *fields) toolCall(v *ToolCallUpdate, titleRequired bool) {
	f.str("toolCallId", &v.ToolCallID, true)
	f.str("title", &v.Title, titleRequired)
	f.toolKind(&v.Kind)
	f.toolStatus(&v.Status)
	f.toolContents(&v.Content)
	objects(f, "locations", &v.Locations, false, decodeLocation)
	f.raw("rawInput", &v.RawInput)
	f.raw("rawOutput", &v.RawOutput)
	f.meta(&v.Meta)
}

// clearable reads a member where null means "clear": absent leaves *dst
// nil, null stores "", a string stores itself.
func (f *fields) clearable(key string, dst **string) {
	if f.err != nil {
		return
	}
	v, ok := f.lookup(key)
	if !ok {
		return
	}
	s := ""
	if string(v) != "null" {
		f.str(key, &s, true)
	}
	*dst = &s
}

func decodeLocation(f *fields, l *ToolCallLocation) {
	f.str("path", &l.Path, true)
	if f.has("line") {
		var n uint64
		f.uint("line", &n, true)
		line := int(min(n, 1<<31-1))
		l.Line = &line
	}
	f.meta(&l.Meta)
}

func decodeConfigOption(f *fields, o *SessionConfigOption) {
	f.str("id", &o.ID, true)
	f.str("name", &o.Name, true)
	f.str("description", &o.Description, false)
	f.str("category", &o.Category, false)
	f.str("type", &o.Type, true)
	switch o.Type {
	case ConfigOptionSelect:
		f.str("currentValue", &o.CurrentValue, true)
		f.raw("options", &o.Options)
		if f.err == nil && (o.Options == nil || o.Options[0] != '[') {
			f.fail("options", "must be an array")
		}
	case ConfigOptionBoolean:
		f.boolean("currentValue", &o.CurrentBool, true)
	default:
		// A kind this package does not know: keep it whole.
		if f.err == nil {
			o.Raw = bytes.Clone(f.src)
		}
	}
	f.meta(&o.Meta)
}

// toolContents reads a tool call's content member; present yields a non-nil
// slice.
func (f *fields) toolContents(dst *[]ToolCallContent) {
	out := []ToolCallContent{}
	if !f.array("content", false, func(raw json.RawMessage, path string) error {
		c := readObject(raw, path)
		var typ string
		c.str("type", &typ, true)
		switch typ {
		case "content":
			var v ToolCallContentBlock
			c.contentBlock("content", &v.Content)
			c.meta(&v.Meta)
			out = append(out, v)
		case "diff":
			var v ToolCallDiff
			c.str("path", &v.Path, true)
			c.optStr("oldText", &v.OldText)
			c.str("newText", &v.NewText, true)
			c.meta(&v.Meta)
			out = append(out, v)
		case "terminal":
			var v ToolCallTerminal
			c.str("terminalId", &v.TerminalID, true)
			c.meta(&v.Meta)
			out = append(out, v)
		default:
			if c.err == nil {
				out = append(out, UnknownToolCallContent{Type: typ, Raw: bytes.Clone(raw)})
			}
		}
		return c.err
	}) {
		return
	}
	*dst = out
}
