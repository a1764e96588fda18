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
// stderr when the client writes what the transcript does not expect.
//
//	FAKECLAUDE_TRANSCRIPT=claude/testdata/control/two-turns.ndjson \
//		fakeclaude --output-format stream-json --verbose --input-format stream-json
package main

import (
	"context"
	"os"

	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/fakemain"
)

func main() {
	os.Exit(fakemain.Run(
		func(ctx context.Context, env fakecli.Env) int { return claudetest.Run(ctx, claudetest.Env(env)) },
		func(code int) error { return claudetest.Stopped{Code: code} },
	))
}
