package usage

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// ErrNotObject reports usage bytes that are not one valid JSON object.
// Errors from the converters wrap it; test with [errors.Is].
var ErrNotObject = errors.New("usage: not a JSON object")

// object validates data and returns it parsed as an object; its errors wrap
// invalid, the caller's sentinel.
func object(data []byte, invalid error) (gjson.Result, error) {
	if !jsonscan.Valid(data) {
		return gjson.Result{}, fmt.Errorf("%w: not valid JSON", invalid)
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return gjson.Result{}, fmt.Errorf("%w: not a JSON object", invalid)
	}
	return r, nil
}

// tokens reads a token count by the rules in the package documentation.
func tokens(v gjson.Result) Count {
	if v.Type != gjson.Number {
		return Count{}
	}
	n, err := strconv.ParseUint(v.Raw, 10, 64)
	if err != nil {
		return Count{}
	}
	return CountOf(n)
}

// maxExp bounds the exponent of a money literal so that exact decimal
// arithmetic stays small; beyond it the amount is absent.
const maxExp = 64

// picos reads a non-negative decimal number of dollars (or dollars per
// token) as picodollars, rounded half up to the nearest picodollar. A
// non-number, a negative number, a literal longer than 64 bytes or with an
// exponent beyond ±64, or an amount of more than a uint64 of picodollars is
// absent.
func picos(v gjson.Result) Count {
	if v.Type != gjson.Number || len(v.Raw) > 64 || strings.HasPrefix(v.Raw, "-") {
		return Count{}
	}
	if i := strings.IndexAny(v.Raw, "eE"); i >= 0 {
		e, err := strconv.Atoi(v.Raw[i+1:])
		if err != nil || e < -maxExp || e > maxExp {
			return Count{}
		}
	}
	r, ok := new(big.Rat).SetString(v.Raw)
	if !ok {
		return Count{}
	}
	r.Mul(r, new(big.Rat).SetInt64(PicoUSDPerUSD))
	// Round half up: floor((2·num + den) / (2·den)).
	num := new(big.Int).Lsh(r.Num(), 1)
	num.Add(num, r.Denom())
	q := num.Quo(num, new(big.Int).Lsh(r.Denom(), 1))
	if !q.IsUint64() {
		return Count{}
	}
	return CountOf(q.Uint64())
}

// FromAnthropic converts an Anthropic Messages API usage object — also the
// `usage` of the Claude CLI's assistant and result lines — into a Report.
//
// Input is inclusive: input_tokens + cache_creation_input_tokens +
// cache_read_input_tokens, present only when all three are (Anthropic's
// input_tokens excludes cached tokens, so a missing cache figure leaves the
// inclusive input unproven). CacheRead is cache_read_input_tokens, CacheWrite
// is cache_creation_input_tokens, and the split comes from
// cache_creation.ephemeral_5m_input_tokens and ephemeral_1h_input_tokens
// when present. Anthropic reports no total. Identity, Model, Cost and
// ContextWindow are left for the caller.
func FromAnthropic(data []byte) (Report, error) {
	obj, err := object(data, ErrNotObject)
	if err != nil {
		return Report{}, err
	}
	m := members.GetAll(obj, "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation")
	fresh, write, read := tokens(m[0]), tokens(m[2]), tokens(m[3])
	split := members.GetAll(m[4], "ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
	return Report{
		Input:        fresh.add(write).add(read),
		Output:       tokens(m[1]),
		CacheRead:    read,
		CacheWrite:   write,
		CacheWrite5m: tokens(split[0]),
		CacheWrite1h: tokens(split[1]),
	}, nil
}

// FromOpenAIChat converts an OpenAI Chat Completions usage object into a
// Report: Input is prompt_tokens (already inclusive), CacheRead is
// prompt_tokens_details.cached_tokens, CacheWrite is
// prompt_tokens_details.cache_write_tokens (sent by some compatible
// providers), Output is completion_tokens and Total is total_tokens.
func FromOpenAIChat(data []byte) (Report, error) {
	return fromOpenAI(data, "prompt_tokens", "completion_tokens", "prompt_tokens_details")
}

// FromOpenAIResponses converts an OpenAI Responses API usage object into a
// Report: Input is input_tokens (inclusive), CacheRead and CacheWrite are
// input_tokens_details.cached_tokens and .cache_write_tokens, Output is
// output_tokens and Total is total_tokens.
func FromOpenAIResponses(data []byte) (Report, error) {
	return fromOpenAI(data, "input_tokens", "output_tokens", "input_tokens_details")
}

// fromOpenAI reads the usage shape both OpenAI APIs share under their own
// member names: inclusive input, output, total_tokens, and a details object
// holding cached_tokens and cache_write_tokens.
func fromOpenAI(data []byte, input, output, details string) (Report, error) {
	obj, err := object(data, ErrNotObject)
	if err != nil {
		return Report{}, err
	}
	m := members.GetAll(obj, input, output, "total_tokens", details)
	d := members.GetAll(m[3], "cached_tokens", "cache_write_tokens")
	return Report{
		Input:      tokens(m[0]),
		Output:     tokens(m[1]),
		Total:      tokens(m[2]),
		CacheRead:  tokens(d[0]),
		CacheWrite: tokens(d[1]),
	}, nil
}

// CLIResult is the cost and per-model usage from a Claude CLI `result` line.
// The figures are running totals of the CLI session — a resumed session
// continues them — not the usage of the last turn.
type CLIResult struct {
	// TotalCost is total_cost_usd in picodollars (see [PicoUSDPerUSD]).
	TotalCost Count
	// Models holds one entry per member of modelUsage, sorted by model id.
	Models []ModelUsage
}

// ModelUsage is one model's entry in the CLI's modelUsage map. The token
// figures are as the CLI reports them: InputTokens excludes cached tokens,
// as in Anthropic's API; see [ModelUsage.InclusiveInput].
type ModelUsage struct {
	Model                    string
	InputTokens              Count // inputTokens: uncached input
	OutputTokens             Count // outputTokens
	CacheReadInputTokens     Count // cacheReadInputTokens
	CacheCreationInputTokens Count // cacheCreationInputTokens
	Cost                     Count // costUSD, in picodollars
	ContextWindow            Count // contextWindow, in tokens
	MaxOutputTokens          Count // maxOutputTokens, in tokens
}

// InclusiveInput returns InputTokens + CacheReadInputTokens +
// CacheCreationInputTokens, absent unless all three are present and the sum
// fits in a uint64.
func (m ModelUsage) InclusiveInput() Count {
	return m.InputTokens.add(m.CacheReadInputTokens).add(m.CacheCreationInputTokens)
}

// ParseClaudeResult reads total_cost_usd and modelUsage from a Claude CLI
// `result` line (the whole line's JSON object), as [FromClaudeResult] reads
// the two members. An error, wrapping [ErrNotObject], means the line is
// not a JSON object.
func ParseClaudeResult(line []byte) (CLIResult, error) {
	obj, err := object(line, ErrNotObject)
	if err != nil {
		return CLIResult{}, err
	}
	m := members.GetAll(obj, "total_cost_usd", "modelUsage")
	return claudeResult(m[0], m[1]), nil
}

// FromClaudeResult reads the cost and per-model usage of a Claude CLI
// `result` line from its two members, as the claude package's Result
// carries them once the line is gone: totalCostUSD is total_cost_usd's
// decimal literal (Result.TotalCostUSD.String()), "" when absent, and
// modelUsage is the member's raw JSON (Result.ModelUsage), nil when absent.
//
// Money is read exactly from its decimal literal and rounded half up to the
// picodollar; an amount that is "", negative or not a JSON number literal is
// absent. A modelUsage that is nil, or JSON but not an object, gives no
// models, and an entry in it that is not an object is skipped. The only
// error, wrapping [ErrNotObject], is a non-empty modelUsage that is not
// valid JSON.
func FromClaudeResult(totalCostUSD string, modelUsage []byte) (CLIResult, error) {
	var mu gjson.Result
	if len(modelUsage) > 0 {
		if !jsonscan.Valid(modelUsage) {
			return CLIResult{}, fmt.Errorf("%w: modelUsage is not valid JSON", ErrNotObject)
		}
		mu = gjson.ParseBytes(modelUsage)
	}
	return claudeResult(numberLiteral(totalCostUSD), mu), nil
}

// numberLiteral returns s parsed when it is exactly one JSON number, with no
// space around it, and the zero Result (read as absent) otherwise.
func numberLiteral(s string) gjson.Result {
	if s == "" || s[0] != '-' && (s[0] < '0' || s[0] > '9') || s[len(s)-1] < '0' || s[len(s)-1] > '9' ||
		!jsonscan.Valid([]byte(s)) {
		return gjson.Result{}
	}
	return gjson.Parse(s)
}

// claudeResult is the one reading of total_cost_usd and modelUsage behind
// ParseClaudeResult and FromClaudeResult.
func claudeResult(totalCost, modelUsage gjson.Result) CLIResult {
	res := CLIResult{TotalCost: picos(totalCost)}
	byModel := map[string]ModelUsage{}
	if modelUsage.IsObject() {
		modelUsage.ForEach(func(k, v gjson.Result) bool {
			if !v.IsObject() {
				delete(byModel, k.String())
				return true
			}
			f := members.GetAll(v, "inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "costUSD", "contextWindow", "maxOutputTokens")
			byModel[k.String()] = ModelUsage{
				Model:                    k.String(),
				InputTokens:              tokens(f[0]),
				OutputTokens:             tokens(f[1]),
				CacheReadInputTokens:     tokens(f[2]),
				CacheCreationInputTokens: tokens(f[3]),
				Cost:                     picos(f[4]),
				ContextWindow:            tokens(f[5]),
				MaxOutputTokens:          tokens(f[6]),
			}
			return true
		})
	}
	for _, mu := range byModel {
		res.Models = append(res.Models, mu)
	}
	slices.SortFunc(res.Models, func(a, b ModelUsage) int { return strings.Compare(a.Model, b.Model) })
	return res
}

// Totals sums the models into consumer-side totals of the CLI session:
// inclusive input, output, cache read and cache write over every model, and
// the cost from total_cost_usd (or, when that is absent, the sum of the
// models' costs). A figure is absent when any model lacks it or the sum
// overflows; with no models, every token figure is absent. The CLI reports
// no provider total, so Total is absent.
func (r CLIResult) Totals() Totals {
	if len(r.Models) == 0 {
		return Totals{Cost: r.TotalCost}
	}
	t := Totals{Input: CountOf(0), Output: CountOf(0), CacheRead: CountOf(0), CacheWrite: CountOf(0), Cost: CountOf(0)}
	for _, m := range r.Models {
		t.Input = t.Input.add(m.InclusiveInput())
		t.Output = t.Output.add(m.OutputTokens)
		t.CacheRead = t.CacheRead.add(m.CacheReadInputTokens)
		t.CacheWrite = t.CacheWrite.add(m.CacheCreationInputTokens)
		t.Cost = t.Cost.add(m.Cost)
	}
	if r.TotalCost.ok {
		t.Cost = r.TotalCost
	}
	return t
}
