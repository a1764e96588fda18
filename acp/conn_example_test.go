package acp_test

import (
	"context"
	"encoding/json"
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
				var p struct {
					SessionID string `json:"sessionId"`
				}
				if err := json.Unmarshal(params, &p); err != nil {
					return nil, acp.Errorf(acp.CodeInvalidParams, "Invalid params: %v", err)
				}
				for _, word := range strings.Fields("hello from the agent") {
					update := map[string]any{
						"sessionId": p.SessionID,
						"update": map[string]any{
							"sessionUpdate": "agent_message_chunk",
							"content":       map[string]string{"type": "text", "text": word},
						},
					}
					if err := conn.Notify(ctx, acp.MethodSessionUpdate, update); err != nil {
						return nil, err
					}
				}
				return map[string]string{"stopReason": "end_turn"}, nil
			},
		},
	}, nil)

	client := acp.NewConn(ctx, toClientR, toAgentW, acp.Methods{
		Notifications: map[string]acp.NotificationFunc{
			acp.MethodSessionUpdate: func(_ context.Context, _ *acp.Conn, params json.RawMessage) {
				var u struct {
					Update struct {
						Content struct{ Text string } `json:"content"`
					} `json:"update"`
				}
				if json.Unmarshal(params, &u) == nil {
					fmt.Println("chunk:", u.Update.Content.Text)
				}
			},
		},
	}, nil)

	result, err := client.Request(ctx, acp.MethodSessionPrompt, map[string]any{
		"sessionId": "sess-1",
		"prompt":    []map[string]string{{"type": "text", "text": "hi"}},
	})
	fmt.Printf("result: %s, error: %v\n", result, err)

	_, err = client.Request(ctx, "no/such_method", nil)
	fmt.Println(err)

	client.Close() // the agent sees the end of its input
	fmt.Println(client.Wait(), agent.Wait())
	// Output:
	// chunk: hello
	// chunk: from
	// chunk: the
	// chunk: agent
	// result: {"stopReason":"end_turn"}, error: <nil>
	// acp: error -32601: Method not found: no/such_method
	// <nil> <nil>
}
