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

// TestCloseOneSideWhileOtherWrites closes the client while the agent
// streams notifications: the agent must see a clean end of its input, not
// the closed pipe its writes run into. Each try runs in a synctest bubble,
// which fails if a goroutine of either Conn is left behind.
func TestCloseOneSideWhileOtherWrites(t *testing.T) {
	for i := range 200 {
		synctest.Test(t, func(t *testing.T) {
			streaming := make(chan struct{})
			agentH := acp.Methods{Requests: map[string]acp.RequestFunc{
				"stream": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
					close(streaming)
					for ctx.Err() == nil {
						if err := conn.Notify(ctx, "chunk", []string{"some text"}); err != nil {
							return nil, err
						}
					}
					return nil, ctx.Err()
				},
			}}
			client, agent, closePair := acptest.NewPair(t.Context(), nil, agentH, nil)
			requested := make(chan error)
			go func() {
				_, err := client.Request(t.Context(), "stream", nil)
				requested <- err
			}()
			<-streaming
			client.Close()
			if err := agent.Wait(); err != nil {
				t.Errorf("try %d: agent Wait = %v after the client closed, want nil", i, err)
			}
			if err := <-requested; !errors.Is(err, acp.ErrClosed) {
				t.Errorf("try %d: Request = %v, want ErrClosed", i, err)
			}
			if err := closePair(); err != nil {
				t.Errorf("try %d: closePair = %v", i, err)
			}
		})
	}
}

// TestShutdownEndsPeer checks that when one side shuts down, the other
// sees the end of its input: a request it sends then fails instead of
// waiting for an answer that cannot come.
func TestShutdownEndsPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, agent, closePair := acptest.NewPair(t.Context(), nil, nil, nil)
		if err := agent.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := client.Wait(); err != nil {
			t.Errorf("client Wait = %v, want nil", err)
		}
		if _, err := client.Request(context.Background(), "x", nil); !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Request after the peer shut down = %v, want ErrClosed", err)
		}
		if err := closePair(); err != nil {
			t.Errorf("closePair = %v", err)
		}
	})
}
