package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/google/go-cmp/cmp"
)

// rawPeer is the far end of a Conn, driven line by line by a test.
type rawPeer struct {
	t    *testing.T
	conn *acp.Conn
	in   *io.PipeWriter // the Conn's input
	out  *bufio.Reader  // the Conn's output
}

func newRawPeer(t *testing.T, h acp.Handler, opts *acp.ConnOptions) *rawPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := acp.NewConn(t.Context(), inR, outW, h, opts)
	t.Cleanup(func() {
		conn.Close()
		conn.Wait()
	})
	return &rawPeer{t: t, conn: conn, in: inW, out: bufio.NewReader(outR)}
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("sending %q: %v", line, err)
	}
}

// recv reads one line the Conn wrote and decodes it.
func (p *rawPeer) recv() wireMessage {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading from the conn: %v", err)
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("conn wrote %q: %v", line, err)
	}
	m.line = strings.TrimSuffix(string(line), "\n")
	return m
}

// wireMessage is any JSON-RPC message, decoded for comparison.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *acp.Error      `json:"error,omitempty"`
	line    string
}

// echo answers "echo" with its params and "fail" with its params as an
// acp.Error; anything else is not found.
var echo = acp.Methods{Requests: map[string]acp.RequestFunc{
	"echo": func(_ context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
		return params, nil
	},
	"fail": func(_ context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
		var e acp.Error
		if err := json.Unmarshal(params, &e); err != nil {
			return nil, err
		}
		return nil, &e
	},
}}

func TestConnReplies(t *testing.T) {
	tests := []struct {
		name string
		line string
		// the reply's id and error code, or result; want nothing when both
		// are empty
		wantID     string
		wantCode   int
		wantResult string
	}{
		{name: "request", line: `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`, wantID: `1`, wantResult: `{"a":1}`},
		{name: "id 0", line: `{"jsonrpc":"2.0","id":0,"method":"echo","params":[]}`, wantID: `0`, wantResult: `[]`},
		{name: "string id", line: `{"jsonrpc":"2.0","id":"perm-7","method":"echo","params":[1]}`, wantID: `"perm-7"`, wantResult: `[1]`},
		{name: "big id", line: `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"echo"}`, wantID: `123456789012345678901234567890`, wantResult: `null`},
		{name: "exponent id", line: `{"jsonrpc":"2.0","id":1e3,"method":"echo"}`, wantID: `1e3`, wantResult: `null`},
		{name: "null id", line: `{"jsonrpc":"2.0","id":null,"method":"echo"}`, wantID: `null`, wantResult: `null`},
		{name: "handler error", line: `{"jsonrpc":"2.0","id":2,"method":"fail","params":{"code":-32602,"message":"no"}}`, wantID: `2`, wantCode: acp.CodeInvalidParams},
		{name: "plain error", line: `{"jsonrpc":"2.0","id":2,"method":"fail","params":["not an error"]}`, wantID: `2`, wantCode: acp.CodeInternalError},
		{name: "unknown method", line: `{"jsonrpc":"2.0","id":3,"method":"nope"}`, wantID: `3`, wantCode: acp.CodeMethodNotFound},
		{name: "not json", line: `{"jsonrpc":"2.0","id":4,`, wantID: `null`, wantCode: acp.CodeParseError},
		{name: "not utf-8", line: "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"echo\",\"params\":[\"\xff\"]}", wantID: `null`, wantCode: acp.CodeParseError},
		{name: "array", line: `[{"jsonrpc":"2.0","id":5,"method":"echo"}]`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "string", line: `"hello"`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "number", line: `42`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "no jsonrpc", line: `{"id":6,"method":"echo"}`, wantID: `6`, wantCode: acp.CodeInvalidRequest},
		{name: "wrong jsonrpc", line: `{"jsonrpc":"1.0","id":6,"method":"echo"}`, wantID: `6`, wantCode: acp.CodeInvalidRequest},
		{name: "method not a string", line: `{"jsonrpc":"2.0","id":7,"method":7}`, wantID: `7`, wantCode: acp.CodeInvalidRequest},
		{name: "object id", line: `{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "bool id", line: `{"jsonrpc":"2.0","id":true,"method":"echo"}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "params a number", line: `{"jsonrpc":"2.0","id":8,"method":"echo","params":5}`, wantID: `8`, wantCode: acp.CodeInvalidRequest},
		{name: "result and error", line: `{"jsonrpc":"2.0","id":9,"result":1,"error":{"code":1,"message":"x"}}`, wantID: `9`, wantCode: acp.CodeInvalidRequest},
		{name: "neither method nor id", line: `{"jsonrpc":"2.0","params":{}}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "oversized", line: `{"jsonrpc":"2.0","id":10,"method":"echo","params":"` + strings.Repeat("x", 300) + `"}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "unknown notification", line: `{"jsonrpc":"2.0","method":"nope","params":{}}`},
		{name: "stray response", line: `{"jsonrpc":"2.0","id":77,"result":{}}`},
		{name: "stray error response", line: `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"x"}}`},
		{name: "cancel of nothing", line: `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":12}}`},
		{name: "blank", line: "  \t"},
	}
	synctest.Test(t, func(t *testing.T) {
		p := newRawPeer(t, echo, &acp.ConnOptions{MaxLineLength: 256})
		for _, tt := range tests {
			p.send(tt.line)
			if tt.wantID == "" {
				continue
			}
			got := p.recv()
			want := wireMessage{JSONRPC: "2.0", ID: json.RawMessage(tt.wantID)}
			if tt.wantCode != 0 {
				want.Error = &acp.Error{Code: tt.wantCode}
			} else {
				want.Result = json.RawMessage(tt.wantResult)
			}
			if got.Error != nil {
				got.Error = &acp.Error{Code: got.Error.Code} // messages are free text
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(wireMessage{}), ignoreLine); diff != "" {
				t.Errorf("%s: reply to %q (-want +got):\n%s\nline: %s", tt.name, tt.line, diff, got.line)
			}
		}
		// Nothing was written for the lines that need no reply: the next
		// line out answers this request.
		p.send(`{"jsonrpc":"2.0","id":"last","method":"echo"}`)
		if got := p.recv(); string(got.ID) != `"last"` {
			t.Errorf("got %s, want the reply to the last request", got.line)
		}
		p.in.Close()
		if err := p.conn.Wait(); err != nil {
			t.Errorf("Wait after end of input = %v, want nil", err)
		}
	})
}

var ignoreLine = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".line" }, cmp.Ignore())

func TestConnHandlerPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var notified atomic.Int32
		h := acp.Methods{
			Requests: map[string]acp.RequestFunc{
				"panic": func(context.Context, *acp.Conn, json.RawMessage) (any, error) { panic("boom") },
				"echo":  echo.Requests["echo"],
			},
			Notifications: map[string]acp.NotificationFunc{
				"panic": func(context.Context, *acp.Conn, json.RawMessage) { panic("boom") },
				"count": func(context.Context, *acp.Conn, json.RawMessage) { notified.Add(1) },
			},
		}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
		if got := p.recv(); got.Error == nil || got.Error.Code != acp.CodeInternalError || string(got.ID) != "1" {
			t.Errorf("reply to a panicking handler: %s, want error %d", got.line, acp.CodeInternalError)
		}
		p.send(`{"jsonrpc":"2.0","method":"panic"}`)
		p.send(`{"jsonrpc":"2.0","method":"count"}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`)
		if got := p.recv(); string(got.Result) != "{}" {
			t.Errorf("reply after the panics: %s, want a result", got.line)
		}
		if n := notified.Load(); n != 1 {
			t.Errorf("%d notifications after the panicking one, want 1", n)
		}
	})
}

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

// TestConnPeerCloses ends one side while the other has a request in flight
// and a handler running.
func TestConnPeerCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		handlerDone := make(chan error, 1)
		agentH := acp.Methods{Requests: map[string]acp.RequestFunc{
			"wait": func(ctx context.Context, _ *acp.Conn, _ json.RawMessage) (any, error) {
				close(started)
				<-ctx.Done()
				handlerDone <- context.Cause(ctx)
				return nil, ctx.Err()
			},
		}}
		client, agent, closePair := acptest.NewPair(t.Context(), nil, agentH, nil)
		errc := make(chan error, 1)
		go func() {
			_, err := client.Request(t.Context(), "wait", nil)
			errc <- err
		}()
		<-started
		client.Close()
		if err := <-errc; !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Request in flight at Close = %v, want ErrClosed", err)
		}
		if cause := <-handlerDone; !errors.Is(cause, acp.ErrClosed) {
			t.Errorf("agent handler's context cause = %v, want ErrClosed", cause)
		}
		if err := agent.Wait(); err != nil {
			t.Errorf("agent Wait = %v, want nil (its input ended)", err)
		}
		if err := client.Wait(); err != nil {
			t.Errorf("client Wait = %v, want nil after Close", err)
		}
		if _, err := client.Request(t.Context(), "wait", nil); !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Request after Close = %v, want ErrClosed", err)
		}
		if err := agent.Notify(t.Context(), "x", nil); !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Notify after the end = %v, want ErrClosed", err)
		}
		if err := closePair(); err != nil {
			t.Errorf("closePair = %v", err)
		}
	})
}

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

func TestConnWaitCause(t *testing.T) {
	boom := errors.New("boom")
	t.Run("read error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			conn := acp.NewConn(t.Context(), io.MultiReader(strings.NewReader("{}\n"), errReader{boom}), io.Discard, nil, nil)
			if err := conn.Wait(); !errors.Is(err, boom) {
				t.Errorf("Wait = %v, want %v", err, boom)
			}
		})
	})
	t.Run("write error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			inR, inW := io.Pipe()
			conn := acp.NewConn(t.Context(), inR, errWriter{boom}, nil, nil)
			io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"x"}`+"\n")
			if err := conn.Wait(); !errors.Is(err, boom) {
				t.Errorf("Wait = %v, want %v", err, boom)
			}
			if _, err := conn.Request(t.Context(), "x", nil); !errors.Is(err, acp.ErrClosed) || !errors.Is(err, boom) {
				t.Errorf("Request after a write error = %v, want ErrClosed wrapping %v", err, boom)
			}
		})
	})
	t.Run("context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			inR, _ := io.Pipe()
			conn := acp.NewConn(ctx, inR, io.Discard, nil, nil)
			cancel(boom)
			if err := conn.Wait(); !errors.Is(err, boom) {
				t.Errorf("Wait = %v, want %v", err, boom)
			}
		})
	})
	t.Run("end of input", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			conn := acp.NewConn(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","method":"x"}`), io.Discard, nil, nil)
			if err := conn.Wait(); err != nil {
				t.Errorf("Wait = %v, want nil", err)
			}
		})
	})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// TestConnRequestErrors checks what Request returns for the peer's errors.
func TestConnRequestErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _, closePair := acptest.NewPair(t.Context(), nil, echo, nil)
		defer closePair()
		res, err := client.Request(t.Context(), "echo", map[string]any{"x": []int{1, 2}})
		if err != nil || string(res) != `{"x":[1,2]}` {
			t.Errorf("echo = %s, %v", res, err)
		}
		_, err = client.Request(t.Context(), "fail", acp.Error{Code: acp.CodeResourceNotFound, Message: "gone", Data: json.RawMessage(`{"sessionId":"s1"}`)})
		want := &acp.Error{Code: acp.CodeResourceNotFound, Message: "gone", Data: json.RawMessage(`{"sessionId":"s1"}`)}
		var got *acp.Error
		if !errors.As(err, &got) {
			t.Fatalf("Request = %v, want an *acp.Error", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
		if _, err := client.Request(t.Context(), "echo", func() {}); err == nil {
			t.Error("Request with unencodable params succeeded")
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

func TestConnDuplicateID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"wait": func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				<-release
				return "ok", nil
			},
		}}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		// Two responses with id 1, as the Conn's doc says: the error now,
		// the first request's result when it is done.
		want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid request: id 1 is already in use"}}`
		if got := p.recv(); got.line != want {
			t.Errorf("reply to a duplicate id: %s, want %s", got.line, want)
		}
		close(release)
		if got := p.recv(); got.line != `{"jsonrpc":"2.0","id":1,"result":"ok"}` {
			t.Errorf("reply to the first request: %s", got.line)
		}
	})
}

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

// TestConnLogger checks that diagnostics reach the Logger given.
func TestConnLogger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"panic": func(context.Context, *acp.Conn, json.RawMessage) (any, error) { panic("boom") },
		}}
		input := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"panic"}`,
			strings.Repeat("x", 100),
			`{"jsonrpc":"2.0","id":99,"result":null}`,
			`not json`,
		}, "\n")
		conn := acp.NewConn(t.Context(), strings.NewReader(input), io.Discard, h, &acp.ConnOptions{MaxLineLength: 50, Logger: log})
		if err := conn.Wait(); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"handler panicked", "line too long", "response to no pending request", "invalid message"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, buf.String())
			}
		}
	})
}

// FuzzConn feeds arbitrary input to a Conn: it must end cleanly at the end
// of input, and write only well-formed responses, never more than one per
// line read.
func FuzzConn(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`))
	f.Add([]byte("{\n[1]\n\"x\"\n" + `{"jsonrpc":"2.0","id":2,"method":"fail","params":{"code":1,"message":"m","data":[1]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}` + "\r\n\r\n" + strings.Repeat("y", 200)))
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		conn := acp.NewConn(t.Context(), bytes.NewReader(input), &out, echo, &acp.ConnOptions{MaxLineLength: 128})
		if err := conn.Wait(); err != nil {
			t.Fatalf("Wait = %v", err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if out.Len() == 0 {
			lines = nil
		}
		if n := bytes.Count(input, []byte("\n")) + 1; len(lines) > n {
			t.Fatalf("%d replies to %d lines", len(lines), n)
		}
		for _, line := range lines {
			var m wireMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("wrote %q: %v", line, err)
			}
			if m.JSONRPC != "2.0" || len(m.ID) == 0 || (m.Error == nil) == (m.Result == nil) {
				t.Fatalf("wrote %q, want a response", line)
			}
		}
	})
}

// blockingReader's Read waits for release, as a read of a terminal or of a
// pipe in blocking mode does, and Close does not interrupt it.
type blockingReader struct{ release chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.release
	return 0, io.EOF
}

func (r blockingReader) Close() error { return nil }

// TestConnWaitsForRead checks Wait's contract with a reader whose Close
// does not interrupt its Read: Wait returns when the Read does.
func TestConnWaitsForRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		ctx, cancel := context.WithCancelCause(t.Context())
		r := blockingReader{release: make(chan struct{})}
		conn := acp.NewConn(ctx, r, io.Discard, nil, nil)
		waited := make(chan error, 1)
		go func() { waited <- conn.Wait() }()
		cancel(boom)
		<-conn.Done()
		synctest.Wait()
		select {
		case err := <-waited:
			t.Fatalf("Wait returned %v during a Read", err)
		default:
		}
		close(r.release)
		if err := <-waited; !errors.Is(err, boom) {
			t.Errorf("Wait = %v, want %v", err, boom)
		}
	})
}

// TestConnInvalidResponse checks that a broken response to a pending
// request fails that request at once and draws no reply, while a broken
// request that happens to use the same id is answered as usual.
func TestConnInvalidResponse(t *testing.T) {
	tests := []struct {
		name string
		line string // %s is the pending request's id
	}{
		{"result and error", `{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":-32603,"message":"x"}}`},
		{"neither", `{"jsonrpc":"2.0","id":%s}`},
		{"error not an object", `{"jsonrpc":"2.0","id":%s,"error":"boom"}`},
		{"no jsonrpc", `{"id":%s,"result":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newRawPeer(t, echo, nil)
				errc := make(chan error, 1)
				go func() {
					_, err := p.conn.Request(t.Context(), "ask", nil)
					errc <- err
				}()
				req := p.recv()
				p.send(fmt.Sprintf(tt.line, req.ID))
				if err := <-errc; !errors.Is(err, acp.ErrInvalidResponse) {
					t.Errorf("Request answered with %s = %v, want ErrInvalidResponse", tt.line, err)
				}
				// No reply to the broken response: the next line out
				// answers this request.
				p.send(`{"jsonrpc":"2.0","id":"next","method":"echo"}`)
				if got := p.recv(); string(got.ID) != `"next"` {
					t.Errorf("got %s, want the reply to the next request", got.line)
				}
			})
		})
	}
	t.Run("broken request with a pending id", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := newRawPeer(t, echo, nil)
			type result struct {
				res json.RawMessage
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := p.conn.Request(t.Context(), "ask", nil)
				done <- result{res, err}
			}()
			req := p.recv()
			p.send(`{"jsonrpc":"1.0","id":` + string(req.ID) + `,"method":"echo"}`)
			if got := p.recv(); got.Error == nil || got.Error.Code != acp.CodeInvalidRequest || string(got.ID) != string(req.ID) {
				t.Errorf("reply %s, want error %d with id %s", got.line, acp.CodeInvalidRequest, req.ID)
			}
			p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":"fine"}`)
			if got := <-done; got.err != nil || string(got.res) != `"fine"` {
				t.Errorf("Request = %s, %v; want the valid response that followed", got.res, got.err)
			}
		})
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

// panicJSON panics when encoded.
type panicJSON struct{}

func (panicJSON) MarshalJSON() ([]byte, error) { panic("boom") }

// TestConnResultPanics checks that a result whose encoding panics is
// answered like a panicking handler.
func TestConnResultPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"bad":  func(context.Context, *acp.Conn, json.RawMessage) (any, error) { return panicJSON{}, nil },
			"echo": echo.Requests["echo"],
		}}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"bad"}`)
		if got := p.recv(); got.Error == nil || got.Error.Code != acp.CodeInternalError || string(got.ID) != "1" {
			t.Errorf("reply %s, want error %d", got.line, acp.CodeInternalError)
		}
		p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":[]}`)
		if got := p.recv(); string(got.Result) != "[]" {
			t.Errorf("reply after the panic: %s, want a result", got.line)
		}
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

// slowCloser is a reader whose Read and Close each wait for their own
// release.
type slowCloser struct {
	blockingReader
	closing chan struct{} // closed when Close is called
	release chan struct{} // Close returns when it is closed
}

func (r slowCloser) Close() error {
	close(r.closing)
	<-r.release
	return nil
}

// TestConnWaitsForContextClose checks that Wait does not return while the
// Conn, because its context ended, is still closing the reader.
func TestConnWaitsForContextClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		r := slowCloser{blockingReader{make(chan struct{})}, make(chan struct{}), make(chan struct{})}
		conn := acp.NewConn(ctx, r, io.Discard, nil, nil)
		waited := make(chan error, 1)
		go func() { waited <- conn.Wait() }()
		cancel()
		<-r.closing
		close(r.blockingReader.release) // the Read returns; Close has not
		synctest.Wait()
		select {
		case err := <-waited:
			t.Fatalf("Wait returned %v while the reader was being closed", err)
		default:
		}
		close(r.release)
		if err := <-waited; !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want context.Canceled", err)
		}
	})
}

// labelled counts the goroutines whose pprof labels include conn=value.
func labelled(t *testing.T, value string) int {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	// debug=1 groups goroutines with one stack and one label set into a
	// block with a line "N @ addresses" and a line "# labels: {…}"; the
	// first block also holds the profile's header.
	n := 0
	for block := range strings.SplitSeq(buf.String(), "\n\n") {
		if !strings.Contains(block, `"conn":"`+value+`"`) {
			continue
		}
		count := -1
		for line := range strings.Lines(block) {
			if before, _, ok := strings.Cut(line, " @ "); ok {
				var err error
				if count, err = strconv.Atoi(before); err != nil {
					t.Fatalf("goroutine profile line %q: %v", line, err)
				}
				break
			}
		}
		if count < 0 {
			t.Fatalf("goroutine profile block without a count: %q", block)
		}
		n += count
	}
	return n
}

// TestConnLeavesNoGoroutine checks that no goroutine of a Conn is left once
// Wait has returned, with requests in flight both ways and handlers running
// when the connection is closed. Every goroutine the Conns start inherits a
// pprof label from the test goroutine, so the goroutine profile shows which
// are still there.
func TestConnLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const label = "TestConnLeavesNoGoroutine"
		pprof.SetGoroutineLabels(pprof.WithLabels(t.Context(), pprof.Labels("conn", label)))
		started := make(chan struct{}, 2)
		h := acp.Methods{
			Requests: map[string]acp.RequestFunc{
				"wait": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
					started <- struct{}{}
					<-ctx.Done()
					return nil, ctx.Err()
				},
			},
			Notifications: map[string]acp.NotificationFunc{"n": func(context.Context, *acp.Conn, json.RawMessage) {}},
		}
		client, agent, closePair := acptest.NewPair(t.Context(), h, h, nil)
		errs := make(chan error, 2)
		for _, c := range []*acp.Conn{client, agent} {
			go func() {
				_, err := c.Request(t.Context(), "wait", nil)
				errs <- err
			}()
			if err := c.Notify(t.Context(), "n", nil); err != nil {
				t.Fatal(err)
			}
		}
		pprof.SetGoroutineLabels(context.Background()) // the test goroutine is not counted
		<-started
		<-started
		synctest.Wait()
		// Two Request callers, and per Conn a reader, a writer and a handler.
		if n := labelled(t, label); n != 8 {
			t.Fatalf("%d labelled goroutines while running, want 8", n)
		}

		if err := closePair(); err != nil {
			t.Errorf("closePair = %v", err)
		}
		for range 2 {
			if err := <-errs; !errors.Is(err, acp.ErrClosed) {
				t.Errorf("Request in flight at Close = %v, want ErrClosed", err)
			}
		}
		// Goroutines that have returned from Wait or closed a channel may
		// still be on their way out: let everything that can run, run.
		synctest.Wait()
		if n := labelled(t, label); n != 0 {
			t.Errorf("%d goroutines left after Wait returned", n)
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
