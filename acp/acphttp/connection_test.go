package acphttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/google/go-cmp/cmp"
)

// newConnHandler returns a handler made for one connection: it keeps
// the name the client gave at initialize, and session/new names its
// session after the connection's caller and that name, so that a client
// sees which state served it.
func newConnHandler(c *acphttp.Connection) acp.Handler {
	var mu sync.Mutex
	client := "" // clientInfo.name, from initialize
	var m acp.Methods
	acp.Initialize.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		mu.Lock()
		defer mu.Unlock()
		if client != "" {
			return acp.InitializeResult{}, errors.New("a second initialize reached this connection's handler")
		}
		client = p.ClientInfo.Name
		return acp.InitializeResult{ProtocolVersion: 1}, nil
	})
	acp.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return acp.NewSessionResult{SessionID: c.Caller.Name + "/" + client}, nil
	})
	return m
}

// connIDs records the Acp-Connection-Id of every response a client gets.
type connIDs struct {
	mu  sync.Mutex
	ids []string
}

func (c *connIDs) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		if id := resp.Header.Get(acphttp.HeaderConnectionID); id != "" {
			c.mu.Lock()
			if !slices.Contains(c.ids, id) {
				c.ids = append(c.ids, id)
			}
			c.mu.Unlock()
		}
	}
	return resp, err
}

// made records what a Server's newHandler was called with.
type made struct {
	mu    sync.Mutex
	conns []*acphttp.Connection
}

func (m *made) newHandler(c *acphttp.Connection) acp.Handler {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conns = append(m.conns, c)
	return newConnHandler(c)
}

func (m *made) all() []*acphttp.Connection {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.conns)
}

// twoEditors authenticates alice and bob, each by a token of their own.
var twoEditors = acphttp.BearerTokens(map[string]string{"tok-a": "alice", "tok-b": "bob"})

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// TestHandlerPerConnection checks that each connection gets a handler of
// its own, made once, with the Caller the Authenticator established and
// the request that opened it, and that two connections' handlers share
// no state: each client sees only its own initialize.
func TestHandlerPerConnection(t *testing.T) {
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			var m made
			srv, err := acphttp.NewServer(m.newHandler, &acphttp.ServerOptions{Authenticate: twoEditors, Clock: realClock{}})
			if err != nil {
				t.Fatal(err)
			}
			url := serveHandler(t, srv)
			ids := &connIDs{}
			type editor struct{ token, client string }
			var got []string
			for _, e := range []editor{{"tok-a", "zed"}, {"tok-b", "emacs"}, {"tok-a", "vim"}} {
				conn, err := profile.dial(t.Context(), url, nil, &acphttp.DialOptions{HTTPClient: &http.Client{Transport: ids}, Header: bearer(e.token)})
				if err != nil {
					t.Fatalf("dial: %v", err)
				}
				defer func() {
					conn.Close()
					conn.Wait()
				}()
				if _, err := acp.Initialize.Call(t.Context(), conn, acp.InitializeParams{ProtocolVersion: 1, ClientInfo: &acp.Implementation{Name: e.client}}); err != nil {
					t.Fatalf("initialize: %v", err)
				}
				ns, err := acp.SessionNew.Call(t.Context(), conn, acp.NewSessionParams{Cwd: "/"})
				if err != nil {
					t.Fatalf("session/new: %v", err)
				}
				got = append(got, ns.SessionID)
			}
			if diff := cmp.Diff([]string{"alice/zed", "bob/emacs", "alice/vim"}, got); diff != "" {
				t.Errorf("the sessions each connection's handler named (-want +got):\n%s", diff)
			}
			conns := m.all()
			var callers, tokens, gotIDs []string
			for _, c := range conns {
				callers = append(callers, c.Caller.Name)
				tokens = append(tokens, c.Request.Header.Get("Authorization"))
				gotIDs = append(gotIDs, c.ID)
				if want := []string{http.MethodGet, http.MethodPost}[p]; c.Request.Method != want {
					t.Errorf("the request that opened a connection: %s, want %s", c.Request.Method, want)
				}
			}
			if diff := cmp.Diff([]string{"alice", "bob", "alice"}, callers); diff != "" {
				t.Errorf("newHandler's callers, once per connection (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"Bearer tok-a", "Bearer tok-b", "Bearer tok-a"}, tokens); diff != "" {
				t.Errorf("the requests that opened the connections (-want +got):\n%s", diff)
			}
			ids.mu.Lock()
			defer ids.mu.Unlock()
			if diff := cmp.Diff(ids.ids, gotIDs); diff != "" {
				t.Errorf("Connection.ID, against the ids the clients got (-client +server):\n%s", diff)
			}
		})
	}
}

// TestHandlerRefused checks that a nil handler refuses the connection
// with 403, and a panic in newHandler with 500, over both profiles, and
// that neither holds a place: with MaxConnections 1, a connection opens
// after them, and Shutdown does not wait for them.
func TestHandlerRefused(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, err := acphttp.NewServer(func(c *acphttp.Connection) acp.Handler {
					switch c.Caller.Name {
					case "bob":
						return nil
					case "carol":
						panic("no handler for carol")
					}
					return newTestAgent().methods()
				}, &acphttp.ServerOptions{
					Authenticate:   acphttp.BearerTokens(map[string]string{"tok-a": "alice", "tok-b": "bob", "tok-c": "carol"}),
					Clock:          realClock{},
					MaxConnections: 1,
				})
				if err != nil {
					t.Fatal(err)
				}
				env := servePipe(t, srv)
				t.Cleanup(func() { srv.Close() })
				open := func(token string) (*acp.Conn, error) {
					conn, err := profile.dial(t.Context(), env.url, nil, &acphttp.DialOptions{HTTPClient: env.client, Header: bearer(token)})
					if err != nil {
						return nil, err
					}
					if _, err := acp.Initialize.Call(t.Context(), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
						conn.Close()
						conn.Wait()
						return nil, err
					}
					return conn, nil
				}
				for _, tt := range []struct {
					token  string
					status int
				}{{"tok-b", http.StatusForbidden}, {"tok-c", http.StatusInternalServerError}} {
					_, err := open(tt.token)
					var se *acphttp.StatusError
					if !errors.As(err, &se) || se.StatusCode != tt.status {
						t.Errorf("%s: %v, want a %d", tt.token, err, tt.status)
					}
					if tt.status == http.StatusForbidden && !errors.Is(err, acphttp.ErrForbidden) {
						t.Errorf("%s: %v does not match ErrForbidden", tt.token, err)
					}
				}
				conn, err := open("tok-a")
				if err != nil {
					t.Fatalf("alice, after the refusals, with MaxConnections 1: %v", err)
				}
				conn.Close()
				conn.Wait()
				// In the bubble, a Shutdown that waited for a refused
				// connection would deadlock, and the test say so.
				if err := srv.Shutdown(t.Context()); err != nil {
					t.Errorf("Shutdown: %v", err)
				}
			})
		})
	}
}

// TestHandlerDropped checks that a connection's handler goes with the
// connection: the connection ends when its client goes, the handler's
// Conn tells it so, the Server forgets it (with MaxConnections 1, the
// next connection opens), and nothing of it outlives the test's bubble.
func TestHandlerDropped(t *testing.T) {
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ended := make(chan string, 10)
				var made int
				var mu sync.Mutex
				newHandler := func(c *acphttp.Connection) acp.Handler {
					mu.Lock()
					made++
					mu.Unlock()
					var m acp.Methods
					acp.Initialize.Handle(&m, func(_ context.Context, conn *acp.Conn, _ acp.InitializeParams) (acp.InitializeResult, error) {
						go func() {
							<-conn.Done()
							ended <- c.ID
						}()
						return acp.InitializeResult{ProtocolVersion: 1}, nil
					})
					return m
				}
				srv, err := acphttp.NewServer(newHandler, &acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: realClock{}, MaxConnections: 1})
				if err != nil {
					t.Fatal(err)
				}
				env := servePipe(t, srv)
				t.Cleanup(func() { srv.Close() })
				for i := range 3 {
					conn := env.dial(t, p, nil)
					mu.Lock()
					if made != i+1 {
						t.Errorf("connection %d: newHandler called %d times", i+1, made)
					}
					mu.Unlock()
					conn.Close()
					conn.Wait()
					synctest.Wait()
					select {
					case <-ended:
					default:
						t.Fatalf("connection %d: its client closed it, and its handler's Conn has not ended", i+1)
					}
				}
			})
		})
	}
}

// TestBearerTokens checks who each Authorization header makes the caller
// of BearerTokens and BearerToken, and which they refuse.
func TestBearerTokens(t *testing.T) {
	named := acphttp.BearerTokens(map[string]string{"tok-a": "alice", "tok-b": "bob", "": "nobody"})
	single := acphttp.BearerToken("s3cret")
	tests := []struct {
		name   string
		auth   acphttp.Authenticator
		header string // Authorization; "" for none
		want   string // the caller's Name, or "refused"
	}{
		{"alice", named, "Bearer tok-a", "alice"},
		{"bob", named, "Bearer tok-b", "bob"},
		{"unknown token", named, "Bearer tok-c", "refused"},
		{"a token's prefix", named, "Bearer tok", "refused"},
		{"the empty token", named, "Bearer ", "refused"},
		{"no scheme", named, "tok-a", "refused"},
		{"another scheme", named, "Basic tok-a", "refused"},
		{"no header", named, "", "refused"},
		{"one token", single, "Bearer s3cret", ""},
		{"one token, wrong", single, "Bearer s3cre", "refused"},
		{"an empty token admits nothing", acphttp.BearerToken(""), "Bearer ", "refused"},
		{"no tokens", acphttp.BearerTokens(nil), "Bearer x", "refused"},
		{"anyone", acphttp.NoAuthentication, "", ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodPost, "/acp", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		c, err := tt.auth(r)
		got := c.Name
		if err != nil {
			got = "refused"
			if !errors.Is(err, acphttp.ErrUnauthorized) {
				t.Errorf("%s: %v, not ErrUnauthorized", tt.name, err)
			}
		}
		if got != tt.want {
			t.Errorf("%s: caller %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAnotherCallersConnection checks that a connection answers only the
// caller that opened it: another, though its token is valid, gets 404 for
// every request naming the connection, as for an unknown one, and the
// connection goes on for its own caller. A WebSocket's connection is its
// socket, so the same requests naming it are refused alike.
func TestAnotherCallersConnection(t *testing.T) {
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return newTestAgent().methods() },
				&acphttp.ServerOptions{Authenticate: twoEditors, Clock: realClock{}, MaxMessageBytes: 1000})
			if err != nil {
				t.Fatal(err)
			}
			url := serveHandler(t, srv)
			ids := &connIDs{}
			alice, err := profile.dial(t.Context(), url, nil, &acphttp.DialOptions{HTTPClient: &http.Client{Transport: ids}, Header: bearer("tok-a")})
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			defer func() {
				alice.Close()
				alice.Wait()
			}()
			if _, err := acp.Initialize.Call(t.Context(), alice, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			ns, err := acp.SessionNew.Call(t.Context(), alice, acp.NewSessionParams{Cwd: "/"})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			ids.mu.Lock()
			id := ids.ids[0]
			ids.mu.Unlock()

			c := rawClient{t, url}
			for _, req := range []struct {
				what, method, body string
				header             []string
			}{
				{"a session/new", http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, nil},
				{"a prompt in alice's session", http.MethodPost, `{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"` + ns.SessionID + `","prompt":[]}}`, []string{acphttp.HeaderSessionID, ns.SessionID}},
				{"a notification", http.MethodPost, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + ns.SessionID + `"}}`, []string{acphttp.HeaderSessionID, ns.SessionID}},
				{"a response too large", http.MethodPost, `{"jsonrpc":"2.0","id":0,"result":"` + strings.Repeat("x", 2000) + `"}`, nil},
				{"the connection's stream", http.MethodGet, "", []string{"Accept", "text/event-stream"}},
				{"a session's stream", http.MethodGet, "", []string{"Accept", "text/event-stream", acphttp.HeaderSessionID, ns.SessionID}},
				{"a DELETE", http.MethodDelete, "", nil},
			} {
				h := append([]string{"Authorization", "Bearer tok-b", acphttp.HeaderConnectionID, id}, req.header...)
				if r := c.do(req.method, req.body, h...); r.status != http.StatusNotFound || !strings.Contains(r.body, "unknown "+acphttp.HeaderConnectionID) {
					t.Errorf("bob's %s on alice's connection: %d %q, want 404 as for an unknown connection", req.what, r.status, r.body)
				}
			}
			if r, err := prompt(t.Context(), alice, ns.SessionID, "still mine"); err != nil || r.StopReason != acp.StopReasonEndTurn {
				t.Errorf("alice's prompt after bob's tries: %v %v", r, err)
			}
			if p == 1 {
				// The control: alice's own request naming the connection.
				if r := c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"`+ns.SessionID+`"}}`,
					"Authorization", "Bearer tok-a", acphttp.HeaderConnectionID, id, acphttp.HeaderSessionID, ns.SessionID); r.status != http.StatusAccepted {
					t.Errorf("alice's notification on her connection: %d %q", r.status, r.body)
				}
			}
		})
	}
}
