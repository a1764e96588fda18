package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/google/go-cmp/cmp"
)

// observed records what a Conn's OnRead and OnWrite are shown, in one
// sequence, as "read LINE" and "write LINE".
type observed struct {
	mu    sync.Mutex
	lines []string
}

func (o *observed) add(dir string, msg []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lines = append(o.lines, dir+" "+string(msg)) // a copy: msg is the Conn's
}

func (o *observed) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.lines...)
}

// TestConnObserve shows OnRead and OnWrite each message of both
// directions, in the order of the wire, as it is without its newline:
// requests, responses, notifications, and a line that is not JSON with
// the error that answers it. A message read is shown before the Conn acts
// on it: the response before the Request it answers returns, the
// notification that follows it before its handler runs.
func TestConnObserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			obs      observed
			returned atomic.Bool // the Conn's own Request has returned
			early    atomic.Bool // OnRead saw its response after that
			notified = make(chan string, 1)
		)
		h := acp.Methods{
			Requests: echo.Requests,
			Notifications: map[string]acp.NotificationFunc{
				"note": func(_ context.Context, _ *acp.Conn, params json.RawMessage) {
					notified <- fmt.Sprint(obs.get())
				},
			},
		}
		opts := &acp.ConnOptions{
			OnRead: func(msg []byte) {
				if strings.Contains(string(msg), `"result":"pong"`) && !returned.Load() {
					early.Store(true)
				}
				obs.add("read", msg)
			},
			OnWrite: func(msg []byte) { obs.add("write", msg) },
		}
		p := newRawPeer(t, h, opts)

		p.send(`{"jsonrpc":"2.0","id":"a","method":"echo","params":{"x":1}}`)
		p.recv()

		result := make(chan string, 1)
		go func() {
			raw, err := p.conn.Request(t.Context(), "ping", nil)
			returned.Store(true)
			result <- fmt.Sprintf("%s %v", raw, err)
		}()
		req := p.recv()
		p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":"pong"}`)
		p.send(`{"jsonrpc":"2.0","method":"note","params":{}}`)
		if got := <-result; got != `"pong" <nil>` {
			t.Errorf("Request returned %s", got)
		}
		if got := <-notified; !strings.Contains(got, `"method":"note"`) {
			t.Errorf("the notification's handler ran before OnRead was shown it; it saw %s", got)
		}
		if !early.Load() {
			t.Error("OnRead was shown the response after the Request it answers returned")
		}

		p.send(`not json`)
		p.recv()

		want := []string{
			`read {"jsonrpc":"2.0","id":"a","method":"echo","params":{"x":1}}`,
			`write {"jsonrpc":"2.0","id":"a","result":{"x":1}}`,
			`write {"jsonrpc":"2.0","id":0,"method":"ping"}`,
			`read {"jsonrpc":"2.0","id":0,"result":"pong"}`,
			`read {"jsonrpc":"2.0","method":"note","params":{}}`,
			`read not json`,
			`write {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not valid JSON"}}`,
		}
		if diff := cmp.Diff(want, obs.get()); diff != "" {
			t.Errorf("observed (-want +got):\n%s", diff)
		}
	})
}

// TestConnObserveConcurrent has handlers and the Conn's own callers
// write while the peer sends, and checks that OnWrite is shown exactly
// the lines the peer read, in their order, and OnRead exactly those it
// sent. Each hook appends to a slice of its own without a lock: under
// the race detector that checks that calls of one hook never overlap, as
// ConnOptions documents.
func TestConnObserveConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 200
		var reads, writes []string
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"work": func(ctx context.Context, conn *acp.Conn, params json.RawMessage) (any, error) {
				for i := range 3 {
					if err := conn.Notify(ctx, "progress", map[string]any{"of": params, "i": i}); err != nil {
						return nil, err
					}
				}
				return params, nil
			},
		}}
		opts := &acp.ConnOptions{
			OnRead:  func(msg []byte) { reads = append(reads, string(msg)) },
			OnWrite: func(msg []byte) { writes = append(writes, string(msg)) },
		}
		p := newRawPeer(t, h, opts)

		var sent []string
		sending := make(chan struct{})
		go func() {
			defer close(sending)
			for i := range n {
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"work","params":[%d]}`, i, i)
				sent = append(sent, line)
				p.send(line)
			}
		}()
		var got []string
		for range n * 4 { // three notifications and a response each
			got = append(got, p.recv().line)
		}
		<-sending
		p.conn.Close()
		p.conn.Wait()
		if diff := cmp.Diff(sent, reads); diff != "" {
			t.Errorf("OnRead (-sent +shown):\n%s", diff)
		}
		if diff := cmp.Diff(got, writes); diff != "" {
			t.Errorf("OnWrite (-written +shown):\n%s", diff)
		}
	})
}
