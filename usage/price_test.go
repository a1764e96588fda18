package usage

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// dumpTable writes a table in sorted, readable form.
func dumpTable(t *PriceTable) string {
	var lines []string
	for k, p := range t.prices {
		lines = append(lines, fmt.Sprintf("%s %s\n  base %s\n  long %s\n  window %v\n",
			k.authority, k.model, dumpRates(p.Base), dumpRates(p.LongContext), p.ContextWindow))
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

func dumpRates(r Rates) string {
	return fmt.Sprintf("in=%v out=%v read=%v write5m=%v write1h=%v", r.Input, r.Output, r.CacheRead, r.CacheWrite5m, r.CacheWrite1h)
}

func TestLoadLiteLLMGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "litellm_sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := LoadLiteLLM(data)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "litellm_sample.txt", []byte(dumpTable(tab)))
}

func TestDefaultPricesGolden(t *testing.T) {
	golden(t, "default_prices.txt", []byte(dumpTable(DefaultPrices())))
	if a, b := DefaultPrices(), DefaultPrices(); a != b {
		t.Error("DefaultPrices is not shared")
	}
}

func TestLoadLiteLLMErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `{`, `"x"`} {
		if _, err := LoadLiteLLM([]byte(in)); !errors.Is(err, ErrInvalidPrices) {
			t.Errorf("LoadLiteLLM(%q) error = %v, want ErrInvalidPrices", in, err)
		}
	}
}

func TestPriceCost(t *testing.T) {
	sonnet, ok := DefaultPrices().Lookup(AuthorityAnthropic, "claude-sonnet-4-5")
	if !ok {
		t.Fatal("claude-sonnet-4-5 missing from the default table")
	}
	flat := Price{Base: Rates{Input: CountOf(2_000_000), Output: CountOf(8_000_000), CacheRead: CountOf(500_000)}}
	noCache := Price{Base: Rates{Input: CountOf(1_000_000), Output: CountOf(2_000_000)}}
	same1h := Price{Base: Rates{Input: CountOf(1), Output: CountOf(1), CacheWrite5m: CountOf(10), CacheWrite1h: CountOf(10)}}
	tests := []struct {
		name  string
		price Price
		r     Report
		want  Count
	}{
		{
			name: "all categories, split given", price: sonnet,
			r: Report{Input: CountOf(1600), Output: CountOf(100), CacheRead: CountOf(1000), CacheWrite: CountOf(500), CacheWrite5m: CountOf(200), CacheWrite1h: CountOf(300)},
			// 100×3 + 1000×0.3 + 200×3.75 + 300×6 + 100×15 (micro$ per token ×10⁶)
			want: CountOf(100*3_000_000 + 1000*300_000 + 200*3_750_000 + 300*6_000_000 + 100*15_000_000),
		},
		{
			name: "cache writes without split when 1h differs", price: sonnet,
			r:    Report{Input: CountOf(600), Output: CountOf(1), CacheRead: CountOf(0), CacheWrite: CountOf(500)},
			want: Count{},
		},
		{
			name: "no cache writes need no split", price: sonnet,
			r:    Report{Input: CountOf(600), Output: CountOf(1), CacheRead: CountOf(0), CacheWrite: CountOf(0)},
			want: CountOf(600*3_000_000 + 15_000_000),
		},
		{
			name: "split not needed when rates agree", price: same1h,
			r:    Report{Input: CountOf(10), Output: CountOf(1), CacheWrite: CountOf(4)},
			want: CountOf(6 + 40 + 1),
		},
		{
			name: "exactly at the threshold is standard", price: sonnet,
			r:    Report{Input: CountOf(200_000), Output: CountOf(0), CacheRead: CountOf(0), CacheWrite: CountOf(0)},
			want: CountOf(200_000 * 3_000_000),
		},
		{
			name: "above the threshold the whole request is premium", price: sonnet,
			r:    Report{Input: CountOf(200_001), Output: CountOf(10), CacheRead: CountOf(100_000), CacheWrite: CountOf(1), CacheWrite5m: CountOf(0), CacheWrite1h: CountOf(1)},
			want: CountOf(100_000*6_000_000 + 100_000*600_000 + 12_000_000 + 10*22_500_000),
		},
		{
			name: "missing cache read when the list bills it", price: sonnet,
			r:    Report{Input: CountOf(10), Output: CountOf(1), CacheWrite: CountOf(0)},
			want: Count{},
		},
		{
			name: "missing cache write when the list bills it", price: sonnet,
			r:    Report{Input: CountOf(10), Output: CountOf(1), CacheRead: CountOf(0)},
			want: Count{},
		},
		{
			name: "cache writes billed as input when the list has no write rate", price: flat,
			r:    Report{Input: CountOf(1000), Output: CountOf(10), CacheRead: CountOf(400)},
			want: CountOf(600*2_000_000 + 400*500_000 + 10*8_000_000),
		},
		{
			name: "no cache rates at all", price: noCache,
			r:    Report{Input: CountOf(1000), Output: CountOf(10)},
			want: CountOf(1000*1_000_000 + 10*2_000_000),
		},
		{
			name: "missing input", price: noCache, r: Report{Output: CountOf(10)}, want: Count{},
		},
		{
			name: "missing output", price: noCache, r: Report{Input: CountOf(10)}, want: Count{},
		},
		{
			name: "inconsistent cache figures are not reported", price: flat,
			r:    Report{Input: CountOf(10), Output: CountOf(1), CacheRead: CountOf(11)},
			want: Count{},
		},
		{
			name: "overflow", price: noCache,
			r:    Report{Input: CountOf(math.MaxUint64 / 100), Output: CountOf(0)},
			want: Count{},
		},
		{
			name: "zero tokens of an unpriced category are fine", price: Price{Base: Rates{Input: CountOf(5)}},
			r:    Report{Input: CountOf(3), Output: CountOf(0)},
			want: CountOf(15),
		},
		{
			name: "output with no output rate", price: Price{Base: Rates{Input: CountOf(5)}},
			r:    Report{Input: CountOf(3), Output: CountOf(1)},
			want: Count{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Cost(tt.r); got != tt.want {
				t.Errorf("Cost = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPriceTablePrice(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "litellm_sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := LoadLiteLLM(data)
	if err != nil {
		t.Fatal(err)
	}
	r := Report{Input: CountOf(1000), Output: CountOf(100), CacheRead: CountOf(0)}
	tests := []struct {
		name string
		tab  *PriceTable
		id   Identity
		want Count
	}{
		{name: "openai", tab: tab, id: Identity{Authority: AuthorityOpenAI, Model: "gpt-4.1"}, want: CountOf(1000*2_000_000 + 100*8_000_000)},
		{name: "openrouter strips its prefix", tab: tab, id: Identity{Authority: AuthorityOpenRouter, Model: "anthropic/claude-sonnet-4.5"}, want: CountOf(1000*3_000_000 + 100*15_000_000)},
		{name: "a model under another authority", tab: tab, id: Identity{Authority: AuthorityAnthropic, Model: "gpt-4.1"}, want: Count{}},
		{name: "unproven identity", tab: tab, id: Identity{Model: "gpt-4.1"}, want: Count{}},
		{name: "unknown model", tab: tab, id: Identity{Authority: AuthorityOpenAI, Model: "gpt-9"}, want: Count{}},
		{name: "nil table", tab: nil, id: Identity{Authority: AuthorityOpenAI, Model: "gpt-4.1"}, want: Count{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := r
			r.Identity = tt.id
			if got := tt.tab.Price(r); got != tt.want {
				t.Errorf("Price = %v, want %v", got, tt.want)
			}
		})
	}
}
