package usage

import (
	"errors"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/google/go-cmp/cmp"
)

// reportView is a Report in readable form, for cmp.Diff.
type reportView struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite5m, CacheWrite1h, Total string
}

func reportViewOf(r Report) reportView {
	return reportView{
		Input: r.Input.String(), Output: r.Output.String(),
		CacheRead: r.CacheRead.String(), CacheWrite: r.CacheWrite.String(),
		CacheWrite5m: r.CacheWrite5m.String(), CacheWrite1h: r.CacheWrite1h.String(),
		Total: r.Total.String(),
	}
}

const absent = "absent"

func TestConverters(t *testing.T) {
	tests := []struct {
		name string
		conv func([]byte) (Report, error)
		in   string
		want reportView
	}{
		{
			name: "anthropic full",
			conv: FromAnthropic,
			in:   `{"input_tokens":3,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":11,"cache_creation":{"ephemeral_5m_input_tokens":2,"ephemeral_1h_input_tokens":3}}`,
			want: reportView{Input: "15", Output: "11", CacheRead: "7", CacheWrite: "5", CacheWrite5m: "2", CacheWrite1h: "3", Total: absent},
		},
		{
			name: "anthropic without cache figures leaves input unproven",
			conv: FromAnthropic,
			in:   `{"input_tokens":3,"output_tokens":11,"cache_read_input_tokens":null}`,
			want: reportView{Input: absent, Output: "11", CacheRead: absent, CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
		{
			name: "anthropic inclusive input overflow is absent",
			conv: FromAnthropic,
			in:   `{"input_tokens":18446744073709551615,"cache_creation_input_tokens":1,"cache_read_input_tokens":0,"output_tokens":1}`,
			want: reportView{Input: absent, Output: "1", CacheRead: "0", CacheWrite: "1", CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
		{
			name: "anthropic ill-typed numbers are absent",
			conv: FromAnthropic,
			in:   `{"input_tokens":"3","output_tokens":-1,"cache_creation_input_tokens":1.5,"cache_read_input_tokens":1e2,"cache_creation":[1]}`,
			want: reportView{Input: absent, Output: absent, CacheRead: absent, CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
		{
			name: "anthropic repeated member: the last counts",
			conv: FromAnthropic,
			in:   `{"output_tokens":1,"output_tokens":2}`,
			want: reportView{Input: absent, Output: "2", CacheRead: absent, CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
		{
			name: "anthropic too large",
			conv: FromAnthropic,
			in:   `{"output_tokens":18446744073709551616}`,
			want: reportView{Input: absent, Output: absent, CacheRead: absent, CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
		{
			name: "openai chat",
			conv: FromOpenAIChat,
			in:   `{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":64,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":5}}`,
			want: reportView{Input: "100", Output: "20", CacheRead: "64", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "120"},
		},
		{
			name: "openai chat with cache writes and null details",
			conv: FromOpenAIChat,
			in:   `{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":30}}`,
			want: reportView{Input: "100", Output: "20", CacheRead: "0", CacheWrite: "30", CacheWrite5m: absent, CacheWrite1h: absent, Total: "120"},
		},
		{
			name: "openai chat details null",
			conv: FromOpenAIChat,
			in:   `{"prompt_tokens":1,"prompt_tokens_details":null}`,
			want: reportView{Input: "1", Output: absent, CacheRead: absent, CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
		{
			name: "openai responses",
			conv: FromOpenAIResponses,
			in:   `{"input_tokens":328,"input_tokens_details":{"cached_tokens":0},"output_tokens":52,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":380}`,
			want: reportView{Input: "328", Output: "52", CacheRead: "0", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "380"},
		},
		{
			name: "member names are not paths",
			conv: FromOpenAIResponses,
			in:   `{"input_tokens_details.cached_tokens":5,"input_tokens_details":{"cached_tokens":{"#":1}},"total_tokens|@this":4}`,
			want: reportView{Input: absent, Output: absent, CacheRead: absent, CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: absent},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.conv([]byte(tt.in))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if diff := cmp.Diff(tt.want, reportViewOf(got)); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConvertersRejectNonObjects(t *testing.T) {
	convs := map[string]func([]byte) (Report, error){
		"FromAnthropic": FromAnthropic, "FromOpenAIChat": FromOpenAIChat, "FromOpenAIResponses": FromOpenAIResponses,
	}
	for name, conv := range convs {
		for _, in := range []string{``, `null`, `[]`, `3`, `{"input_tokens":1`, `{"a":1}}`, `{"a":tru}`} {
			if _, err := conv([]byte(in)); !errors.Is(err, ErrNotObject) {
				t.Errorf("%s(%q) error = %v, want ErrNotObject", name, in, err)
			}
		}
	}
}

func TestFromClaudeResultLine(t *testing.T) {
	line := `{"type":"result","subtype":"success","is_error":false,"num_turns":2,"session_id":"s1",
		"total_cost_usd":0.0512345,
		"usage":{"input_tokens":8,"output_tokens":300},
		"modelUsage":{
			"claude-sonnet-4-5-20250929":{"inputTokens":8,"outputTokens":300,"cacheReadInputTokens":12000,"cacheCreationInputTokens":3000,"webSearchRequests":0,"costUSD":0.0501,"contextWindow":200000,"maxOutputTokens":64000},
			"claude-haiku-4-5-20251001":{"inputTokens":400,"outputTokens":20,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.0005,"contextWindow":200000},
			"bogus":7
		}}`
	got, err := FromClaudeResult(parseResult(t, line))
	if err != nil {
		t.Fatal(err)
	}
	want := CLIResult{
		TotalCost: CountOf(51_234_500_000),
		Models: []ModelUsage{
			{Model: "claude-haiku-4-5-20251001", InputTokens: CountOf(400), OutputTokens: CountOf(20), CacheReadInputTokens: CountOf(0), CacheCreationInputTokens: CountOf(0),
				Cost: CountOf(500_000_000), ContextWindow: CountOf(200000)},
			{Model: "claude-sonnet-4-5-20250929", InputTokens: CountOf(8), OutputTokens: CountOf(300), CacheReadInputTokens: CountOf(12000), CacheCreationInputTokens: CountOf(3000),
				Cost: CountOf(50_100_000_000), ContextWindow: CountOf(200000), MaxOutputTokens: CountOf(64000)},
		},
		Run: Report{Output: CountOf(300)}, // from usage, whose missing cache figures leave the input unproven; no cost
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Count{})); diff != "" {
		t.Errorf("FromClaudeResult (-want +got):\n%s", diff)
	}
	wantTotals := Totals{Input: CountOf(15408), Output: CountOf(320), CacheRead: CountOf(12000), CacheWrite: CountOf(3000), Cost: CountOf(51_234_500_000)}
	if diff := cmp.Diff(wantTotals, got.Totals(), cmp.AllowUnexported(Count{})); diff != "" {
		t.Errorf("Totals (-want +got):\n%s", diff)
	}
}

func TestCLIResultTotals(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Totals
	}{
		{name: "no models", in: `{"total_cost_usd":1}`, want: Totals{Cost: CountOf(PicoUSDPerUSD)}},
		{name: "no cost", in: `{}`, want: Totals{}},
		{
			name: "cost from models when total is missing",
			in:   `{"modelUsage":{"m":{"inputTokens":1,"outputTokens":2,"cacheReadInputTokens":3,"cacheCreationInputTokens":4,"costUSD":0.25}}}`,
			want: Totals{Input: CountOf(8), Output: CountOf(2), CacheRead: CountOf(3), CacheWrite: CountOf(4), Cost: CountOf(PicoUSDPerUSD / 4)},
		},
		{
			name: "a model missing a figure makes it absent",
			in:   `{"modelUsage":{"m":{"inputTokens":1,"outputTokens":2,"cacheReadInputTokens":3,"cacheCreationInputTokens":4},"n":{"outputTokens":1}}}`,
			want: Totals{Output: CountOf(3)},
		},
		{
			name: "negative and string costs are absent",
			in:   `{"total_cost_usd":-0.5,"modelUsage":{"m":{"outputTokens":2,"costUSD":"0.1"}}}`,
			want: Totals{Output: CountOf(2)},
		},
		{
			name: "a repeated model: the last counts",
			in:   `{"modelUsage":{"m":{"outputTokens":2},"m":{"outputTokens":5}}}`,
			want: Totals{Output: CountOf(5), Cost: Count{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"type":"result"}`
			if tt.in != "{}" {
				line = `{"type":"result",` + tt.in[1:]
			}
			r, err := FromClaudeResult(parseResult(t, line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Totals(), cmp.AllowUnexported(Count{})); diff != "" {
				t.Errorf("Totals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPicos(t *testing.T) {
	tests := []struct {
		in   string
		want Count
	}{
		{`0`, CountOf(0)},
		{`1`, CountOf(PicoUSDPerUSD)},
		{`3e-06`, CountOf(3_000_000)},
		{`3E-6`, CountOf(3_000_000)},
		{`5.46875e-07`, CountOf(546_875)},
		{`0.0000000000004`, CountOf(0)}, // rounds down
		{`0.0000000000005`, CountOf(1)}, // half rounds up
		{`18446744.073709551615`, CountOf(18446744073709551615)},
		{`18446744.0737095516155`, Count{}}, // rounds past uint64
		{`-0.1`, Count{}},
		{`-0`, Count{}},
		{`1e65`, Count{}},
		{`1e-65`, Count{}},
		{`"1"`, Count{}},
		{`null`, Count{}},
	}
	for _, tt := range tests {
		obj, err := object([]byte(`{"v":`+tt.in+`}`), ErrNotObject)
		if err != nil {
			t.Fatal(err)
		}
		if got := picos(members.Get(obj, "v")); got != tt.want {
			t.Errorf("picos(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestDeeplyNestedInput checks that input nesting far beyond any limit is
// an error, not a stack overflow (gjson.ValidBytes recursed per level and
// crashed on ten million '[').
func TestDeeplyNestedInput(t *testing.T) {
	deep := []byte(strings.Repeat("[", 10<<20))
	obj := []byte(`{"input_tokens":` + strings.Repeat("[", 10<<20))
	for _, in := range [][]byte{deep, obj} {
		if _, err := FromAnthropic(in); !errors.Is(err, ErrNotObject) {
			t.Errorf("FromAnthropic: error = %v, want ErrNotObject", err)
		}
		if _, err := FromClaudeResult(claude.Result{ModelUsage: in}); !errors.Is(err, ErrNotObject) {
			t.Errorf("FromClaudeResult: error = %v, want ErrNotObject", err)
		}
		if _, err := LoadLiteLLM(in); !errors.Is(err, ErrInvalidPrices) {
			t.Errorf("LoadLiteLLM: error = %v, want ErrInvalidPrices", err)
		}
	}
}
