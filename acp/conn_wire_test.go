package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

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
		{name: "oversized", line: `{"jsonrpc":"2.0","id":10,"method":"echo","params":"` + strings.Repeat("x", 300) + `"}`, wantID: `10`, wantCode: acp.CodeInvalidRequest},
		{name: "oversized, id last", line: `{"jsonrpc":"2.0","method":"echo","params":"` + strings.Repeat("x", 300) + `","id":11}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "oversized, object id", line: `{"jsonrpc":"2.0","id":{},"method":"echo","params":"` + strings.Repeat("x", 300) + `"}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
		{name: "oversized notification", line: `{"jsonrpc":"2.0","method":"echo","params":"` + strings.Repeat("x", 300) + `"}`, wantID: `null`, wantCode: acp.CodeInvalidRequest},
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
		var err error
		testwait.Do(t, "the Conn to end at its input's end", func() { err = conn.Wait() })
		if err != nil {
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

// TestConnRefusesUnsendable checks that Request and Notify refuse, before
// writing anything, params that a peer could not accept.
func TestConnRefusesUnsendable(t *testing.T) {
	tests := []struct {
		name   string
		params any
		want   error
	}{
		{"number", 5, acp.ErrParamsNotStructured},
		{"string", "s", acp.ErrParamsNotStructured},
		{"boolean", true, acp.ErrParamsNotStructured},
		{"raw string", json.RawMessage(`"s"`), acp.ErrParamsNotStructured},
		{"invalid UTF-8", json.RawMessage("[\"\xff\"]"), acp.ErrNotJSON},
		{"invalid UTF-8 from MarshalJSON", []any{badUTF8{}}, acp.ErrNotJSON},
		{"invalid raw JSON", json.RawMessage(`{`), acp.ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noGoroutineLeft(t)
				var seen []string
				h := acp.Methods{
					Notifications: map[string]acp.NotificationFunc{
						"n": func(_ context.Context, _ *acp.Conn, params json.RawMessage) { seen = append(seen, string(params)) },
					},
					Requests: map[string]acp.RequestFunc{"echo": echo.Requests["echo"]},
				}
				client, _, closePair := acptest.NewPair(t.Context(), nil, h, nil)
				defer closePair()
				if err := client.Notify(t.Context(), "n", tt.params); !errors.Is(err, tt.want) {
					t.Errorf("Notify = %v, want %v", err, tt.want)
				}
				if _, err := client.Request(t.Context(), "r", tt.params); !errors.Is(err, tt.want) {
					t.Errorf("Request = %v, want %v", err, tt.want)
				}
				// A valid notification after them is the first the peer
				// sees; it has handled it once it answers the next request.
				if err := client.Notify(t.Context(), "n", []int{1}); err != nil {
					t.Fatal(err)
				}
				if _, err := client.Request(t.Context(), "echo", []int{2}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"[1]"}, seen); diff != "" {
					t.Errorf("notifications received (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestConnBoundsEchoes checks that an error message quotes at most a
// bounded part of what the peer sent.
func TestConnBoundsEchoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		p := newRawPeer(t, nil, nil)
		long := strings.Repeat("é", 1<<19) // 1 MiB of method name
		p.send(`{"jsonrpc":"2.0","id":1,"method":"` + long + `"}`)
		got := p.recv()
		if got.Error == nil || got.Error.Code != acp.CodeMethodNotFound {
			t.Fatalf("reply %.200s, want method not found", got.line)
		}
		if len(got.line) > 300 {
			t.Errorf("reply of %d bytes to an unknown method of %d bytes", len(got.line), len(long))
		}
		if want := "Method not found: " + strings.Repeat("é", 64) + "…"; got.Error.Message != want {
			t.Errorf("message %q, want %q", got.Error.Message, want)
		}
	})
}

// TestConnResponseTooLong checks what becomes of a line longer than the
// requester's limit: a response whose id comes first fails its request, a
// request is answered -32600 with its id, and the Conn goes on.
func TestConnResponseTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		p := newRawPeer(t, nil, &acp.ConnOptions{MaxLineLength: 1000})
		big := strings.Repeat("x", 2000)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		type result struct {
			raw json.RawMessage
			err error
		}
		call := func() <-chan result {
			c := make(chan result, 1)
			go func() {
				raw, err := p.conn.Request(ctx, "big", nil)
				c <- result{raw, err}
			}()
			return c
		}
		first := call()
		if got := p.recv(); string(got.ID) != "0" {
			t.Fatalf("request %s, want id 0", got.line)
		}
		p.send(`{"jsonrpc":"2.0","id":0,"result":"` + big + `"}`)
		r := <-first
		var tooLong *acp.LineTooLongError
		if !errors.As(r.err, &tooLong) || !errors.Is(r.err, acp.ErrLineTooLong) || tooLong.Length != int64(2000+len(`{"jsonrpc":"2.0","id":0,"result":""}`)) {
			t.Errorf("Request = %s, %v; want a LineTooLongError", r.raw, r.err)
		}

		// An error response too, with the id after other members.
		second := call()
		p.recv()
		p.send(`{"jsonrpc":"2.0", "x":[1,{"y":null}] , "id" : 1 ,"error":{"code":1,"message":"` + big + `"}}`)
		if r := <-second; !errors.Is(r.err, acp.ErrLineTooLong) {
			t.Errorf("Request = %s, %v; want ErrLineTooLong", r.raw, r.err)
		}

		// A request too long to read is answered with its id, read from
		// its first bytes.
		p.send(`{"jsonrpc":"2.0","id":"r9","method":"m","params":["` + big + `"]}`)
		if got := p.recv(); string(got.ID) != `"r9"` || got.Error == nil || got.Error.Code != acp.CodeInvalidRequest {
			t.Errorf("reply to a long request %s, want -32600 with its id", got.line)
		}

		// A response whose result comes before its id cannot be told from
		// the rest: its request waits for its context; the Conn goes on.
		third := call()
		p.recv()
		p.send(`{"jsonrpc":"2.0","result":"` + big + `","id":2}`)
		p.recv() // answered as an invalid request: nothing tells it apart
		fourth := call()
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":3,"result":"small"}`)
		if r := <-fourth; r.err != nil || string(r.raw) != `"small"` {
			t.Errorf("the request after = %s, %v", r.raw, r.err)
		}
		synctest.Wait()
		select {
		case r := <-third:
			t.Errorf("Request with an unrecognisable long response returned %s, %v", r.raw, r.err)
		default:
		}
		cancel()
		if r := <-third; !errors.Is(r.err, context.Canceled) {
			t.Errorf("Request = %v after its context ended, want context.Canceled", r.err)
		}
	})
}

// TestConnRequestTooLong checks that a typed call whose request is longer
// than the peer's limit gets the peer's answer, -32600, rather than
// waiting for ever: the Conn writes the id first, so the peer can read it.
func TestConnRequestTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _, closePair := acptest.NewPair(t.Context(), nil, echo, &acp.ConnOptions{MaxLineLength: 1000})
		defer closePair()
		// In the bubble the minute passes as soon as everything waits.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		_, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{
			SessionID: "s1",
			Prompt:    acp.ContentBlocks{acp.TextContent{Text: strings.Repeat("x", 2000)}},
		})
		if !errors.Is(err, acp.ErrInvalidRequest) || !strings.Contains(err.Error(), "exceeds the maximum of 1000") {
			t.Errorf("session/prompt of 2000 bytes to a peer taking 1000, waiting a minute for its answer: %v; want -32600 saying why", err)
		}
	})
}
