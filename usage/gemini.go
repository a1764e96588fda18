package usage

import (
	"slices"
	"strings"

	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// GeminiStats is the token usage the Gemini CLI reports for one process: a
// stream-json result line's stats, or the stats of `--output-format json`.
// It covers that process only, not the session: a resumed session starts
// again from zero, so each process's figures are that turn's own.
type GeminiStats struct {
	// Models holds one entry per model that answered, a router's
	// classifier model included, sorted by model id.
	Models []GeminiModel
}

// GeminiModel is one model's usage in a process, summed over its
// requests. Every figure is absent when the CLI did not report it.
type GeminiModel struct {
	Model string
	// Requests is the number of API requests (api.totalRequests); only
	// `--output-format json` reports it.
	Requests Count
	// Prompt is the prompt tokens, cached ones included (input_tokens;
	// tokens.prompt).
	Prompt Count
	// Cached is the prompt tokens read from the cache, a subset of
	// Prompt (cached; tokens.cached).
	Cached Count
	// Candidates is the output tokens, thoughts excluded (output_tokens;
	// tokens.candidates).
	Candidates Count
	// Thoughts is the reasoning tokens (tokens.thoughts) and Tool the
	// tokens of tool-use prompts, such as search results (tokens.tool);
	// only `--output-format json` reports them.
	Thoughts Count
	Tool     Count
	// Total is the provider's total: Prompt + Candidates + Thoughts + Tool
	// (total_tokens; tokens.total).
	Total Count
}

// ParseGeminiStats reads the stats object of the Gemini CLI's output
// (gemini.Result.Stats, or the "stats" of `--output-format json`). Each
// member of its "models" object is a model: stream-json gives its
// figures flat (total_tokens, input_tokens, output_tokens, cached), the
// json format under "tokens" (prompt, candidates, cached, thoughts, tool,
// total) beside "api" (totalRequests). A model whose entry is not an
// object is skipped; of a repeated model id the last entry counts. The
// only error, wrapping [ErrNotObject], is stats that are not a JSON
// object.
func ParseGeminiStats(stats []byte) (GeminiStats, error) {
	obj, err := object(stats, ErrNotObject)
	if err != nil {
		return GeminiStats{}, err
	}
	byModel := map[string]GeminiModel{}
	models := members.Get(obj, "models")
	if !models.IsObject() {
		return GeminiStats{}, nil
	}
	models.ForEach(func(k, v gjson.Result) bool {
		if !v.IsObject() {
			delete(byModel, k.String())
			return true
		}
		byModel[k.String()] = geminiModel(k.String(), v)
		return true
	})
	var s GeminiStats
	for _, m := range byModel {
		s.Models = append(s.Models, m)
	}
	slices.SortFunc(s.Models, func(a, b GeminiModel) int { return strings.Compare(a.Model, b.Model) })
	return s, nil
}

// geminiModel reads one model's entry in either format.
func geminiModel(name string, v gjson.Result) GeminiModel {
	f := members.GetAll(v, "tokens", "api", "total_tokens", "input_tokens", "output_tokens", "cached")
	if !f[0].IsObject() {
		return GeminiModel{
			Model:      name,
			Total:      tokens(f[2]),
			Prompt:     tokens(f[3]),
			Candidates: tokens(f[4]),
			Cached:     tokens(f[5]),
		}
	}
	t := members.GetAll(f[0], "prompt", "candidates", "cached", "thoughts", "tool", "total")
	return GeminiModel{
		Model:      name,
		Requests:   tokens(members.Get(f[1], "totalRequests")),
		Prompt:     tokens(t[0]),
		Candidates: tokens(t[1]),
		Cached:     tokens(t[2]),
		Thoughts:   tokens(t[3]),
		Tool:       tokens(t[4]),
		Total:      tokens(t[5]),
	}
}

// Reasoning returns the model's reasoning tokens: Thoughts when reported,
// else what the total proves. Total − Prompt − Candidates is Thoughts +
// Tool: it gives Thoughts when Tool is reported, and 0 when it is 0 (both
// are then 0). Otherwise, or when the figures contradict each other, it
// is absent.
func (m GeminiModel) Reasoning() Count {
	if m.Thoughts.ok {
		return m.Thoughts
	}
	rest, ok := m.rest()
	switch {
	case !ok:
		return Count{}
	case m.Tool.ok:
		if m.Tool.n > rest {
			return Count{}
		}
		return CountOf(rest - m.Tool.n)
	case rest == 0:
		return CountOf(0)
	}
	return Count{}
}

// rest returns Total − Prompt − Candidates; ok is false when a figure is
// absent or the difference is negative.
func (m GeminiModel) rest() (uint64, bool) {
	sum := m.Prompt.add(m.Candidates)
	if !m.Total.ok || !sum.ok || sum.n > m.Total.n {
		return 0, false
	}
	return m.Total.n - sum.n, true
}

// Report returns the model's usage as a [Report]: Input is Prompt,
// CacheRead is Cached, Output is Candidates + [GeminiModel.Reasoning]
// (absent when the reasoning is), and Total is Total. The CLI reports no
// cache writes, so CacheWrite is absent. Tool-use prompt tokens are in
// Total only.
//
// Identity is id, proven only for requests made with an API key to the
// Gemini API itself:
//
//	id, _ := usage.IdentityFromBaseURL("https://generativelanguage.googleapis.com", m.Model, "")
//
// (or the GOOGLE_GEMINI_BASE_URL the CLI was given); Vertex AI and a
// Google login go elsewhere and prove nothing. Cost is priced from prices
// by [PriceTable.Price] when the sum is as exact as one request would be:
// the model made one request, or its price has no long-context tier, or
// the summed input is within [LongContextThreshold] (so every request
// was). Otherwise, and with a nil prices, Cost is absent.
func (m GeminiModel) Report(id Identity, prices *PriceTable) Report {
	r := Report{
		Input:     m.Prompt,
		CacheRead: m.Cached,
		Output:    m.Candidates.add(m.Reasoning()),
		Total:     m.Total,
		Identity:  id,
		Model:     m.Model,
	}
	if id.Proven() {
		if p, ok := prices.Lookup(id.Authority, id.Model); ok {
			oneRequest := m.Requests.ok && m.Requests.n == 1
			withinTier := m.Prompt.ok && m.Prompt.n <= LongContextThreshold
			if oneRequest || !p.LongContext.Input.ok || withinTier {
				r.Cost = p.Cost(r)
			}
		}
	}
	return r
}

// Totals sums the models into the process's totals: inclusive input,
// output (reasoning included), cache read and the provider's total over
// every model. A figure is absent when any model lacks it or the sum
// overflows; with no models, every figure is absent. Cache writes and cost
// are absent.
func (s GeminiStats) Totals() Totals {
	if len(s.Models) == 0 {
		return Totals{}
	}
	t := Totals{Input: CountOf(0), Output: CountOf(0), CacheRead: CountOf(0), Total: CountOf(0)}
	for _, m := range s.Models {
		r := m.Report(Identity{}, nil)
		t.Input = t.Input.add(r.Input)
		t.Output = t.Output.add(r.Output)
		t.CacheRead = t.CacheRead.add(r.CacheRead)
		t.Total = t.Total.add(r.Total)
	}
	return t
}
