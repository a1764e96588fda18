package codextest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/acpkit/acpkit/codex"
)

// Environment variables the fake CLI reads.
const (
	// EnvTranscript names the transcript to replay when the command line
	// has no -transcript: a .jsonl file, or a directory holding new.jsonl
	// (replayed for a new thread) and resume.jsonl (for `exec resume`).
	EnvTranscript = "FAKECODEX_TRANSCRIPT"
	// EnvDelay is a Go duration ("50ms") to wait before each line.
	EnvDelay = "FAKECODEX_DELAY"
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
	r := runner{ctx: ctx, env: env}
	return r.run()
}

type runner struct {
	ctx context.Context
	env Env
}

func (r *runner) stopped() int {
	var s Stopped
	if errors.As(context.Cause(r.ctx), &s) {
		return s.Code
	}
	return ExitInterrupt
}

func (r *runner) errorf(format string, args ...any) {
	if r.env.Stderr != nil {
		fmt.Fprintf(r.env.Stderr, format+"\n", args...)
	}
}

func (r *runner) getenv(key string) string {
	if r.env.Getenv == nil {
		return ""
	}
	return r.env.Getenv(key)
}

func (r *runner) run() int {
	if r.ctx.Err() != nil {
		return r.stopped()
	}
	inv := parseArgs(r.env.Args)
	if inv.usageErr != "" {
		r.errorf("%s", inv.usageErr)
		return ExitUsage
	}
	if !inv.json {
		r.errorf("fakecodex: only --json output is supported")
		return ExitUsage
	}
	var delay time.Duration
	if s := r.getenv(EnvDelay); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			r.errorf("fakecodex: %s=%q is not a non-negative Go duration", EnvDelay, s)
			return ExitError
		}
		delay = d
	}
	name := inv.transcript
	if name == "" {
		name = r.getenv(EnvTranscript)
	}
	if name == "" {
		r.errorf("fakecodex: no transcript: pass -transcript FILE or set %s", EnvTranscript)
		return ExitError
	}
	if r.env.Open == nil {
		r.errorf("fakecodex: no way to open %s", name)
		return ExitError
	}
	transcript, name, err := r.openTranscript(name, inv.resume)
	if err != nil {
		r.errorf("fakecodex: %v", err)
		return ExitError
	}
	defer transcript.Close()

	if !inv.hasPrompt {
		prompt, code, ok := r.readStdin()
		if !ok {
			return code
		}
		if strings.TrimSpace(prompt) == "" {
			r.errorf("No prompt provided via stdin.")
			return ExitError
		}
	}
	if err := r.copyCompanion(name); err != nil {
		r.errorf("fakecodex: %v", err)
		return ExitError
	}
	return r.replay(transcript, delay)
}

// openTranscript opens name, or the file for this call inside it when it
// is a directory, and returns the name of the file opened.
func (r *runner) openTranscript(name string, resume bool) (fs.File, string, error) {
	f, err := r.env.Open(name)
	if err != nil {
		return nil, "", err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", err
	}
	if !info.IsDir() {
		return f, name, nil
	}
	f.Close()
	file := "new.jsonl"
	if resume {
		file = "resume.jsonl"
	}
	name = path.Join(filepath.ToSlash(name), file)
	f, err = r.env.Open(name)
	if err != nil {
		return nil, "", err
	}
	return f, name, nil
}

// readStdin reads the prompt; ok is false when ctx ended first, in which
// case the read goes on in the background until Stdin returns (see [Run]).
func (r *runner) readStdin() (prompt string, code int, ok bool) {
	if r.env.Stdin == nil {
		return "", 0, true
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(r.env.Stdin)
		done <- read{b, err}
	}()
	select {
	case <-r.ctx.Done():
		return "", r.stopped(), false
	case got := <-done:
		if got.err != nil {
			r.errorf("fakecodex: reading stdin: %v", got.err)
			return "", ExitError, false
		}
		return string(got.b), 0, true
	}
}

// copyCompanion writes name's .stderr companion, if any, to Stderr.
func (r *runner) copyCompanion(name string) error {
	if !strings.HasSuffix(name, ".jsonl") {
		return nil
	}
	f, err := r.env.Open(strings.TrimSuffix(name, ".jsonl") + ".stderr")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if r.env.Stderr == nil {
		return nil
	}
	_, err = io.Copy(r.env.Stderr, f)
	return err
}

// replay writes the transcript to Stdout line by line and works out the
// exit status from what a [codex.Turn] reads in it.
func (r *runner) replay(transcript io.Reader, delay time.Duration) int {
	var turn codex.Turn
	br := bufio.NewReader(transcript)
	var events []codex.Event
	for {
		line, readErr := br.ReadBytes('\n')
		if len(line) > 0 {
			if delay > 0 && r.env.Sleep != nil {
				if err := r.env.Sleep(r.ctx, delay); err != nil {
					return r.stopped()
				}
			}
			if r.ctx.Err() != nil {
				return r.stopped()
			}
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if r.env.Stdout != nil {
				if _, err := r.env.Stdout.Write(line); err != nil {
					r.errorf("fakecodex: writing stdout: %v", err)
					return ExitError
				}
			}
			events, _ = turn.Feed(line, events[:0])
		}
		if errors.Is(readErr, io.EOF) {
			break
		}
		if readErr != nil {
			r.errorf("fakecodex: reading transcript: %v", readErr)
			return ExitError
		}
	}
	final, _ := turn.Final()
	if _, ok := final.(codex.TurnCompleted); !ok {
		return ExitError
	}
	return ExitOK
}
