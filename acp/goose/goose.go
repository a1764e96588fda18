package goose

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// goose's extension methods.
var (
	// SessionSteer injects user input into the prompt turn that is
	// running, without starting a new one (client → agent request).
	SessionSteer = acp.Method[SteerParams, SteerResult]{Name: "_goose/unstable/session/steer"}
	// SessionUpdate carries goose's custom session updates, such as its
	// usage_update payload (agent → client notification).
	SessionUpdate = acp.Notification[SessionNotification]{Name: "_goose/unstable/session/update"}
)

// SteerParams are the params of [SessionSteer].
type SteerParams struct {
	SessionID string `json:"sessionId" acp:"required"`
	// Prompt is the input to inject; nil when absent.
	Prompt acp.ContentBlocks `json:"prompt"`
	// ExpectedRunID must equal the run id the agent last advertised in
	// [Meta.ActiveRunID]; it stops a steer from landing in a turn that
	// already ended or has not started.
	ExpectedRunID string          `json:"expectedRunId" acp:"required"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// SteerResult is the result of [SessionSteer]: the run the input joined
// and the message that will carry it.
type SteerResult struct {
	RunID string `json:"runId" acp:"required"`
	// MessageID is the messageId of the chunks that will echo the steer.
	MessageID string `json:"messageId" acp:"required"`
}

// AcceptsCustomNotifications reports whether the client declared
// _meta.goose.customNotifications as true in its capabilities, asking for
// [SessionUpdate] notifications.
func AcceptsCustomNotifications(c acp.ClientCapabilities) bool {
	if len(c.Meta) == 0 || !jsonscan.Valid(c.Meta) {
		return false
	}
	// members.Get reads literal keys, never a gjson path.
	v := members.Get(members.Get(gjson.ParseBytes(c.Meta), "goose"), "customNotifications")
	return v.Type == gjson.True
}

// Meta is the "goose" member of a session update's _meta, through which
// goose tells steer-capable clients about the running turn. Place it in an
// update with [Meta.Marshal]:
//
//	meta, _ := goose.Meta{ActiveRunID: &runID}.Marshal()
//	err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: id, Update: acp.SessionInfoUpdate{Meta: meta}})
//
// and read it back with [ParseMeta].
type Meta struct {
	// ActiveRunID is the id of the running turn, to pass as
	// [SteerParams.ExpectedRunID]. nil means absent; a pointer to "" is
	// sent as null, meaning no turn is running.
	ActiveRunID *string
	// QueuedSteer identifies an accepted steer so a client can match it to
	// the chunk that later picks it up; kept raw, nil means absent.
	QueuedSteer json.RawMessage
}

// Marshal returns the _meta object {"goose":{…}} carrying m, for an
// update's Meta field. It fails only when QueuedSteer is not valid JSON.
func (m Meta) Marshal() (json.RawMessage, error) {
	var run json.RawMessage
	switch {
	case m.ActiveRunID == nil:
	case *m.ActiveRunID == "":
		run = json.RawMessage("null")
	default:
		run, _ = json.Marshal(*m.ActiveRunID) // a string always marshals
	}
	return json.Marshal(struct {
		Goose struct {
			ActiveRunID json.RawMessage `json:"activeRunId,omitempty"`
			QueuedSteer json.RawMessage `json:"queuedSteer,omitempty"`
		} `json:"goose"`
	}{Goose: struct {
		ActiveRunID json.RawMessage `json:"activeRunId,omitempty"`
		QueuedSteer json.RawMessage `json:"queuedSteer,omitempty"`
	}{run, m.QueuedSteer}})
}

// ParseMeta reads the goose member of an update's _meta. ok is false when
// meta is not a valid JSON object, has no goose object, or has one whose
// activeRunId is neither a string nor null; meta's other members, and the
// goose object's, are ignored. Of a repeated member the last wins.
func ParseMeta(meta json.RawMessage) (m Meta, ok bool) {
	if !jsonscan.Valid(meta) {
		return Meta{}, false
	}
	root := gjson.ParseBytes(meta)
	g := members.Get(root, "goose")
	if !root.IsObject() || !g.IsObject() {
		return Meta{}, false
	}
	switch run := members.Get(g, "activeRunId"); run.Type {
	case gjson.Null:
		if run.Exists() {
			m.ActiveRunID = new(string)
		}
	case gjson.String:
		s := run.String()
		m.ActiveRunID = &s
	default:
		return Meta{}, false
	}
	if q := members.Get(g, "queuedSteer"); q.Exists() && q.Type != gjson.Null {
		m.QueuedSteer = json.RawMessage(bytes.Clone([]byte(q.Raw)))
	}
	return m, true
}

// Update is the update member of a [SessionNotification]: [UsageUpdate] or
// [UnknownUpdate].
type Update interface {
	kind() string
}

// UsageUpdate is goose's usage_update payload. Token counts are cumulative
// over the session and only grow, so a consumer keeps the largest it has
// seen. An optional count is nil when unknown (never observed, or lost to
// overflow) and is then omitted from the wire, never sent as null: a
// consumer must treat absence as unknown, not as 0.
type UsageUpdate struct {
	// Used is input plus output tokens, a proxy for context use.
	Used uint64 `json:"used" acp:"required"`
	// ContextLimit is the context window in tokens; 0 means not tracked.
	ContextLimit uint64 `json:"contextLimit"`
	// Model is the effective model id.
	Model                   string  `json:"model"`
	AccumulatedInputTokens  *uint64 `json:"accumulatedInputTokens,omitempty"`
	AccumulatedOutputTokens *uint64 `json:"accumulatedOutputTokens,omitempty"`
	// AccumulatedCachedInputTokens counts cache reads, a subset of the
	// input tokens.
	AccumulatedCachedInputTokens *uint64 `json:"accumulatedCachedInputTokens,omitempty"`
	// AccumulatedCacheWriteTokens counts cache writes, a subset of the
	// input tokens.
	AccumulatedCacheWriteTokens *uint64 `json:"accumulatedCacheWriteTokens,omitempty"`
	// AccumulatedTotalTokens is the provider's own total, present only
	// when every turn reported one.
	AccumulatedTotalTokens *uint64 `json:"accumulatedTotalTokens,omitempty"`
	// PricingIdentity is set only when the sender proved which price list
	// applies; nil otherwise.
	PricingIdentity *PricingIdentity `json:"pricingIdentity,omitempty"`
}

// PricingIdentity names the price list that applies to a session's tokens.
type PricingIdentity struct {
	// Authority is who sets the prices, such as "api.anthropic.com".
	Authority string `json:"authority" acp:"required"`
	Model     string `json:"model" acp:"required"`
	// CacheClass refines the cache pricing; "" means none.
	CacheClass string `json:"cacheClass,omitempty"`
}

// UnknownUpdate is a goose update of a variant this package does not know,
// kept as received.
type UnknownUpdate struct {
	Kind string
	// Raw is the update as received, byte for byte.
	Raw json.RawMessage
}

func (UsageUpdate) kind() string     { return "usage_update" }
func (u UnknownUpdate) kind() string { return u.Kind }

// MarshalJSON encodes the update with "sessionUpdate":"usage_update".
func (u UsageUpdate) MarshalJSON() ([]byte, error) {
	type plain UsageUpdate
	return json.Marshal(struct {
		Kind string `json:"sessionUpdate"`
		plain
	}{u.kind(), plain(u)})
}

// MarshalJSON returns Raw unchanged, or {"sessionUpdate":Kind} when Raw is
// empty.
func (u UnknownUpdate) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return json.Marshal(struct {
			Kind string `json:"sessionUpdate"`
		}{u.Kind})
	}
	return u.Raw, nil
}

// SessionNotification is the params of [SessionUpdate].
type SessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    Update `json:"update"`
}

var errNilUpdate = errors.New("goose: session update is nil")

// MarshalJSON encodes the notification; a nil Update is an error.
func (n SessionNotification) MarshalJSON() ([]byte, error) {
	if n.Update == nil {
		return nil, errNilUpdate
	}
	type plain SessionNotification
	return json.Marshal(plain(n))
}

// UnmarshalJSON decodes the notification with the rules of
// [acp.DecodeParams], which [SessionUpdate]'s Handle applies: an unknown
// variant is an [UnknownUpdate], a malformed usage_update an [*acp.Error]
// naming the member ("update.used"). null leaves n unchanged.
func (n *SessionNotification) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	head, err := acp.DecodeParams[struct {
		SessionID string `json:"sessionId" acp:"required"`
		Update    struct {
			Kind string `json:"sessionUpdate" acp:"required"`
		} `json:"update" acp:"required"`
	}](data)
	if err != nil {
		return err
	}
	var u Update
	if head.Update.Kind == "usage_update" {
		v, err := acp.DecodeParams[struct {
			Update UsageUpdate `json:"update"`
		}](data)
		if err != nil {
			return err
		}
		u = v.Update
	} else {
		v, err := acp.DecodeParams[struct {
			Update json.RawMessage `json:"update"`
		}](data)
		if err != nil {
			return err
		}
		u = UnknownUpdate{Kind: head.Update.Kind, Raw: v.Update}
	}
	*n = SessionNotification{SessionID: head.SessionID, Update: u}
	return nil
}
