package acp_test

import (
	"fmt"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/usage"
)

func ExampleNewGooseUsageUpdate() {
	var acc usage.Accumulator
	id, _ := usage.IdentityFromBaseURL("https://api.anthropic.com", "claude-sonnet-4-5", "")
	r, _ := usage.FromAnthropic([]byte(`{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":80}`))
	r.Identity, r.Model, r.ContextWindow = id, id.Model, usage.CountOf(200000)
	acc.Add(r)

	line, err := acp.MarshalGooseSessionUpdate("sess-1", acp.NewGooseUsageUpdate(acc.Snapshot()))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
	// Output:
	// {"jsonrpc":"2.0","method":"_goose/unstable/session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"usage_update","used":1100,"contextLimit":200000,"model":"claude-sonnet-4-5","accumulatedInputTokens":1020,"accumulatedOutputTokens":80,"accumulatedCachedInputTokens":1000,"accumulatedCacheWriteTokens":0,"pricingIdentity":{"authority":"api.anthropic.com","model":"claude-sonnet-4-5"}}}}
}

func ExampleNewUsageUpdate() {
	var acc usage.Accumulator
	id, _ := usage.IdentityFromBaseURL("https://api.anthropic.com", "claude-haiku-4-5", "")
	for _, in := range []uint64{1000, 1500} {
		r := usage.Report{Input: usage.CountOf(in), Output: usage.CountOf(100), CacheRead: usage.CountOf(0), CacheWrite: usage.CountOf(0),
			Identity: id, Model: id.Model, ContextWindow: usage.CountOf(200000)}
		r.Cost = usage.DefaultPrices().Price(r)
		acc.Add(r)
	}

	u, ok := acp.NewUsageUpdate(acc.Snapshot())
	if !ok {
		return // the context use or the window is unknown
	}
	line, err := acp.MarshalSessionUpdate("sess-1", u)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
	// Output:
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"usage_update","used":1600,"size":200000,"cost":{"amount":0.0035,"currency":"USD"}}}}
}
