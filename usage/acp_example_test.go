package usage_test

import (
	"fmt"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/usage"
)

func ExampleSnapshot_ACPUpdate() {
	var acc usage.Accumulator
	id, _ := usage.IdentityFromBaseURL("https://api.anthropic.com", "claude-haiku-4-5", "")
	for _, in := range []uint64{1000, 1500} {
		r := usage.Report{Input: usage.CountOf(in), Output: usage.CountOf(100), CacheRead: usage.CountOf(0), CacheWrite: usage.CountOf(0),
			Identity: id, Model: id.Model, ContextWindow: usage.CountOf(200000)}
		r.Cost = usage.DefaultPrices().Price(r)
		acc.Add(r)
	}

	u, ok := acc.Snapshot().ACPUpdate()
	if !ok {
		return // the context use or the window is unknown
	}
	// What acp.SessionUpdate.Notify sends.
	line, err := acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{SessionID: "sess-1", Update: u})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
	// Output:
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"usage_update","used":1600,"size":200000,"cost":{"amount":0.0035,"currency":"USD"}}}}
}
