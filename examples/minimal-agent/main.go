// Command minimal-agent is the smallest useful ACP agent: it echoes each
// prompt back to the editor. README.md shows it whole; examples/echo-agent
// is the complete version.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"

	"github.com/acpkit/acpkit/acp"
)

func main() {
	agent := acp.Methods{Requests: map[string]acp.RequestFunc{
		acp.MethodInitialize: func(_ context.Context, _ *acp.Conn, raw json.RawMessage) (any, error) {
			p, err := acp.DecodeParams[acp.InitializeParams](raw)
			if err != nil {
				return nil, err // an *acp.Error (-32602) naming the bad field
			}
			return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
		},
		acp.MethodSessionNew: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
			return acp.NewSessionResult{SessionID: "sess-1"}, nil
		},
		acp.MethodSessionPrompt: func(ctx context.Context, conn *acp.Conn, raw json.RawMessage) (any, error) {
			p, err := acp.DecodeParams[acp.PromptParams](raw)
			if err != nil {
				return nil, err
			}
			for _, block := range p.Prompt {
				// Updates sent before returning reach the editor before the response.
				err := conn.Notify(ctx, acp.MethodSessionUpdate, acp.SessionNotification{
					SessionID: p.SessionID,
					Update:    acp.AgentMessageChunk{Content: block},
				})
				if err != nil {
					return nil, err
				}
			}
			return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
		},
	}}

	conn := acp.NewConn(context.Background(), os.Stdin, os.Stdout, agent, nil)
	if err := conn.Wait(); err != nil { // nil when the editor closes stdin
		log.Fatal(err)
	}
}
