package claudetest

import (
	"context"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/fakecli"
)

// Environment variables the fake CLI reads.
const (
	// EnvTranscript names the transcript to replay when the command line
	// has no -transcript: a .jsonl file, or a directory holding new.jsonl
	// (replayed without --resume) and resume.jsonl (with it).
	EnvTranscript = "FAKECLAUDE_TRANSCRIPT"
	// EnvDelay is a Go duration ("50ms") to wait before each line.
	EnvDelay = "FAKECLAUDE_DELAY"
	// EnvAuthFails, set to anything but "", makes `auth login` and `auth
	// logout` fail, as the real CLI's do when the sign-in is abandoned.
	EnvAuthFails = "FAKECLAUDE_AUTH_FAILS"
)

// Exit statuses of the fake CLI, as a shell reports them.
const (
	ExitOK        = 0
	ExitError     = 1   // a failed run, a missing result, or a bad command line
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
	return "claudetest: stopped with exit status " + strconv.Itoa(s.Code)
}

// Env is everything [Run] touches: it has no other access to the process,
// the file system or the clock.
type Env struct {
	// Args are the command-line arguments, without the program name.
	Args []string
	// Stdin supplies the prompt when Args hold none: Run reads it to its
	// end. With --input-format stream-json, it supplies the client's
	// lines. Nil reads as empty.
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
	// Store, when not nil, makes the fake keep the sessions it plays in
	// streaming-input mode as Claude Code keeps its own: it appends each
	// session's entries to the file of [claude.SessionFile](Dir, id), a
	// name in the CLI's projects folder, which Store opens for appending,
	// creating the file and its folder. Nil keeps nothing.
	Store func(name string) (io.WriteCloser, error)
	// Dir is the directory the fake runs in, which the entries it stores
	// name as their cwd.
	Dir string
	// Now returns the time the stored entries are stamped with; nil
	// stamps them with the transcript's times, from 2026-12-01T20:50Z.
	Now func() time.Time
}

// Run behaves like `claude -p --output-format stream-json --verbose`, with
// a recorded transcript standing in for the model, and returns the process
// exit status. It:
//
//   - accepts the real CLI's options (-p, --output-format, --verbose,
//     --resume=ID or --resume ID, --model, --permission-mode, --max-turns,
//     --include-partial-messages, --mcp-config, --append-system-prompt,
//     --allowedTools, --disallowedTools, …) and "--"; it names any other
//     flag on Stderr and otherwise ignores it;
//   - like the real CLI, refuses stream-json output without --verbose, and
//     a run with no prompt in Args or on Stdin (message on Stderr, status
//     [ExitError]);
//   - replays the transcript named by "-transcript FILE" or else by
//     [EnvTranscript], after copying its companion .stderr file (same name,
//     ".stderr" instead of ".jsonl"), if there is one, to Stderr;
//   - waits [EnvDelay] before each line when it is set;
//   - returns [ExitError] when the transcript's result line reports an
//     error or when there is none, and [ExitOK] otherwise.
//
// Run as `auth login` or `auth logout`, it stands for the real CLI's
// sign-in and sign-out: it writes a line and returns [ExitOK], or, with
// [EnvAuthFails] set, writes why to Stderr and returns [ExitError].
//
// With --input-format stream-json and no prompt, Run instead plays a
// two-direction transcript (see the package documentation), reading the
// client's lines from Stdin as it goes, and returns the status its exit
// record gives.
//
// When ctx ends, Run stops at once and returns [ExitInterrupt], or the
// Code of a [Stopped] cause.
//
// A Read cannot be interrupted, so Run reads Stdin in a goroutine. It is
// the one goroutine that can outlive Run: when Run returns during a read,
// it does not wait for it, and the goroutine ends when Stdin's Read
// returns, at the end of input or when the caller closes the pipe; it
// touches nothing but Stdin. A process that exits ends it; a test that
// stops Run while it waits for input should close the writing end of the
// pipe it passed as Stdin.
func Run(ctx context.Context, env Env) int {
	r := runner{Runner: fakecli.Runner{
		Ctx: ctx,
		Env: fakecli.Env{
			Args: env.Args, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
			Open: env.Open, Getenv: env.Getenv, Sleep: env.Sleep,
		},
		Name:     "fakeclaude",
		StopCode: fakecli.StopCode(func(s Stopped) int { return s.Code }),
		Exts:     []string{".jsonl", ".ndjson"},
	}, env: env}
	return r.run()
}

type runner struct {
	fakecli.Runner
	env Env
}

func (r *runner) run() int {
	if r.Ctx.Err() != nil {
		return r.Stop()
	}
	if args := r.Env.Args; len(args) == 2 && args[0] == "auth" && (args[1] == "login" || args[1] == "logout") {
		return r.auth(args[1])
	}
	inv := parseArgs(r.Env.Args)
	if inv.usageErr != "" {
		r.Errorf("%s", inv.usageErr)
		return ExitError
	}
	for _, name := range inv.unknown {
		r.Errorf("fakeclaude: ignoring unknown option %s", name)
	}
	if inv.inputFormat == "stream-json" {
		return r.session(inv)
	}
	if !inv.print {
		r.Errorf("fakeclaude: pass -p, or --input-format stream-json for streaming input")
		return ExitError
	}
	transcript, name, delay, ok := r.prepare(inv, "fakeclaude: only --output-format stream-json is supported")
	if !ok {
		return ExitError
	}
	defer transcript.Close()

	if len(inv.prompt) == 0 {
		prompt, err := r.ReadStdin()
		if err != nil {
			return r.Exit(err)
		}
		if strings.TrimSpace(prompt) == "" {
			r.Errorf("Error: Input must be provided either through stdin or as a prompt argument when using --print")
			return ExitError
		}
	}
	if err := r.CopyCompanion(name, ".stderr", r.Env.Stderr); err != nil {
		r.Errorf("fakeclaude: %v", err)
		return ExitError
	}
	return r.replay(transcript, delay)
}

// prepare checks what both modes require of the command line, and opens
// the transcript; ok is false, and the reason on Stderr, when the run
// cannot go on. formatErr is the message for an output format other than
// stream-json.
func (r *runner) prepare(inv invocation, formatErr string) (f fs.File, name string, delay time.Duration, ok bool) {
	if inv.outputFormat != "stream-json" {
		r.Errorf("%s", formatErr)
		return nil, "", 0, false
	}
	if !inv.verbose {
		r.Errorf("Error: When using --print, --output-format=stream-json requires --verbose")
		return nil, "", 0, false
	}
	delay, err := r.Delay(EnvDelay)
	if err != nil {
		return nil, "", 0, false
	}
	if name, err = r.TranscriptName(inv.transcript, "-transcript", EnvTranscript); err != nil {
		return nil, "", 0, false
	}
	f, name, err = r.OpenTranscript(name, fakecli.NewOrResume(inv.hasResume))
	if err != nil {
		r.Errorf("fakeclaude: %v", err)
		return nil, "", 0, false
	}
	return f, name, delay, true
}

// replay writes the transcript to Stdout line by line and works out the
// exit status from its result line.
func (r *runner) replay(transcript io.Reader, delay time.Duration) int {
	status := ExitError // until a successful result line is seen
	var events []claude.Event
	err := r.Replay(transcript, delay, func(line []byte) {
		events, _, _ = claude.ParseLine(line, events[:0])
		for _, e := range events {
			if res, ok := e.(claude.Result); ok {
				status = ExitOK
				if res.Failed() {
					status = ExitError
				}
			}
		}
	})
	if err != nil {
		return r.Exit(err)
	}
	return status
}

// auth plays `auth login` or `auth logout`.
func (r *runner) auth(what string) int {
	if r.Env.Getenv != nil && r.Env.Getenv(EnvAuthFails) != "" {
		r.Errorf("fakeclaude: auth %s failed (%s is set)", what, EnvAuthFails)
		return ExitError
	}
	msg := "Signed in to the fake Claude Code.\n"
	if what == "logout" {
		msg = "Signed out of the fake Claude Code.\n"
	}
	if r.Env.Stdout != nil {
		io.WriteString(r.Env.Stdout, msg)
	}
	return ExitOK
}
