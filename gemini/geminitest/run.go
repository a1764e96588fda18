package geminitest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/internal/fakecli"
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
	// EnvLenient, set to "1", makes --acp answer any client as the real
	// `gemini --acp` would, drawing on the transcript, rather than replay
	// it in order: see [Run].
	EnvLenient = "FAKEGEMINI_LENIENT"
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
// With --acp (or --experimental-acp) it behaves like `gemini --acp`
// instead, Gemini CLI's ACP agent on standard input and output, and
// replays an ACP transcript ([ACPEntry]; a .ndjson file, with a
// companion .stderr) in both directions. It reads the client's lines and
// matches each to the transcript's next line of the client's that is a
// request or notification of the same method, or the answer to the same
// request of the agent's, skipping the exchanges the client does not
// have; it then writes the agent's lines that follow, up to the client's
// next, each response with the request id the client used. A request the
// transcript does not have there is answered -32601. It exits with
// [ExitOK] at the end of its input, or with an entry's exit status.
//
// With --acp and [EnvLenient] set to "1", it answers any client as the
// real `gemini --acp` 0.61.0 does instead, however many sessions,
// prompts and cancels it sends, in any order, drawing what it says from
// the transcript:
//
//   - initialize and authenticate: the transcript's answer to
//     initialize, and {};
//   - session/new: the transcript's answer with a fresh random session
//     id, then its available_commands_update;
//   - session/load of any id, as of a session the CLI has stored (the
//     fake keeps no store): the transcript's successful load, what it
//     replayed before and after its answer included, or else the answer
//     to session/new without its id; then available_commands_update;
//   - session/prompt: the session's next turn of the transcript's (the
//     first again after the last; turns that were cancelled are left
//     out), each line in the session's id, each request of the agent's
//     (a permission question, a file read or write) with an id of its
//     own, waiting for the client's answer before going on, and the
//     recorded answer, _meta.quota and all. When the client refuses a
//     permission, the tool's updates and the file requests after it are
//     left out, as the CLI does not run it. A prompt to a session
//     that is still answering one ends that turn first;
//   - session/cancel ends the session's turn at once, answered with stop
//     reason cancelled; a cancel while idle, or of a session it does
//     not know, is ignored;
//   - session/set_mode takes the modes session/new lists, refusing yolo
//     and autoEdit -32603 unless --skip-trust is given or
//     GEMINI_CLI_TRUST_WORKSPACE is "true", and session/set_model takes
//     any model;
//   - a prompt, set_mode or set_model of a session it did not open or
//     load is -32602 "Session not found", and any other method -32601,
//     worded as the CLI words them.
//
// [EnvDelay] then comes before each line of a session's answer, so that
// a client can cancel a turn in its middle. At the end of its input, Run
// says what it was saying, but for a turn waiting for the client, and
// exits with [ExitOK]. The transcript must hold an
// answered initialize, session/new and session/prompt, or Run exits with
// [ExitError], naming [ErrUnplayable] on Stderr.
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
	r := runner{fakecli.Runner{
		Ctx:      ctx,
		Env:      fakecli.Env(env),
		Name:     "fakegemini",
		StopCode: fakecli.StopCode(func(s Stopped) int { return s.Code }),
		Exts:     []string{".jsonl", ".ndjson"},
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
	inv := parseArgs(r.Env.Args)
	if inv.usageErr != "" {
		r.Errorf("%s", inv.usageErr)
		return ExitError
	}
	for _, name := range inv.unknown {
		r.Errorf("fakegemini: ignoring unknown option %s", name)
	}
	if inv.acp {
		name, err := r.TranscriptName(inv.transcript, "--transcript", EnvTranscript)
		if err != nil {
			return ExitError
		}
		return r.runACP(name, inv.skipTrust || r.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true")
	}
	if inv.interactive {
		r.Errorf("fakegemini: --prompt-interactive needs a terminal; it is not supported")
		return ExitError
	}
	if inv.outputFormat != "stream-json" {
		r.Errorf("fakegemini: only --output-format stream-json is supported")
		return ExitError
	}
	delay, err := r.Delay(EnvDelay)
	if err != nil {
		return ExitError
	}
	name, err := r.TranscriptName(inv.transcript, "--transcript", EnvTranscript)
	if err != nil {
		return ExitError
	}
	if r.Getenv(EnvUntrusted) == "1" && !inv.skipTrust {
		r.Errorf("Gemini CLI is not running in a trusted directory. To proceed, trust the directory or pass --skip-trust.")
		return ExitUntrustedFolder
	}
	stdin, err := r.ReadStdin()
	if err != nil {
		return r.Exit(err)
	}
	if strings.TrimSpace(stdin) == "" && inv.prompt == "" && strings.Join(inv.query, " ") == "" {
		r.Errorf("No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.")
		return ExitInput
	}
	transcript, name, err := r.OpenTranscript(name, func(dir string) (string, error) { return r.choose(dir, inv) })
	if err != nil {
		var unknown unknownSession
		if errors.As(err, &unknown) {
			r.Errorf("Error resuming session: %v", err)
			return ExitInput
		}
		r.Errorf("fakegemini: %v", err)
		return ExitError
	}
	defer transcript.Close()
	if err := r.CopyCompanion(name, ".stderr", r.Env.Stderr); err != nil {
		r.Errorf("fakegemini: %v", err)
		return ExitError
	}
	code := ExitError // until a successful result line is seen
	var events []gemini.Event
	err = r.Replay(transcript, delay, func(line []byte) {
		events, _, _ = gemini.ParseLine(line, events[:0])
		for _, e := range events {
			if res, ok := e.(gemini.Result); ok {
				code = ExitOK
				if res.Failed() {
					code = ExitError
				}
			}
		}
	})
	if errors.Is(err, fakecli.ErrStopped) {
		return r.Stop()
	}
	if err != nil {
		code = ExitError
	}
	var exit strings.Builder
	if err := r.CopyCompanion(name, ".exit", &exit); err != nil {
		r.Errorf("fakegemini: %v", err)
		return ExitError
	}
	if s := strings.TrimSpace(exit.String()); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 255 {
			r.Errorf("fakegemini: %s: %q is not an exit status", strings.TrimSuffix(name, ".jsonl")+".exit", s)
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

// choose names the file of a transcript directory for this call:
// new.jsonl, or resume.jsonl when --resume names the session new.jsonl
// starts.
func (r *runner) choose(dir string, inv invocation) (string, error) {
	if !inv.hasResume {
		return path.Join(dir, "new.jsonl"), nil
	}
	known, err := r.sessionOf(path.Join(dir, "new.jsonl"))
	if err != nil {
		return "", err
	}
	if !resumable(inv.resume, known) {
		return "", unknownSession(inv.resume)
	}
	return path.Join(dir, "resume.jsonl"), nil
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
	f, err := r.Env.Open(name)
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
