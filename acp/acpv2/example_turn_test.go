package acpv2_test

import (
	"context"
	"fmt"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// A v2 agent whose sessions each have a goroutine that owns them, as an
// agent driving a long-lived process does. The prompt handler hands the
// prompt to the session and answers once the session has inserted it,
// with its user message's id; the session reports the turn in updates,
// each message under its own id, and ends it with an idle state.
func Example_turn() {
	ctx := context.Background()
	type prompt struct {
		p        acpv2.PromptParams
		inserted chan string // the user message's id
	}
	prompts := make(chan prompt)
	session := func(conn *acp.Conn) {
		send := func(u acpv2.Update) {
			acpv2.SessionUpdate.Notify(ctx, conn, acpv2.SessionNotification{SessionID: "s1", Update: u})
		}
		for n := 1; ; n++ {
			var pr prompt
			select {
			case pr = <-prompts:
			case <-conn.Done():
				return
			}
			user, answer := fmt.Sprintf("user-%d", n), fmt.Sprintf("agent-%d", n)
			send(acpv2.UserMessage{MessageID: user, Content: pr.p.Prompt})
			pr.inserted <- user // the handler answers now; the turn goes on
			send(acpv2.SessionStateUpdate{State: acpv2.RunningStateUpdate{}})
			send(acpv2.AgentMessageChunk{MessageID: answer, Content: acpv2.TextContent{Text: "Hello"}})
			send(acpv2.AgentMessageChunk{MessageID: answer, Content: acpv2.TextContent{Text: ", world."}})
			send(acpv2.SessionStateUpdate{State: acpv2.IdleStateUpdate{StopReason: acpv2.StopReasonEndTurn}})
		}
	}
	var agent acp.Methods
	acpv2.Initialize.Handle(&agent, func(context.Context, *acp.Conn, acpv2.InitializeParams) (acpv2.InitializeResult, error) {
		return acpv2.InitializeResult{ProtocolVersion: acpv2.ProtocolVersion, Info: acpv2.Implementation{Name: "agent", Version: "1"}}, nil
	})
	acpv2.SessionPrompt.Handle(&agent, func(ctx context.Context, _ *acp.Conn, p acpv2.PromptParams) (acpv2.PromptResult, error) {
		pr := prompt{p, make(chan string, 1)}
		select {
		case prompts <- pr:
		case <-ctx.Done():
			return acpv2.PromptResult{}, ctx.Err()
		}
		return acpv2.PromptResult{MessageID: <-pr.inserted}, nil
	})

	var updates []string
	idle := make(chan struct{})
	var editor acp.Methods
	acpv2.SessionUpdate.Handle(&editor, func(_ context.Context, _ *acp.Conn, n acpv2.SessionNotification) {
		switch u := n.Update.(type) {
		case acpv2.UserMessage:
			updates = append(updates, "user message "+u.MessageID)
		case acpv2.AgentMessageChunk:
			updates = append(updates, fmt.Sprintf("%s: %s", u.MessageID, u.Content.(acpv2.TextContent).Text))
		case acpv2.SessionStateUpdate:
			if s, ok := u.State.(acpv2.IdleStateUpdate); ok {
				updates = append(updates, "idle: "+string(s.StopReason))
				close(idle)
			} else {
				updates = append(updates, "running")
			}
		}
	})
	conn, agentConn, closePair := acptest.NewPair(ctx, editor, acpv2.NewRouter(nil, agent), nil)
	defer closePair()
	go session(agentConn)
	if _, err := acpv2.Initialize.Call(ctx, conn, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}}); err != nil {
		fmt.Println(err)
		return
	}
	ack, err := acpv2.SessionPrompt.Call(ctx, conn, acpv2.PromptParams{SessionID: "s1", Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: "Hi"}}})
	fmt.Println("acknowledged:", ack.MessageID, err)
	<-idle // updates are handled one at a time, in order
	for _, u := range updates {
		fmt.Println(u)
	}
	// Output:
	// acknowledged: user-1 <nil>
	// user message user-1
	// running
	// agent-1: Hello
	// agent-1: , world.
	// idle: end_turn
}
