package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
)

// TestConnCancelInbound checks that $/cancel_request cancels a running
// handler and that returning the context's error answers -32800.
func TestConnCancelInbound(t *testing.T) {
	tests := []struct {
		name     string
		handler  func(ctx context.Context) (any, error)
		wantCode int
		wantRes  string
	}{
		{"ctx error", func(ctx context.Context) (any, error) { return nil, ctx.Err() }, acp.CodeRequestCancelled, ""},
		{"wrapped ctx error", func(ctx context.Context) (any, error) { return nil, fmt.Errorf("stopped: %w", ctx.Err()) }, acp.CodeRequestCancelled, ""},
		{"cause", func(ctx context.Context) (any, error) { return nil, context.Cause(ctx) }, acp.CodeRequestCancelled, ""},
		{"result anyway", func(context.Context) (any, error) { return "partial", nil }, 0, `"partial"`},
		{"own error", func(context.Context) (any, error) { return nil, acp.ErrResourceNotFound }, acp.CodeResourceNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started := make(chan struct{})
				h := acp.Methods{Requests: map[string]acp.RequestFunc{
					"slow": func(ctx context.Context, _ *acp.Conn, _ json.RawMessage) (any, error) {
						close(started)
						<-ctx.Done()
						return tt.handler(ctx)
					},
				}}
				p := newRawPeer(t, h, nil)
				p.send(`{"jsonrpc":"2.0","id":"r1","method":"slow"}`)
				<-started
				p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"r1"}}`)
				got := p.recv()
				if string(got.ID) != `"r1"` {
					t.Fatalf("reply %s, want id \"r1\"", got.line)
				}
				switch {
				case tt.wantCode != 0 && (got.Error == nil || got.Error.Code != tt.wantCode):
					t.Errorf("reply %s, want error %d", got.line, tt.wantCode)
				case tt.wantCode == 0 && string(got.Result) != tt.wantRes:
					t.Errorf("reply %s, want result %s", got.line, tt.wantRes)
				}
			})
		})
	}
}

// TestConnCancelRepeatedRequestID checks that $/cancel_request reads a
// repeated requestId as every other decoder does: the last occurrence wins.
func TestConnCancelRepeatedRequestID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"slow": func(ctx context.Context, _ *acp.Conn, _ json.RawMessage) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			},
		}}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":"r1","method":"slow"}`)
		<-started
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"other","requestId":"r1"}}`)
		got := p.recv()
		if string(got.ID) != `"r1"` || got.Error == nil || got.Error.Code != acp.CodeRequestCancelled {
			t.Errorf("reply %s, want error %d for id \"r1\"", got.line, acp.CodeRequestCancelled)
		}
	})
}

// TestConnCancelBothWays cancels a client→agent and an agent→client request
// with the caller's context.
func TestConnCancelBothWays(t *testing.T) {
	// blocker records how its handler's context ended.
	type blocker struct {
		started chan struct{}
		cause   chan error
	}
	newBlocker := func() (*blocker, acp.Methods) {
		b := &blocker{started: make(chan struct{}), cause: make(chan error, 1)}
		return b, acp.Methods{Requests: map[string]acp.RequestFunc{
			"wait": func(ctx context.Context, _ *acp.Conn, _ json.RawMessage) (any, error) {
				close(b.started)
				<-ctx.Done()
				b.cause <- context.Cause(ctx)
				return nil, ctx.Err()
			},
		}}
	}
	for _, dir := range []string{"client to agent", "agent to client"} {
		t.Run(dir, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, h := newBlocker()
				var clientH, agentH acp.Handler = nil, h
				if dir == "agent to client" {
					clientH, agentH = h, nil
				}
				client, agent, closePair := acptest.NewPair(t.Context(), clientH, agentH, nil)
				caller := client
				if dir == "agent to client" {
					caller = agent
				}
				ctx, cancel := context.WithCancel(t.Context())
				errc := make(chan error, 1)
				go func() {
					_, err := caller.Request(ctx, "wait", nil)
					errc <- err
				}()
				<-b.started
				cancel()
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Errorf("Request = %v, want context.Canceled", err)
				}
				if cause := <-b.cause; !errors.Is(cause, acp.ErrRequestCancelled) {
					t.Errorf("handler's context cause = %v, want ErrRequestCancelled", cause)
				}
				// The connection is still usable.
				_, err := caller.Request(t.Context(), "missing", nil)
				if !errors.Is(err, acp.ErrMethodNotFound) {
					t.Errorf("Request after the cancel = %v, want ErrMethodNotFound", err)
				}
				if err := closePair(); err != nil {
					t.Errorf("closePair = %v", err)
				}
			})
		})
	}
}

// TestConnStalledPeer checks that Request honours its context when the peer
// reads nothing at all, and that Close then unblocks everything.
func TestConnStalledPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inR, inW := io.Pipe()
		_, outW := io.Pipe() // nobody ever reads
		conn := acp.NewConn(t.Context(), inR, outW, nil, nil)
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error)
		for range 100 {
			go func() {
				_, err := conn.Request(ctx, "x", nil)
				errc <- err
			}()
		}
		synctest.Wait()
		cancel()
		for range 100 {
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("Request = %v, want context.Canceled", err)
			}
		}
		conn.Close()
		if err := conn.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		inW.Close()
	})
}

// TestConnRequestCause checks that Request's error carries the cause of
// the context that ended it.
func TestConnRequestCause(t *testing.T) {
	boom := errors.New("boom")
	for _, sent := range []bool{false, true} {
		t.Run(fmt.Sprintf("sent=%v", sent), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newRawPeer(t, nil, nil)
				ctx, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				if !sent {
					cancel(boom)
				}
				errc := make(chan error, 1)
				go func() {
					_, err := p.conn.Request(ctx, "ask", nil)
					errc <- err
				}()
				if sent {
					p.recv()
					cancel(boom)
					if got := p.recv(); got.Method != acp.CancelRequest.Name {
						t.Errorf("after the cancel: %s, want $/cancel_request", got.line)
					}
				}
				err := <-errc
				if !errors.Is(err, context.Canceled) || !errors.Is(err, boom) {
					t.Errorf("Request = %v, want context.Canceled and %v", err, boom)
				}
			})
		})
	}
}
