// Command minimal-agent is the smallest useful ACP agent: it echoes each
// prompt back to the editor. README.md shows it whole; examples/echo-agent
// is the complete version.
package main

import (
	"context"
	"log"
	"os"

	"github.com/acpkit/acpkit/acp"
)

func main() {
	// Each handler gets its params decoded and checked: a missing or
	// mistyped field is answered -32602 naming it, without calling it.
	var agent acp.Methods
	acp.Initialize.Handle(&agent, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	acp.SessionNew.Handle(&agent, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		return acp.NewSessionResult{SessionID: "sess-1"}, nil
	})
	acp.SessionPrompt.Handle(&agent, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		for _, block := range p.Prompt {
			// Updates sent before returning reach the editor before the response.
			err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{
				SessionID: p.SessionID,
				Update:    acp.AgentMessageChunk{Content: block},
			})
			if err != nil {
				return acp.PromptResult{}, err
			}
		}
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})

	// Methods not registered, such as session/load, are answered -32601.
	conn := acp.NewConn(context.Background(), os.Stdin, os.Stdout, agent, nil)
	if err := conn.Wait(); err != nil { // nil when the editor closes stdin
		log.Fatal(err)
	}
}
