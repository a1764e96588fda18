package usage

import (
	_ "embed"
	"errors"
	"math/bits"
	"strings"
	"sync"

	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// LongContextThreshold is the inclusive input, in tokens, above which a
// request to a model with a long-context tier is charged at the tier's
// rates — the whole request, not only the tokens above it. A request of
// exactly LongContextThreshold tokens is not long.
const LongContextThreshold = 200_000

// Rates are one tier's prices, each in picodollars per token — which is the
// same number as microdollars per million tokens: $3 per million tokens is
// 3_000_000. An absent rate means the price list does not publish one.
type Rates struct {
	Input        Count // uncached input
	Output       Count // output
	CacheRead    Count // input read from the cache
	CacheWrite5m Count // input written to the cache with a 5-minute lifetime
	CacheWrite1h Count // input written to the cache with a 1-hour lifetime
}

// Price is one model's price under one authority.
type Price struct {
	// Base is the standard tier.
	Base Rates
	// LongContext is the tier for requests above [LongContextThreshold]
	// input tokens; it applies only when LongContext.Input is present.
	LongContext Rates
	// ContextWindow is the model's maximum input in tokens, when published.
	ContextWindow Count
}

// Cost returns the cost of one request in picodollars, or absent when the
// price cannot be proven from the report. It never guesses:
//
//   - Input and Output must be present.
//   - Above [LongContextThreshold] inclusive input tokens, every category
//     uses the LongContext rates when the model has that tier.
//   - When the price list bills cache reads (it publishes a cache-read rate),
//     CacheRead must be present; likewise CacheWrite for cache writes.
//     Otherwise those tokens are billed as uncached input.
//   - Cache writes use the 5-minute and 1-hour rates by the report's split.
//     Without a split they are all priced at the 5-minute rate, unless the
//     price list publishes a different 1-hour rate; then the cost is absent.
//   - A category with tokens but no published rate in the applicable tier
//     makes the cost absent; so does an overflow.
//
// The arithmetic is exact integer arithmetic in picodollars; the only
// rounding is in the rates themselves (see [LoadLiteLLM]). The long-context
// rule applies per request, so call Cost on each model call's report, not
// on a sum of them.
func (p Price) Cost(r Report) Count {
	r = r.normalized()
	in, ok := r.Input.Get()
	out, ok2 := r.Output.Get()
	if !ok || !ok2 {
		return Count{}
	}
	rates, long := p.Base, false
	if in > LongContextThreshold && p.LongContext.Input.ok {
		rates, long = p.LongContext, true
	}
	bills := func(base, tier Count) bool { return base.ok || (long && tier.ok) }

	var c meter
	fresh := in
	if bills(p.Base.CacheRead, p.LongContext.CacheRead) {
		cr, ok := r.CacheRead.Get()
		if !ok {
			return Count{}
		}
		c.charge(cr, rates.CacheRead)
		fresh -= cr // normalized: CacheRead + CacheWrite ≤ Input
	}
	if bills(p.Base.CacheWrite5m, p.LongContext.CacheWrite5m) || bills(p.Base.CacheWrite1h, p.LongContext.CacheWrite1h) {
		cw, ok := r.CacheWrite.Get()
		if !ok {
			return Count{}
		}
		w5, w1 := r.CacheWrite5m, r.CacheWrite1h
		if !w5.ok || !w1.ok {
			if cw > 0 && (p.Base.distinct1h() || long && p.LongContext.distinct1h()) {
				return Count{}
			}
			w5, w1 = CountOf(cw), CountOf(0)
		}
		c.charge(w5.n, rates.CacheWrite5m)
		c.charge(w1.n, rates.CacheWrite1h)
		fresh -= cw
	}
	c.charge(fresh, rates.Input)
	c.charge(out, rates.Output)
	if c.bad {
		return Count{}
	}
	return CountOf(c.sum)
}

// distinct1h reports whether the 1-hour cache-write rate is published and
// differs from the 5-minute one, so that pricing needs the report's split.
func (r Rates) distinct1h() bool {
	return r.CacheWrite1h.ok && r.CacheWrite1h != r.CacheWrite5m
}

// meter sums tokens × rate products, failing on overflow or on tokens whose
// rate is absent.
type meter struct {
	sum uint64
	bad bool
}

func (m *meter) charge(tokens uint64, rate Count) {
	if tokens == 0 {
		return
	}
	if !rate.ok {
		m.bad = true
		return
	}
	hi, lo := bits.Mul64(tokens, rate.n)
	s, carry := bits.Add64(m.sum, lo, 0)
	if hi != 0 || carry != 0 {
		m.bad = true
		return
	}
	m.sum = s
}

// ErrInvalidPrices reports price-table bytes that are not a JSON object;
// errors from [LoadLiteLLM] wrap it.
var ErrInvalidPrices = errors.New("usage: invalid price table JSON")

// PriceTable maps a pricing identity's authority and model to a [Price]. A
// PriceTable is read-only once built, so one table may be shared by many
// goroutines. A nil *PriceTable prices nothing.
type PriceTable struct {
	prices map[priceKey]Price
}

type priceKey struct{ authority, model string }

// litellmAuthority maps LiteLLM's litellm_provider to the authority whose
// price list the entries describe.
var litellmAuthority = map[string]string{
	"anthropic":  AuthorityAnthropic,
	"openai":     AuthorityOpenAI,
	"openrouter": AuthorityOpenRouter,
	"gemini":     AuthorityGoogleAI,
}

// LoadLiteLLM builds a table from the bytes of LiteLLM's
// model_prices_and_context_window.json (or a file in the same format).
//
// Only entries whose litellm_provider is "anthropic", "openai",
// "openrouter" or "gemini" are kept, under [AuthorityAnthropic],
// [AuthorityOpenAI], [AuthorityOpenRouter] and [AuthorityGoogleAI]; a
// leading "<provider>/" is removed from the entry name to give the model id
// ("openrouter/anthropic/claude-sonnet-4.5" becomes
// "anthropic/claude-sonnet-4.5", "gemini/gemini-2.5-pro" "gemini-2.5-pro").
// An entry needs input_cost_per_token and output_cost_per_token; other
// entries are skipped. The fields read are input_cost_per_token,
// output_cost_per_token, cache_read_input_token_cost,
// cache_creation_input_token_cost, cache_creation_input_token_cost_above_1hr,
// their _above_200k_tokens variants (input_cost_per_token_above_200k_tokens,
// cache_creation_input_token_cost_above_1hr_above_200k_tokens, …) and
// max_input_tokens. Per-token dollar rates are read exactly from their
// decimal literals and rounded half up to the picodollar; a malformed or
// negative rate is treated as unpublished. A later entry with the same
// authority and model replaces an earlier one.
func LoadLiteLLM(data []byte) (*PriceTable, error) {
	root, err := object(data, ErrInvalidPrices)
	if err != nil {
		return nil, err
	}
	t := &PriceTable{prices: map[priceKey]Price{}}
	root.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		f := members.GetAll(v, "litellm_provider",
			"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost",
			"cache_creation_input_token_cost", "cache_creation_input_token_cost_above_1hr",
			"input_cost_per_token_above_200k_tokens", "output_cost_per_token_above_200k_tokens",
			"cache_read_input_token_cost_above_200k_tokens", "cache_creation_input_token_cost_above_200k_tokens",
			"cache_creation_input_token_cost_above_1hr_above_200k_tokens", "max_input_tokens")
		if f[0].Type != gjson.String {
			return true
		}
		provider := f[0].String()
		auth, ok := litellmAuthority[provider]
		if !ok {
			return true
		}
		model := strings.TrimPrefix(name, provider+"/")
		p := Price{
			Base:          Rates{Input: picos(f[1]), Output: picos(f[2]), CacheRead: picos(f[3]), CacheWrite5m: picos(f[4]), CacheWrite1h: picos(f[5])},
			LongContext:   Rates{Input: picos(f[6]), Output: picos(f[7]), CacheRead: picos(f[8]), CacheWrite5m: picos(f[9]), CacheWrite1h: picos(f[10])},
			ContextWindow: tokens(f[11]),
		}
		if model == "" || !p.Base.Input.ok || !p.Base.Output.ok {
			return true
		}
		t.prices[priceKey{auth, model}] = p
		return true
	})
	return t, nil
}

// defaultPricesJSON is a small LiteLLM-format table of current Claude models
// on api.anthropic.com. Source: Anthropic's published pricing
// (https://docs.anthropic.com/en/docs/about-claude/pricing) as mirrored in
// LiteLLM's model_prices_and_context_window.json, checked 2026-02-17.
//
//go:embed default_prices.json
var defaultPricesJSON []byte

var defaultPrices = sync.OnceValue(func() *PriceTable {
	t, err := LoadLiteLLM(defaultPricesJSON)
	if err != nil {
		panic("usage: embedded default_prices.json: " + err.Error()) // a build defect, caught by the tests
	}
	return t
})

// DefaultPrices returns the built-in table: current Claude models under
// [AuthorityAnthropic], with prices as of 2026-02-17. Prices change; load a
// fresh LiteLLM file with [LoadLiteLLM] when it matters. The table is shared
// and read-only.
func DefaultPrices() *PriceTable { return defaultPrices() }

// Len returns the number of prices in t.
func (t *PriceTable) Len() int {
	if t == nil {
		return 0
	}
	return len(t.prices)
}

// Lookup returns the price of model under authority.
func (t *PriceTable) Lookup(authority, model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	p, ok := t.prices[priceKey{authority, model}]
	return p, ok
}

// Price returns the cost of one request in picodollars: absent unless the
// report carries a proven [Identity] that t has a price for, and the price
// can be proven from the report's figures (see [Price.Cost]). Set the
// report's Cost from it before adding the report to an [Accumulator]:
//
//	r.Cost = prices.Price(r)
func (t *PriceTable) Price(r Report) Count {
	if !r.Identity.Proven() {
		return Count{}
	}
	p, ok := t.Lookup(r.Identity.Authority, r.Identity.Model)
	if !ok {
		return Count{}
	}
	return p.Cost(r)
}
