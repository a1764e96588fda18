package usage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/members"
	"github.com/google/go-cmp/cmp"
)

// geminiView is a GeminiModel in readable form, for cmp.Diff.
func geminiView(m GeminiModel) string {
	return fmt.Sprintf("%s requests=%s prompt=%s cached=%s candidates=%s thoughts=%s tool=%s total=%s reasoning=%s",
		m.Model, m.Requests, m.Prompt, m.Cached, m.Candidates, m.Thoughts, m.Tool, m.Total, m.Reasoning())
}

func geminiViews(s GeminiStats) []string {
	var out []string
	for _, m := range s.Models {
		out = append(out, geminiView(m))
	}
	return out
}

func TestParseGeminiStats(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"stream-json", `{"total_tokens":10476,"models":{"gemini-3.8-flash":{"total_tokens":9716,"input_tokens":9649,"output_tokens":3,"cached":7236,"input":2413},"gemini-3.5-flash-lite":{"total_tokens":760,"input_tokens":738,"output_tokens":22,"cached":0,"input":738}}}`,
			[]string{
				"gemini-3.5-flash-lite requests=absent prompt=738 cached=0 candidates=22 thoughts=absent tool=absent total=760 reasoning=0",
				"gemini-3.8-flash requests=absent prompt=9649 cached=7236 candidates=3 thoughts=absent tool=absent total=9716 reasoning=absent",
			}},
		{"json output", `{"models":{"m":{"api":{"totalRequests":2},"tokens":{"input":5,"prompt":20,"candidates":3,"total":31,"cached":15,"thoughts":6,"tool":2}}}}`,
			[]string{"m requests=2 prompt=20 cached=15 candidates=3 thoughts=6 tool=2 total=31 reasoning=6"}},
		{"json output without thoughts: total minus tool", `{"models":{"m":{"tokens":{"prompt":20,"candidates":3,"total":31,"tool":2}}}}`,
			[]string{"m requests=absent prompt=20 cached=absent candidates=3 thoughts=absent tool=2 total=31 reasoning=6"}},
		{"tool beyond the rest", `{"models":{"m":{"tokens":{"prompt":20,"candidates":3,"total":24,"tool":2}}}}`,
			[]string{"m requests=absent prompt=20 cached=absent candidates=3 thoughts=absent tool=2 total=24 reasoning=absent"}},
		{"total below its parts", `{"models":{"m":{"total_tokens":5,"input_tokens":9,"output_tokens":1}}}`,
			[]string{"m requests=absent prompt=9 cached=absent candidates=1 thoughts=absent tool=absent total=5 reasoning=absent"}},
		{"no total", `{"models":{"m":{"input_tokens":9,"output_tokens":1}}}`,
			[]string{"m requests=absent prompt=9 cached=absent candidates=1 thoughts=absent tool=absent total=absent reasoning=absent"}},
		{"ill-typed figures are absent", `{"models":{"m":{"total_tokens":"5","input_tokens":-1,"output_tokens":1.5,"cached":null}}}`,
			[]string{"m requests=absent prompt=absent cached=absent candidates=absent thoughts=absent tool=absent total=absent reasoning=absent"}},
		{"repeated model and member: the last counts", `{"models":{"m":{"total_tokens":1},"m":{"total_tokens":2,"total_tokens":3}}}`,
			[]string{"m requests=absent prompt=absent cached=absent candidates=absent thoughts=absent tool=absent total=3 reasoning=absent"}},
		{"an entry that is not an object is skipped", `{"models":{"m":{"total_tokens":1},"m":[1],"n":7}}`, nil},
		{"models not an object", `{"models":[{"total_tokens":1}]}`, nil},
		{"no models", `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseGeminiStats([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, geminiViews(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `{"models":`, "null"} {
		if _, err := ParseGeminiStats([]byte(bad)); !errors.Is(err, ErrNotObject) {
			t.Errorf("ParseGeminiStats(%q) error = %v, want ErrNotObject", bad, err)
		}
	}
}

// geminiPrices is a LiteLLM-format table with one Gemini API model, with a
// long-context tier, and one without.
const geminiPrices = `{
	"gemini/gemini-2.5-pro": {"litellm_provider": "gemini", "input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05,
		"cache_read_input_token_cost": 3.125e-07, "input_cost_per_token_above_200k_tokens": 2.5e-06,
		"output_cost_per_token_above_200k_tokens": 1.5e-05, "cache_read_input_token_cost_above_200k_tokens": 6.25e-07},
	"gemini/gemini-2.5-flash": {"litellm_provider": "gemini", "input_cost_per_token": 3e-07, "output_cost_per_token": 2.5e-06,
		"cache_read_input_token_cost": 7.5e-08},
	"vertex_ai/gemini-2.5-pro": {"litellm_provider": "vertex_ai-language-models", "input_cost_per_token": 1e-06, "output_cost_per_token": 1e-05}
}`

func TestGeminiReport(t *testing.T) {
	prices, err := LoadLiteLLM([]byte(geminiPrices))
	if err != nil {
		t.Fatal(err)
	}
	if prices.Len() != 2 {
		t.Fatalf("%d prices, want the two gemini ones", prices.Len())
	}
	pro, _ := IdentityFromBaseURL("https://generativelanguage.googleapis.com", "gemini-2.5-pro", "")
	flash, _ := IdentityFromBaseURL("https://GenerativeLanguage.googleapis.com/v1beta", "gemini-2.5-flash", "")
	small := GeminiModel{Model: "gemini-2.5-pro", Prompt: CountOf(1000), Cached: CountOf(400), Candidates: CountOf(100), Total: CountOf(1100)}
	big := GeminiModel{Model: "gemini-2.5-pro", Prompt: CountOf(300_000), Cached: CountOf(0), Candidates: CountOf(100), Total: CountOf(300_100)}
	bigOne := big
	bigOne.Requests = CountOf(1)
	bigFlash := big
	bigFlash.Model = "gemini-2.5-flash"
	thinking := small
	thinking.Total = CountOf(1150)
	tests := []struct {
		name   string
		m      GeminiModel
		id     Identity
		prices *PriceTable
		want   reportView
		cost   string
	}{
		// 600 × 1.25 + 400 × 0.3125 + 100 × 10 µ$ = 750 + 125 + 1000 = 1875 µ$.
		{"within the tier", small, pro, prices,
			reportView{Input: "1000", Output: "100", CacheRead: "400", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "1100"},
			"1875000000"},
		{"above the tier, one request", bigOne, pro, prices,
			reportView{Input: "300000", Output: "100", CacheRead: "0", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "300100"},
			"751500000000"},
		{"above the tier, requests unknown", big, pro, prices,
			reportView{Input: "300000", Output: "100", CacheRead: "0", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "300100"},
			absent},
		{"no tier to fall into", bigFlash, flash, prices,
			reportView{Input: "300000", Output: "100", CacheRead: "0", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "300100"},
			"90250000000"},
		{"reasoning unknown: no output, no cost", thinking, pro, prices,
			reportView{Input: "1000", Output: absent, CacheRead: "400", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "1150"},
			absent},
		{"identity unproven", small, Identity{}, prices,
			reportView{Input: "1000", Output: "100", CacheRead: "400", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "1100"},
			absent},
		{"no prices", small, pro, nil,
			reportView{Input: "1000", Output: "100", CacheRead: "400", CacheWrite: absent, CacheWrite5m: absent, CacheWrite1h: absent, Total: "1100"},
			absent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.m.Report(tt.id, tt.prices)
			if diff := cmp.Diff([]any{tt.want, tt.cost, tt.m.Model, tt.id}, []any{reportViewOf(r), r.Cost.String(), r.Model, r.Identity}); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// Only the Gemini API itself proves an identity.
	for _, base := range []string{"https://us-central1-aiplatform.googleapis.com", "https://cloudcode-pa.googleapis.com", "http://generativelanguage.googleapis.com"} {
		if id, ok := IdentityFromBaseURL(base, "gemini-2.5-pro", ""); ok {
			t.Errorf("%s proves %v", base, id)
		}
	}
}

func TestGeminiTotals(t *testing.T) {
	s, err := ParseGeminiStats([]byte(`{"models":{"a":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4},"b":{"total_tokens":7,"input_tokens":5,"output_tokens":2,"cached":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Totals{Input: CountOf(15), Output: CountOf(4), CacheRead: CountOf(4), Total: CountOf(19)}
	if diff := cmp.Diff(want, s.Totals(), cmp.AllowUnexported(Count{})); diff != "" {
		t.Errorf("Totals (-want +got):\n%s", diff)
	}
	// One model whose reasoning is unknown makes the output unknown.
	s.Models[1].Total = CountOf(9)
	if got := s.Totals(); got.Output.Present() || !got.Total.Present() {
		t.Errorf("Totals with an unknown reasoning = %+v", got)
	}
	if got := (GeminiStats{}).Totals(); got != (Totals{}) {
		t.Errorf("no models: %+v", got)
	}
}

// TestGeminiStatsGolden reads the stats of every Gemini CLI capture.
func TestGeminiStatsGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/gemini/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d captures", len(paths))
	}
	var b strings.Builder
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, "json-plain-text.json") {
			data = []byte(mustGet(t, data, "stats"))
		}
		s, err := ParseGeminiStats(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		fmt.Fprintf(&b, "%s\n", filepath.Base(path))
		for _, m := range s.Models {
			fmt.Fprintf(&b, "  %s\n    %+v\n", geminiView(m), reportViewOf(m.Report(Identity{}, nil)))
		}
		tot := s.Totals()
		fmt.Fprintf(&b, "  totals input=%s output=%s cache_read=%s total=%s\n", tot.Input, tot.Output, tot.CacheRead, tot.Total)
	}
	golden(t, "gemini_stats.txt", []byte(b.String()))
}

func mustGet(t *testing.T, data []byte, name string) string {
	t.Helper()
	obj, err := object(data, ErrNotObject)
	if err != nil {
		t.Fatal(err)
	}
	v := members.Get(obj, name)
	if !v.Exists() {
		t.Fatalf("no %q member", name)
	}
	return v.Raw
}

func FuzzParseGeminiStats(f *testing.F) {
	f.Add([]byte(`{"models":{"m":{"total_tokens":9716,"input_tokens":9649,"output_tokens":3,"cached":7236}}}`))
	f.Add([]byte(`{"models":{"m":{"api":{"totalRequests":1},"tokens":{"prompt":20,"candidates":3,"total":31,"thoughts":6,"tool":2}}}}`))
	f.Add([]byte(`{"models":{"m":{"total_tokens":18446744073709551615,"input_tokens":18446744073709551615,"output_tokens":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseGeminiStats(data)
		if err != nil {
			if !errors.Is(err, ErrNotObject) {
				t.Fatalf("error %v does not wrap ErrNotObject", err)
			}
			return
		}
		for i, m := range s.Models {
			if i > 0 && s.Models[i-1].Model >= m.Model {
				t.Fatalf("models not sorted and unique: %q then %q", s.Models[i-1].Model, m.Model)
			}
			if r, ok := m.Reasoning().Get(); ok {
				total, tok := m.Total.Get()
				if !m.Thoughts.Present() && (!tok || r > total) {
					t.Fatalf("reasoning %d beyond the total %v", r, m.Total)
				}
			}
			rep := m.Report(Identity{}, nil)
			if out, ok := rep.Output.Get(); ok {
				if c, _ := m.Candidates.Get(); out < c {
					t.Fatalf("output %d below candidates %d", out, c)
				}
			}
			if rep.Cost.Present() || rep.CacheWrite.Present() {
				t.Fatal("cost or cache writes without a source")
			}
		}
	})
}
