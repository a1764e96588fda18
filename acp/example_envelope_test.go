package acp_test

import (
	"errors"
	"fmt"

	"github.com/acpkit/acpkit/acp"
)

func ExampleMarshalResponse() {
	line, err := acp.MarshalResponse(acp.IntID(1), acp.NewSessionResult{SessionID: "sess-1"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", line)

	// An error reply echoes the request's id byte for byte.
	e := acp.Errorf(acp.CodeResourceNotFound, "Session not found: %s", "sess-9")
	line, _ = acp.MarshalErrorResponse(acp.StringID("req-2"), e)
	fmt.Printf("%s\n", line)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-1"}}
	// {"jsonrpc":"2.0","id":"req-2","error":{"code":-32002,"message":"Session not found: sess-9"}}
}

func ExampleDecodeResult() {
	// The result of an initialize request, as Conn.Request returns it.
	raw := []byte(`{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true}}}`)
	r, err := acp.DecodeResult[acp.InitializeResult](raw)
	if err != nil {
		panic(err)
	}
	fmt.Println("version:", r.ProtocolVersion)
	fmt.Println("images:", r.AgentCapabilities.PromptCapabilities.Image)
	fmt.Println("audio:", r.AgentCapabilities.PromptCapabilities.Audio)
	// Output:
	// version: 1
	// images: true
	// audio: false
}

func ExampleError() {
	// An error that came over the wire matches the sentinel of its code,
	// whatever its message says.
	var err error = acp.Errorf(acp.CodeMethodNotFound, "Method not found: %s", "session/fork")
	fmt.Println(errors.Is(err, acp.ErrMethodNotFound))
	fmt.Println(errors.Is(err, acp.ErrInvalidParams))

	var e *acp.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Message)
	}
	// Output:
	// true
	// false
	// -32601 Method not found: session/fork
}
