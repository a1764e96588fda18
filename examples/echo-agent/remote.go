package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/serveacp"
)

// serveRemote serves the agent at http://addr/acp until SIGINT or SIGTERM
// and returns the exit status: 0 after a graceful shutdown, 1 when it
// cannot serve. One agent serves every connection; acphttp keeps each
// connection to its own sessions.
func serveRemote(addr, tokenFile string, delay time.Duration, maxLine int, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := serveacp.Serve(ctx, serveacp.Config{
		Addr:      addr,
		TokenFile: tokenFile,
		Agent:     newAgent(delay, log).methods(),
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
