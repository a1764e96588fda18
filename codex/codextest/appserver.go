package codextest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// Directions of an [AppServerRecord].
const (
	DirClient = "client" // a line the client wrote to the server
	DirServer = "server" // a line the server wrote to the client
	// DirExit is not in the captures: a record a test adds where the
	// server is to exit at once, closing its output, whatever the client
	// does.
	DirExit = "exit"
)

// AppServerRecord is one record of a two-direction transcript of `codex
// app-server` (a .ndjson file), the format in which ../shared/captures
// records it: every line in both directions, in order.
//
//	{"dir":"client","t_ms":14,"msg":{"id":1,"method":"initialize",…}}
//	{"dir":"server","t_ms":395,"msg":{"id":1,"result":{…}}}
//
// A server line that is not JSON is kept as Raw, with no Msg.
type AppServerRecord struct {
	// Dir is [DirClient], [DirServer] or [DirExit].
	Dir string `json:"dir"`
	// T is when the line was written, in milliseconds since the server
	// started.
	T int64 `json:"t_ms"`
	// Msg is the line, a JSON object; Raw a server line that is not one.
	Msg json.RawMessage `json:"msg,omitempty"`
	Raw string          `json:"raw,omitempty"`
}

// ErrAppServerTranscript is wrapped by the errors of
// [ReadAppServerTranscript] for a transcript that is not in the format.
var ErrAppServerTranscript = errors.New("codextest: malformed app-server transcript")

// ErrDeparted is wrapped by the error of [ServeAppServer] when the client
// does something the transcript does not: it writes another line than the
// one recorded, a line that is not JSON, or closes its input early.
var ErrDeparted = errors.New("codextest: the client departed from the transcript")

// ReadAppServerTranscript reads a two-direction app-server transcript:
// one JSON [AppServerRecord] per line, blank lines skipped. It fails on a
// record that is not one, names a direction it does not know, or lacks the
// line its direction needs; the error says which record (1-based) and
// wraps [ErrAppServerTranscript].
func ReadAppServerTranscript(r io.Reader) ([]AppServerRecord, error) {
	lr := lines.NewReader(r, 1<<30)
	var out []AppServerRecord
	for {
		line, err := lr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("codextest: reading transcript: %w", err)
		}
		var rec AppServerRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", ErrAppServerTranscript, len(out)+1, err)
		}
		switch {
		case rec.Dir == DirClient && isObject(rec.Msg):
		case rec.Dir == DirServer && (isObject(rec.Msg) || rec.Msg == nil && rec.Raw != ""):
		case rec.Dir == DirExit:
		default:
			return nil, fmt.Errorf("%w: record %d: a %q record without its line", ErrAppServerTranscript, len(out)+1, rec.Dir)
		}
		out = append(out, rec)
	}
}

// WriteAppServerTranscript writes records in the format
// ReadAppServerTranscript reads, one JSON record per line, leaving <, > and
// & as they are: a test that edits a recorded transcript (adds a DirExit,
// say) writes it for the fakecodex binary to replay.
func WriteAppServerTranscript(w io.Writer, records []AppServerRecord) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, r := range records {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("codextest: record %d: %w", i+1, err)
		}
	}
	return nil
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	_, _, ok := jsonscan.CheckObject(bytes.TrimSpace(raw))
	return len(bytes.TrimSpace(raw)) > 0 && ok
}

// ServeAppServer plays the server's side of records against a live
// client, as `codex app-server` would: it writes the server's lines to
// stdout, one per line, and reads the client's from stdin, checking each
// against the one recorded there before going on. The check is loose where
// a client may legitimately differ: a request must have the recorded
// method (its id may differ, and the server's answer is rewritten to it)
// and the recorded threadId and turnId when it has them; a notification
// the recorded method; an answer to a server request its id and, when the
// recorded answer has one, its decision or action. Other members are not
// compared.
//
// At a [DirExit] record ServeAppServer returns nil at once, as a server
// that exits. After the last record it waits for the end of stdin, as the
// real server exits when its input closes, and returns nil; a line the
// client writes meanwhile is a departure. A departure returns an error
// wrapping [ErrDeparted] that says which record expected what; the caller
// should then close stdout, as the real server's exit would. When ctx ends
// ServeAppServer returns its error.
//
// A Read cannot be interrupted, so ServeAppServer reads stdin in a
// goroutine, which ends when stdin's Read returns after ServeAppServer
// has: the caller ends it by closing stdin (the pipe's writing end, in a
// test), as a process's exit does.
func ServeAppServer(ctx context.Context, records []AppServerRecord, stdin io.Reader, stdout io.Writer) error {
	done := make(chan struct{})
	defer close(done)
	p := appPlayer{ctx: ctx, stdout: stdout, in: fakecli.ReadLines(stdin, maxInputLine, done), ids: map[string]string{}}
	for i, rec := range records {
		var err error
		switch rec.Dir {
		case DirServer:
			err = p.emit(rec)
		case DirClient:
			err = p.expect(i+1, rec)
		case DirExit:
			return nil
		}
		if err != nil {
			return err
		}
	}
	in, err := p.next()
	if err != nil {
		return err
	}
	if in.Err == nil {
		return fmt.Errorf("%w: the transcript has ended, but the client wrote %s", ErrDeparted, clip(in.Line))
	}
	return nil
}

// maxInputLine bounds a line of the client's; a turn carrying images stays
// far below it.
const maxInputLine = 64 << 20

// appPlayer walks a transcript against a live client.
type appPlayer struct {
	ctx    context.Context
	stdout io.Writer
	in     <-chan fakecli.Input
	ids    map[string]string // the transcript's request ids -> the client's, as JSON text
}

// next waits for the client's next line.
func (p *appPlayer) next() (fakecli.Input, error) {
	select {
	case <-p.ctx.Done():
		return fakecli.Input{}, p.ctx.Err()
	case in := <-p.in:
		return in, nil
	}
}

// emit writes a server record, answering the client's request by the id
// the client gave it.
func (p *appPlayer) emit(rec AppServerRecord) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	line := []byte(rec.Raw)
	if rec.Msg != nil {
		line = bytes.TrimSpace(rec.Msg)
		root := gjson.ParseBytes(line)
		if id := members.Get(root, "id"); id.Exists() && !members.Get(root, "method").Exists() {
			if got, ok := p.ids[compactID(id.Raw)]; ok {
				line = replaceValue(line, id, got)
			}
		}
	}
	if _, err := p.stdout.Write(append(line[:len(line):len(line)], '\n')); err != nil {
		return fmt.Errorf("codextest: writing to the client: %w", err)
	}
	return nil
}

// expect reads the client's next line and checks it against record n.
func (p *appPlayer) expect(n int, rec AppServerRecord) error {
	want := describe(rec.Msg)
	in, err := p.next()
	if err != nil {
		return err
	}
	if in.Err != nil {
		return fmt.Errorf("%w: record %d expects %s, got the end of the client's input (%v)", ErrDeparted, n, want, in.Err)
	}
	line := bytes.TrimSpace(in.Line)
	if !isObject(line) {
		// The real server answers such a line with an error and goes
		// on; a client that writes one has a bug a test wants to see.
		return fmt.Errorf("%w: record %d expects %s, got a line that is not a JSON object (%d bytes)", ErrDeparted, n, want, len(line))
	}
	if got := describe(line); got != want {
		return fmt.Errorf("%w: record %d expects %s, got %s: %s", ErrDeparted, n, want, got, clip(line))
	}
	wantRoot, gotRoot := gjson.ParseBytes(rec.Msg), gjson.ParseBytes(line)
	wantID, gotID := members.Get(wantRoot, "id"), members.Get(gotRoot, "id")
	switch {
	case members.Get(wantRoot, "method").Exists() && wantID.Exists(): // a request
		p.ids[compactID(wantID.Raw)] = compactID(gotID.Raw)
		for _, name := range []string{"threadId", "turnId"} {
			w, g := members.Get(members.Get(wantRoot, "params"), name), members.Get(members.Get(gotRoot, "params"), name)
			if w.Type == gjson.String && (g.Type != gjson.String || g.Str != w.Str) {
				return fmt.Errorf("%w: record %d expects %s with %s %q, got %s", ErrDeparted, n, want, name, w.Str, clip(line))
			}
		}
	case !members.Get(wantRoot, "method").Exists(): // an answer to the server
		if compactID(gotID.Raw) != compactID(wantID.Raw) {
			return fmt.Errorf("%w: record %d expects the answer to request %s, got one to %s", ErrDeparted, n, wantID.Raw, gotID.Raw)
		}
		for _, name := range []string{"decision", "action"} {
			w, g := members.Get(members.Get(wantRoot, "result"), name), members.Get(members.Get(gotRoot, "result"), name)
			if w.Exists() && compactID(w.Raw) != compactID(g.Raw) {
				return fmt.Errorf("%w: record %d expects the %s %s, got %s", ErrDeparted, n, name, w.Raw, clip(line))
			}
		}
	}
	return nil
}

// describe names a message for comparison: "request thread/start",
// "notification initialized", "answer", "error answer".
func describe(msg []byte) string {
	root := gjson.ParseBytes(msg)
	method, id := members.Get(root, "method"), members.Get(root, "id")
	switch {
	case method.Exists() && id.Exists():
		return "request " + method.String()
	case method.Exists():
		return "notification " + method.String()
	case members.Get(root, "error").Exists():
		return "error answer"
	}
	return "answer"
}

// compactID returns a JSON value's text without white space.
func compactID(raw string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) != nil {
		return raw
	}
	return b.String()
}

// replaceValue returns line with the value v, a member of its top-level
// object, replaced by the JSON text with; line itself when v cannot be
// found in it.
func replaceValue(line []byte, v gjson.Result, with string) []byte {
	if v.Index <= 0 || v.Index+len(v.Raw) > len(line) || string(line[v.Index:v.Index+len(v.Raw)]) != v.Raw {
		return line
	}
	out := make([]byte, 0, len(line)+len(with))
	out = append(out, line[:v.Index]...)
	out = append(out, with...)
	return append(out, line[v.Index+len(v.Raw):]...)
}

// appServerArgs reads the command line of `codex app-server`: its -c
// overrides, which the fake ignores, and the transcript to replay.
func appServerArgs(args []string) (transcript, usageErr string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch name {
		case "-c", "--config", "-transcript", "--transcript", "--listen":
			if !hasValue {
				if i+1 >= len(args) {
					return "", "error: a value is required for '" + name + "' but none was supplied"
				}
				i++
				value = args[i]
			}
			if strings.HasSuffix(name, "transcript") {
				transcript = value
			}
			if name == "--listen" && value != "stdio://" {
				return "", "fakecodex: only --listen stdio:// is supported"
			}
		default:
			return "", "error: unexpected argument '" + a + "' found"
		}
	}
	return transcript, ""
}

// appServer is `codex app-server`: it replays a two-direction transcript
// against the client on Stdin and Stdout, strictly or, with EnvLenient,
// leniently.
func (r *runner) appServer(args []string) int {
	transcript, usageErr := appServerArgs(args)
	if usageErr != "" {
		r.Errorf("%s", usageErr)
		return ExitUsage
	}
	name, err := r.TranscriptName(transcript, "-transcript", EnvTranscript)
	if err != nil {
		return ExitError
	}
	f, err := r.Env.Open(name)
	if err != nil {
		r.Errorf("fakecodex: %v", err)
		return ExitError
	}
	records, err := ReadAppServerTranscript(f)
	f.Close()
	if err != nil {
		r.Errorf("fakecodex: %s: %v", name, err)
		return ExitError
	}
	r.Exts = []string{".ndjson"}
	if err := r.CopyCompanion(name, ".stderr", r.Env.Stderr); err != nil {
		r.Errorf("fakecodex: %v", err)
		return ExitError
	}
	if r.Env.Stdout == nil {
		r.Env.Stdout = io.Discard
	}
	switch lenient := r.Getenv(EnvLenient); lenient {
	case "", "0":
		err = ServeAppServer(r.Ctx, records, r.Env.Stdin, r.Env.Stdout)
	case "1":
		delay, derr := r.Delay(EnvDelay)
		if derr != nil {
			return ExitError
		}
		err = ServeLenientAppServer(r.Ctx, records, r.Env.Stdin, r.Env.Stdout, LenientOptions{Delay: delay, Sleep: r.Env.Sleep})
	default:
		r.Errorf("fakecodex: %s=%q is neither 0 nor 1", EnvLenient, lenient)
		return ExitError
	}
	switch {
	case err == nil:
		return ExitOK
	case r.Ctx.Err() != nil:
		return r.Stop()
	}
	r.Errorf("fakecodex: %s: %v", name, err)
	return ExitError
}

// clip shortens a client line for a message.
func clip(line []byte) string {
	const max = 200
	if len(line) <= max {
		return string(line)
	}
	return string(line[:max]) + "…"
}
