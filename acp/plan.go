package acp

import "encoding/json"

// This file holds the agent's execution plan, the plan session update.

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

// MarshalJSON encodes the plan with "sessionUpdate":"plan"; nil Entries is
// sent as [].
func (u Plan) MarshalJSON() ([]byte, error) {
	type plain Plan
	p := plain(u)
	p.Entries = nonNil(p.Entries)
	return marshalTagged(updateTag, u.updateKind(), p)
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
