package acp

import (
	"testing"

	"github.com/acpkit/acpkit/usage"
)

var (
	exact   = usage.ExactCounter
	unknown = usage.UnknownCounter()
)

// baseSnapshot has every counter Exact and a proven identity.
func baseSnapshot() usage.Snapshot {
	return usage.Snapshot{
		Input: exact(5000), Output: exact(700), CacheRead: exact(3000), CacheWrite: exact(1200), Total: exact(5700),
		Cost:          exact(42_500_000_000), // $0.0425
		Identity:      usage.Identity{Authority: usage.AuthorityAnthropic, Model: "claude-sonnet-4-5", CacheClass: "1h"},
		Model:         "claude-sonnet-4-5",
		ContextWindow: usage.CountOf(200000),
		LastInput:     usage.CountOf(2100), LastOutput: usage.CountOf(300),
		Reports: 3,
	}
}

// The standard usage_update, one golden file per field rule.
func TestStandardUsageGolden(t *testing.T) {
	with := func(f func(*usage.Snapshot)) usage.Snapshot {
		s := baseSnapshot()
		f(&s)
		return s
	}
	tests := []struct {
		name   string
		s      usage.Snapshot
		wantOK bool
	}{
		{"all_known", baseSnapshot(), true},
		{"cost_unknown", with(func(s *usage.Snapshot) { s.Cost = unknown }), true},
		{"cost_unseen", with(func(s *usage.Snapshot) { s.Cost = usage.Counter{} }), true},
		{"context_used_unknown", with(func(s *usage.Snapshot) { s.LastOutput = usage.Count{} }), false},
		{"size_unknown", with(func(s *usage.Snapshot) { s.ContextWindow = usage.Count{} }), false},
		// used is the context now, not the session sum, even when the sum is lost.
		{"session_sum_poisoned", with(func(s *usage.Snapshot) { s.Input = unknown }), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := NewUsageUpdate(tt.s)
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v", ok, tt.wantOK)
			}
			line, err := sessionUpdateLine("sess-1", u)
			if err != nil {
				t.Fatal(err)
			}
			checkGoldenLine(t, "usage_standard_"+tt.name, line)
		})
	}
}
