package acp_test

import (
	"fmt"

	"github.com/acpkit/acpkit/acp"
)

func ExampleClassify() {
	lines := []string{
		`{"jsonrpc":"2.0","id":"req-1","method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found"}}`,
		`{"jsonrpc":"1.0","id":1e3,"method":"initialize"}`,
		`{"jsonrpc":"2.0",`,
	}
	for _, line := range lines {
		m := acp.Classify([]byte(line))
		switch m.Kind {
		case acp.KindRequest:
			// Reply with a response echoing m.ID; decode m.Params first.
			fmt.Printf("request %s id=%s params=%s\n", m.Method, m.ID, m.Params)
		case acp.KindNotification:
			fmt.Printf("notification %s params=%s\n", m.Method, m.Params)
		case acp.KindResponse:
			if m.Err != nil {
				fmt.Printf("response id=%s error %d %q\n", m.ID, m.Err.Code, m.Err.Message)
				continue
			}
			fmt.Printf("response id=%s result=%s\n", m.ID, m.Result)
		case acp.KindInvalid:
			// Reply with an error response carrying m.Err and echoing m.ID.
			reply, _ := acp.MarshalErrorResponse(m.ID, m.Err)
			fmt.Printf("invalid, reply %s\n", reply)
		}
	}
	// Output:
	// request session/prompt id="req-1" params={"sessionId":"s1","prompt":[]}
	// notification session/cancel params={"sessionId":"s1"}
	// response id=7 result={"stopReason":"end_turn"}
	// response id=8 error -32601 "Method not found"
	// invalid, reply {"jsonrpc":"2.0","id":1e3,"error":{"code":-32600,"message":"Invalid request: \"jsonrpc\" must be \"2.0\""}}
	// invalid, reply {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not valid JSON"}}
}
