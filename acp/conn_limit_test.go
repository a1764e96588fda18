package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/google/go-cmp/cmp"
)

// TestConnConcurrencyLimit checks that no more than MaxConcurrentRequests
// handlers run at once.
func TestConnConcurrencyLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 3
		var running, most atomic.Int32
		release := make(chan struct{})
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"wait": func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				<-release
				running.Add(-1)
				return nil, nil
			},
		}}
		client, _, closePair := acptest.NewPair(t.Context(), nil, h, &acp.ConnOptions{MaxConcurrentRequests: limit})
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if _, err := client.Request(t.Context(), "wait", nil); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		if n := running.Load(); n != limit {
			t.Errorf("%d handlers running, want %d", n, limit)
		}
		close(release)
		wg.Wait()
		if m := most.Load(); m != limit {
			t.Errorf("at most %d handlers ran at once, want %d", m, limit)
		}
		if err := closePair(); err != nil {
			t.Error(err)
		}
	})
}

// TestConnHandlersWaitOnPeer checks that handlers at the request limit
// that wait on the peer get their responses even when the peer sends
// another request first: the request past the limit waits for a slot off
// the reading goroutine.
func TestConnHandlersWaitOnPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"ask": func(ctx context.Context, conn *acp.Conn, params json.RawMessage) (any, error) {
				return conn.Request(ctx, "permit", params)
			},
		}}
		p := newRawPeer(t, h, &acp.ConnOptions{MaxConcurrentRequests: 2})
		p.send(`{"jsonrpc":"2.0","id":"a","method":"ask","params":{"n":1}}`)
		p.send(`{"jsonrpc":"2.0","id":"b","method":"ask","params":{"n":2}}`)
		var asked []wireMessage
		for range 2 {
			asked = append(asked, p.recv())
		}
		p.send(`{"jsonrpc":"2.0","id":"c","method":"ask","params":{"n":3}}`)
		for _, m := range asked {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, m.Params))
		}
		got := map[string]string{}
		for len(got) < 3 {
			m := p.recv()
			if m.Method == "permit" {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, m.Params))
				continue
			}
			got[string(m.ID)] = m.line
		}
		want := map[string]string{
			`"a"`: `{"jsonrpc":"2.0","id":"a","result":{"n":1}}`,
			`"b"`: `{"jsonrpc":"2.0","id":"b","result":{"n":2}}`,
			`"c"`: `{"jsonrpc":"2.0","id":"c","result":{"n":3}}`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("responses (-want +got):\n%s", diff)
		}
	})
}

// blockers is a handler whose "block" requests record their params and
// wait for a value on release or for their context to end; "note"
// notifications record their params.
type blockers struct {
	mu      sync.Mutex
	started []string // params of the requests started, in order
	notes   []string // params of the notifications received, in order
	release chan struct{}
}

func newBlockers() *blockers { return &blockers{release: make(chan struct{})} }

func (b *blockers) handler() acp.Methods {
	return acp.Methods{
		Requests: map[string]acp.RequestFunc{
			"block": func(ctx context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
				b.mu.Lock()
				b.started = append(b.started, string(params))
				b.mu.Unlock()
				select {
				case <-b.release:
					return params, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		},
		Notifications: map[string]acp.NotificationFunc{
			"note": func(_ context.Context, _ *acp.Conn, params json.RawMessage) {
				b.mu.Lock()
				b.notes = append(b.notes, string(params))
				b.mu.Unlock()
			},
		},
	}
}

func (b *blockers) log() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.started)
}

func (b *blockers) received() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.notes)
}

// TestConnCancelWaiting checks that $/cancel_request for a request waiting
// for a slot answers it without running its handler.
func TestConnCancelWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlockers()
		p := newRawPeer(t, b.handler(), &acp.ConnOptions{MaxConcurrentRequests: 1})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"block","params":[1]}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"block","params":[2]}`)
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`)
		if diff := cmp.Diff(`{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Request cancelled"}}`, p.recv().line); diff != "" {
			t.Errorf("reply to the cancelled request (-want +got):\n%s", diff)
		}
		b.release <- struct{}{}
		if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"result":[1]}`, p.recv().line); diff != "" {
			t.Errorf("reply to the running request (-want +got):\n%s", diff)
		}
		// The id is free again, and the slot too.
		p.send(`{"jsonrpc":"2.0","id":2,"method":"block","params":[3]}`)
		b.release <- struct{}{}
		if diff := cmp.Diff(`{"jsonrpc":"2.0","id":2,"result":[3]}`, p.recv().line); diff != "" {
			t.Errorf("reply to the reused id (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"[1]", "[3]"}, b.log()); diff != "" {
			t.Errorf("handlers run (-want +got):\n%s", diff)
		}
	})
}

// TestConnEndWhileWaiting checks that when the input ends, requests waiting
// for a slot still run, in turn and with cancelled contexts, every request
// is answered as its handler returns, and no goroutine is left.
func TestConnEndWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const label = "TestConnEndWhileWaiting"
		pprof.SetGoroutineLabels(pprof.WithLabels(t.Context(), pprof.Labels("conn", label)))
		b := newBlockers()
		p := newRawPeer(t, b.handler(), &acp.ConnOptions{MaxConcurrentRequests: 2})
		pprof.SetGoroutineLabels(context.Background())
		for i := 1; i <= 4; i++ {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block","params":[%d]}`, i, i))
		}
		synctest.Wait()
		p.in.Close()
		got := map[string]int{}
		for range 4 {
			m := p.recv()
			if m.Error == nil {
				t.Errorf("reply %s, want an error", m.line)
				continue
			}
			got[string(m.ID)] = m.Error.Code
		}
		// Every handler answers its cancelled context's error.
		want := map[string]int{"1": acp.CodeInternalError, "2": acp.CodeInternalError, "3": acp.CodeInternalError, "4": acp.CodeInternalError}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("error codes by id (-want +got):\n%s", diff)
		}
		if err := p.conn.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		synctest.Wait()
		if n := labelled(t, label); n != 0 {
			t.Errorf("%d goroutines left after Wait returned", n)
		}
		// The two that waited for a slot run too, after the first two and
		// in the order they came: the peer sent them before closing.
		ran := b.log()
		slices.Sort(ran[:2])
		if diff := cmp.Diff([]string{"[1]", "[2]", "[3]", "[4]"}, ran); diff != "" {
			t.Errorf("handlers run (-want +got):\n%s", diff)
		}
	})
}

// TestConnQueueFull checks that the Conn reads past the request limit,
// stops reading only once as many requests wait as may run, resumes when
// one finishes, and starts waiting requests in arrival order.
func TestConnQueueFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlockers()
		p := newRawPeer(t, b.handler(), &acp.ConnOptions{MaxConcurrentRequests: 1})
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for _, line := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"block","params":[1]}`,
				`{"jsonrpc":"2.0","id":2,"method":"block","params":[2]}`, // waits
				`{"jsonrpc":"2.0","method":"note","params":[1]}`,
				`{"jsonrpc":"2.0","id":3,"method":"block","params":[3]}`, // past the cap: reading stops
				`{"jsonrpc":"2.0","method":"note","params":[2]}`,
				`{"jsonrpc":"2.0","id":4,"method":"block","params":[4]}`,
			} {
				p.send(line)
			}
		}()
		synctest.Wait()
		if diff := cmp.Diff([]string{"[1]"}, b.log()); diff != "" {
			t.Errorf("requests run with the queue full (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"[1]"}, b.received()); diff != "" {
			t.Errorf("notifications read with the queue full (-want +got):\n%s", diff)
		}
		b.release <- struct{}{}
		if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"result":[1]}`, p.recv().line); diff != "" {
			t.Errorf("first reply (-want +got):\n%s", diff)
		}
		synctest.Wait()
		if diff := cmp.Diff([]string{"[1]", "[2]"}, b.log()); diff != "" {
			t.Errorf("requests run after a slot freed (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"[1]", "[2]"}, b.received()); diff != "" {
			t.Errorf("notifications read after a slot freed (-want +got):\n%s", diff)
		}
		for i := 2; i <= 4; i++ {
			b.release <- struct{}{}
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[%d]}`, i, i)
			if diff := cmp.Diff(want, p.recv().line); diff != "" {
				t.Errorf("reply %d (-want +got):\n%s", i, diff)
			}
		}
		<-sent
		if diff := cmp.Diff([]string{"[1]", "[2]", "[3]", "[4]"}, b.log()); diff != "" {
			t.Errorf("run in the end (-want +got):\n%s", diff)
		}
	})
}

// TestConnCloseWhileWaiting checks that Close drops the requests waiting
// for a slot without running them: no answer could be written.
func TestConnCloseWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		var mu sync.Mutex
		var ran []string
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"block": func(ctx context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
				mu.Lock()
				ran = append(ran, string(params))
				mu.Unlock()
				<-ctx.Done()
				return nil, ctx.Err()
			},
		}}
		p := newRawPeer(t, h, &acp.ConnOptions{MaxConcurrentRequests: 1})
		for i := 1; i <= 3; i++ {
			p.send(`{"jsonrpc":"2.0","id":1` + strings.Repeat("0", i) + `,"method":"block","params":[` + strings.Repeat("1", i) + `]}`)
		}
		synctest.Wait()
		p.conn.Close()
		if err := p.conn.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		if diff := cmp.Diff([]string{"[1]"}, ran); diff != "" {
			t.Errorf("handlers run (-want +got):\n%s", diff)
		}
	})
}
