package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/google/go-cmp/cmp"
)

// TestAfterResponseOrder sends many requests at once, each of whose
// handlers leaves a goroutine that notifies as soon as AfterResponse's
// function lets it: every notification must come after its request's
// response, in every run.
func TestAfterResponseOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const requests = 500
		var wg sync.WaitGroup
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"open": func(ctx context.Context, conn *acp.Conn, params json.RawMessage) (any, error) {
				released := make(chan struct{})
				wg.Go(func() {
					<-released
					conn.Notify(context.Background(), "opened", params)
				})
				if !acp.AfterResponse(ctx, func() { close(released) }) {
					t.Error("AfterResponse refused a handler's context")
					close(released)
				}
				return params, nil
			},
		}}
		p := newRawPeer(t, h, &acp.ConnOptions{MaxConcurrentRequests: 16})
		go func() {
			for i := range requests {
				// Not p.send: its t.Fatalf belongs to the test's goroutine.
				if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":"open","params":[%d]}`+"\n", i, i); err != nil {
					return // the test has failed and closed the pipe
				}
			}
		}()
		answered := map[string]bool{}
		for range 2 * requests {
			m := p.recv()
			switch {
			case m.Method == "opened":
				n := string(m.Params[1 : len(m.Params)-1])
				if !answered[n] {
					t.Fatalf("the notification of request %s came before its response: %s", n, m.line)
				}
			case m.Result != nil:
				answered[string(m.ID)] = true
			default:
				t.Fatalf("unexpected line %s", m.line)
			}
		}
		if len(answered) != requests {
			t.Errorf("%d requests answered, want %d", len(answered), requests)
		}
		wg.Wait()
	})
}

// TestAfterResponse checks what AfterResponse's functions do around the
// response, as the peer sees it on the wire: they run in order once the
// response is queued, also when registered late or from a context derived
// from the handler's, and a panic or a runtime.Goexit in one costs
// neither the response nor the request's slot.
func TestAfterResponse(t *testing.T) {
	type key struct{}
	tests := []struct {
		name    string
		handler func(ctx context.Context, say func(string)) (any, error)
		want    []string // the methods of the lines the peer reads, the response as "response"
	}{
		{
			name: "in order",
			handler: func(ctx context.Context, say func(string)) (any, error) {
				for _, s := range []string{"first", "second", "third"} {
					acp.AfterResponse(ctx, func() { say(s) })
				}
				say("before")
				return "ok", nil
			},
			want: []string{"before", "response", "first", "second", "third"},
		},
		{
			name: "derived context, error response",
			handler: func(ctx context.Context, say func(string)) (any, error) {
				derived, cancel := context.WithCancel(context.WithValue(ctx, key{}, 1))
				defer cancel()
				acp.AfterResponse(derived, func() { say("after") })
				return nil, acp.Errorf(acp.CodeInvalidParams, "no")
			},
			want: []string{"response", "after"},
		},
		{
			name: "registered once the response is queued",
			handler: func(ctx context.Context, say func(string)) (any, error) {
				acp.AfterResponse(ctx, func() {
					acp.AfterResponse(ctx, func() { say("late") })
					say("after")
				})
				return "ok", nil
			},
			want: []string{"response", "late", "after"},
		},
		{
			name: "a panic and a Goexit",
			handler: func(ctx context.Context, say func(string)) (any, error) {
				acp.AfterResponse(ctx, func() { panic("hook") })
				acp.AfterResponse(ctx, func() { say("after the panic") })
				acp.AfterResponse(ctx, runtime.Goexit)
				acp.AfterResponse(ctx, func() { say("after the Goexit") })
				return "ok", nil
			},
			want: []string{"response", "after the panic"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := acp.Methods{Requests: map[string]acp.RequestFunc{
					"do": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
						say := func(s string) { conn.Notify(context.Background(), s, nil) }
						return tt.handler(ctx, say)
					},
					"ping": func(context.Context, *acp.Conn, json.RawMessage) (any, error) { return "pong", nil },
				}}
				// One request at a time: ping is answered only if do's
				// slot was given back.
				p := newRawPeer(t, h, &acp.ConnOptions{MaxConcurrentRequests: 1})
				p.send(`{"jsonrpc":"2.0","id":1,"method":"do"}`)
				p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
				var got []string
				for {
					m := p.recv()
					if string(m.ID) == "2" {
						break
					}
					if m.Method == "" {
						got = append(got, "response")
					} else {
						got = append(got, m.Method)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("the lines before ping's response (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestAfterResponseRefused checks that a context that is no request
// handler's is refused, and its function not run.
func TestAfterResponseRefused(t *testing.T) {
	if acp.AfterResponse(context.Background(), func() { t.Error("ran") }) {
		t.Error("AfterResponse took a context that is no handler's")
	}
}

// TestAfterResponseClosed checks that AfterResponse's function runs when
// the connection closed before the response could be queued, so that
// whatever it releases is released.
func TestAfterResponseClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ran := make(chan struct{})
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"do": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
				acp.AfterResponse(ctx, func() { close(ran) })
				conn.Close()
				return "ok", nil
			},
		}}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"do"}`)
		p.conn.Wait()
		select {
		case <-ran:
		default:
			t.Error("the function did not run once the connection had closed")
		}
	})
}
