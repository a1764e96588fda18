package acp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

// An agent and a client talking over two pipes, both through the typed
// method values. The agent streams its answer as session/update
// notifications before responding to session/prompt; the client's handler
// sees every chunk, in order, before Call returns.
func ExampleConn() {
	ctx := context.Background()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()

	var agentMethods acp.Methods
	acp.SessionPrompt.Handle(&agentMethods, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		for _, word := range strings.Fields("hello from the agent") {
			err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{
				SessionID: p.SessionID,
				Update:    acp.AgentMessageChunk{Content: acp.TextContent{Text: word}},
			})
			if err != nil {
				return acp.PromptResult{}, err
			}
		}
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	agent := acp.NewConn(ctx, toAgentR, toClientW, agentMethods, nil)

	var clientMethods acp.Methods
	acp.SessionUpdate.Handle(&clientMethods, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		if chunk, ok := n.Update.(acp.AgentMessageChunk); ok {
			if text, ok := chunk.Content.(acp.TextContent); ok {
				fmt.Println("chunk:", text.Text)
			}
		}
	})
	client := acp.NewConn(ctx, toClientR, toAgentW, clientMethods, nil)

	result, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{
		SessionID: "sess-1",
		Prompt:    acp.ContentBlocks{acp.TextContent{Text: "hi"}},
	})
	fmt.Println("stop reason:", result.StopReason, err)

	// The agent registered no session/load: it answers -32601.
	_, err = acp.SessionLoad.Call(ctx, client, acp.LoadSessionParams{SessionID: "sess-1", Cwd: "/"})
	fmt.Println(errors.Is(err, acp.ErrMethodNotFound), err)

	client.Close() // the agent sees the end of its input
	fmt.Println(client.Wait(), agent.Wait())
	// Output:
	// chunk: hello
	// chunk: from
	// chunk: the
	// chunk: agent
	// stop reason: end_turn <nil>
	// true acp: error -32601: Method not found: session/load
	// <nil> <nil>
}

// SearchParams and SearchResult are an extension's own types. A field
// tagged acp:"required" must be present and not null.
type SearchParams struct {
	Query string `json:"query" acp:"required"`
}

type SearchResult struct {
	Hits []string `json:"hits" acp:"required"`
}

// Search is a vendor's extension method, declared in one line.
var Search = acp.Method[SearchParams, SearchResult]{Name: "_example/search"}

// An extension method is declared, served and called like the ACP methods.
func ExampleMethod() {
	ctx := context.Background()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()

	var methods acp.Methods
	Search.Handle(&methods, func(_ context.Context, _ *acp.Conn, p SearchParams) (SearchResult, error) {
		return SearchResult{Hits: []string{p.Query + ".go"}}, nil
	})
	agent := acp.NewConn(ctx, toAgentR, toClientW, methods, nil)
	client := acp.NewConn(ctx, toClientR, toAgentW, nil, nil)

	res, err := Search.Call(ctx, client, SearchParams{Query: "main"})
	fmt.Println(res.Hits, err)

	// Params without the required query never reach the handler.
	_, err = client.Request(ctx, Search.Name, map[string]string{})
	field, _ := acp.InvalidField(err)
	fmt.Println(errors.Is(err, acp.ErrInvalidParams), field)

	client.Close()
	fmt.Println(client.Wait(), agent.Wait())
	// Output:
	// [main.go] <nil>
	// true query
	// <nil> <nil>
}

// A client that traces its wire: OnWrite and OnRead are shown each
// message in the order it crossed, the notifications the agent sent
// before its response included, whatever goroutines handle them.
func ExampleConnOptions_trace() {
	ctx := context.Background()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()

	var agentMethods acp.Methods
	acp.SessionPrompt.Handle(&agentMethods, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{
			SessionID: p.SessionID,
			Update:    acp.AgentMessageChunk{Content: acp.TextContent{Text: "hello"}},
		})
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, err
	})
	agent := acp.NewConn(ctx, toAgentR, toClientW, agentMethods, nil)

	client := acp.NewConn(ctx, toClientR, toAgentW, nil, &acp.ConnOptions{
		OnWrite: func(msg []byte) { fmt.Printf("-> %s\n", msg) },
		OnRead:  func(msg []byte) { fmt.Printf("<- %s\n", msg) },
	})
	acp.SessionPrompt.Call(ctx, client, acp.PromptParams{
		SessionID: "sess-1",
		Prompt:    acp.ContentBlocks{acp.TextContent{Text: "hi"}},
	})
	client.Close()
	client.Wait()
	agent.Wait()
	// Output:
	// -> {"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hi"}]}}
	// <- {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}
	// <- {"jsonrpc":"2.0","id":0,"result":{"stopReason":"end_turn"}}
}
