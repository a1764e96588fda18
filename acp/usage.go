package acp

import "github.com/acpkit/acpkit/usage"

// Rendering session usage from package usage. A producer keeps a
// [usage.Accumulator] per session and sends its [usage.Snapshot] after each
// model call; these functions map the snapshot onto the two wire forms, and
// only Exact counters reach the wire.

// NewGooseUsageUpdate renders s as goose's usage_update payload, to send
// with [MarshalGooseSessionUpdate]:
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
// No field is ever null on the wire: absent counts are omitted. Unstable:
// the payload follows goose's _goose/unstable extension.
func NewGooseUsageUpdate(s usage.Snapshot) GooseUsageUpdate {
	u := GooseUsageUpdate{
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

// NewUsageUpdate renders s as the standard ACP usage_update, to send with
// [MarshalSessionUpdate]. Used is the tokens in the context now — the last
// model call's inclusive input plus its output, not the session sum — and
// Size the context window; Cost is the session's cumulative cost in USD,
// set only when the cost counter is Exact.
//
// The wire requires Used and Size, so an unknown one is sent as 0; ok
// reports whether both were known, letting a caller skip an update that
// would only say "0 of 0".
func NewUsageUpdate(s usage.Snapshot) (u UsageUpdate, ok bool) {
	used, usedOK := s.ContextUsed()
	size, sizeOK := s.ContextWindow.Get()
	u = UsageUpdate{Used: used, Size: size}
	if usd, ok := s.CostUSD(); ok {
		u.Cost = &Cost{Amount: usd, Currency: "USD"}
	}
	return u, usedOK && sizeOK
}

// Totals returns the update's cumulative counts for a consumer-side
// [usage.Tracker]: each present exactly when the update carries it. Goose
// sends no cost, so Cost is absent.
func (u GooseUsageUpdate) Totals() usage.Totals {
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
