package acpv2_test

import (
	"context"
	"fmt"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// A client that speaks both versions asks for v2, and falls back to v1
// when the agent, one that knows only v1, answers 1.
func ExampleClient() {
	ctx := context.Background()
	var v1Agent acp.Methods
	acp.Initialize.Handle(&v1Agent, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		fmt.Println("the agent is asked for version", p.ProtocolVersion)
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	client := acpv2.NewClient(nil, nil) // the handlers of what each version's agent sends
	conn, _, closePair := acptest.NewPair(ctx, client, v1Agent, nil)
	defer closePair()
	agent, err := client.Initialize(ctx, conn,
		acpv2.InitializeParams{Info: acpv2.Implementation{Name: "editor", Version: "1"}},
		acp.InitializeParams{ClientCapabilities: acp.ClientCapabilities{Terminal: true}})
	fmt.Println("speaking version", agent.Version, err)
	// Output:
	// the agent is asked for version 2
	// the agent is asked for version 1
	// speaking version 1 <nil>
}
