package acp

import (
	"bytes"
	"encoding/json"
)

// This file holds the session update variants that exist only in ACP's
// unstable schema: several plans per session, and context compaction.
// Unstable: they may change or be removed.

// PlanUpdate creates or replaces one of the session's plans, named by its
// PlanID; unlike [Plan], several may coexist. Unstable.
type PlanUpdate struct {
	Plan PlanContent     `json:"plan"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// The kinds of [PlanContent].
const (
	PlanItems    = "items"    // Entries, as a [Plan]'s
	PlanFile     = "file"     // a file at URI
	PlanMarkdown = "markdown" // Content, in Markdown
)

// PlanContent is a plan of a [PlanUpdate], of one of three kinds. Unstable.
type PlanContent struct {
	// Type is [PlanItems], [PlanFile], [PlanMarkdown], or another kind
	// kept in Raw.
	Type   string `json:"type"`
	PlanID string `json:"planId"`
	// Entries are the tasks of an items plan; nil is sent as [].
	Entries []PlanEntry `json:"-"`
	// URI locates a file plan.
	URI string `json:"-"`
	// Content is a markdown plan's text.
	Content string          `json:"-"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole plan as received when Type is another kind;
	// MarshalJSON sends it unchanged.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON encodes the plan with the members of its Type.
func (p PlanContent) MarshalJSON() ([]byte, error) {
	type common struct {
		Type   string `json:"type"`
		PlanID string `json:"planId"`
	}
	c := common{p.Type, p.PlanID}
	switch p.Type {
	case PlanItems:
		return json.Marshal(struct {
			common
			Entries []PlanEntry     `json:"entries"`
			Meta    json.RawMessage `json:"_meta,omitempty"`
		}{c, nonNil(p.Entries), p.Meta})
	case PlanFile:
		return json.Marshal(struct {
			common
			URI  string          `json:"uri"`
			Meta json.RawMessage `json:"_meta,omitempty"`
		}{c, p.URI, p.Meta})
	case PlanMarkdown:
		return json.Marshal(struct {
			common
			Content string          `json:"content"`
			Meta    json.RawMessage `json:"_meta,omitempty"`
		}{c, p.Content, p.Meta})
	}
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	return json.Marshal(struct {
		common
		Meta json.RawMessage `json:"_meta,omitempty"`
	}{c, p.Meta})
}

// PlanRemoved reports that the plan PlanID no longer exists. Unstable.
type PlanRemoved struct {
	PlanID string          `json:"planId"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// CompactionStatus is where a context compaction is. Peers may send other
// values, kept as sent. Unstable.
type CompactionStatus string

// The compaction statuses.
const (
	CompactionInProgress CompactionStatus = "in_progress"
	CompactionCompleted  CompactionStatus = "completed"
	CompactionFailed     CompactionStatus = "failed"
	CompactionCancelled  CompactionStatus = "cancelled"
)

// CompactionUpdate reports the progress of a compaction of the session's
// context, named by CompactionID. Unstable.
type CompactionUpdate struct {
	CompactionID string           `json:"compactionId"`
	Status       CompactionStatus `json:"status"`
	// Summary is the summary the context was compacted into, when the
	// agent shares it whole; nil means not given.
	Summary ContentBlocks `json:"summary,omitempty"`
	// Error says why a failed compaction failed; "" means not given.
	Error string          `json:"error,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// CompactionSummaryChunk is a piece of a compaction's summary, streamed.
// Unstable.
type CompactionSummaryChunk struct {
	CompactionID string          `json:"compactionId"`
	Content      ContentBlock    `json:"content"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

func (PlanUpdate) updateKind() string             { return "plan_update" }
func (PlanRemoved) updateKind() string            { return "plan_removed" }
func (CompactionUpdate) updateKind() string       { return "compaction_update" }
func (CompactionSummaryChunk) updateKind() string { return "compaction_summary_chunk" }

// MarshalJSON encodes the update with "sessionUpdate":"plan_update".
func (u PlanUpdate) MarshalJSON() ([]byte, error) {
	type plain PlanUpdate
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"plan_removed".
func (u PlanRemoved) MarshalJSON() ([]byte, error) {
	type plain PlanRemoved
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with "sessionUpdate":"compaction_update".
func (u CompactionUpdate) MarshalJSON() ([]byte, error) {
	type plain CompactionUpdate
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// MarshalJSON encodes the update with
// "sessionUpdate":"compaction_summary_chunk".
func (u CompactionSummaryChunk) MarshalJSON() ([]byte, error) {
	type plain CompactionSummaryChunk
	return marshalTagged(updateTag, u.updateKind(), plain(u))
}

// decodeUnstableUpdate decodes the unstable variant kind from f, or
// reports false when kind is none of them.
func decodeUnstableUpdate(f *fields, kind string) (Update, bool) {
	switch kind {
	case "plan_update":
		var v PlanUpdate
		f.object("plan", true, func(p *fields) { decodePlanContent(p, &v.Plan) })
		f.meta(&v.Meta)
		return v, true
	case "plan_removed":
		var v PlanRemoved
		f.str("planId", &v.PlanID, true)
		f.meta(&v.Meta)
		return v, true
	case "compaction_update":
		var v CompactionUpdate
		f.str("compactionId", &v.CompactionID, true)
		var status string
		f.str("status", &status, true)
		v.Status = CompactionStatus(status)
		v.Summary = f.contentBlocks("summary")
		f.str("error", &v.Error, false)
		f.meta(&v.Meta)
		return v, true
	case "compaction_summary_chunk":
		var v CompactionSummaryChunk
		f.str("compactionId", &v.CompactionID, true)
		f.contentBlock("content", &v.Content)
		f.meta(&v.Meta)
		return v, true
	}
	return nil, false
}

func decodePlanContent(f *fields, p *PlanContent) {
	f.str("type", &p.Type, true)
	f.str("planId", &p.PlanID, true)
	switch p.Type {
	case PlanItems:
		objects(f, "entries", &p.Entries, true, decodePlanEntry)
	case PlanFile:
		f.str("uri", &p.URI, true)
	case PlanMarkdown:
		f.str("content", &p.Content, true)
	default:
		if f.err == nil {
			p.Raw = bytes.Clone(f.src)
		}
	}
	f.meta(&p.Meta)
}
