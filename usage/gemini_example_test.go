package usage_test

import (
	"fmt"

	"github.com/acpkit/acpkit/usage"
)

func ExampleParseGeminiStats() {
	// The stats of a Gemini CLI result line: one process, one entry per
	// model, a router's classifier included.
	stats := []byte(`{"total_tokens":10423,"input_tokens":10391,"output_tokens":32,"cached":7238,"input":3153,
		"duration_ms":215,"tool_calls":0,"models":{
		"gemini-2.5-flash-lite":{"total_tokens":762,"input_tokens":740,"output_tokens":22,"cached":0,"input":740},
		"gemini-2.5-flash":{"total_tokens":9661,"input_tokens":9651,"output_tokens":10,"cached":7238,"input":2413}}}`)
	s, err := usage.ParseGeminiStats(stats)
	if err != nil {
		fmt.Println(err)
		return
	}
	var acc usage.Accumulator
	for _, m := range s.Models {
		// An API key on the Gemini API itself proves the identity.
		id, _ := usage.IdentityFromBaseURL("https://generativelanguage.googleapis.com", m.Model, "")
		r := m.Report(id, nil) // pass a price table to price it
		fmt.Println(r.Model, "input", r.Input, "cached", r.CacheRead, "output", r.Output)
		acc.Add(r)
	}
	snap := acc.Snapshot()
	fmt.Println("session input", snap.Input, "output", snap.Output, "cache writes", snap.CacheWrite)
	// Output:
	// gemini-2.5-flash input 9651 cached 7238 output 10
	// gemini-2.5-flash-lite input 740 cached 0 output 22
	// session input 10391 output 32 cache writes unknown
}
