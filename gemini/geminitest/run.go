package geminitest

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

	"github.com/acpkit/acpkit/gemini"
)

// Environment variables the fake CLI reads.
const (
	// EnvTranscript names the transcript to replay when the command line
	// has no --transcript: a .jsonl file, or a directory holding
	// new.jsonl (replayed without --resume) and resume.jsonl (with it).
	EnvTranscript = "FAKEGEMINI_TRANSCRIPT"
	// EnvDelay is a Go duration ("50ms") to wait before each line.
	EnvDelay = "FAKEGEMINI_DELAY"
	// EnvUntrusted, set to "1", makes the fake behave as in a folder the
	// user has not trusted: without --skip-trust it exits with
	// [ExitUntrustedFolder].
	EnvUntrusted = "FAKEGEMINI_UNTRUSTED"
)

// Exit statuses of the fake CLI that do not come from a transcript; they
// are the real CLI's.
const (
	ExitOK              = 0
	ExitError           = 1   // a failed run without an .exit file, or a missing result
	ExitInput           = 42  // no prompt, or a --resume naming no session
	ExitUntrustedFolder = 55  // see EnvUntrusted
	ExitInterrupt       = 130 // stopped by SIGINT
	ExitTerminate       = 143 // stopped by SIGTERM (128 + 15)
)

// Stopped is the cancellation cause a caller gives ctx to stop [Run] with a
// given exit status, for instance Stopped{Code: ExitTerminate} on SIGTERM
// (see context.WithCancelCause).
type Stopped struct {
	Code int
}

// Error says which exit status the run stopped with.
func (s Stopped) Error() string {
	return "geminitest: stopped with exit status " + strconv.Itoa(s.Code)
}

// Env is everything [Run] touches: it has no other access to the process,
// the file system or the clock.
type Env struct {
	// Args are the command-line arguments, without the program name.
	Args []string
	// Stdin is read to its end, as the real CLI reads a standard input
	// that is not a terminal: its text comes before the -p prompt. Nil
	// reads as empty.
	Stdin io.Reader
	// Stdout receives the transcript's lines; Stderr the companion
	// .stderr file and diagnostics.
	Stdout, Stderr io.Writer
	// Open opens a transcript, its companion files, or a transcript
	// directory, by the name given on the command line or in the
	// environment. A program passes a function calling os.Open; a test
	// can pass the Open method of an fs.FS such as fstest.MapFS.
	Open func(name string) (fs.File, error)
	// Getenv returns an environment variable's value, "" when unset. Nil
	// means an empty environment.
	Getenv func(key string) string
	// Sleep waits for d, returning early with ctx's error if ctx ends
	// first. Nil skips the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Run behaves like `gemini --output-format stream-json`, with a recorded
// transcript standing in for the model, and returns the process exit
// status. It:
//
//   - accepts the real CLI's options (-p/--prompt, -m/--model,
//     -o/--output-format, -r/--resume, --approval-mode, -y/--yolo,
//     -s/--sandbox, --skip-trust, --include-directories, -e/--extensions,
//     --allowed-mcp-server-names, -d/--debug, …), a positional query and
//     "--"; it names any other flag on Stderr and otherwise ignores it;
//   - supports only --output-format stream-json, and refuses
//     -i/--prompt-interactive, which needs a terminal;
//   - like the real CLI, exits with [ExitInput] when neither Stdin, -p
//     nor a query gives a prompt;
//   - replays the transcript named by "--transcript FILE" or else by
//     [EnvTranscript], after copying its companion .stderr file (same
//     name, ".stderr" instead of ".jsonl"), if there is one, to Stderr;
//   - given a directory, replays new.jsonl without --resume and
//     resume.jsonl with it, after checking the resumed id as the real CLI
//     does: "latest", an index ("1"), or the session id new.jsonl's init
//     line prints; any other id prints an error and exits with
//     [ExitInput], with nothing on Stdout;
//   - waits [EnvDelay] before each line when it is set;
//   - exits with the status in the transcript's companion .exit file, or,
//     without one, [ExitOK] after a successful result line and
//     [ExitError] otherwise.
//
// When ctx ends, Run stops at once and returns [ExitInterrupt], or the
// Code of a [Stopped] cause.
//
// A Read cannot be interrupted, so Run reads Stdin in a goroutine. It is
// the one goroutine that can outlive Run: when ctx ends during that read,
// Run returns without waiting for it, and it ends when Stdin's Read
// returns, at the end of input or when the caller closes the pipe; it
// touches nothing but Stdin.
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
		r.errorf("fakegemini: ignoring unknown option %s", name)
	}
	if inv.interactive {
		r.errorf("fakegemini: --prompt-interactive needs a terminal; it is not supported")
		return ExitError
	}
	if inv.outputFormat != "stream-json" {
		r.errorf("fakegemini: only --output-format stream-json is supported")
		return ExitError
	}
	var delay time.Duration
	if s := r.getenv(EnvDelay); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			r.errorf("fakegemini: %s=%q is not a non-negative Go duration", EnvDelay, s)
			return ExitError
		}
		delay = d
	}
	name := inv.transcript
	if name == "" {
		name = r.getenv(EnvTranscript)
	}
	if name == "" {
		r.errorf("fakegemini: no transcript: pass --transcript FILE or set %s", EnvTranscript)
		return ExitError
	}
	if r.env.Open == nil {
		r.errorf("fakegemini: no way to open %s", name)
		return ExitError
	}
	if r.getenv(EnvUntrusted) == "1" && !inv.skipTrust {
		r.errorf("Gemini CLI is not running in a trusted directory. To proceed, trust the directory or pass --skip-trust.")
		return ExitUntrustedFolder
	}
	stdin, code, ok := r.readStdin()
	if !ok {
		return code
	}
	if stdin == "" && inv.prompt == "" && strings.Join(inv.query, " ") == "" {
		r.errorf("No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.")
		return ExitInput
	}
	transcript, name, err := r.openTranscript(name, inv)
	if err != nil {
		var unknown unknownSession
		if errors.As(err, &unknown) {
			r.errorf("Error resuming session: %v", err)
			return ExitInput
		}
		r.errorf("fakegemini: %v", err)
		return ExitError
	}
	defer transcript.Close()
	if err := r.copyCompanion(name, ".stderr", r.env.Stderr); err != nil {
		r.errorf("fakegemini: %v", err)
		return ExitError
	}
	code = r.replay(transcript, delay)
	if code < 0 {
		return r.stopped()
	}
	var exit strings.Builder
	if err := r.copyCompanion(name, ".exit", &exit); err != nil {
		r.errorf("fakegemini: %v", err)
		return ExitError
	}
	if s := strings.TrimSpace(exit.String()); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 255 {
			r.errorf("fakegemini: %s: %q is not an exit status", strings.TrimSuffix(name, ".jsonl")+".exit", s)
			return ExitError
		}
		return n
	}
	return code
}

// unknownSession is the error for a --resume that names no session of a
// transcript directory.
type unknownSession string

func (u unknownSession) Error() string {
	return "no session found with identifier " + strconv.Quote(string(u))
}

// openTranscript opens name, or the file for this call inside it when it
// is a directory, and returns the name of the file opened.
func (r *runner) openTranscript(name string, inv invocation) (fs.File, string, error) {
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
	dir := filepath.ToSlash(name)
	if inv.hasResume {
		known, err := r.sessionOf(path.Join(dir, "new.jsonl"))
		if err != nil {
			return nil, "", err
		}
		if !resumable(inv.resume, known) {
			return nil, "", unknownSession(inv.resume)
		}
		name = path.Join(dir, "resume.jsonl")
	} else {
		name = path.Join(dir, "new.jsonl")
	}
	f, err = r.env.Open(name)
	if err != nil {
		return nil, "", err
	}
	return f, name, nil
}

// resumable reports whether --resume id selects the session known: the
// real CLI takes "latest", an index into its list, or a session id.
func resumable(id, known string) bool {
	if id == "latest" || id == known && known != "" {
		return true
	}
	n, err := strconv.Atoi(id)
	return err == nil && n == 1 // the directory holds one session
}

// sessionOf returns the session id the first run of a conversation prints.
func (r *runner) sessionOf(name string) (string, error) {
	f, err := r.env.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var events []gemini.Event
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var sid []byte
			if events, sid, _ = gemini.ParseLine(line, events[:0]); sid != nil {
				return string(sid), nil
			}
		}
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", err
		}
	}
}

// readStdin reads Stdin to its end; ok is false when ctx ended first, in
// which case the read goes on in the background until Stdin returns (see
// [Run]).
func (r *runner) readStdin() (text string, code int, ok bool) {
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
			r.errorf("fakegemini: reading stdin: %v", got.err)
			return "", ExitError, false
		}
		return strings.TrimSpace(string(got.b)), 0, true
	}
}

// copyCompanion copies name's companion file with the given suffix in
// place of ".jsonl", if there is one, to w.
func (r *runner) copyCompanion(name, suffix string, w io.Writer) error {
	if !strings.HasSuffix(name, ".jsonl") {
		return nil
	}
	f, err := r.env.Open(strings.TrimSuffix(name, ".jsonl") + suffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if w == nil {
		return nil
	}
	_, err = io.Copy(w, f)
	return err
}

// replay writes the transcript to Stdout line by line and works out the
// exit status from its result line; -1 means ctx ended.
func (r *runner) replay(transcript io.Reader, delay time.Duration) int {
	code := ExitError // until a successful result line is seen
	br := bufio.NewReader(transcript)
	var events []gemini.Event
	for {
		line, readErr := br.ReadBytes('\n')
		if len(line) > 0 {
			if delay > 0 && r.env.Sleep != nil {
				if err := r.env.Sleep(r.ctx, delay); err != nil {
					return -1
				}
			}
			if r.ctx.Err() != nil {
				return -1
			}
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if r.env.Stdout != nil {
				if _, err := r.env.Stdout.Write(line); err != nil {
					r.errorf("fakegemini: writing stdout: %v", err)
					return ExitError
				}
			}
			events, _, _ = gemini.ParseLine(line, events[:0])
			for _, e := range events {
				if res, ok := e.(gemini.Result); ok {
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
			r.errorf("fakegemini: reading transcript: %v", readErr)
			return ExitError
		}
	}
}
