// Command fakecodex stands in for the codex binary: it accepts the OpenAI
// Codex CLI's `codex exec` command line and replays a recorded --json
// transcript, for tests and demos without an API key.
//
//	FAKECODEX_TRANSCRIPT=codex/testdata/cli-0.169.0/tool-call.jsonl \
//		fakecodex exec --json --skip-git-repo-check "run echo hi"
//
// The transcript comes from -transcript FILE or FAKECODEX_TRANSCRIPT, a
// .jsonl file or a directory holding new.jsonl and resume.jsonl (chosen by
// the absence or presence of the resume subcommand).
//
// As `fakecodex app-server [-c key=value]…` it stands in for `codex
// app-server` instead: FAKECODEX_TRANSCRIPT names a two-direction .ndjson
// transcript (codex/testdata/appserver), whose server lines it writes
// while it checks the client's against the recorded ones; it exits 0 at
// the end of its input, or 1 saying where the client departed. With
// FAKECODEX_LENIENT=1 it serves any client from the transcript instead, as
// the real server would: threads and turns of its own, each turn/start
// playing one of the transcript's turns, turn/interrupt ending it; it
// exits 0 at the end of its input. FAKECODEX_DELAY, a Go duration, slows
// down the lines of `exec` and those of a lenient app-server's turns.
// SIGINT stops it with status 130, SIGTERM with 143. See package
// codextest for the details.
package main

import (
	"context"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/codex/codextest"
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
			code := codextest.ExitInterrupt
			if s == syscall.SIGTERM {
				code = codextest.ExitTerminate
			}
			cancel(codextest.Stopped{Code: code})
		case <-done:
		}
	}()

	return codextest.Run(ctx, codextest.Env{
		Args:   os.Args[1:],
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Open:   func(name string) (fs.File, error) { return os.Open(name) },
		Getenv: os.Getenv,
		Sleep:  sleep,
	})
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
