package acphttpos_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/acp/acphttp/acphttpos"
)

// An agent served at http://127.0.0.1:PORT/acp until the program is
// told to stop.
func Example() {
	var agent acp.Methods
	acp.Initialize.Handle(&agent, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	// A program passes signal.NotifyContext's context, which SIGINT or
	// SIGTERM ends; this one has ended, so Serve stops once it serves.
	ctx, stop := context.WithCancel(context.Background())
	stop()
	// The log without its time and the URL's port, which vary.
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == "time" || a.Key == "url" {
			return slog.Attr{}
		}
		return a
	}}))
	err := acphttpos.Serve(ctx, acphttpos.Config{
		Addr:       "127.0.0.1:0",
		NewHandler: func(*acphttp.Connection) acp.Handler { return agent },
		Logger:     log,
	})
	fmt.Println("stopped:", err)
	// Output:
	// level=INFO msg="serving ACP" authentication=false
	// stopped: <nil>
}

// Without a token file, Serve listens only on a loopback address.
func ExampleServe_token() {
	err := acphttpos.Serve(context.Background(), acphttpos.Config{
		Addr:       "0.0.0.0:8080",
		NewHandler: func(*acphttp.Connection) acp.Handler { return acp.Methods{} },
	})
	fmt.Println(err)
	// Output:
	// serving on 0.0.0.0:8080 without a token would let anyone who reaches it run the agent: give a token file, or listen on a loopback address
}
