// Command echo-agent is the smallest complete ACP agent: it echoes each
// prompt back one word at a time. It speaks ACP on its stdin and stdout and
// logs to stderr; run it from an ACP client (an editor) as its agent.
//
// Usage:
//
//	echo-agent [-delay 100ms] [-max-line bytes] [-v]
//
// Besides the standard methods it serves goose's steering extension
// (_goose/unstable/session/steer), the legacy session/set_model, and reports
// usage (one word counting as one token) after each prompt.
//
// To talk to it by hand, run it and type one JSON-RPC message per line:
//
//	$ go run ./examples/echo-agent -delay 300ms
//	{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
//	{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp"}}
//	{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hello there"}]}}
//
// main.go holds the process plumbing; agent.go the agent itself, one method
// per ACP method, for copying into an agent of your own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/acp"
)

// version is reported in initialize's agentInfo.
const version = "0.1.0"

func main() {
	delay := flag.Duration("delay", 0, "wait this long before echoing each word")
	maxLine := flag.Int("max-line", acp.DefaultMaxLineLength, "longest input line accepted, in `bytes`; longer ones are answered with an error and skipped")
	verbose := flag.Bool("v", false, "log debug messages")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	// stdout carries the protocol, so logs go to stderr only.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	if err := serve(*delay, *maxLine, log); err != nil {
		log.Error("echo-agent stopped", "error", err)
		os.Exit(1)
	}
}

// serve serves one ACP connection on stdin and stdout until stdin ends
// (a nil error) or a signal arrives.
func serve(delay time.Duration, maxLine int, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	a := newAgent(delay, log)
	conn := acp.NewConn(ctx, os.Stdin, os.Stdout, a.methods(), &acp.ConnOptions{MaxLineLength: maxLine, Logger: log})
	ended := make(chan error, 1)
	go func() { ended <- conn.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			return fmt.Errorf("connection: %w", err)
		}
		return nil // end of input: the client is done
	case <-ctx.Done():
		// The signal ended the connection, but Wait also waits for the
		// read of stdin in progress, which closing a blocking stdin does
		// not interrupt: exit without waiting.
		return errors.New("interrupted")
	}
}
