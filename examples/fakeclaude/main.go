// Command fakeclaude stands in for the claude binary: it accepts the Claude
// Code CLI's command line and replays a recorded stream-json transcript, for
// tests and demos without an API key.
//
//	FAKECLAUDE_TRANSCRIPT=claude/testdata/multiblock.jsonl \
//		fakeclaude -p --output-format stream-json --verbose "write a haiku"
//
// The transcript comes from -transcript FILE or FAKECLAUDE_TRANSCRIPT, a
// .jsonl file or a directory holding new.jsonl and resume.jsonl (chosen by
// the absence or presence of --resume). FAKECLAUDE_DELAY, a Go duration,
// slows the replay down line by line. SIGINT stops it with status 130,
// SIGTERM with 143. See package claudetest for the details.
//
// With --input-format stream-json (and no -p or prompt), it plays a
// two-direction transcript of the streaming-input mode instead, such as
// claude/testdata/control/interrupt.ndjson: it answers what the client
// writes on stdin with the recorded output, and exits 1 with a message on
// stderr when the client writes what the transcript does not expect. A
// transcript of -p runs, such as multiblock.jsonl, plays there too, one
// turn for each user message. With
// CLAUDE_CONFIG_DIR set, it keeps the session there as Claude Code does,
// in projects/<folder of the cwd>/<session id>.jsonl; it touches no
// ~/.claude of its own.
//
//	FAKECLAUDE_TRANSCRIPT=claude/testdata/control/two-turns.ndjson \
//		fakeclaude --output-format stream-json --verbose --input-format stream-json
package main

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/claude/claudetest"
)

func main() {
	os.Exit(run())
}

func run() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-signals:
			code := claudetest.ExitInterrupt
			if s == syscall.SIGTERM {
				code = claudetest.ExitTerminate
			}
			cancel(claudetest.Stopped{Code: code})
		case <-done:
		}
	}()

	env := claudetest.Env{
		Args:   os.Args[1:],
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Open:   func(name string) (fs.File, error) { return os.Open(name) },
		Getenv: os.Getenv,
		Sleep:  sleep,
		Now:    time.Now,
	}
	env.Dir, _ = os.Getwd()
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		env.Store = appender(filepath.Join(dir, "projects"))
	}
	return claudetest.Run(ctx, env)
}

// appender returns a function that opens a file of the folder dir for
// appending, creating it and its folder.
func appender(dir string) func(name string) (io.WriteCloser, error) {
	return func(name string) (io.WriteCloser, error) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
