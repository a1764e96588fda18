package claudetest

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

	"github.com/acpkit/acpkit/claude"
)

// Environment variables the fake CLI reads.
const (
	// EnvTranscript names the transcript to replay when the command line
	// has no -transcript: a .jsonl file, or a directory holding new.jsonl
	// (replayed without --resume) and resume.jsonl (with it).
	EnvTranscript = "FAKECLAUDE_TRANSCRIPT"
	// EnvDelay is a Go duration ("50ms") to wait before each line.
	EnvDelay = "FAKECLAUDE_DELAY"
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
		return ExitError
	}
	for _, name := range inv.unknown {
		r.errorf("fakeclaude: ignoring unknown option %s", name)
	}
	if inv.inputFormat == "stream-json" {
		return r.session(inv)
	}
	if !inv.print {
		r.errorf("fakeclaude: pass -p, or --input-format stream-json for streaming input")
		return ExitError
	}
	transcript, name, delay, ok := r.prepare(inv, "fakeclaude: only --output-format stream-json is supported")
	if !ok {
		return ExitError
	}
	defer transcript.Close()

	if len(inv.prompt) == 0 {
		prompt, code, ok := r.readStdin()
		if !ok {
			return code
		}
		if strings.TrimSpace(prompt) == "" {
			r.errorf("Error: Input must be provided either through stdin or as a prompt argument when using --print")
			return ExitError
		}
	}
	if err := r.copyCompanion(name); err != nil {
		r.errorf("fakeclaude: %v", err)
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
		r.errorf("%s", formatErr)
		return nil, "", 0, false
	}
	if !inv.verbose {
		r.errorf("Error: When using --print, --output-format=stream-json requires --verbose")
		return nil, "", 0, false
	}
	if delay, ok = r.delay(); !ok {
		return nil, "", 0, false
	}
	f, name, ok = r.open(inv)
	return f, name, delay, ok
}

// delay reads [EnvDelay]; ok is false, and the reason on Stderr, when it
// is not a duration.
func (r *runner) delay() (d time.Duration, ok bool) {
	s := r.getenv(EnvDelay)
	if s == "" {
		return 0, true
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		r.errorf("fakeclaude: %s=%q is not a non-negative Go duration", EnvDelay, s)
		return 0, false
	}
	return d, true
}

// open opens the transcript the command line or the environment names;
// ok is false, and the reason on Stderr, when there is none to open.
func (r *runner) open(inv invocation) (f fs.File, name string, ok bool) {
	name = inv.transcript
	if name == "" {
		name = r.getenv(EnvTranscript)
	}
	if name == "" {
		r.errorf("fakeclaude: no transcript: pass -transcript FILE or set %s", EnvTranscript)
		return nil, "", false
	}
	if r.env.Open == nil {
		r.errorf("fakeclaude: no way to open %s", name)
		return nil, "", false
	}
	f, name, err := r.openTranscript(name, inv.hasResume)
	if err != nil {
		r.errorf("fakeclaude: %v", err)
		return nil, "", false
	}
	return f, name, true
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
			r.errorf("fakeclaude: reading stdin: %v", got.err)
			return "", ExitError, false
		}
		return string(got.b), 0, true
	}
}

// copyCompanion writes name's .stderr companion, if any, to Stderr.
func (r *runner) copyCompanion(name string) error {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		if base, ok = strings.CutSuffix(name, ".ndjson"); !ok {
			return nil
		}
	}
	f, err := r.env.Open(base + ".stderr")
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
// exit status from its result line.
func (r *runner) replay(transcript io.Reader, delay time.Duration) int {
	code := ExitError // until a successful result line is seen
	br := bufio.NewReader(transcript)
	var events []claude.Event
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
					r.errorf("fakeclaude: writing stdout: %v", err)
					return ExitError
				}
			}
			events, _, _ = claude.ParseLine(line, events[:0])
			for _, e := range events {
				if res, ok := e.(claude.Result); ok {
					code = ExitOK
					if res.Failed() {
						code = ExitError
					}
				}
			}
		}
		if errors.Is(readErr, io.EOF) {
			return code
		}
		if readErr != nil {
			r.errorf("fakeclaude: reading transcript: %v", readErr)
			return ExitError
		}
	}
}
