package goose

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
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

// The goose payload, one golden file per field rule.
func TestUsageGolden(t *testing.T) {
	with := func(f func(*usage.Snapshot)) usage.Snapshot {
		s := baseSnapshot()
		f(&s)
		return s
	}
	tests := []struct {
		name string
		s    usage.Snapshot
	}{
		{"all_exact", baseSnapshot()},
		{"empty_session", usage.Snapshot{}},
		{"input_poisoned", with(func(s *usage.Snapshot) { s.Input = unknown })},
		{"output_poisoned", with(func(s *usage.Snapshot) { s.Output = unknown })},
		{"used_saturates", with(func(s *usage.Snapshot) { s.Input = exact(math.MaxUint64) })},
		{"cache_never_observed", with(func(s *usage.Snapshot) { s.CacheRead, s.CacheWrite = usage.Counter{}, usage.Counter{} })},
		{"cache_confirmed_zero", with(func(s *usage.Snapshot) { s.CacheRead, s.CacheWrite = exact(0), exact(0) })},
		{"cache_unknown", with(func(s *usage.Snapshot) { s.CacheRead, s.CacheWrite = unknown, unknown })},
		{"cache_independent", with(func(s *usage.Snapshot) { s.CacheWrite = unknown })},
		{"total_unknown", with(func(s *usage.Snapshot) { s.Total = unknown })},
		{"total_unseen", with(func(s *usage.Snapshot) { s.Total = usage.Counter{} })},
		{"context_limit_unknown", with(func(s *usage.Snapshot) { s.ContextWindow = usage.Count{} })},
		{"identity_unproven", with(func(s *usage.Snapshot) { s.Identity = usage.Identity{} })},
		{"identity_without_cache_class", with(func(s *usage.Snapshot) { s.Identity.CacheClass = "" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := notificationLine(SessionNotification{SessionID: "sess-1", Update: NewUsageUpdate(tt.s)})
			if err != nil {
				t.Fatal(err)
			}
			checkGoldenLine(t, "usage_goose_"+tt.name, line)
		})
	}
}

// An accumulator's snapshot reaches the wire and comes back to a tracker.
func TestUsageRoundTripToTracker(t *testing.T) {
	var acc usage.Accumulator
	var tr usage.Tracker
	var got []usage.TurnDelta
	for _, in := range []uint64{100, 250} {
		acc.Add(usage.Report{Input: usage.CountOf(in), Output: usage.CountOf(10), CacheRead: usage.CountOf(0)})
		line, err := notificationLine(SessionNotification{SessionID: "s", Update: NewUsageUpdate(acc.Snapshot())})
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Params json.RawMessage }
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatal(err)
		}
		n, err := acp.DecodeParams[SessionNotification](env.Params)
		if err != nil {
			t.Fatal(err)
		}
		u, ok := n.Update.(UsageUpdate)
		if !ok {
			t.Fatalf("decoded %T, want UsageUpdate", n.Update)
		}
		tr.Observe(n.SessionID, u.Totals())
		got = append(got, tr.EndTurn(n.SessionID))
	}
	want := []usage.TurnDelta{
		{Status: usage.DeltaNoBaseline, Mark: usage.Totals{Input: usage.CountOf(100), Output: usage.CountOf(10), CacheRead: usage.CountOf(0)}},
		{
			Status: usage.DeltaOK,
			Mark:   usage.Totals{Input: usage.CountOf(350), Output: usage.CountOf(20), CacheRead: usage.CountOf(0)},
			Usage:  usage.Totals{Input: usage.CountOf(250), Output: usage.CountOf(10), CacheRead: usage.CountOf(0)},
		},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b usage.Count) bool { return a == b })); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

// noNull reports the JSON path of a null anywhere in v, or "".
func noNull(v any, path string) string {
	switch v := v.(type) {
	case nil:
		return path
	case map[string]any:
		for k, e := range v {
			if p := noNull(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for _, e := range v {
			if p := noNull(e, path+"[]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// FuzzUsageWire adds reports decoded from the fuzz bytes to an accumulator
// and checks every rendered payload, goose's and acp's standard one: never
// a null, the accumulated counts exactly the Exact counters, and the goose
// counts monotonic.
func FuzzUsageWire(f *testing.F) {
	f.Add([]byte{0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() uint64 {
			var b [8]byte
			n := copy(b[:], data)
			data = data[n:]
			if b[0]&1 == 1 {
				return math.MaxUint64 - uint64(b[1]) // near overflow
			}
			return binary.LittleEndian.Uint64(b[:]) >> (b[1] % 64)
		}
		ids := []usage.Identity{{}, {Authority: usage.AuthorityOpenAI, Model: "gpt-4.1"}, {Authority: usage.AuthorityAnthropic, Model: "m", CacheClass: "c"}}
		var acc usage.Accumulator
		var prev UsageUpdate
		for turn := 0; len(data) > 0 && turn < 32; turn++ {
			flags := data[0]
			data = data[1:]
			var r usage.Report
			for i, c := range []*usage.Count{&r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.Total, &r.Cost, &r.ContextWindow} {
				if flags&(1<<i) != 0 {
					*c = usage.CountOf(next())
				}
			}
			r.Identity = ids[int(flags>>7)*(1+turn%2)]
			r.Model = "m"
			acc.Add(r)
			s := acc.Snapshot()

			g := NewUsageUpdate(s)
			std, _ := s.ACPUpdate()
			gl, err := notificationLine(SessionNotification{SessionID: "s", Update: g})
			if err != nil {
				t.Fatal(err)
			}
			sl, err := acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{SessionID: "s", Update: std})
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range [][]byte{gl, sl} {
				var v any
				if err := json.Unmarshal(line, &v); err != nil {
					t.Fatalf("invalid line %s: %v", line, err)
				}
				if p := noNull(v, "$"); p != "" {
					t.Fatalf("null at %s in %s", p, line)
				}
			}
			for _, c := range []struct {
				name         string
				ctr          usage.Counter
				wire, before *uint64
			}{
				{"input", s.Input, g.AccumulatedInputTokens, prev.AccumulatedInputTokens},
				{"output", s.Output, g.AccumulatedOutputTokens, prev.AccumulatedOutputTokens},
				{"cache read", s.CacheRead, g.AccumulatedCachedInputTokens, prev.AccumulatedCachedInputTokens},
				{"cache write", s.CacheWrite, g.AccumulatedCacheWriteTokens, prev.AccumulatedCacheWriteTokens},
				{"total", s.Total, g.AccumulatedTotalTokens, prev.AccumulatedTotalTokens},
			} {
				v, ok := c.ctr.Value()
				if ok != (c.wire != nil) || ok && *c.wire != v {
					t.Fatalf("%s: counter %v rendered as %v", c.name, c.ctr, c.wire)
				}
				if c.wire != nil && c.before != nil && *c.wire < *c.before {
					t.Fatalf("%s went down: %d -> %d", c.name, *c.before, *c.wire)
				}
			}
			if (g.PricingIdentity != nil) != s.Identity.Proven() {
				t.Fatalf("pricing identity %+v for snapshot identity %+v", g.PricingIdentity, s.Identity)
			}
			if _, ok := s.CostUSD(); ok != (std.Cost != nil) {
				t.Fatalf("cost %+v for counter %v", std.Cost, s.Cost)
			}
			prev = g
		}
	})
}
