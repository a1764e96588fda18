package acp

import (
	"bytes"
	"encoding/json"
)

// This file holds goose's extensions to ACP. Unstable: goose may change or
// remove any of them.

// SteerParams are the params of goose's _goose/unstable/session/steer,
// which adds user input to the prompt turn that is running instead of
// starting a new one. Unstable.
type SteerParams struct {
	SessionID string `json:"sessionId"`
	// Prompt is the input to inject; absent decodes as empty.
	Prompt ContentBlocks `json:"prompt"`
	// ExpectedRunID must equal the run id the agent last advertised in
	// [GooseMeta.ActiveRunID]; it stops a steer from landing in a turn that
	// already ended or has not started.
	ExpectedRunID string          `json:"expectedRunId"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *SteerParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *SteerParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	p.Prompt = f.contentBlocks("prompt")
	if p.Prompt == nil {
		p.Prompt = ContentBlocks{}
	}
	f.str("expectedRunId", &p.ExpectedRunID, true)
	f.meta(&p.Meta)
}

// SteerResult is the result of goose's _goose/unstable/session/steer: the
// run the input joined and the message that will carry it. Unstable.
type SteerResult struct {
	RunID string `json:"runId" acp:"required"`
	// MessageID is the messageId of the chunks that will echo the steer.
	MessageID string `json:"messageId" acp:"required"`
}

// GooseMeta is the "goose" member of a session update's _meta, through
// which goose tells steer-capable clients about the running turn. Place it
// in an update with [GooseMeta.Marshal]:
//
//	meta, _ := acp.GooseMeta{ActiveRunID: &runID}.Marshal()
//	line, _ := acp.MarshalSessionUpdate(sid, acp.SessionInfoUpdate{Meta: meta})
//
// and read it back with [ParseGooseMeta]. Unstable.
type GooseMeta struct {
	// ActiveRunID is the id of the running turn, to pass as
	// [SteerParams.ExpectedRunID]. nil means absent; a pointer to "" is
	// sent as null, meaning no turn is running.
	ActiveRunID *string
	// QueuedSteer identifies an accepted steer so a client can match it to
	// the chunk that later picks it up; kept raw, nil means absent.
	QueuedSteer json.RawMessage
}

type gooseMetaWire struct {
	ActiveRunID json.RawMessage `json:"activeRunId,omitempty"`
	QueuedSteer json.RawMessage `json:"queuedSteer,omitempty"`
}

// Marshal returns the _meta object {"goose":{…}} carrying m, for an
// update's Meta field. It fails only when QueuedSteer is not valid JSON.
// Unstable.
func (m GooseMeta) Marshal() (json.RawMessage, error) {
	return json.Marshal(struct {
		Goose gooseMetaWire `json:"goose"`
	}{gooseMetaWire{clearable(m.ActiveRunID), m.QueuedSteer}})
}

// ParseGooseMeta reads the goose member of an update's _meta. ok is false
// when meta is not a valid JSON object, has no goose object, or has one whose
// activeRunId is neither a string nor null; meta's other members, and the
// goose object's, are ignored. Unstable.
func ParseGooseMeta(meta json.RawMessage) (m GooseMeta, ok bool) {
	f := readFields(meta, "_meta")
	if f.err != nil || !f.has("goose") {
		return GooseMeta{}, false
	}
	g := readFields(f.get("goose"), "_meta.goose")
	g.clearable("activeRunId", &m.ActiveRunID)
	g.raw("queuedSteer", &m.QueuedSteer)
	if g.err != nil {
		return GooseMeta{}, false
	}
	return m, true
}

// GooseUpdate is the update member of goose's _goose/unstable/session/update
// notification: [GooseUsageUpdate] or [UnknownGooseUpdate]. Unstable.
type GooseUpdate interface {
	gooseUpdateKind() string
}

// GooseUsageUpdate is goose's usage_update payload. Token counts are
// cumulative over the session and only grow, so a consumer keeps the
// largest it has seen. An optional count is nil when unknown (never
// observed, or lost to overflow) and is then omitted from the wire, never
// sent as null: a consumer must treat absence as unknown, not as 0.
// Unstable.
type GooseUsageUpdate struct {
	// Used is input plus output tokens, a proxy for context use.
	Used uint64 `json:"used"`
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
	Authority string `json:"authority"`
	Model     string `json:"model"`
	// CacheClass refines the cache pricing; "" means none.
	CacheClass string `json:"cacheClass,omitempty"`
}

// UnknownGooseUpdate is a goose update of a variant this package does not
// know, kept as received. Unstable.
type UnknownGooseUpdate struct {
	Kind string
	// Raw is the update as received, byte for byte.
	Raw json.RawMessage
}

func (GooseUsageUpdate) gooseUpdateKind() string     { return "usage_update" }
func (u UnknownGooseUpdate) gooseUpdateKind() string { return u.Kind }

// MarshalJSON encodes the update with "sessionUpdate":"usage_update".
func (u GooseUsageUpdate) MarshalJSON() ([]byte, error) {
	type plain GooseUsageUpdate
	return marshalTagged(updateTag, u.gooseUpdateKind(), plain(u))
}

// MarshalJSON returns Raw unchanged, or {"sessionUpdate":Kind} when Raw is
// empty.
func (u UnknownGooseUpdate) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return marshalTagged(updateTag, u.Kind, struct{}{})
	}
	return u.Raw, nil
}

// GooseSessionNotification is the params of goose's
// _goose/unstable/session/update notification. Unstable.
type GooseSessionNotification struct {
	SessionID string      `json:"sessionId"`
	Update    GooseUpdate `json:"update"`
}

// UnmarshalJSON decodes the notification with
// [DecodeGooseSessionNotification]; null leaves n unchanged.
func (n *GooseSessionNotification) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	v, err := DecodeGooseSessionNotification(data)
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// MarshalGooseSessionUpdate returns a _goose/unstable/session/update
// notification line carrying u for the session. Send it only to clients
// that declared _meta.goose.customNotifications (see
// [ClientCapabilities.AcceptsGooseCustomNotifications]). Unstable.
func MarshalGooseSessionUpdate(sessionID string, u GooseUpdate) ([]byte, error) {
	if u == nil {
		return nil, errNilUpdate
	}
	return MarshalNotification(GooseSessionUpdate.Name, GooseSessionNotification{SessionID: sessionID, Update: u})
}

// DecodeGooseSessionNotification decodes the params of an inbound
// _goose/unstable/session/update notification, with the rules of
// [DecodeParams] for session/update: an unknown variant is an
// [UnknownGooseUpdate], a malformed usage_update an [*Error]. Unstable.
func DecodeGooseSessionNotification(params []byte) (GooseSessionNotification, error) {
	var n GooseSessionNotification
	f := readFields(params, "")
	f.str("sessionId", &n.SessionID, true)
	f.object("update", true, func(u *fields) {
		var kind string
		u.str(updateTag, &kind, true)
		if u.err != nil {
			return
		}
		if kind != "usage_update" {
			n.Update = UnknownGooseUpdate{Kind: kind, Raw: bytes.Clone(f.get("update"))}
			return
		}
		var v GooseUsageUpdate
		u.uint("used", &v.Used, true)
		u.uint("contextLimit", &v.ContextLimit, false)
		u.str("model", &v.Model, false)
		u.optUint("accumulatedInputTokens", &v.AccumulatedInputTokens)
		u.optUint("accumulatedOutputTokens", &v.AccumulatedOutputTokens)
		u.optUint("accumulatedCachedInputTokens", &v.AccumulatedCachedInputTokens)
		u.optUint("accumulatedCacheWriteTokens", &v.AccumulatedCacheWriteTokens)
		u.optUint("accumulatedTotalTokens", &v.AccumulatedTotalTokens)
		u.object("pricingIdentity", false, func(p *fields) {
			v.PricingIdentity = &PricingIdentity{}
			p.str("authority", &v.PricingIdentity.Authority, true)
			p.str("model", &v.PricingIdentity.Model, true)
			p.str("cacheClass", &v.PricingIdentity.CacheClass, false)
		})
		n.Update = v
	})
	if f.err != nil {
		return GooseSessionNotification{}, invalidParams(f.err)
	}
	return n, nil
}
