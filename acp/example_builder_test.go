package acp_test

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/acpkit/acpkit/acp"
)

// The session/update lines acp.SessionUpdate.Notify sends, built without a
// Conn.
func ExampleMarshalNotification() {
	line, err := acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{
		SessionID: "sess-1",
		Update:    acp.AgentMessageChunk{Content: acp.TextContent{Text: "Looking at main.go"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", line)

	line, _ = acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{
		SessionID: "sess-1",
		Update: acp.ToolCall{
			ToolCallID: "call-1",
			Title:      "Read main.go",
			Kind:       acp.ToolKindRead,
			Status:     acp.ToolCallStatusInProgress,
		},
	})
	fmt.Printf("%s\n", line)
	// Output:
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking at main.go"}}}}
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"tool_call","toolCallId":"call-1","title":"Read main.go","kind":"read","status":"in_progress"}}}
}

func ExampleDecodeParams() {
	params := []byte(`{"cwd":"/work","mcpServers":[{"name":"fs","command":"/bin/mcp-fs","args":[],"env":[]}],"systemPrompt":""}`)
	p, err := acp.DecodeParams[acp.NewSessionParams](params)
	if err != nil {
		panic(err)
	}
	fmt.Println("cwd:", p.Cwd)
	for _, s := range p.MCPServers {
		switch s := s.(type) {
		case acp.MCPServerStdio:
			fmt.Println("stdio server:", s.Name, s.Command)
		case acp.MCPServerHTTP, acp.MCPServerSSE:
			fmt.Println("remote server")
		}
	}
	fmt.Println("system prompt set:", p.SystemPrompt != nil)

	// A missing member is an invalid-params error ready to reply with.
	_, err = acp.DecodeParams[acp.NewSessionParams]([]byte(`{"mcpServers":[]}`))
	var e *acp.Error
	if errors.As(err, &e) {
		line, _ := acp.MarshalErrorResponse(acp.IntID(1), e)
		fmt.Printf("%s\n", line)
	}
	// Output:
	// cwd: /work
	// stdio server: fs /bin/mcp-fs
	// system prompt set: true
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: \"cwd\" is required","data":{"field":"cwd"}}}
}

// A handler refuses params that decode but that it cannot take with an
// error naming the member, as the decoder names those it cannot read.
func ExampleInvalidParam() {
	newSession := func(_ context.Context, _ *acp.Conn, p acp.NewSessionParams) (acp.NewSessionResult, error) {
		if !path.IsAbs(p.Cwd) {
			return acp.NewSessionResult{}, acp.InvalidParam("cwd", "cwd %q is not an absolute path", p.Cwd)
		}
		return acp.NewSessionResult{SessionID: "sess-1"}, nil
	}
	_, err := newSession(context.Background(), nil, acp.NewSessionParams{Cwd: "work"})
	field, _ := acp.InvalidField(err)
	fmt.Println(errors.Is(err, acp.ErrInvalidParams), field)
	fmt.Println(err)
	// Output:
	// true cwd
	// acp: error -32602: cwd "work" is not an absolute path (data: {"field":"cwd"})
}

func ExampleSessionNotification() {
	params := []byte(`{"sessionId":"sess-1","update":{"sessionUpdate":"usage_update","used":53000,"size":200000}}`)
	n, err := acp.DecodeParams[acp.SessionNotification](params)
	if err != nil {
		// A malformed known update: skip it and keep reading.
		return
	}
	switch u := n.Update.(type) {
	case acp.AgentMessageChunk:
		fmt.Println("chunk")
	case acp.UsageUpdate:
		fmt.Printf("%s: %d of %d tokens in context\n", n.SessionID, u.Used, u.Size)
	case acp.UnknownUpdate:
		fmt.Println("unknown update:", u.Kind)
	}
	// Output:
	// sess-1: 53000 of 200000 tokens in context
}

func ExampleNegotiateVersion() {
	p, _ := acp.DecodeParams[acp.InitializeParams]([]byte(
		`{"protocolVersion":2,"clientCapabilities":{"fs":{"readTextFile":true},"session":{"notices":{}}}}`))
	fmt.Println("answer with version", acp.NegotiateVersion(p.ProtocolVersion))
	fmt.Println("read files:", p.ClientCapabilities.FS.ReadTextFile)
	fmt.Println("terminal:", p.ClientCapabilities.Terminal)
	fmt.Println("notices:", p.ClientCapabilities.AcceptsNotices())
	// Output:
	// answer with version 1
	// read files: true
	// terminal: false
	// notices: true
}
