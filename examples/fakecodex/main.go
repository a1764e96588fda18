// Command fakecodex stands in for the codex binary: it accepts the OpenAI
// Codex CLI's `codex exec` command line and replays a recorded --json
// transcript, for tests and demos without an API key.
//
//	FAKECODEX_TRANSCRIPT=codex/testdata/cli-0.169.0/tool-call.jsonl \
//		fakecodex exec --json --skip-git-repo-check "run echo hi"
//
// The transcript comes from -transcript FILE or FAKECODEX_TRANSCRIPT, a
// .jsonl file or a directory holding new.jsonl and resume.jsonl (chosen by
// the absence or presence of the resume subcommand). FAKECODEX_DELAY, a Go
// duration, slows the replay down line by line. SIGINT stops it with
// status 130, SIGTERM with 143. See package codextest for the details.
package main

import (
	"context"
	"os"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/fakemain"
)

func main() {
	os.Exit(fakemain.Run(
		func(ctx context.Context, env fakecli.Env) int { return codextest.Run(ctx, codextest.Env(env)) },
		func(code int) error { return codextest.Stopped{Code: code} },
	))
}
