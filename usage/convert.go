package usage

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/claude"
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

// CLIResult is the cost and usage a Claude CLI result reports, as
// [FromClaudeResult] reads them: the session's running totals, which a
// resumed session continues, and this run's own figures.
type CLIResult struct {
	// TotalCost is total_cost_usd in picodollars (see [PicoUSDPerUSD]):
	// the session's cost so far.
	TotalCost Count
	// Models holds modelUsage, the session's running totals per model,
	// sorted by model id; nil when the result has none.
	Models []ModelUsage
	// RunModels holds model_usage_since_last_result, this run's own usage
	// and cost per model, sorted by model id; nil when the result has
	// none, as older CLIs send none.
	RunModels []ModelUsage
	// Run is this run's usage as one Report, for per-turn accounting that
	// needs no [Tracker] baseline (which is lost when the process
	// restarts). With RunModels it is their sum: inclusive input, output,
	// cache read and cache write, the cache-write split, and the cost,
	// each absent when a model lacks it or the sum overflows, with the
	// Model and ContextWindow of the model when there is exactly one.
	// Without RunModels it is the result's usage ([FromAnthropic] of
	// claude.Result.Usage, this run's tokens) with no cost, and with
	// neither every figure is absent. Identity is left for the caller.
	Run Report
}

// ModelUsage is one model's entry in the CLI's modelUsage or
// model_usage_since_last_result map. The token figures are as the CLI
// reports them: InputTokens excludes cached tokens, as in Anthropic's API;
// see [ModelUsage.InclusiveInput].
type ModelUsage struct {
	Model                      string
	InputTokens                Count // inputTokens: uncached input
	OutputTokens               Count // outputTokens
	CacheReadInputTokens       Count // cacheReadInputTokens
	CacheCreationInputTokens   Count // cacheCreationInputTokens
	CacheCreation5mInputTokens Count // cacheCreationEphemeral5mInputTokens: the 5-minute part
	CacheCreation1hInputTokens Count // cacheCreationEphemeral1hInputTokens: the 1-hour part
	Cost                       Count // costUSD, in picodollars
	ContextWindow              Count // contextWindow, in tokens
	MaxOutputTokens            Count // maxOutputTokens, in tokens
}

// InclusiveInput returns InputTokens + CacheReadInputTokens +
// CacheCreationInputTokens, absent unless all three are present and the sum
// fits in a uint64.
func (m ModelUsage) InclusiveInput() Count {
	return m.InputTokens.add(m.CacheReadInputTokens).add(m.CacheCreationInputTokens)
}

// FromClaudeResult reads the cost and usage of a Claude CLI result, as
// package claude parsed its line: total_cost_usd, modelUsage,
// model_usage_since_last_result and usage (see [CLIResult]).
//
// Money is read exactly from its decimal literal and rounded half up to
// the picodollar; a cost that is "", negative or not a JSON number literal
// is absent. A model entry that is not an object is skipped; of a repeated
// model id, the last entry counts. The only error, wrapping
// [ErrNotObject], is a usage member it reads that is present but not a
// JSON object, which a Result from claude.ParseLine never has.
func FromClaudeResult(r claude.Result) (CLIResult, error) {
	res := CLIResult{TotalCost: picos(numberLiteral(r.TotalCostUSD.String()))}
	var err error
	if res.Models, err = modelUsageMember("modelUsage", r.ModelUsage); err != nil {
		return CLIResult{}, err
	}
	if res.RunModels, err = modelUsageMember("model_usage_since_last_result", r.RunModelUsage); err != nil {
		return CLIResult{}, err
	}
	switch {
	case r.RunModelUsage != nil:
		res.Run = sumModels(res.RunModels)
	case r.Usage != nil:
		if res.Run, err = FromAnthropic(r.Usage); err != nil {
			return CLIResult{}, fmt.Errorf("%w (the result's usage)", err)
		}
	}
	return res, nil
}

// modelUsageMember reads a result's modelUsage-shaped member, raw JSON as
// claude.Result keeps it: nil when raw is nil, else the models (see
// modelUsages), or an error wrapping ErrNotObject.
func modelUsageMember(name string, raw []byte) ([]ModelUsage, error) {
	if raw == nil {
		return nil, nil
	}
	obj, err := object(raw, ErrNotObject)
	if err != nil {
		return nil, fmt.Errorf("%w (the result's %s)", err, name)
	}
	return modelUsages(obj), nil
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

// modelUsages reads a modelUsage-shaped object: one ModelUsage per member
// whose value is an object, sorted by model id, the last of a repeated id.
// It is never nil: an empty map is no models, which is not no map.
func modelUsages(obj gjson.Result) []ModelUsage {
	byModel := map[string]ModelUsage{}
	obj.ForEach(func(k, v gjson.Result) bool {
		if !v.IsObject() {
			delete(byModel, k.String())
			return true
		}
		f := members.GetAll(v, "inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens",
			"cacheCreationEphemeral5mInputTokens", "cacheCreationEphemeral1hInputTokens", "costUSD", "contextWindow", "maxOutputTokens")
		byModel[k.String()] = ModelUsage{
			Model:                      k.String(),
			InputTokens:                tokens(f[0]),
			OutputTokens:               tokens(f[1]),
			CacheReadInputTokens:       tokens(f[2]),
			CacheCreationInputTokens:   tokens(f[3]),
			CacheCreation5mInputTokens: tokens(f[4]),
			CacheCreation1hInputTokens: tokens(f[5]),
			Cost:                       picos(f[6]),
			ContextWindow:              tokens(f[7]),
			MaxOutputTokens:            tokens(f[8]),
		}
		return true
	})
	models := make([]ModelUsage, 0, len(byModel))
	for _, m := range byModel {
		models = append(models, m)
	}
	slices.SortFunc(models, func(a, b ModelUsage) int { return strings.Compare(a.Model, b.Model) })
	return models
}

// sumModels adds models up into one Report (see [CLIResult.Run]).
func sumModels(models []ModelUsage) Report {
	zero := CountOf(0)
	r := Report{Input: zero, Output: zero, CacheRead: zero, CacheWrite: zero, CacheWrite5m: zero, CacheWrite1h: zero, Cost: zero}
	for _, m := range models {
		r.Input = r.Input.add(m.InclusiveInput())
		r.Output = r.Output.add(m.OutputTokens)
		r.CacheRead = r.CacheRead.add(m.CacheReadInputTokens)
		r.CacheWrite = r.CacheWrite.add(m.CacheCreationInputTokens)
		r.CacheWrite5m = r.CacheWrite5m.add(m.CacheCreation5mInputTokens)
		r.CacheWrite1h = r.CacheWrite1h.add(m.CacheCreation1hInputTokens)
		r.Cost = r.Cost.add(m.Cost)
	}
	if len(models) == 1 {
		r.Model, r.ContextWindow = models[0].Model, models[0].ContextWindow
	}
	return r
}

// Totals sums the session's models into consumer-side totals of the CLI
// session: inclusive input, output, cache read and cache write over every
// model, and the cost from total_cost_usd (or, when that is absent, the
// sum of the models' costs). A figure is absent when any model lacks it or
// the sum overflows; with no models, every token figure is absent. The
// CLI reports no provider total, so Total is absent.
func (r CLIResult) Totals() Totals {
	if len(r.Models) == 0 {
		return Totals{Cost: r.TotalCost}
	}
	sum := sumModels(r.Models)
	t := Totals{Input: sum.Input, Output: sum.Output, CacheRead: sum.CacheRead, CacheWrite: sum.CacheWrite, Cost: sum.Cost}
	if r.TotalCost.ok {
		t.Cost = r.TotalCost
	}
	return t
}
