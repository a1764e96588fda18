package usage_test

import (
	"fmt"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/usage"
)

func ExampleAccumulator() {
	id, _ := usage.IdentityFromBaseURL("https://api.anthropic.com/v1", "claude-sonnet-4-5", "")
	prices := usage.DefaultPrices()

	var acc usage.Accumulator
	for _, js := range []string{
		`{"input_tokens":12,"cache_creation_input_tokens":2000,"cache_read_input_tokens":0,"output_tokens":150,
		  "cache_creation":{"ephemeral_5m_input_tokens":2000,"ephemeral_1h_input_tokens":0}}`,
		`{"input_tokens":30,"cache_creation_input_tokens":0,"cache_read_input_tokens":2000,"output_tokens":420}`,
	} {
		r, err := usage.FromAnthropic([]byte(js))
		if err != nil {
			panic(err)
		}
		r.Identity, r.Model = id, id.Model
		r.Cost = prices.Price(r) // price each call before adding it
		acc.Add(r)
	}

	s := acc.Snapshot()
	fmt.Println("input:", s.Input, "output:", s.Output)
	fmt.Println("cache read:", s.CacheRead, "cache write:", s.CacheWrite)
	fmt.Println("provider total:", s.Total, "-", s.Total.State())
	cost, _ := s.CostUSD()
	fmt.Printf("cost: $%.6f\n", cost)
	ctx, _ := s.ContextUsed()
	fmt.Println("in context now:", ctx)
	// Output:
	// input: 4042 output: 570
	// cache read: 2000 cache write: 2000
	// provider total: unknown - unknown
	// cost: $0.016776
	// in context now: 2450
}

func ExampleAccumulator_overflow() {
	var acc usage.Accumulator
	acc.Add(usage.Report{Input: usage.CountOf(1<<64 - 1), Output: usage.CountOf(5)})
	acc.Add(usage.Report{Input: usage.CountOf(1), Output: usage.CountOf(5)})
	s := acc.Snapshot()
	in, ok := s.Input.Value()
	fmt.Println(in, ok, s.Input.State())
	fmt.Println(s.Output)
	// Output:
	// 0 false unknown
	// 10
}

func ExampleTracker() {
	var t usage.Tracker
	snap := func(in, out uint64) usage.Totals {
		return usage.Totals{Input: usage.CountOf(in), Output: usage.CountOf(out)}
	}

	t.Observe("s1", snap(1000, 100))
	fmt.Println(t.EndTurn("s1").Status) // the first turn has nothing to compare with

	t.Observe("s1", snap(1600, 150))
	t.Observe("s1", snap(2100, 230))
	t.Observe("s1", snap(1600, 150)) // late: below the turn's high-water mark
	d := t.EndTurn("s1")
	fmt.Println(d.Status, "input", d.Usage.Input, "output", d.Usage.Output)

	t.Observe("s1", snap(300, 20)) // the agent restarted
	fmt.Println(t.EndTurn("s1").Status)
	t.Forget("s1")
	// Output:
	// no-baseline
	// ok input 1100 output 130
	// regressed
}

func ExamplePriceTable_Price() {
	prices, err := usage.LoadLiteLLM([]byte(`{
		"gpt-4.1": {"litellm_provider": "openai", "input_cost_per_token": 2e-06,
		            "output_cost_per_token": 8e-06, "cache_read_input_token_cost": 5e-07}
	}`))
	if err != nil {
		panic(err)
	}
	r, _ := usage.FromOpenAIResponses([]byte(`{"input_tokens":12000,"input_tokens_details":{"cached_tokens":10000},"output_tokens":800,"total_tokens":12800}`))

	r.Identity, _ = usage.IdentityFromBaseURL("https://api.openai.com/v1", "gpt-4.1", "")
	if pico, ok := prices.Price(r).Get(); ok {
		fmt.Printf("direct: $%.4f\n", usage.USD(pico))
	}

	// Through a proxy nothing proves which price list applies.
	r.Identity, _ = usage.IdentityFromBaseURL("https://llm-proxy.example.com/v1", "gpt-4.1", "")
	fmt.Println("proxy:", prices.Price(r))
	// Output:
	// direct: $0.0154
	// proxy: absent
}

func ExampleAuthorityFromBaseURL() {
	for _, base := range []string{
		"https://api.anthropic.com/v1",
		"https://openrouter.ai/api/v1",
		"https://api.anthropic.com.evil.example/v1",
		"http://api.openai.com/v1",
	} {
		auth, ok := usage.AuthorityFromBaseURL(base)
		fmt.Printf("%q %v\n", auth, ok)
	}
	// Output:
	// "api.anthropic.com" true
	// "openrouter.ai" true
	// "" false
	// "" false
}

// A resumed run's result reports the session so far and the run itself:
// the run's cost is on the line, with no baseline to subtract.
func ExampleFromClaudeResult() {
	line := []byte(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"a096a09b",` +
		`"total_cost_usd":0.0967893,"usage":{"input_tokens":4350,"cache_creation_input_tokens":0,"cache_read_input_tokens":17396,"output_tokens":16},` +
		`"modelUsage":{"claude-sonnet-4-5":{"inputTokens":8686,"outputTokens":32,"cacheReadInputTokens":17396,"cacheCreationInputTokens":17342,"costUSD":0.0967893,"contextWindow":200000}},` +
		`"model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":4350,"outputTokens":16,"cacheReadInputTokens":17396,"cacheCreationInputTokens":0,"costUSD":0.0185088,"contextWindow":200000}}}`)
	events, _, err := claude.ParseLine(line, nil)
	if err != nil {
		panic(err)
	}
	res, err := usage.FromClaudeResult(events[0].(claude.Result))
	if err != nil {
		panic(err)
	}
	session := res.Totals()
	sessionCost, _ := session.Cost.Get()
	fmt.Printf("session: %v input tokens, $%.7f\n", session.Input, usage.USD(sessionCost))
	runCost, _ := res.Run.Cost.Get()
	fmt.Printf("this run: %v input tokens, %v output, $%.7f\n", res.Run.Input, res.Run.Output, usage.USD(runCost))

	// An Accumulator sums the runs of a session, whichever process ran them.
	var acc usage.Accumulator
	acc.Add(res.Run)
	fmt.Println("reports:", acc.Snapshot().Reports)
	// Output:
	// session: 43424 input tokens, $0.0967893
	// this run: 21746 input tokens, 16 output, $0.0185088
	// reports: 1
}

func ExampleFromAnthropic() {
	// Anthropic's input_tokens leaves out cached tokens; Report.Input is
	// inclusive. The usage carries no total, so Total is absent, not zero.
	r, err := usage.FromAnthropic([]byte(`{"input_tokens":12,"cache_read_input_tokens":2000,
		"cache_creation_input_tokens":0,"output_tokens":150}`))
	if err != nil {
		panic(err)
	}
	fmt.Println("input:", r.Input, "cache read:", r.CacheRead, "output:", r.Output, "total:", r.Total)

	// A figure the provider did not send stays absent.
	r, _ = usage.FromAnthropic([]byte(`{"input_tokens":12,"output_tokens":150}`))
	fmt.Println("input:", r.Input, "output:", r.Output)
	// Output:
	// input: 2012 cache read: 2000 output: 150 total: absent
	// input: absent output: 150
}

func ExampleLoadLiteLLM() {
	prices, err := usage.LoadLiteLLM([]byte(`{
		"claude-haiku-4-5": {"litellm_provider": "anthropic",
			"input_cost_per_token": 1e-06, "output_cost_per_token": 5e-06},
		"gemini-2.5-pro": {"litellm_provider": "vertex_ai-language-models",
			"input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05}
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println("prices:", prices.Len()) // only the providers whose bills it can prove

	id, _ := usage.IdentityFromBaseURL("https://api.anthropic.com", "claude-haiku-4-5", "")
	r := usage.Report{Identity: id, Input: usage.CountOf(1000), Output: usage.CountOf(200)}
	pico, _ := prices.Price(r).Get()
	fmt.Printf("cost: $%.4f\n", usage.USD(pico))
	// Output:
	// prices: 1
	// cost: $0.0020
}
