// Command fakegemini stands in for the gemini binary: it accepts the Gemini
// CLI's command line and replays a recorded stream-json transcript, with
// the real CLI's exit status, for tests and demos without an API key.
//
//	FAKEGEMINI_TRANSCRIPT=gemini/testdata/tool-call.jsonl \
//		fakegemini --output-format stream-json -p "run echo hi"
//
// The transcript comes from --transcript FILE or FAKEGEMINI_TRANSCRIPT, a
// .jsonl file or a directory holding new.jsonl and resume.jsonl (chosen by
// the absence or presence of --resume). FAKEGEMINI_DELAY, a Go duration,
// slows the replay down line by line. SIGINT stops it with status 130,
// SIGTERM with 143. See package geminitest for the details.
package main

import (
	"context"
	"os"

	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/fakemain"
)

func main() {
	os.Exit(fakemain.Run(
		func(ctx context.Context, env fakecli.Env) int { return geminitest.Run(ctx, geminitest.Env(env)) },
		func(code int) error { return geminitest.Stopped{Code: code} },
	))
}
