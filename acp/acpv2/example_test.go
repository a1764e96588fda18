package acpv2_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// An agent that serves ACP v1 and v2 behind one Router, and a client of
// each version. The v2 agent acknowledges the prompt with the id of the
// user message it inserted, then reports the turn as updates: the user
// message, the answer, and the idle state that ends the turn.
func ExampleRouter() {
	ctx := context.Background()
	var v1 acp.Methods
	acp.Initialize.Handle(&v1, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	var v2 acp.Methods
	acpv2.Initialize.Handle(&v2, func(_ context.Context, _ *acp.Conn, p acpv2.InitializeParams) (acpv2.InitializeResult, error) {
		return acpv2.InitializeResult{ProtocolVersion: p.ProtocolVersion, Info: acpv2.Implementation{Name: "echo", Version: "1"}}, nil
	})
	acpv2.SessionPrompt.Handle(&v2, func(ctx context.Context, conn *acp.Conn, p acpv2.PromptParams) (acpv2.PromptResult, error) {
		send := func(u acpv2.Update) {
			acpv2.SessionUpdate.Notify(ctx, conn, acpv2.SessionNotification{SessionID: p.SessionID, Update: u})
		}
		send(acpv2.UserMessage{MessageID: "u1", Content: p.Prompt})
		send(acpv2.SessionStateUpdate{State: acpv2.RunningStateUpdate{}})
		send(acpv2.AgentMessageChunk{MessageID: "a1", Content: p.Prompt[0]})
		send(acpv2.SessionStateUpdate{State: acpv2.IdleStateUpdate{StopReason: acpv2.StopReasonEndTurn}})
		return acpv2.PromptResult{MessageID: "u1"}, nil
	})

	// A v1 client gets the v1 agent.
	client, _, closePair := acptest.NewPair(ctx, nil, acpv2.NewRouter(v1, v2), nil)
	r1, err := acp.Initialize.Call(ctx, client, acp.InitializeParams{ProtocolVersion: 1})
	fmt.Println("v1 client:", r1.ProtocolVersion, err)
	closePair()

	// A v2 client gets the v2 agent.
	var mu sync.Mutex
	var updates []string
	var onUpdate acp.Methods
	acpv2.SessionUpdate.Handle(&onUpdate, func(_ context.Context, _ *acp.Conn, n acpv2.SessionNotification) {
		mu.Lock()
		defer mu.Unlock()
		switch u := n.Update.(type) {
		case acpv2.UserMessage:
			updates = append(updates, "user message "+u.MessageID)
		case acpv2.AgentMessageChunk:
			updates = append(updates, "agent says "+u.Content.(acpv2.TextContent).Text)
		case acpv2.SessionStateUpdate:
			switch s := u.State.(type) {
			case acpv2.RunningStateUpdate:
				updates = append(updates, "running")
			case acpv2.IdleStateUpdate:
				updates = append(updates, "idle: "+string(s.StopReason))
			}
		}
	})
	client, _, closePair = acptest.NewPair(ctx, onUpdate, acpv2.NewRouter(v1, v2), nil)
	defer closePair()
	r2, err := acpv2.Initialize.Call(ctx, client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
	fmt.Println("v2 client:", r2.ProtocolVersion, r2.Info.Name, err)
	ack, err := acpv2.SessionPrompt.Call(ctx, client, acpv2.PromptParams{SessionID: "s", Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: "hello"}}})
	fmt.Println("prompt acknowledged:", ack.MessageID, err)
	mu.Lock()
	for _, u := range updates {
		fmt.Println(u)
	}
	mu.Unlock()
	// Output:
	// v1 client: 1 <nil>
	// v2 client: 2 echo <nil>
	// prompt acknowledged: u1 <nil>
	// user message u1
	// running
	// agent says hello
	// idle: end_turn
}
