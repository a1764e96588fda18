// Command echo-agent is the smallest complete ACP agent: it echoes each
// prompt back one word at a time. It speaks ACP on its stdin and stdout and
// logs to stderr; run it from an ACP client (an editor) as its agent.
//
// Usage:
//
//	echo-agent [-delay 100ms] [-max-line bytes] [-protocol auto|v1|v2] [-v] [-listen ADDR [-token-file F]]
//
// It exits with status 0 when stdin ends, which is how a client stops it.
// SIGINT or SIGTERM stops it too, with status 130 or 143. Either way,
// prompts still running are cancelled and answered "cancelled" first.
//
// With -listen it serves remotely instead, at http://ADDR/acp, over both
// profiles of ACP's remote transport (WebSocket and Streamable HTTP), one
// connection per client; with -token-file F every request must carry
// "Authorization: Bearer " and the file's contents, and without it ADDR
// must be a loopback address. It logs the URL it serves, and exits with
// status 0 on SIGINT or SIGTERM once the prompts in progress are answered.
// examples/remote-client is a client for it.
//
// -protocol says which versions of ACP it speaks: v1, v2 (the draft; see
// package acpv2), or auto (the default), which gives a client that asks
// for version 2 or later v2 and every other client v1. In v2 a prompt is
// acknowledged at once and its turn reported in updates that end with
// an idle state. With auto or v2 a client must initialize before anything
// else, as ACP asks; v1 alone serves one that does not, as ACP v1 agents
// long have.
//
// Besides the standard methods it serves goose's steering extension
// (_goose/unstable/session/steer), the legacy session/set_model, and reports
// usage (one word counting as one token) after each prompt.
//
// To talk to it by hand, run it and type one JSON-RPC message per line:
//
//	$ go run ./examples/echo-agent -delay 300ms
//	{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
//	{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}
//	{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hello there"}]}}
//
// main.go holds the process plumbing, with stdin_linux.go and
// stdin_other.go, which let a signal interrupt a read of stdin; agent.go
// holds the agent itself, one method per ACP method, for copying into an
// agent of your own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// version is reported in initialize's agentInfo.
const version = "0.1.0"

func main() {
	delay := flag.Duration("delay", 0, "wait this long before echoing each word")
	maxLine := flag.Int("max-line", acp.DefaultMaxLineLength, "longest input line accepted, in `bytes`; longer ones are answered with an error and skipped")
	verbose := flag.Bool("v", false, "log debug messages")
	listen := flag.String("listen", "", "serve remotely at http://`ADDR`/acp instead of on stdin and stdout")
	tokenFile := flag.String("token-file", "", "with -listen, require \"Authorization: Bearer\" and this `file`'s contents")
	protocol := flag.String("protocol", "auto", "the ACP versions to speak: `auto` (v2 to a client that asks for 2 or later, v1 otherwise), v1 or v2")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	// stdout carries the protocol, so logs go to stderr only.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	a := newAgent(*delay, log)
	a.checkDir = existingDir
	h, err := a.handler(*protocol)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo-agent:", err)
		os.Exit(2) // as for any bad flag
	}
	if *listen != "" {
		// Each connection gets a handler of its own.
		newHandler := func(*acphttp.Connection) acp.Handler {
			h, _ := a.handler(*protocol) // checked above
			return h
		}
		os.Exit(serveRemote(*listen, *tokenFile, a, newHandler, *maxLine, log))
	}
	os.Exit(serve(a, h, *maxLine, log))
}

// handler returns what serves a connection in the versions protocol
// names: auto, v1 or v2.
func (a *agent) handler(protocol string) (acp.Handler, error) {
	switch protocol {
	case "v1":
		return a.methods(), nil
	case "v2":
		return acpv2.NewRouter(nil, a.methodsV2()), nil
	case "auto":
		return acpv2.NewRouter(a.methods(), a.methodsV2()), nil
	}
	return nil, fmt.Errorf("-protocol %q: want auto, v1 or v2", protocol)
}

// shutdownGrace bounds how long a signal waits for running prompts to
// answer before the agent exits anyway.
const shutdownGrace = 5 * time.Second

// serve serves one ACP connection on stdin and stdout and returns the exit
// status: 0 when stdin ends (the client is done), 128+n after signal n
// (SIGINT or SIGTERM; the shell's convention), 1 when the connection fails.
//
// Both ends are graceful: running prompts are cancelled and answered
// "cancelled" before the agent exits. A second signal, or shutdownGrace
// without an answer, ends it regardless.
func serve(a *agent, h acp.Handler, maxLine int, log *slog.Logger) int {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)

	// Shutdown closes stdin to stop reading, and Wait waits for the read
	// in progress: openStdin makes closing interrupt it.
	stdin := openStdin()
	defer stdin.Close()
	conn := acp.NewConn(context.Background(), stdin, os.Stdout, h, &acp.ConnOptions{MaxLineLength: maxLine, Logger: log})
	// The v2 turns run beside the Conn's handlers, and end with it.
	defer a.turns.Wait()
	waited := make(chan error, 1)
	go func() { waited <- conn.Wait() }()

	select {
	case err := <-waited:
		if err != nil {
			log.Error("echo-agent stopped", "error", err)
			return 1
		}
		return 0
	case sig := <-signals:
		signal.Stop(signals) // a second signal ends the process at once
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := conn.Shutdown(ctx); err != nil {
			log.Warn("echo-agent: shutting down", "error", err)
		}
		log.Info("echo-agent stopped", "signal", sig.String())
		if n, ok := sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
		return 1
	}
}

// existingDir requires dir to be an existing directory.
func existingDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such directory")
	case err != nil:
		return err
	case !info.IsDir():
		return errors.New("not a directory")
	}
	return nil
}
