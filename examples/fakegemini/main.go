// Command fakegemini stands in for the gemini binary: it accepts the Gemini
// CLI's command line and replays a recorded stream-json transcript, with
// the real CLI's exit status, for tests and demos without an API key.
// With --acp it stands in for the CLI's ACP mode instead, replaying a
// transcript of both directions of an ACP session to its client; with
// FAKEGEMINI_LENIENT=1 as well, it answers any client leniently, with
// sessions of fresh ids and the transcript's turns for its prompts, as
// the ACP conformance suite needs.
//
//	FAKEGEMINI_TRANSCRIPT=gemini/testdata/tool-call.jsonl \
//		fakegemini --output-format stream-json -p "run echo hi"
//	FAKEGEMINI_TRANSCRIPT=gemini/testdata/acp/plain.ndjson fakegemini --acp
//	FAKEGEMINI_LENIENT=1 FAKEGEMINI_DELAY=50ms \
//		FAKEGEMINI_TRANSCRIPT=gemini/testdata/acp/permission-allow.ndjson fakegemini --acp
//
// The transcript comes from --transcript FILE or FAKEGEMINI_TRANSCRIPT, a
// .jsonl file or a directory holding new.jsonl and resume.jsonl (chosen by
// the absence or presence of --resume). FAKEGEMINI_DELAY, a Go duration,
// slows the replay down line by line. SIGINT stops it with status 130,
// SIGTERM with 143. See package geminitest for the details.
package main

import (
	"context"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/gemini/geminitest"
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
			code := geminitest.ExitInterrupt
			if s == syscall.SIGTERM {
				code = geminitest.ExitTerminate
			}
			cancel(geminitest.Stopped{Code: code})
		case <-done:
		}
	}()

	return geminitest.Run(ctx, geminitest.Env{
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
