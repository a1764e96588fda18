package acphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
)

// clock is the real time, for the Server's limits.
type clock struct{}

func (clock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// An agent served remotely, and a client that prompts it over each
// profile. The agent is an ordinary acp.Methods, as on stdio.
func Example() {
	var agent acp.Methods
	acp.Initialize.Handle(&agent, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	acp.SessionNew.Handle(&agent, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		return acp.NewSessionResult{SessionID: "sess-1"}, nil
	})
	acp.SessionPrompt.Handle(&agent, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunk{Content: p.Prompt[0]}})
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, err
	})

	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return agent }, &acphttp.ServerOptions{
		Authenticate: acphttp.BearerToken("s3cret"),
		Clock:        clock{},
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/acp", srv)
	hs := httptest.NewServer(mux) // a program runs its own http.Server
	defer hs.Close()
	defer srv.Close()

	var client acp.Methods
	acp.SessionUpdate.Handle(&client, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		fmt.Println("agent:", n.Update.(acp.AgentMessageChunk).Content.(acp.TextContent).Text)
	})
	opts := &acphttp.DialOptions{HTTPClient: &http.Client{}, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
	ctx := context.Background()
	ws, err := acphttp.DialWebSocket(ctx, hs.URL+"/acp", client, opts)
	if err != nil {
		panic(err)
	}
	sh, err := acphttp.DialStreamableHTTP(hs.URL+"/acp", client, opts)
	if err != nil {
		panic(err)
	}
	for _, conn := range []*acp.Conn{ws, sh} {
		if _, err := acp.Initialize.Call(ctx, conn, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion}); err != nil {
			panic(err)
		}
		s, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: "/"})
		if err != nil {
			panic(err)
		}
		r, err := acp.SessionPrompt.Call(ctx, conn, acp.PromptParams{SessionID: s.SessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: "hello"}}})
		if err != nil {
			panic(err)
		}
		fmt.Println("stop:", r.StopReason)
		conn.Close()
		conn.Wait()
	}
	// Output:
	// agent: hello
	// stop: end_turn
	// agent: hello
	// stop: end_turn
}

// A handler made for each connection, which knows who the caller is and
// keeps what its client declared at initialize: two editors, each with a
// token of its own, each served by a state of its own.
func ExampleNewServer() {
	newHandler := func(c *acphttp.Connection) acp.Handler {
		var client string // this connection's alone
		var h acp.Methods
		acp.Initialize.Handle(&h, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
			client = p.ClientInfo.Name
			return acp.InitializeResult{ProtocolVersion: 1}, nil
		})
		acp.SessionNew.Handle(&h, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
			return acp.NewSessionResult{SessionID: c.Caller.Name + "-in-" + client}, nil
		})
		return h
	}
	srv, err := acphttp.NewServer(newHandler, &acphttp.ServerOptions{
		Authenticate: acphttp.BearerTokens(map[string]string{"tok-a": "alice", "tok-b": "bob"}),
		Clock:        clock{},
	})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()

	ctx := context.Background()
	for _, editor := range []struct{ token, name string }{{"tok-a", "zed"}, {"tok-b", "emacs"}} {
		opts := &acphttp.DialOptions{HTTPClient: &http.Client{}, Header: http.Header{"Authorization": {"Bearer " + editor.token}}}
		conn, err := acphttp.DialWebSocket(ctx, hs.URL, nil, opts)
		if err != nil {
			panic(err)
		}
		if _, err := acp.Initialize.Call(ctx, conn, acp.InitializeParams{ProtocolVersion: 1, ClientInfo: &acp.Implementation{Name: editor.name}}); err != nil {
			panic(err)
		}
		s, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: "/"})
		if err != nil {
			panic(err)
		}
		fmt.Println(s.SessionID)
		conn.Close()
		conn.Wait()
	}
	// Output:
	// alice-in-zed
	// bob-in-emacs
}

// A Server mounted on an http.Server that speaks HTTP/1.1 and cleartext
// HTTP/2, shut down before it.
func ExampleServer_Shutdown() {
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return acp.Methods{} }, &acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: clock{}})
	if err != nil {
		panic(err)
	}
	hs := &http.Server{Addr: "127.0.0.1:0", Handler: srv, Protocols: new(http.Protocols)}
	hs.Protocols.SetHTTP1(true)
	hs.Protocols.SetUnencryptedHTTP2(true)
	hs.RegisterOnShutdown(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx) // answers prompts "cancelled", closes streams and sockets
	})
	// go hs.ListenAndServe(), and on a signal:
	fmt.Println(hs.Shutdown(context.Background()))
	// Output: <nil>
}
