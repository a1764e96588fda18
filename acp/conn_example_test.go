package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

// An agent and a client talking over two pipes. The agent streams its answer
// as session/update notifications before responding to session/prompt; the
// client's handler sees every chunk, in order, before Request returns.
func ExampleConn() {
	ctx := context.Background()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()

	agent := acp.NewConn(ctx, toAgentR, toClientW, acp.Methods{
		Requests: map[string]acp.RequestFunc{
			acp.MethodSessionPrompt: func(ctx context.Context, conn *acp.Conn, params json.RawMessage) (any, error) {
				p, err := acp.DecodeParams[acp.PromptParams](params)
				if err != nil {
					return nil, err // an *acp.Error: the client gets -32602
				}
				for _, word := range strings.Fields("hello from the agent") {
					err := conn.Notify(ctx, acp.MethodSessionUpdate, acp.SessionNotification{
						SessionID: p.SessionID,
						Update:    acp.AgentMessageChunk{Content: acp.TextContent{Text: word}},
					})
					if err != nil {
						return nil, err
					}
				}
				return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
			},
		},
	}, nil)

	client := acp.NewConn(ctx, toClientR, toAgentW, acp.Methods{
		Notifications: map[string]acp.NotificationFunc{
			acp.MethodSessionUpdate: func(_ context.Context, _ *acp.Conn, params json.RawMessage) {
				n, err := acp.DecodeSessionNotification(params)
				if err != nil {
					return // a malformed update is skipped, as the official client does
				}
				if chunk, ok := n.Update.(acp.AgentMessageChunk); ok {
					if text, ok := chunk.Content.(acp.TextContent); ok {
						fmt.Println("chunk:", text.Text)
					}
				}
			},
		},
	}, nil)

	raw, err := client.Request(ctx, acp.MethodSessionPrompt, acp.PromptParams{
		SessionID: "sess-1",
		Prompt:    acp.ContentBlocks{acp.TextContent{Text: "hi"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	result, err := acp.DecodeResult[acp.PromptResult](raw)
	fmt.Println("stop reason:", result.StopReason, err)

	_, err = client.Request(ctx, "no/such_method", nil)
	fmt.Println(errors.Is(err, acp.ErrMethodNotFound), err)

	client.Close() // the agent sees the end of its input
	fmt.Println(client.Wait(), agent.Wait())
	// Output:
	// chunk: hello
	// chunk: from
	// chunk: the
	// chunk: agent
	// stop reason: end_turn <nil>
	// true acp: error -32601: Method not found: no/such_method
	// <nil> <nil>
}
