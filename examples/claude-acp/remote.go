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
	"github.com/acpkit/acpkit/bridge"
)

// serveRemote serves editors at http://addr/acp over ACP's remote
// transport, WebSocket or Streamable HTTP, until SIGINT or SIGTERM,
// each editor's connection with a handler of its own, speaking the ACP
// versions given and knowing the editor by the name its token gives. With
// tokenFile every request must carry "Authorization: Bearer" and the
// file's contents; without it addr must be a loopback address. Each
// editor's connection reaches only the sessions it opened. On a signal,
// prompts in progress are answered "cancelled" and every CLI is stopped
// before it exits, with status 0; it exits 1 when it cannot serve.
func serveRemote(agent *bridge.Agent, versions bridge.Versions, addr, tokenFile string, log *slog.Logger) int {
	newHandler := func(c *acphttp.Connection) acp.Handler {
		return agent.Handler(bridge.Editor{Versions: versions, Caller: c.Caller.Name})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := acphttpos.Serve(ctx, acphttpos.Config{Addr: addr, TokenFile: tokenFile, NewHandler: newHandler, Logger: log, Conn: &acp.ConnOptions{Logger: log}})
	agent.Close()
	if err != nil {
		log.Error("claude-acp: serving", "error", err)
		return 1
	}
	log.Info("claude-acp stopped")
	return 0
}
