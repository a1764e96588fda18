package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/serveacp"
)

// serveRemote serves the agent at http://addr/acp until SIGINT or SIGTERM
// and returns the exit status: 0 after a graceful shutdown, 1 when it
// cannot serve. One agent a serves every connection with h; acphttp keeps
// each connection to its own sessions.
func serveRemote(addr, tokenFile string, a *agent, h acp.Handler, maxLine int, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The v2 turns end with their connections, which Serve closes.
	defer a.turns.Wait()
	err := serveacp.Serve(ctx, serveacp.Config{
		Addr:      addr,
		TokenFile: tokenFile,
		Agent:     h,
		Logger:    log,
		Conn:      &acp.ConnOptions{Logger: log},

		MaxMessageBytes: maxLine,
	})
	if err != nil {
		log.Error("echo-agent: serving", "error", err)
		return 1
	}
	log.Info("echo-agent stopped")
	return 0
}
