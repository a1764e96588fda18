package acphttpos_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/acp/acphttp/acphttpos"
)

// urlLogger passes on the url of each record that has one.
type urlLogger struct{ urls chan string }

func (urlLogger) Enabled(context.Context, slog.Level) bool { return true }
func (h urlLogger) WithAttrs([]slog.Attr) slog.Handler     { return h }
func (h urlLogger) WithGroup(string) slog.Handler          { return h }

func (h urlLogger) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "url" {
			h.urls <- a.Value.String()
		}
		return true
	})
	return nil
}

// wait bounds a test's wait for what, which ch delivers.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("waited 30 s for %s", what)
		panic("unreachable")
	}
}

// TestServe serves an agent behind a token file over both profiles, a
// handler made per connection, and checks that the end of ctx answers a
// prompt in progress "cancelled" before Serve returns nil.
func TestServe(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	var made atomic.Int64
	newHandler := func(*acphttp.Connection) acp.Handler {
		made.Add(1)
		var m acp.Methods
		acp.Initialize.Handle(&m, func(context.Context, *acp.Conn, acp.InitializeParams) (acp.InitializeResult, error) {
			return acp.InitializeResult{ProtocolVersion: 1}, nil
		})
		acp.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
			return acp.NewSessionResult{SessionID: "s1"}, nil
		})
		acp.SessionPrompt.Handle(&m, func(ctx context.Context, _ *acp.Conn, _ acp.PromptParams) (acp.PromptResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return acp.PromptResult{StopReason: acp.StopReasonCancelled}, nil
		})
		return m
	}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	urls := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- acphttpos.Serve(ctx, acphttpos.Config{Addr: "127.0.0.1:0", TokenFile: tokenFile, NewHandler: newHandler, Logger: slog.New(urlLogger{urls})})
	}()
	url := wait(t, urls, "Serve to log where it listens")

	withToken := &acphttp.DialOptions{HTTPClient: &http.Client{}, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
	ws, err := acphttp.DialWebSocket(t.Context(), url, nil, withToken)
	if err != nil {
		t.Fatalf("WebSocket: %v", err)
	}
	sh, err := acphttp.DialStreamableHTTP(url, nil, withToken)
	if err != nil {
		t.Fatalf("Streamable HTTP: %v", err)
	}
	var prompts []chan acp.PromptResult
	for _, conn := range []*acp.Conn{ws, sh} {
		defer conn.Close()
		if _, err := acp.Initialize.Call(t.Context(), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		if _, err := acp.SessionNew.Call(t.Context(), conn, acp.NewSessionParams{Cwd: "/"}); err != nil {
			t.Fatalf("session/new: %v", err)
		}
		done := make(chan acp.PromptResult, 1)
		go func() {
			r, err := acp.SessionPrompt.Call(t.Context(), conn, acp.PromptParams{SessionID: "s1", Prompt: acp.ContentBlocks{acp.TextContent{Text: "hi"}}})
			if err != nil {
				t.Errorf("prompt: %v", err)
			}
			done <- r
		}()
		wait(t, started, "the prompt to reach the agent")
		prompts = append(prompts, done)
	}
	if n := made.Load(); n != 2 {
		t.Errorf("NewHandler made %d handlers for 2 connections", n)
	}
	if _, err := acphttp.DialWebSocket(t.Context(), url, nil, &acphttp.DialOptions{HTTPClient: &http.Client{}}); !errors.Is(err, acphttp.ErrUnauthorized) {
		t.Errorf("without the token: %v, want ErrUnauthorized", err)
	}

	stop()
	for _, done := range prompts {
		if r := wait(t, done, "the prompt to end at shutdown"); r.StopReason != acp.StopReasonCancelled {
			t.Errorf("a prompt at shutdown: %q, want cancelled", r.StopReason)
		}
	}
	if err := wait(t, served, "Serve to return"); err != nil {
		t.Errorf("Serve: %v", err)
	}
	for _, conn := range []*acp.Conn{ws, sh} {
		wait(t, conn.Done(), "the server to end a connection")
	}
}
