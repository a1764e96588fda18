package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
)

// realClock is the real time, for acphttp's limits.
type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// TestRemoteV1AndV2 serves one echo agent remotely, as -listen does, to a
// v1 and a v2 editor at once, over each transport: each is answered in
// its own version, the v1 one with a prompt response, the v2 one with an
// acknowledgement and its turn in v2 updates.
func TestRemoteV1AndV2(t *testing.T) {
	a := newAgent(0, slog.New(slog.DiscardHandler))
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler {
		h, _ := a.handler("auto")
		return h
	}, &acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: realClock{}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		hs.Close()
		a.turns.Wait()
	})
	dials := map[string]func(acp.Handler) (*acp.Conn, error){
		"websocket": func(h acp.Handler) (*acp.Conn, error) {
			return acphttp.DialWebSocket(testwait.Context(t), hs.URL, h, &acphttp.DialOptions{HTTPClient: &http.Client{}})
		},
		"streamable": func(h acp.Handler) (*acp.Conn, error) {
			return acphttp.DialStreamableHTTP(hs.URL, h, &acphttp.DialOptions{HTTPClient: &http.Client{}})
		},
	}
	for name, dial := range dials {
		t.Run(name, func(t *testing.T) {
			v2 := newV2Client(t)
			var err error
			if v2.conn, err = dial(v2.methods()); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var text strings.Builder
			var m acp.Methods
			acp.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
				if c, ok := n.Update.(acp.AgentMessageChunk); ok {
					mu.Lock()
					text.WriteString(c.Content.(acp.TextContent).Text)
					mu.Unlock()
				}
			})
			v1, err := dial(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []*acp.Conn{v1, v2.conn} {
				t.Cleanup(func() {
					c.Close()
					testwait.Do(t, "the connection to end", func() { c.Wait() })
				})
			}
			ctx := testwait.Context(t)
			v2.initialize()
			if r, err := acp.Initialize.Call(ctx, v1, acp.InitializeParams{ProtocolVersion: 1}); err != nil || r.ProtocolVersion != 1 {
				t.Fatalf("the v1 editor's initialize: %+v, %v", r, err)
			}
			var wg sync.WaitGroup
			wg.Go(func() {
				s, err := acp.SessionNew.Call(ctx, v1, acp.NewSessionParams{Cwd: "/w", MCPServers: []acp.MCPServer{}})
				if err != nil {
					t.Error(err)
					return
				}
				r, err := acp.SessionPrompt.Call(ctx, v1, acp.PromptParams{SessionID: s.SessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: "one two"}}})
				if err != nil || r.StopReason != acp.StopReasonEndTurn {
					t.Errorf("the v1 editor's prompt: %+v, %v", r, err)
				}
			})
			sid := v2.newSession()
			ack, err := v2.prompt(ctx, sid, "three four")
			if err != nil || ack.MessageID == "" {
				t.Errorf("the v2 editor's prompt: %+v, %v", ack, err)
			}
			if got := lifecycle(v2.takeUntil(sid, "idle end_turn")); len(got) != 3 || got[1] != "running" {
				t.Errorf("the v2 editor's turn: %q", got)
			}
			testwait.Do(t, "the v1 editor's turn", wg.Wait)
			mu.Lock()
			defer mu.Unlock()
			if got := text.String(); got != "one two" {
				t.Errorf("the v1 editor's echo: %q, want %q", got, "one two")
			}
		})
	}
}
