package goose_test

import (
	"fmt"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/usage"
)

// goose advertises the running turn's id in an update's _meta, so that a
// client can steer the turn with goose.SessionSteer.
func ExampleMeta() {
	runID := "run-7"
	meta, err := goose.Meta{ActiveRunID: &runID}.Marshal()
	if err != nil {
		panic(err)
	}
	// What acp.SessionUpdate.Notify sends.
	line, _ := acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{
		SessionID: "sess-1",
		Update:    acp.SessionInfoUpdate{Meta: meta},
	})
	fmt.Printf("%s\n", line)

	m, ok := goose.ParseMeta(meta)
	fmt.Println(*m.ActiveRunID, ok)
	// Output:
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"session_info_update","_meta":{"goose":{"activeRunId":"run-7"}}}}}
	// run-7 true
}

func ExampleNewUsageUpdate() {
	var acc usage.Accumulator
	id, _ := usage.IdentityFromBaseURL("https://api.anthropic.com", "claude-sonnet-4-5", "")
	r, _ := usage.FromAnthropic([]byte(`{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":80}`))
	r.Identity, r.Model, r.ContextWindow = id, id.Model, usage.CountOf(200000)
	acc.Add(r)

	// What goose.SessionUpdate.Notify sends.
	line, err := acp.MarshalNotification(goose.SessionUpdate.Name, goose.SessionNotification{
		SessionID: "sess-1",
		Update:    goose.NewUsageUpdate(acc.Snapshot()),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
	// Output:
	// {"jsonrpc":"2.0","method":"_goose/unstable/session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"usage_update","used":1100,"contextLimit":200000,"model":"claude-sonnet-4-5","accumulatedInputTokens":1020,"accumulatedOutputTokens":80,"accumulatedCachedInputTokens":1000,"accumulatedCacheWriteTokens":0,"pricingIdentity":{"authority":"api.anthropic.com","model":"claude-sonnet-4-5"}}}}
}
