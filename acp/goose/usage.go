package goose

import "github.com/acpkit/acpkit/usage"

// NewUsageUpdate renders s, a session's [usage.Snapshot], as goose's
// usage_update payload. Only Exact counters reach the wire:
//
//   - Used is Input + Output with an Unseen or Unknown side counted as 0,
//     saturating at the largest uint64 ([usage.Snapshot.UsedSaturating]).
//   - ContextLimit is the context window, 0 when unknown; Model is s.Model.
//   - Each Accumulated… count is set only when its counter is Exact: an
//     overflow-poisoned input or output is omitted, a cache counter never
//     observed (Unseen) or lost (Unknown) is omitted while a confirmed zero
//     is sent as 0, and the provider total appears only when every turn
//     reported one.
//   - PricingIdentity is set only when s carries a proven identity.
//
// No field is ever null on the wire: absent counts are omitted.
func NewUsageUpdate(s usage.Snapshot) UsageUpdate {
	u := UsageUpdate{
		Used:                         s.UsedSaturating(),
		Model:                        s.Model,
		AccumulatedInputTokens:       exactPtr(s.Input),
		AccumulatedOutputTokens:      exactPtr(s.Output),
		AccumulatedCachedInputTokens: exactPtr(s.CacheRead),
		AccumulatedCacheWriteTokens:  exactPtr(s.CacheWrite),
		AccumulatedTotalTokens:       exactPtr(s.Total),
	}
	u.ContextLimit, _ = s.ContextWindow.Get()
	if s.Identity.Proven() {
		u.PricingIdentity = &PricingIdentity{
			Authority:  s.Identity.Authority,
			Model:      s.Identity.Model,
			CacheClass: s.Identity.CacheClass,
		}
	}
	return u
}

// Totals returns the update's cumulative counts for a consumer-side
// [usage.Tracker]: each present exactly when the update carries it. goose
// sends no cost, so Cost is absent.
func (u UsageUpdate) Totals() usage.Totals {
	return usage.Totals{
		Input:      countOf(u.AccumulatedInputTokens),
		Output:     countOf(u.AccumulatedOutputTokens),
		CacheRead:  countOf(u.AccumulatedCachedInputTokens),
		CacheWrite: countOf(u.AccumulatedCacheWriteTokens),
		Total:      countOf(u.AccumulatedTotalTokens),
	}
}

// exactPtr returns a pointer to c's value when it is Exact, else nil.
func exactPtr(c usage.Counter) *uint64 {
	if v, ok := c.Value(); ok {
		return &v
	}
	return nil
}

func countOf(p *uint64) usage.Count {
	if p == nil {
		return usage.Count{}
	}
	return usage.CountOf(*p)
}
