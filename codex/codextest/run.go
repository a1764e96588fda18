package codextest

import (
	"context"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/fakecli"
)

// Environment variables the fake CLI reads.
const (
	// EnvTranscript names the transcript to replay when the command line
	// has no -transcript: a .jsonl file, or a directory holding new.jsonl
	// (replayed for a new thread) and resume.jsonl (for `exec resume`).
	EnvTranscript = "FAKECODEX_TRANSCRIPT"
	// EnvDelay is a Go duration ("50ms") to wait before each line; as
	// `app-server` with EnvLenient, before each line of a turn.
	EnvDelay = "FAKECODEX_DELAY"
	// EnvLenient, set to "1", makes `app-server` answer any client from
	// the transcript, as [ServeLenientAppServer] does, rather than replay
	// it strictly, as [ServeAppServer] does.
	EnvLenient = "FAKECODEX_LENIENT"
)

// Exit statuses of the fake CLI, as a shell reports them.
const (
	ExitOK        = 0
	ExitError     = 1   // a failed turn, a refused resume, no prompt
	ExitUsage     = 2   // a command line the real CLI refuses
	ExitInterrupt = 130 // stopped by SIGINT (128 + 2)
	ExitTerminate = 143 // stopped by SIGTERM (128 + 15)
)

// Stopped is the cancellation cause a caller gives ctx to stop [Run] with a
// given exit status, for instance Stopped{Code: ExitTerminate} on SIGTERM
// (see context.WithCancelCause).
type Stopped struct {
	Code int
}

// Error says which exit status the run stopped with.
func (s Stopped) Error() string {
	return "codextest: stopped with exit status " + strconv.Itoa(s.Code)
}

// Env is everything [Run] touches: it has no other access to the process,
// the file system or the clock.
type Env struct {
	// Args are the command-line arguments, without the program name.
	Args []string
	// Stdin supplies the prompt when Args give none, or give "-": Run
	// then reads it to its end. Nil reads as empty.
	Stdin io.Reader
	// Stdout receives the transcript's lines; Stderr the companion .stderr
	// file and diagnostics.
	Stdout, Stderr io.Writer
	// Open opens a transcript, its companion .stderr file, or a transcript
	// directory, by the name given on the command line or in the
	// environment (joined with "/new.jsonl" or "/resume.jsonl" for a
	// directory). A program passes a function calling os.Open; a test can
	// pass the Open method of an fs.FS such as fstest.MapFS.
	Open func(name string) (fs.File, error)
	// Getenv returns an environment variable's value, "" when unset. Nil
	// means an empty environment.
	Getenv func(key string) string
	// Sleep waits for d, returning early with ctx's error if ctx ends
	// first. Nil skips the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Run behaves like `codex exec --json`, with a recorded transcript
// standing in for the model, and returns the process exit status. It:
//
//   - accepts the real CLI's command line: "exec", its options
//     (--json, --model, --sandbox, --profile, --cd, --add-dir, --config,
//     --skip-git-repo-check, --dangerously-bypass-approvals-and-sandbox,
//     --image, --output-last-message, …, long and short, "--name value"
//     or "--name=value"), "resume SESSION_ID" or "resume --last", "--",
//     and one prompt, "-" meaning standard input;
//   - like the real CLI, refuses an unknown option, a missing or bad value
//     and a second prompt ([ExitUsage], clap's message on Stderr), and a
//     run with no prompt in Args or on Stdin ([ExitError]);
//   - supports only --json output, refusing a run without it
//     ([ExitUsage]);
//   - replays the transcript named by "-transcript FILE" or else by
//     [EnvTranscript], after copying its companion .stderr file (same name,
//     ".stderr" instead of ".jsonl"), if there is one, to Stderr;
//   - waits [EnvDelay] before each line when it is set;
//   - returns [ExitOK] when the transcript's turn completed, as read by a
//     [codex.Turn], and [ExitError] otherwise: a failed turn, a resume
//     that printed nothing, an output without its final line.
//
// When ctx ends, Run stops at once and returns [ExitInterrupt], or the
// Code of a [Stopped] cause.
//
// A Read cannot be interrupted, so Run reads the prompt from Stdin in a
// goroutine. It is the one goroutine that can outlive Run: when ctx ends
// during that read, Run returns without waiting for it, and it ends when
// Stdin's Read returns, at the end of input or when the caller closes the
// pipe; it touches nothing but Stdin. A process that exits ends it; a test
// that cancels Run while it waits for a prompt should close the writing end
// of the pipe it passed as Stdin.
func Run(ctx context.Context, env Env) int {
	r := runner{fakecli.Runner{
		Ctx:      ctx,
		Env:      fakecli.Env(env),
		Name:     "fakecodex",
		StopCode: fakecli.StopCode(func(s Stopped) int { return s.Code }),
	}}
	return r.run()
}

type runner struct {
	fakecli.Runner
}

func (r *runner) run() int {
	if r.Ctx.Err() != nil {
		return r.Stop()
	}
	if len(r.Env.Args) > 0 && r.Env.Args[0] == "app-server" {
		return r.appServer(r.Env.Args[1:])
	}
	inv := parseArgs(r.Env.Args)
	if inv.usageErr != "" {
		r.Errorf("%s", inv.usageErr)
		return ExitUsage
	}
	if !inv.json {
		r.Errorf("fakecodex: only --json output is supported")
		return ExitUsage
	}
	delay, err := r.Delay(EnvDelay)
	if err != nil {
		return ExitError
	}
	name, err := r.TranscriptName(inv.transcript, "-transcript", EnvTranscript)
	if err != nil {
		return ExitError
	}
	transcript, name, err := r.OpenTranscript(name, fakecli.NewOrResume(inv.resume))
	if err != nil {
		r.Errorf("fakecodex: %v", err)
		return ExitError
	}
	defer transcript.Close()

	if !inv.hasPrompt {
		prompt, err := r.ReadStdin()
		if err != nil {
			return r.Exit(err)
		}
		if strings.TrimSpace(prompt) == "" {
			r.Errorf("No prompt provided via stdin.")
			return ExitError
		}
	}
	if err := r.CopyCompanion(name, ".stderr", r.Env.Stderr); err != nil {
		r.Errorf("fakecodex: %v", err)
		return ExitError
	}
	return r.replay(transcript, delay)
}

// replay writes the transcript to Stdout line by line and works out the
// exit status from what a [codex.Turn] reads in it.
func (r *runner) replay(transcript io.Reader, delay time.Duration) int {
	var turn codex.Turn
	var events []codex.Event
	err := r.Replay(transcript, delay, func(line []byte) {
		events, _ = turn.Feed(line, events[:0])
	})
	if err != nil {
		return r.Exit(err)
	}
	final, _ := turn.Final()
	if _, ok := final.(codex.TurnCompleted); !ok {
		return ExitError
	}
	return ExitOK
}
