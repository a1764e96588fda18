package acp

import "github.com/acpkit/acpkit/usage"

// Rendering session usage from package usage. A producer keeps a
// [usage.Accumulator] per session and sends its [usage.Snapshot] after each
// model call; NewUsageUpdate maps the snapshot onto the standard wire form
// (package goose maps it onto goose's), and only Exact counters reach the
// wire.

// NewUsageUpdate renders s as the standard ACP usage_update, to send with
// [SessionUpdate]. Used is the tokens in the context now — the last
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
