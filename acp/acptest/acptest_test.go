package acptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
)

// Testing an agent in-process: the test plays the client.
func ExampleNewPair() {
	var agent acp.Methods
	acp.Initialize.Handle(&agent, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	client, _, closePair := acptest.NewPair(context.Background(), nil, agent, nil)
	defer closePair()

	result, err := acp.Initialize.Call(context.Background(), client, acp.InitializeParams{ProtocolVersion: 1})
	fmt.Println(result.ProtocolVersion, err)
	// Output:
	// 1 <nil>
}

func TestNewPair(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := make(chan string, 1)
		clientH := acp.Methods{Notifications: map[string]acp.NotificationFunc{
			"ping": func(_ context.Context, _ *acp.Conn, params json.RawMessage) { got <- string(params) },
		}}
		client, agent, closePair := acptest.NewPair(t.Context(), clientH, nil, nil)
		if err := agent.Notify(t.Context(), "ping", []int{1}); err != nil {
			t.Fatal(err)
		}
		if p := <-got; p != "[1]" {
			t.Errorf("client got params %s, want [1]", p)
		}
		if _, err := client.Request(t.Context(), "x", nil); !errors.Is(err, acp.ErrMethodNotFound) {
			t.Errorf("Request to a nil handler = %v, want ErrMethodNotFound", err)
		}
		// Closing the agent ends the client cleanly.
		agent.Close()
		if err := client.Wait(); err != nil {
			t.Errorf("client Wait = %v, want nil", err)
		}
		if err := closePair(); err != nil {
			t.Errorf("closePair = %v, want nil", err)
		}
	})
}
