package usage

import "github.com/acpkit/acpkit/acp"

// ACPUpdate renders s as ACP's standard usage_update, to send with
// acp.SessionUpdate (goose's payload is acp/goose's NewUsageUpdate). Used
// is the tokens in the context now — the last model call's inclusive
// input plus its output, not the session sum — and Size the context
// window; Cost is the session's cumulative cost in USD, set only when the
// cost counter is Exact.
//
// The wire requires Used and Size, so an unknown one is sent as 0; ok
// reports whether both were known, letting a caller skip an update that
// would only say "0 of 0".
func (s Snapshot) ACPUpdate() (u acp.UsageUpdate, ok bool) {
	used, usedOK := s.ContextUsed()
	size, sizeOK := s.ContextWindow.Get()
	u = acp.UsageUpdate{Used: used, Size: size}
	if usd, ok := s.CostUSD(); ok {
		u.Cost = &acp.Cost{Amount: usd, Currency: "USD"}
	}
	return u, usedOK && sizeOK
}
