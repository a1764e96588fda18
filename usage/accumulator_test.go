package usage

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// view is a Snapshot in readable form, for cmp.Diff.
type view struct {
	Input, Output, CacheRead, CacheWrite, Total, Cost string
	Identity                                          Identity
	Model                                             string
	ContextWindow, LastInput, LastOutput              string
	Reports                                           uint64
}

func viewOf(s Snapshot) view {
	return view{
		Input: s.Input.String(), Output: s.Output.String(),
		CacheRead: s.CacheRead.String(), CacheWrite: s.CacheWrite.String(),
		Total: s.Total.String(), Cost: s.Cost.String(),
		Identity: s.Identity, Model: s.Model,
		ContextWindow: s.ContextWindow.String(),
		LastInput:     s.LastInput.String(), LastOutput: s.LastOutput.String(),
		Reports: s.Reports,
	}
}

// mustReport converts provider JSON or fails the test.
func mustReport(t *testing.T, conv func([]byte) (Report, error), js string) Report {
	t.Helper()
	r, err := conv([]byte(js))
	if err != nil {
		t.Fatalf("converting %s: %v", js, err)
	}
	return r
}

func mustIdentity(t *testing.T, base, model string) Identity {
	t.Helper()
	id, ok := IdentityFromBaseURL(base, model, "")
	if !ok {
		t.Fatalf("IdentityFromBaseURL(%q, %q): not proven", base, model)
	}
	return id
}

// priced sets the report's identity, model and cost from the default table.
func priced(r Report, id Identity) Report {
	r.Identity = id
	r.Model = id.Model
	if r.Model == "" {
		r.Model = "custom-model"
	}
	r.Cost = DefaultPrices().Price(r)
	return r
}

func TestAccumulatorSequences(t *testing.T) {
	sonnet := mustIdentity(t, "https://api.anthropic.com", "claude-sonnet-4-5")
	haiku := mustIdentity(t, "https://api.anthropic.com/v1", "claude-haiku-4-5")
	gpt := mustIdentity(t, "https://api.openai.com/v1", "gpt-4.1")

	tests := []struct {
		name    string
		reports func(t *testing.T) []Report
		want    []view // the snapshot after each report
	}{
		{
			name: "anthropic streamed turn",
			reports: func(t *testing.T) []Report {
				start := mustReport(t, FromAnthropic, `{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":1000,
					"cache_creation":{"ephemeral_5m_input_tokens":200,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}`)
				delta := mustReport(t, FromAnthropic, `{"output_tokens":350}`)
				return []Report{priced(start.Overlay(delta), sonnet)}
			},
			want: []view{{
				Input: "1210", Output: "350", CacheRead: "1000", CacheWrite: "200", Total: "unknown",
				// 10×$3 + 1000×$0.30 + 200×$3.75 + 350×$15 per million tokens = $0.00633
				Cost:     "6330000000",
				Identity: sonnet, Model: "claude-sonnet-4-5", ContextWindow: "absent",
				LastInput: "1210", LastOutput: "350", Reports: 1,
			}},
		},
		{
			name: "two openai responses turns with totals",
			reports: func(t *testing.T) []Report {
				return []Report{
					priced(mustReport(t, FromOpenAIResponses, `{"input_tokens":1000,"input_tokens_details":{"cached_tokens":0},"output_tokens":200,"output_tokens_details":{"reasoning_tokens":50},"total_tokens":1200}`), gpt),
					priced(mustReport(t, FromOpenAIResponses, `{"input_tokens":1500,"input_tokens_details":{"cached_tokens":1000},"output_tokens":300,"total_tokens":1800}`), gpt),
				}
			},
			want: []view{
				{Input: "1000", Output: "200", CacheRead: "0", CacheWrite: "unknown", Total: "1200", Cost: "unknown",
					Identity: gpt, Model: "gpt-4.1", ContextWindow: "absent", LastInput: "1000", LastOutput: "200", Reports: 1},
				{Input: "2500", Output: "500", CacheRead: "1000", CacheWrite: "unknown", Total: "3000", Cost: "unknown",
					Identity: gpt, Model: "gpt-4.1", ContextWindow: "absent", LastInput: "1500", LastOutput: "300", Reports: 2},
			},
		},
		{
			name: "unknown total is sticky",
			reports: func(t *testing.T) []Report {
				return []Report{
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}`),
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":100,"completion_tokens":10,"total_tokens":null}`),
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}`),
				}
			},
			want: []view{
				{Input: "100", Output: "10", CacheRead: "unknown", CacheWrite: "unknown", Total: "110", Cost: "unknown", ContextWindow: "absent", LastInput: "100", LastOutput: "10", Reports: 1},
				{Input: "200", Output: "20", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", ContextWindow: "absent", LastInput: "100", LastOutput: "10", Reports: 2},
				{Input: "300", Output: "30", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", ContextWindow: "absent", LastInput: "100", LastOutput: "10", Reports: 3},
			},
		},
		{
			name: "input overflows, output keeps summing",
			reports: func(t *testing.T) []Report {
				return []Report{
					{Input: CountOf(math.MaxUint64 - 10), Output: CountOf(5)},
					{Input: CountOf(11), Output: CountOf(7)},
					{Input: CountOf(1), Output: CountOf(8)},
				}
			},
			want: []view{
				{Input: "18446744073709551605", Output: "5", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", ContextWindow: "absent", LastInput: "18446744073709551605", LastOutput: "5", Reports: 1},
				{Input: "unknown", Output: "12", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", ContextWindow: "absent", LastInput: "11", LastOutput: "7", Reports: 2},
				{Input: "unknown", Output: "20", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", ContextWindow: "absent", LastInput: "1", LastOutput: "8", Reports: 3},
			},
		},
		{
			name: "cache fields absent, zero, then unknown",
			reports: func(t *testing.T) []Report {
				return []Report{
					// zero: the provider confirms no cache hits.
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":0}}`),
					// a value.
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55,"prompt_tokens_details":{"cached_tokens":40,"cache_write_tokens":10}}`),
					// absent: cache write missing, cache read null.
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55,"prompt_tokens_details":{"cached_tokens":null}}`),
				}
			},
			want: []view{
				{Input: "50", Output: "5", CacheRead: "0", CacheWrite: "0", Total: "55", Cost: "unknown", ContextWindow: "absent", LastInput: "50", LastOutput: "5", Reports: 1},
				{Input: "100", Output: "10", CacheRead: "40", CacheWrite: "10", Total: "110", Cost: "unknown", ContextWindow: "absent", LastInput: "50", LastOutput: "5", Reports: 2},
				{Input: "150", Output: "15", CacheRead: "unknown", CacheWrite: "unknown", Total: "165", Cost: "unknown", ContextWindow: "absent", LastInput: "50", LastOutput: "5", Reports: 3},
			},
		},
		{
			name: "inconsistent cache figures are dropped for that turn",
			reports: func(t *testing.T) []Report {
				return []Report{
					mustReport(t, FromOpenAIChat, `{"prompt_tokens":50,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":40,"cache_write_tokens":20}}`),
				}
			},
			want: []view{
				{Input: "50", Output: "5", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", ContextWindow: "absent", LastInput: "50", LastOutput: "5", Reports: 1},
			},
		},
		{
			name: "provider switch mid-session",
			reports: func(t *testing.T) []Report {
				return []Report{
					priced(mustReport(t, FromAnthropic, `{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":20}`), sonnet),
					priced(mustReport(t, FromOpenAIChat, `{"prompt_tokens":300,"completion_tokens":30,"total_tokens":330,"prompt_tokens_details":{"cached_tokens":100}}`), gpt),
				}
			},
			want: []view{
				{Input: "100", Output: "20", CacheRead: "0", CacheWrite: "0", Total: "unknown",
					Cost: "600000000", Identity: sonnet, Model: "claude-sonnet-4-5", ContextWindow: "absent", LastInput: "100", LastOutput: "20", Reports: 1},
				{Input: "400", Output: "50", CacheRead: "100", CacheWrite: "unknown", Total: "unknown",
					Cost: "unknown", Model: "gpt-4.1", ContextWindow: "absent", LastInput: "300", LastOutput: "30", Reports: 2},
			},
		},
		{
			name: "unprovable identity (custom base URL)",
			reports: func(t *testing.T) []Report {
				id, ok := IdentityFromBaseURL("https://llm-gateway.corp.example/anthropic", "claude-sonnet-4-5", "")
				if ok {
					t.Fatalf("custom base URL proved identity %+v", id)
				}
				return []Report{priced(mustReport(t, FromAnthropic, `{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":20}`), id)}
			},
			want: []view{
				{Input: "100", Output: "20", CacheRead: "0", CacheWrite: "0", Total: "unknown", Cost: "unknown",
					Model: "custom-model", ContextWindow: "absent", LastInput: "100", LastOutput: "20", Reports: 1},
			},
		},
		{
			name: "mixed identities drop the session identity, costs stay exact",
			reports: func(t *testing.T) []Report {
				r := mustReport(t, FromAnthropic, `{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":100}`)
				return []Report{priced(r, sonnet), priced(r, haiku), priced(r, sonnet)}
			},
			want: []view{
				// 1000×$3 + 100×$15 per million = $0.0045
				{Input: "1000", Output: "100", CacheRead: "0", CacheWrite: "0", Total: "unknown", Cost: "4500000000",
					Identity: sonnet, Model: "claude-sonnet-4-5", ContextWindow: "absent", LastInput: "1000", LastOutput: "100", Reports: 1},
				// + 1000×$1 + 100×$5 per million = $0.0015
				{Input: "2000", Output: "200", CacheRead: "0", CacheWrite: "0", Total: "unknown", Cost: "6000000000",
					Model: "claude-haiku-4-5", ContextWindow: "absent", LastInput: "1000", LastOutput: "100", Reports: 2},
				// the same identity again does not bring it back
				{Input: "3000", Output: "300", CacheRead: "0", CacheWrite: "0", Total: "unknown", Cost: "10500000000",
					Model: "claude-sonnet-4-5", ContextWindow: "absent", LastInput: "1000", LastOutput: "100", Reports: 3},
			},
		},
		{
			name: "context window follows the model",
			reports: func(t *testing.T) []Report {
				return []Report{
					{Input: CountOf(1), Output: CountOf(1), Model: "a", ContextWindow: CountOf(200000)},
					{Input: CountOf(1), Output: CountOf(1), Model: "a"},
					{Input: CountOf(1), Output: CountOf(1)},
					{Input: CountOf(1), Output: CountOf(1), Model: "b"},
				}
			},
			want: []view{
				{Input: "1", Output: "1", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", Model: "a", ContextWindow: "200000", LastInput: "1", LastOutput: "1", Reports: 1},
				{Input: "2", Output: "2", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", Model: "a", ContextWindow: "200000", LastInput: "1", LastOutput: "1", Reports: 2},
				{Input: "3", Output: "3", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", Model: "a", ContextWindow: "200000", LastInput: "1", LastOutput: "1", Reports: 3},
				{Input: "4", Output: "4", CacheRead: "unknown", CacheWrite: "unknown", Total: "unknown", Cost: "unknown", Model: "b", ContextWindow: "absent", LastInput: "1", LastOutput: "1", Reports: 4},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var acc Accumulator
			if diff := cmp.Diff(viewOf(Snapshot{}), viewOf(acc.Snapshot())); diff != "" {
				t.Fatalf("empty accumulator (-want +got):\n%s", diff)
			}
			var got []view
			for _, r := range tt.reports(t) {
				acc.Add(r)
				got = append(got, viewOf(acc.Snapshot()))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("snapshots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCounterStates(t *testing.T) {
	var c Counter
	if c.State() != StateUnseen || c.Exact() || c.Count().Present() {
		t.Fatalf("zero Counter = %v, want unseen and not known", c)
	}
	if v, ok := c.Value(); ok || v != 0 {
		t.Fatalf("Unseen Value() = %d, %v", v, ok)
	}
	c = c.add(CountOf(0))
	if v, ok := c.Value(); !ok || v != 0 || c.State() != StateExact {
		t.Fatalf("after adding 0: %v", c)
	}
	c = c.add(Count{})
	if c.State() != StateUnknown || c.String() != "unknown" {
		t.Fatalf("after adding absent: %v", c)
	}
	if c = c.add(CountOf(3)); c.State() != StateUnknown {
		t.Fatalf("Unknown is not sticky: %v", c)
	}
	if got := ExactCounter(math.MaxUint64).add(CountOf(1)); got.State() != StateUnknown {
		t.Fatalf("overflow gave %v, want unknown", got)
	}
	if got := ExactCounter(math.MaxUint64 - 1).add(CountOf(1)); got != ExactCounter(math.MaxUint64) {
		t.Fatalf("MaxUint64 reached exactly gave %v", got)
	}
}

func TestSnapshotDerived(t *testing.T) {
	tests := []struct {
		name        string
		s           Snapshot
		used        uint64
		ctx         Count
		cost        float64
		costPresent bool
	}{
		{name: "empty", s: Snapshot{}, used: 0},
		{name: "input unknown counts as zero", s: Snapshot{Input: UnknownCounter(), Output: ExactCounter(7)}, used: 7},
		{name: "saturates", s: Snapshot{Input: ExactCounter(math.MaxUint64), Output: ExactCounter(2)}, used: math.MaxUint64},
		{
			name: "context and cost",
			s:    Snapshot{Input: ExactCounter(10), Output: ExactCounter(5), LastInput: CountOf(4), LastOutput: CountOf(2), Cost: ExactCounter(2_500_000_000_000)},
			used: 15, ctx: CountOf(6), cost: 2.5, costPresent: true,
		},
		{name: "context needs both", s: Snapshot{LastInput: CountOf(4)}, ctx: Count{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.UsedSaturating(); got != tt.used {
				t.Errorf("UsedSaturating() = %d, want %d", got, tt.used)
			}
			n, ok := tt.s.ContextUsed()
			if got := (Count{n: n, ok: ok}); got != tt.ctx {
				t.Errorf("ContextUsed() = %v, want %v", got, tt.ctx)
			}
			cost, ok := tt.s.CostUSD()
			if cost != tt.cost || ok != tt.costPresent {
				t.Errorf("CostUSD() = %v, %v; want %v, %v", cost, ok, tt.cost, tt.costPresent)
			}
		})
	}
}

func TestReportContextUsed(t *testing.T) {
	tests := []struct {
		name string
		r    Report
		want Count
	}{
		{"input and output", Report{Input: CountOf(22752), Output: CountOf(16)}, CountOf(22768)},
		{"no output", Report{Input: CountOf(22752)}, Count{}},
		{"no input", Report{Output: CountOf(16)}, Count{}},
		{"overflow", Report{Input: CountOf(math.MaxUint64), Output: CountOf(1)}, Count{}},
	}
	for _, tt := range tests {
		n, ok := tt.r.ContextUsed()
		if got := (Count{n: n, ok: ok}); got != tt.want {
			t.Errorf("%s: ContextUsed() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
