package acphttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/coder/websocket"
)

// TestShutdown checks that a server shutdown answers a prompt in
// progress "cancelled", then ends the connection cleanly.
func TestShutdown(t *testing.T) {
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newTestAgent()
				env := newPipeEnv(t, agent.methods(), acphttp.ServerOptions{})
				conn := env.dial(t, p, newTestClient().methods())
				ns, err := acp.SessionNew.Call(t.Context(), conn, acp.NewSessionParams{Cwd: "/"})
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan acp.PromptResult)
				go func() {
					r, err := prompt(t.Context(), conn, ns.SessionID, "hang")
					if err != nil {
						t.Errorf("prompt: %v", err)
					}
					done <- r
				}()
				<-agent.started
				if err := env.srv.Shutdown(t.Context()); err != nil {
					t.Errorf("Shutdown: %v", err)
				}
				if r := <-done; r.StopReason != acp.StopReasonCancelled {
					t.Errorf("prompt: %v, want cancelled", r.StopReason)
				}
				if err := conn.Wait(); err != nil {
					t.Errorf("the client's Wait: %v", err)
				}
				if !errors.Is(agent.cancels[0], acp.ErrClosed) {
					t.Errorf("the prompt's cause: %v", agent.cancels[0])
				}
			})
		})
	}
}

// TestDepartureWebSocket checks that a client that vanishes mid-turn
// cancels the turn.
func TestDepartureWebSocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := newTestAgent()
		env := newPipeEnv(t, agent.methods(), acphttp.ServerOptions{})
		ws, _, err := websocket.Dial(t.Context(), env.url, &websocket.DialOptions{HTTPClient: env.client})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`,
		} {
			ws.Write(t.Context(), websocket.MessageText, []byte(m))
			ws.Read(t.Context())
		}
		ws.Write(t.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hang"}]}}`))
		go func() {
			for {
				if _, _, err := ws.Read(context.Background()); err != nil {
					return
				}
			}
		}()
		<-agent.started
		ws.CloseNow() // no close frame: the client is simply gone
		synctest.Wait()
		if len(agent.cancels) != 1 || !errors.Is(agent.cancels[0], acp.ErrClosed) {
			t.Errorf("the prompt's end: %v", agent.cancels)
		}
	})
}

// TestIdleStreamable checks that a Streamable HTTP connection with no
// stream open and nothing in progress ends after IdleTimeout, cancelling
// its turn, and that one with its stream open does not.
func TestIdleStreamable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := newTestAgent()
		env := newPipeEnv(t, agent.methods(), acphttp.ServerOptions{IdleTimeout: time.Minute})
		client := newTestClient()
		present := env.dial(t, 1, client.methods())
		c := rawClient{t, env.url}
		c.t = t
		gone := rawInit(t, env)
		post := func(id, body string, header ...string) int {
			req, _ := http.NewRequest(http.MethodPost, env.url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(acphttp.HeaderConnectionID, id)
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			resp, err := env.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		post(gone, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
		synctest.Wait()
		post(gone, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hang"}]}}`, acphttp.HeaderSessionID, "sess-1")
		<-agent.started
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if status := post(gone, `{"jsonrpc":"2.0","method":"x"}`); status != http.StatusNotFound {
			t.Errorf("POST to an idle connection: %d, want 404", status)
		}
		if len(agent.cancels) != 1 || !errors.Is(agent.cancels[0], acp.ErrClosed) {
			t.Errorf("the idle connection's prompt: %v", agent.cancels)
		}
		if _, err := acp.SessionNew.Call(t.Context(), present, acp.NewSessionParams{Cwd: "/"}); err != nil {
			t.Errorf("the connection with its stream open: %v", err)
		}
	})
}

// rawInit opens a Streamable HTTP connection by hand, and no stream.
func rawInit(t *testing.T, env *pipeEnv) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, env.url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := env.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get(acphttp.HeaderConnectionID)
}

// TestIdleWebSocket checks that a WebSocket whose client answers nothing,
// not even pings, closes after IdleTimeout (1008), and that a client
// that answers pings stays.
func TestIdleWebSocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newPipeEnv(t, newTestAgent().methods(), acphttp.ServerOptions{IdleTimeout: time.Minute})
		present := env.dial(t, 0, nil)
		ws, _, err := websocket.Dial(t.Context(), env.url, &websocket.DialOptions{HTTPClient: env.client})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		ws.Write(t.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`))
		ws.Read(t.Context())
		// Nobody reads ws now: its pings go unanswered.
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		// An in-memory pipe holds no close frame for a client that does
		// not read, as a socket would: the close may come without one.
		_, _, err = ws.Read(t.Context())
		if code := websocket.CloseStatus(err); err == nil || code != websocket.StatusPolicyViolation && code != -1 {
			t.Errorf("a silent client: %v, want close 1008", err)
		}
		if _, err := acp.SessionNew.Call(t.Context(), present, acp.NewSessionParams{Cwd: "/"}); err != nil {
			t.Errorf("a client that answers pings: %v", err)
		}
	})
}

// TestOutputStall checks that a connection whose client stops reading
// closes after MaxOutputStall, freeing the agent's handler.
func TestOutputStall(t *testing.T) {
	t.Run("websocket", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := newTestAgent()
			env := newPipeEnv(t, agent.methods(), acphttp.ServerOptions{MaxOutputStall: time.Minute, IdleTimeout: -1})
			ws, _, err := websocket.Dial(t.Context(), env.url, &websocket.DialOptions{HTTPClient: env.client})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.CloseNow()
			for _, m := range []string{
				`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
				`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`,
			} {
				ws.Write(t.Context(), websocket.MessageText, []byte(m))
				ws.Read(t.Context())
			}
			// The client asks for a thousand updates and reads none.
			ws.Write(t.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"bench 1000"}]}}`))
			time.Sleep(2 * time.Minute)
			synctest.Wait()
			if _, _, err := ws.Read(t.Context()); err == nil {
				// What the pipe held comes first; the end follows.
				for err == nil {
					_, _, err = ws.Read(t.Context())
				}
			}
			env.srv.Close() // returns only once every connection has ended
		})
	})
	t.Run("streamable", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newPipeEnv(t, newTestAgent().methods(), acphttp.ServerOptions{MaxOutputStall: time.Minute, IdleTimeout: -1, KeepAlive: -1})
			id := rawInit(t, env)
			// The connection's stream opens, and is never read.
			req, _ := http.NewRequest(http.MethodGet, env.url, nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set(acphttp.HeaderConnectionID, id)
			resp, err := env.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			post := func() int {
				req, _ := http.NewRequest(http.MethodPost, env.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(acphttp.HeaderConnectionID, id)
				resp, err := env.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if status := post(); status != http.StatusAccepted {
				t.Fatalf("session/new: %d", status)
			}
			time.Sleep(2 * time.Minute)
			synctest.Wait()
			if status := post(); status != http.StatusNotFound {
				t.Errorf("POST after the stall: %d, want 404", status)
			}
		})
	})
}

// TestStreamableEndMidPost checks that a Streamable HTTP connection the
// server ends while a POST is on its way ends cleanly: the end cancels
// the POST, which drops the message, as Close drops what is unwritten,
// and fails its request with acp.ErrClosed; the cancelled POST is no
// failure of the connection.
func TestStreamableEndMidPost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newPipeServer(t, newTestAgent().methods(), acphttp.ServerOptions{})
		env := servePipe(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if !bytes.Contains(body, []byte(`"x/stall"`)) {
				r.Body = io.NopCloser(bytes.NewReader(body))
				srv.ServeHTTP(w, r)
				return
			}
			// The server ends the connection before it answers the POST.
			del := httptest.NewRequest(http.MethodDelete, "/acp", nil)
			del.Header.Set(acphttp.HeaderConnectionID, r.Header.Get(acphttp.HeaderConnectionID))
			srv.ServeHTTP(httptest.NewRecorder(), del)
			<-r.Context().Done()
		}))
		defer srv.Close()
		conn := dial(t, 1, env.url, nil, &acphttp.DialOptions{HTTPClient: env.client})
		synctest.Wait() // the connection's stream is open
		if _, err := conn.Request(t.Context(), "x/stall", nil); !errors.Is(err, acp.ErrClosed) {
			t.Errorf("the request whose POST the end cancelled: %v, want acp.ErrClosed", err)
		}
		if err := conn.Wait(); err != nil {
			t.Errorf("Wait: %v, want nil: the server ended the connection", err)
		}
	})
}

// TestStreamableOwnConnections checks that the requests of Streamable
// HTTP connections dialled with one http.Client go over TCP connections
// of their own, all closed once Wait returns. net/http can fail a
// request on a kept-alive TCP connection with the cancellation of the
// request that used it before, and a connection cancels its requests
// as it closes: sharing, one connection's Close could end another.
func TestStreamableOwnConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newPipeServer(t, newTestAgent().methods(), acphttp.ServerOptions{})
		var mu sync.Mutex
		carried := map[string]map[string]bool{} // by TCP connection, the ACP connections
		env := servePipe(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if carried[r.RemoteAddr] == nil {
				carried[r.RemoteAddr] = map[string]bool{}
			}
			carried[r.RemoteAddr][r.Header.Get("X-Test-Conn")] = true
			mu.Unlock()
			srv.ServeHTTP(w, r)
		}))
		defer srv.Close()
		conns := map[string]*acp.Conn{}
		for _, name := range []string{"a", "b"} {
			conns[name] = dial(t, 1, env.url, nil, &acphttp.DialOptions{HTTPClient: env.client, Header: http.Header{"X-Test-Conn": {name}}})
			synctest.Wait()
		}
		// Turn about, as an editor with two connections to one agent
		// may: each request finds the other connection's last one idle.
		for range 3 {
			for _, name := range []string{"a", "b"} {
				if _, err := acp.SessionNew.Call(t.Context(), conns[name], acp.NewSessionParams{Cwd: "/"}); err != nil {
					t.Fatalf("session/new on %s: %v", name, err)
				}
				synctest.Wait()
			}
		}
		for name, conn := range conns {
			conn.Close()
			if err := conn.Wait(); err != nil {
				t.Errorf("Wait of %s: %v", name, err)
			}
		}
		synctest.Wait()
		mu.Lock()
		for addr, names := range carried {
			if len(names) > 1 {
				t.Errorf("TCP connection %s carried the requests of connections %v", addr, slices.Sorted(maps.Keys(names)))
			}
		}
		mu.Unlock()
		if open := env.l.openConns(); len(open) > 0 {
			t.Errorf("TCP connections still open once Wait returned: %v", open)
		}
	})
}
