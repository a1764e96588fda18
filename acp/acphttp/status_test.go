package acphttp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// rawClient sends Streamable HTTP requests by hand.
type rawClient struct {
	t   *testing.T
	url string
}

type rawResponse struct {
	status int
	header http.Header
	body   string
}

func (c rawClient) do(method, body string, header ...string) rawResponse {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(testwait.Context(c.t), method, c.url, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		return rawResponse{status: resp.StatusCode, header: resp.Header}
	}
	b, _ := io.ReadAll(resp.Body)
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// initialize opens a connection and returns its id.
func (c rawClient) initialize() string {
	c.t.Helper()
	r := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	if r.status != http.StatusOK {
		c.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	return r.header.Get(acphttp.HeaderConnectionID)
}

// stream opens a GET stream and returns a function that reads its next
// event's data.
func (c rawClient) stream(conn, session string) func() string {
	c.t.Helper()
	// The stream, and each read of it, ends after testwait.Limit.
	req, _ := http.NewRequestWithContext(testwait.Context(c.t), http.MethodGet, c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(acphttp.HeaderConnectionID, conn)
	if session != "" {
		req.Header.Set(acphttp.HeaderSessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET stream: %d", resp.StatusCode)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	return func() string {
		c.t.Helper()
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				c.t.Fatalf("reading the stream: %v", err)
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				return strings.TrimSuffix(data, "\n")
			}
		}
	}
}

func TestStreamableStatuses(t *testing.T) {
	agent := newTestAgent()
	_, url := serve(t, agent.methods(), &acphttp.ServerOptions{MaxMessageBytes: 1000, MaxSessions: 2})
	c := rawClient{t, url}

	a := c.initialize()
	next := c.stream(a, "")
	if r := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, acphttp.HeaderConnectionID, a); r.status != http.StatusAccepted {
		t.Fatalf("session/new: %d %s", r.status, r.body)
	}
	var ns struct {
		Result acp.NewSessionResult `json:"result"`
	}
	json.Unmarshal([]byte(next()), &ns)
	sa := ns.Result.SessionID
	b := c.initialize()
	prompt := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"` + sa + `","prompt":[]}}`

	tests := []struct {
		name   string
		method string
		body   string
		header []string
		want   int
	}{
		{"unknown method", http.MethodPut, "", nil, 405},
		{"POST not JSON", http.MethodPost, "x", []string{"Content-Type", "text/plain"}, 415},
		{"POST too large", http.MethodPost, `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("x", 1000) + `"}`, []string{acphttp.HeaderConnectionID, a}, 413},
		{"POST malformed", http.MethodPost, `{"jsonrpc":`, []string{acphttp.HeaderConnectionID, a}, 400},
		{"POST batch", http.MethodPost, `[{"jsonrpc":"2.0","method":"x"}]`, []string{acphttp.HeaderConnectionID, a}, 400},
		{"POST not an object", http.MethodPost, `7`, []string{acphttp.HeaderConnectionID, a}, 400},
		{"initialize again", http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}`, []string{acphttp.HeaderConnectionID, a}, 400},
		{"POST without a connection", http.MethodPost, `{"jsonrpc":"2.0","method":"x"}`, nil, 400},
		{"POST from another origin", http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`, []string{"Origin", "https://evil.example"}, 403},
		{"GET from another origin", http.MethodGet, "", []string{"Accept", "text/event-stream", acphttp.HeaderConnectionID, a, "Origin", "http://evil.example"}, 403},
		{"POST from the same origin", http.MethodPost, `{"jsonrpc":"2.0","method":"x"}`, []string{acphttp.HeaderConnectionID, a, "Origin", strings.TrimSuffix(url, "/acp")}, 202},
		{"POST to an unknown connection", http.MethodPost, `{"jsonrpc":"2.0","method":"x"}`, []string{acphttp.HeaderConnectionID, "nope"}, 404},
		{"session request without its header", http.MethodPost, prompt, []string{acphttp.HeaderConnectionID, a}, 400},
		{"session header not the params'", http.MethodPost, prompt, []string{acphttp.HeaderConnectionID, a, acphttp.HeaderSessionID, "other"}, 400},
		{"another connection's session", http.MethodPost, prompt, []string{acphttp.HeaderConnectionID, b, acphttp.HeaderSessionID, sa}, 409},
		{"sessionId twice", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sa + `","SessionId":"x","prompt":[]}}`, []string{acphttp.HeaderConnectionID, a, acphttp.HeaderSessionID, sa}, 400},
		{"GET not an event stream", http.MethodGet, "", []string{acphttp.HeaderConnectionID, a}, 406},
		{"GET without a connection", http.MethodGet, "", []string{"Accept", "text/event-stream"}, 400},
		{"GET an unknown connection", http.MethodGet, "", []string{"Accept", "text/event-stream", acphttp.HeaderConnectionID, "nope"}, 404},
		{"GET a stream already open", http.MethodGet, "", []string{"Accept", "text/event-stream", acphttp.HeaderConnectionID, a}, 409},
		{"DELETE without a connection", http.MethodDelete, "", nil, 400},
		{"DELETE an unknown connection", http.MethodDelete, "", []string{acphttp.HeaderConnectionID, "nope"}, 404},
		{"notification", http.MethodPost, `{"jsonrpc":"2.0","method":"x/note"}`, []string{acphttp.HeaderConnectionID, a}, 202},
		{"prompt", http.MethodPost, prompt, []string{acphttp.HeaderConnectionID, a, acphttp.HeaderSessionID, sa}, 202},
		{"a third session", http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, []string{acphttp.HeaderConnectionID, a}, 202},
		{"a fourth session", http.MethodPost, `{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, []string{acphttp.HeaderConnectionID, a}, 429},
		{"DELETE", http.MethodDelete, "", []string{acphttp.HeaderConnectionID, b}, 202},
		{"POST after DELETE", http.MethodPost, `{"jsonrpc":"2.0","method":"x"}`, []string{acphttp.HeaderConnectionID, b}, 404},
	}
	for _, tt := range tests {
		if tt.name == "a fourth session" {
			next() // the third session's response: it is held now
		}
		r := c.do(tt.method, tt.body, tt.header...)
		if r.status != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", tt.name, r.status, tt.want, strings.TrimSpace(r.body))
		}
	}
}

func TestInitializeResponse(t *testing.T) {
	_, url := serve(t, newTestAgent().methods(), &acphttp.ServerOptions{AffinityCookie: &http.Cookie{Name: "backend", Value: "b1"}})
	r := rawClient{t, url}.do(http.MethodPost, `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}`)
	id := r.header.Get(acphttp.HeaderConnectionID)
	var body struct {
		ID     string `json:"id"`
		Result struct {
			ConnectionID    string `json:"connectionId"`
			ProtocolVersion int    `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatal(err)
	}
	if r.status != 200 || id == "" || body.Result.ConnectionID != id || body.ID != "i" || body.Result.ProtocolVersion != 1 {
		t.Errorf("initialize: %d, header %q, body %s", r.status, id, r.body)
	}
	if got := r.header.Get("Set-Cookie"); got != "backend=b1" {
		t.Errorf("Set-Cookie = %q", got)
	}
}

func TestAuthentication(t *testing.T) {
	_, url := serve(t, newTestAgent().methods(), &acphttp.ServerOptions{Authenticate: acphttp.BearerToken("s3cret")})
	c := rawClient{t, url}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}} {
		if r := c.do(http.MethodPost, init, h...); r.status != 401 || r.header.Get("WWW-Authenticate") != "Bearer" || r.header.Get(acphttp.HeaderConnectionID) != "" {
			t.Errorf("POST with %q: %d %q", h, r.status, r.body)
		}
	}
	if r := c.do(http.MethodPost, init, "Authorization", "Bearer s3cret"); r.status != 200 {
		t.Errorf("POST with the token: %d %s", r.status, r.body)
	}
	for p := range profiles {
		_, err := profiles[p].dial(testwait.Context(t), url, nil, &acphttp.DialOptions{HTTPClient: http.DefaultClient})
		if p == 0 && err == nil {
			t.Errorf("%s without the token: dialled", profiles[p].name)
		}
		if p == 1 {
			conn, _ := profiles[p].dial(testwait.Context(t), url, nil, &acphttp.DialOptions{HTTPClient: http.DefaultClient})
			_, err := acp.Initialize.Call(testwait.Context(t), conn, acp.InitializeParams{ProtocolVersion: 1})
			if !errors.Is(err, acphttp.ErrUnauthorized) {
				t.Errorf("%s without the token: initialize: %v", profiles[p].name, err)
			}
			conn.Close()
			testwait.Do(t, "the connection to end", func() { conn.Wait() })
		}
		dial(t, p, url, nil, &acphttp.DialOptions{Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	}
}

func TestWebSocketFaults(t *testing.T) {
	_, url := serve(t, newTestAgent().methods(), &acphttp.ServerOptions{MaxMessageBytes: 1000})
	wsURL := "ws" + strings.TrimPrefix(url, "http")
	open := func(t *testing.T, header http.Header) (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(testwait.Context(t), wsURL, &websocket.DialOptions{HTTPHeader: header})
	}
	read := func(t *testing.T, ws *websocket.Conn) (string, error) {
		_, b, err := ws.Read(testwait.Context(t))
		return string(b), err
	}
	initialize := func(t *testing.T) *websocket.Conn {
		ws, resp, err := open(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get(acphttp.HeaderConnectionID) == "" {
			t.Errorf("101 without %s", acphttp.HeaderConnectionID)
		}
		t.Cleanup(func() { ws.CloseNow() })
		ws.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`))
		if m, err := read(t, ws); err != nil || !strings.Contains(m, `"protocolVersion":1`) {
			t.Fatalf("initialize: %s %v", m, err)
		}
		return ws
	}

	t.Run("cross-origin", func(t *testing.T) {
		_, resp, err := open(t, http.Header{"Origin": {"https://evil.example"}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-origin upgrade: %v, %v", resp, err)
		}
	})
	t.Run("first message", func(t *testing.T) {
		ws, _, err := open(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		ws.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`))
		if _, err := read(t, ws); websocket.CloseStatus(err) != websocket.StatusProtocolError {
			t.Errorf("session/new first: %v, want close 1002", err)
		}
	})
	t.Run("binary, malformed, initialize again", func(t *testing.T) {
		ws := initialize(t)
		ws.Write(testwait.Context(t), websocket.MessageBinary, []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`))
		ws.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":`))
		ws.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`))
		ws.Write(testwait.Context(t), websocket.MessageText, []byte("{\"jsonrpc\":\"2.0\",\n\"id\":3,\n\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"mcpServers\":[]}}"))
		var got []string
		for range 4 {
			m, err := read(t, ws)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m)
		}
		// The transport's answers and the Conn's may come in any order.
		slices.Sort(got)
		want := []string{
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid request: initialize on a connection already initialized"}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"sessionId":"sess-1"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a binary frame; ACP messages are text frames"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not valid JSON"}}`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("replies (-want +got):\n%s", diff)
		}
	})
	t.Run("another connection's session", func(t *testing.T) {
		a, b := initialize(t), initialize(t)
		a.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`))
		m, _ := read(t, a)
		var ns struct {
			Result acp.NewSessionResult `json:"result"`
		}
		json.Unmarshal([]byte(m), &ns)
		b.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"`+ns.Result.SessionID+`","prompt":[{"type":"text","text":"hi"}]}}`))
		m, _ = read(t, b)
		if !strings.Contains(m, `"code":-32002`) || !strings.Contains(m, `"id":1`) {
			t.Errorf("prompt of another connection's session: %s", m)
		}
		// The agent refuses session/load of a secret session: it stays not
		// this connection's.
		b.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"secret-1","cwd":"/","mcpServers":[]}}`))
		read(t, b)
		b.Write(testwait.Context(t), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"secret-1","prompt":[]}}`))
		if m, _ := read(t, b); !strings.Contains(m, `"code":-32002`) {
			t.Errorf("prompt after a refused session/load: %s", m)
		}
	})
	t.Run("too large", func(t *testing.T) {
		// A message too large is answered as a line too long is, from its
		// first bytes, and the connection goes on.
		ws := initialize(t)
		ctx := testwait.Context(t)
		note := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("x", 1000) + `"}`
		req := `{"jsonrpc":"2.0","id":"big","method":"x","params":"` + strings.Repeat("x", 1000) + `"}`
		for _, m := range []string{note, req, `{"jsonrpc":"2.0","id":1,"method":"x/none"}`} {
			ws.Write(ctx, websocket.MessageText, []byte(m))
		}
		var got []string
		for range 3 {
			_, m, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("reading the answers: %v", err)
			}
			got = append(got, string(m))
		}
		want := []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: line of %d bytes exceeds the maximum of 1000"}}`, len(note)),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"Invalid request: line of %d bytes exceeds the maximum of 1000"}}`, len(req)),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: x/none"}}`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
	})
}
