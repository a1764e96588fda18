package acphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
)

// realClock is time.AfterFunc, which a synctest bubble fakes.
type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// testAgent is a small agent: session/new numbers its sessions; a
// prompt's text words come back one update each, except "hang", which
// waits for the request's context and answers "cancelled", and "ask",
// which asks the client's permission first and echoes its choice.
type testAgent struct {
	n       atomic.Int64
	started chan string // a "hang" prompt's session, once it waits
	mu      sync.Mutex
	cancels []error // the causes that ended "hang" prompts
}

func newTestAgent() *testAgent { return &testAgent{started: make(chan string, 100)} }

func (a *testAgent) methods() acp.Methods {
	var m acp.Methods
	acp.Initialize.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion), AgentCapabilities: acp.AgentCapabilities{LoadSession: true}}, nil
	})
	acp.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		return acp.NewSessionResult{SessionID: fmt.Sprintf("sess-%d", a.n.Add(1))}, nil
	})
	acp.SessionLoad.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.LoadSessionParams) (acp.LoadSessionResult, error) {
		if strings.HasPrefix(p.SessionID, "secret") {
			return acp.LoadSessionResult{}, acp.Errorf(acp.CodeAuthRequired, "not yours")
		}
		return acp.LoadSessionResult{}, nil
	})
	acp.SessionPrompt.Handle(&m, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		text := ""
		for _, b := range p.Prompt {
			if t, ok := b.(acp.TextContent); ok {
				text += t.Text
			}
		}
		if n, ok := strings.CutPrefix(text, "bench "); ok {
			count, _ := strconv.Atoi(n)
			for range count {
				if err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunk{Content: acp.TextContent{Text: "chunk"}}}); err != nil {
					return acp.PromptResult{}, err
				}
			}
			return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
		}
		switch text {
		case "hang":
			a.started <- p.SessionID
			<-ctx.Done()
			a.mu.Lock()
			a.cancels = append(a.cancels, context.Cause(ctx))
			a.mu.Unlock()
			return acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil
		case "ask":
			r, err := acp.SessionRequestPermission.Call(ctx, conn, acp.RequestPermissionParams{
				SessionID: p.SessionID,
				ToolCall:  acp.PermissionToolCall{ToolCallID: "t1"},
				Options:   []acp.PermissionOption{{OptionID: "yes", Name: "Yes", Kind: acp.PermissionAllowOnce}},
			})
			if err != nil {
				return acp.PromptResult{}, err
			}
			text = r.Outcome.OptionID
		}
		for w := range strings.FieldsSeq(text) {
			if err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunk{Content: acp.TextContent{Text: w}}}); err != nil {
				return acp.PromptResult{}, err
			}
		}
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	return m
}

// testClient records the updates a client receives and answers
// permission requests with their first option.
type testClient struct {
	mu      sync.Mutex
	updates map[string][]string // text chunks by session
	got     chan struct{}
}

func newTestClient() *testClient {
	return &testClient{updates: make(map[string][]string), got: make(chan struct{}, 1000)}
}

func (c *testClient) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		if ch, ok := n.Update.(acp.AgentMessageChunk); ok {
			if t, ok := ch.Content.(acp.TextContent); ok {
				c.mu.Lock()
				c.updates[n.SessionID] = append(c.updates[n.SessionID], t.Text)
				c.mu.Unlock()
			}
		}
		c.got <- struct{}{}
	})
	acp.SessionRequestPermission.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: p.Options[0].OptionID}}, nil
	})
	return m
}

func (c *testClient) texts(session string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.updates[session]...)
}

// profiles are the two ways to dial a server, by name.
var profiles = []struct {
	name string
	dial func(ctx context.Context, url string, h acp.Handler, o *acphttp.DialOptions) (*acp.Conn, error)
}{
	{"websocket", acphttp.DialWebSocket},
	{"streamable", func(_ context.Context, url string, h acp.Handler, o *acphttp.DialOptions) (*acp.Conn, error) {
		return acphttp.DialStreamableHTTP(url, h, o)
	}},
}

// serve starts an httptest server for a Server over agent at /acp and
// returns its URL.
func serve(t testing.TB, agent acp.Handler, opts *acphttp.ServerOptions) (*acphttp.Server, string) {
	t.Helper()
	o := acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: realClock{}}
	if opts != nil {
		o = *opts
		if o.Authenticate == nil {
			o.Authenticate = acphttp.NoAuthentication
		}
		if o.Clock == nil {
			o.Clock = realClock{}
		}
	}
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return agent }, &o)
	if err != nil {
		t.Fatal(err)
	}
	return srv, serveHandler(t, srv)
}

// serveHandler serves srv at /acp of an httptest server and returns its
// URL; both close at the end of the test.
func serveHandler(t testing.TB, srv *acphttp.Server) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/acp", srv)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return hs.URL + "/acp"
}

// dial connects with profile p and initializes; the Conn is closed at
// the end of the test.
func dial(t *testing.T, p int, url string, h acp.Handler, o *acphttp.DialOptions) *acp.Conn {
	t.Helper()
	if o == nil {
		o = &acphttp.DialOptions{}
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	conn, err := profiles[p].dial(testwait.Context(t), url, h, o)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() {
		conn.Close()
		testwait.Do(t, "the connection to end", func() { conn.Wait() })
	})
	if _, err := acp.Initialize.Call(testwait.Context(t), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn
}

func prompt(ctx context.Context, conn *acp.Conn, session, text string) (acp.PromptResult, error) {
	return acp.SessionPrompt.Call(ctx, conn, acp.PromptParams{SessionID: session, Prompt: acp.ContentBlocks{acp.TextContent{Text: text}}})
}

// counter counts the updates a client receives.
type counter struct{ n atomic.Int64 }

func (c *counter) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(context.Context, *acp.Conn, acp.SessionNotification) { c.n.Add(1) })
	return m
}
