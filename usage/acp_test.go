package usage

import (
	"testing"

	"github.com/acpkit/acpkit/acp"
)

// The standard usage_update, one golden file per field rule.
func TestACPUpdateGolden(t *testing.T) {
	base := func() Snapshot {
		return Snapshot{
			Input: ExactCounter(5000), Output: ExactCounter(700), CacheRead: ExactCounter(3000),
			CacheWrite: ExactCounter(1200), Total: ExactCounter(5700),
			Cost:          ExactCounter(42_500_000_000), // $0.0425
			Identity:      Identity{Authority: AuthorityAnthropic, Model: "claude-sonnet-4-5", CacheClass: "1h"},
			Model:         "claude-sonnet-4-5",
			ContextWindow: CountOf(200000),
			LastInput:     CountOf(2100), LastOutput: CountOf(300),
			Reports: 3,
		}
	}
	with := func(f func(*Snapshot)) Snapshot {
		s := base()
		f(&s)
		return s
	}
	tests := []struct {
		name   string
		s      Snapshot
		wantOK bool
	}{
		{"all_known", base(), true},
		{"cost_unknown", with(func(s *Snapshot) { s.Cost = UnknownCounter() }), true},
		{"cost_unseen", with(func(s *Snapshot) { s.Cost = Counter{} }), true},
		{"context_used_unknown", with(func(s *Snapshot) { s.LastOutput = Count{} }), false},
		{"size_unknown", with(func(s *Snapshot) { s.ContextWindow = Count{} }), false},
		// used is the context now, not the session sum, even when the sum is lost.
		{"session_sum_poisoned", with(func(s *Snapshot) { s.Input = UnknownCounter() }), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := tt.s.ACPUpdate()
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v", ok, tt.wantOK)
			}
			line, err := acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{SessionID: "sess-1", Update: u})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "acp_update_"+tt.name+".jsonl", append(line, '\n'))
		})
	}
}
