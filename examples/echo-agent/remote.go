package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/acp/acphttp/acphttpos"
)

// serveRemote serves the agent at http://addr/acp until SIGINT or SIGTERM
// and returns the exit status: 0 after a graceful shutdown, 1 when it
// cannot serve. One agent a serves every connection, each with the
// handler newHandler makes for it; acphttp keeps each connection to its
// own sessions.
func serveRemote(addr, tokenFile string, a *agent, newHandler func(*acphttp.Connection) acp.Handler, maxLine int, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The v2 turns end with their connections, which Serve closes.
	defer a.turns.Wait()
	err := acphttpos.Serve(ctx, acphttpos.Config{
		Addr:       addr,
		TokenFile:  tokenFile,
		NewHandler: newHandler,
		Logger:     log,
		Conn:       &acp.ConnOptions{Logger: log},

		MaxMessageBytes: maxLine,
	})
	if err != nil {
		log.Error("echo-agent: serving", "error", err)
		return 1
	}
	log.Info("echo-agent stopped")
	return 0
}
