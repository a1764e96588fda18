package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
)

// TestConnOrdering streams 10,000 notifications from the agent, from prompt
// handlers running concurrently and from a goroutine of its own, and checks
// that the client sees every one, in order, and each prompt's
// notifications before its response.
func TestConnOrdering(t *testing.T) {
	synctest.Test(t, testConnOrdering)
}

func testConnOrdering(t *testing.T) {
	const (
		prompts   = 40
		perPrompt = 200
		free      = 2000
	)
	type update struct {
		From string `json:"from"`
		Seq  int    `json:"seq"`
	}
	var (
		mu   sync.Mutex
		next = map[string]int{}
		errs []string
	)
	clientH := acp.Methods{Notifications: map[string]acp.NotificationFunc{
		acp.SessionUpdate.Name: func(_ context.Context, _ *acp.Conn, params json.RawMessage) {
			var u update
			if err := json.Unmarshal(params, &u); err != nil {
				panic(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if u.Seq != next[u.From] {
				errs = append(errs, fmt.Sprintf("%s: got %d, want %d", u.From, u.Seq, next[u.From]))
			}
			next[u.From] = u.Seq + 1
		},
	}}
	agentH := acp.Methods{Requests: map[string]acp.RequestFunc{
		acp.SessionPrompt.Name: func(ctx context.Context, conn *acp.Conn, params json.RawMessage) (any, error) {
			var p update
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			for i := range perPrompt {
				if err := conn.Notify(ctx, acp.SessionUpdate.Name, update{p.From, i}); err != nil {
					return nil, err
				}
			}
			return map[string]string{"stopReason": "end_turn"}, nil
		},
	}}
	client, agent, closePair := acptest.NewPair(t.Context(), clientH, agentH, &acp.ConnOptions{MaxConcurrentRequests: 8})

	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range free {
			if err := agent.Notify(t.Context(), acp.SessionUpdate.Name, update{"free", i}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for p := range prompts {
		wg.Go(func() {
			from := fmt.Sprintf("prompt %d", p)
			res, err := client.Request(t.Context(), acp.SessionPrompt.Name, update{From: from})
			if err != nil {
				t.Errorf("%s: %v", from, err)
				return
			}
			if string(res) != `{"stopReason":"end_turn"}` {
				t.Errorf("%s: result %s", from, res)
			}
			mu.Lock()
			defer mu.Unlock()
			if next[from] != perPrompt {
				t.Errorf("%s: response after %d of its %d notifications", from, next[from], perPrompt)
			}
		})
	}
	wg.Wait()
	// The free-running notifications may still be in flight: a last
	// request's response comes after them.
	if _, err := agent.Request(t.Context(), "sync", nil); !errors.Is(err, acp.ErrMethodNotFound) {
		t.Fatalf("sync request: %v", err)
	}
	if err := closePair(); err != nil {
		t.Errorf("closePair = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, n := range next {
		total += n
	}
	if want := prompts*perPrompt + free; total != want {
		t.Errorf("client handled %d notifications, want %d", total, want)
	}
	if len(errs) > 0 {
		t.Errorf("%d out of order, first: %s", len(errs), errs[0])
	}
}

// TestConnBackpressure checks that a slow notification handler slows the
// sender instead of losing notifications, and that a sender whose peer does
// not read gives up when its context ends.
func TestConnBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var got atomic.Int32
		clientH := acp.Methods{Notifications: map[string]acp.NotificationFunc{
			"n": func(context.Context, *acp.Conn, json.RawMessage) {
				<-release
				got.Add(1)
			},
		}}
		_, agent, closePair := acptest.NewPair(t.Context(), clientH, nil, nil)
		const n = 500
		sent := 0
		for sent < n {
			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() { errc <- agent.Notify(ctx, "n", map[string]int{"i": sent}) }()
			synctest.Wait()
			select {
			case err := <-errc:
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				sent++
				continue
			default:
			}
			// Notify is blocked: the client is not reading. It honours its
			// context.
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("blocked Notify = %v, want context.Canceled", err)
			}
			break
		}
		if sent == n {
			t.Fatalf("sent all %d notifications to a handler that does not return", n)
		}
		close(release)
		synctest.Wait()
		if got.Load() != int32(sent) {
			t.Errorf("handler got %d notifications, want %d", got.Load(), sent)
		}
		if err := closePair(); err != nil {
			t.Errorf("closePair = %v", err)
		}
	})
}

// TestConnNotifyBeforeResponse checks that a handler's notifications are
// written before its response, on the wire.
func TestConnNotifyBeforeResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"talk": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
				for i := range 100 {
					if err := conn.Notify(ctx, "said", []int{i}); err != nil {
						return nil, err
					}
				}
				return "done", nil
			},
		}}
		p := newRawPeer(t, h, nil)
		for i := range 5 {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"talk"}`, i))
		}
		said := 0
		for answered := 0; answered < 5; {
			m := p.recv()
			switch {
			case m.Method == "said":
				said++
			case string(m.Result) == `"done"`:
				answered++
				if said < 100*answered {
					t.Fatalf("response %d after %d notifications", answered, said)
				}
			default:
				t.Fatalf("unexpected %s", m.line)
			}
		}
	})
}

// TestConnNotifyAfterEnd checks that Notify reports ErrClosed once nothing
// more will be written.
func TestConnNotifyAfterEnd(t *testing.T) {
	t.Run("end of input", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var out bytes.Buffer
			conn := acp.NewConn(t.Context(), strings.NewReader(""), &out, nil, nil)
			if err := conn.Wait(); err != nil {
				t.Fatal(err)
			}
			if err := conn.Notify(t.Context(), "late", nil); !errors.Is(err, acp.ErrClosed) {
				t.Errorf("Notify after Wait = %v, want ErrClosed", err)
			}
			if out.Len() > 0 {
				t.Errorf("wrote %q after the end", out.String())
			}
		})
	})
	t.Run("closed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := newRawPeer(t, nil, nil)
			p.conn.Close()
			if err := p.conn.Notify(t.Context(), "late", nil); !errors.Is(err, acp.ErrClosed) {
				t.Errorf("Notify after Close = %v, want ErrClosed", err)
			}
		})
	})
}
