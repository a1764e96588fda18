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
func (u UserMessageChunk) MarshalJSON() ([]byte, error) { return marshalAppender(u) }

// MarshalJSON encodes the chunk with "sessionUpdate":"agent_message_chunk".
func (u AgentMessageChunk) MarshalJSON() ([]byte, error) { return marshalAppender(u) }

// MarshalJSON encodes the chunk with "sessionUpdate":"agent_thought_chunk".
func (u AgentThoughtChunk) MarshalJSON() ([]byte, error) { return marshalAppender(u) }

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
		raw := f.get("update")
		u, err := updateFrom(readValidObject(raw, "update"), raw)
		f.failWith(err)
		n.Update = u
	}
	f.meta(&n.Meta)
}

var errNilUpdate = errors.New("acp: session update is nil")

// check refuses a notification without its update, which the schema
// requires, before [SessionUpdate] sends it. It is not a MarshalJSON:
// encoding/json re-validates a marshaler's output, a second pass over
// every session/update line.
func (n SessionNotification) check() error {
	if n.Update == nil {
		return errNilUpdate
	}
	return nil
}

// decodeUpdate decodes one update object (the update member of a
// session/update notification) into its variant; path names it in errors.
func decodeUpdate(raw json.RawMessage, path string) (Update, error) {
	if t := trimSpace(raw); len(t) == 0 || string(t) == "null" {
		name := path
		if name == "" {
			name = "update"
		}
		return nil, &fieldError{name, "must be an object"}
	}
	return updateFrom(readFields(raw, path), raw)
}

// updateFrom decodes the update object f reads, whose bytes are raw.
func updateFrom(f *fields, raw json.RawMessage) (Update, error) {
	var kind string
	f.tag(updateTag, &kind)
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

func (f *fields) contentChunk() ContentChunk {
	var c ContentChunk
	f.contentBlock("content", &c.Content)
	f.str("messageId", &c.MessageID, false)
	f.meta(&c.Meta)
	return c
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
