// Command echo-agent is the smallest complete ACP agent: it echoes each
// prompt back one word at a time. It speaks ACP on its stdin and stdout and
// logs to stderr; run it from an ACP client (an editor) as its agent.
//
// Usage:
//
//	echo-agent [-delay 100ms] [-max-line bytes] [-v]
//
// It exits with status 0 when stdin ends, which is how a client stops it.
// SIGINT or SIGTERM stops it too: prompts still running are cancelled and
// it exits with status 130 or 143.
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
// main.go holds the process plumbing, with stdin_linux.go and
// stdin_other.go, which let a signal interrupt a read of stdin; agent.go
// holds the agent itself, one method per ACP method, for copying into an
// agent of your own.
package main

import (
	"context"
	"errors"
	"flag"
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

	os.Exit(serve(*delay, *maxLine, log))
}

// serve serves one ACP connection on stdin and stdout and returns the exit
// status: 0 when stdin ends (the client is done), 128+n after signal n
// (SIGINT or SIGTERM; the shell's convention), 1 when the connection fails.
func serve(delay time.Duration, maxLine int, log *slog.Logger) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stopSignals := onSignal(cancel)
	defer stopSignals()

	// When ctx ends the Conn closes stdin, and Wait waits for the read in
	// progress: openStdin makes closing interrupt it.
	stdin := openStdin()
	defer stdin.Close()
	a := newAgent(delay, log)
	conn := acp.NewConn(ctx, stdin, os.Stdout, a.methods(), &acp.ConnOptions{MaxLineLength: maxLine, Logger: log})

	// Wait returns once every prompt has answered (or, after a signal, been
	// cancelled) and the Conn's goroutines are gone.
	err := conn.Wait()
	var sig signalled
	switch {
	case err == nil:
		return 0
	case errors.As(err, &sig):
		log.Info("echo-agent stopped", "signal", sig.String())
		return sig.exitCode()
	default:
		log.Error("echo-agent stopped", "error", err)
		return 1
	}
}

// signalled is the cause of the connection's end after a signal.
type signalled struct{ os.Signal }

func (s signalled) Error() string { return "stopped by " + s.String() }

// exitCode is 128 plus the signal's number, as a shell reports it.
func (s signalled) exitCode() int {
	if n, ok := s.Signal.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// onSignal calls cancel at the first SIGINT or SIGTERM, with the signal as
// the cause, and then restores the signals' default action, so that a
// second one ends the process at once should shutting down hang. Call the
// function it returns to stop listening.
func onSignal(cancel context.CancelCauseFunc) (stop func()) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-signals:
			signal.Stop(signals)
			cancel(signalled{s})
		case <-done:
		}
	}()
	return func() {
		signal.Stop(signals)
		close(done)
	}
}
