package claudetest

import (
	"bytes"
	"cmp"
	"io"
	"strings"
	"time"

	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// maxInputLine bounds a line the client writes to the fake in
// streaming-input mode; a turn carrying images stays far below it.
const maxInputLine = 64 << 20

// input is one line the client wrote, or the error that ended its input.
type input = fakecli.Input

// session replays a two-direction transcript: the mode the official SDKs
// use, with --input-format stream-json. See [Run].
func (r *runner) session(inv invocation) int {
	if len(inv.prompt) > 0 {
		r.Errorf("fakeclaude: no prompt argument with --input-format stream-json: turns come on stdin")
		return ExitError
	}
	f, name, delay, ok := r.prepare(inv, "Error: --input-format=stream-json requires output-format=stream-json.")
	if !ok {
		return ExitError
	}
	records, err := ReadRecords(f)
	f.Close()
	if err != nil {
		r.Errorf("fakeclaude: %s: %v", name, err)
		return ExitError
	}
	if err := r.CopyCompanion(name, ".stderr", r.Env.Stderr); err != nil {
		r.Errorf("fakeclaude: %v", err)
		return ExitError
	}
	done := make(chan struct{})
	defer close(done)
	p := player{runner: r, name: name, delay: delay, stdin: r.readLines(done), ids: map[string]string{}, used: map[string]bool{}}
	// The CLI names its session by the id it was given, which the
	// transcript's lines name by the recorded run's.
	p.recorded, p.id = recordedSessionID(records), cmp.Or(inv.sessionID, inv.resume)
	p.store = newStoreWriter(r.env, cmp.Or(p.id, p.recorded))
	defer p.store.close()
	return p.play(records)
}

// recordedSessionID returns the session id the transcript's first CLI
// line names; "" when none does.
func recordedSessionID(records []Record) string {
	for _, rec := range records {
		if id := members.Get(gjson.Parse(rec.Line), "session_id"); rec.Dir == DirOut && id.Type == gjson.String && id.Str != "" {
			return id.Str
		}
	}
	return ""
}

// readLines reads the client's lines in a goroutine (see
// [fakecli.ReadLines]); it ends at the end of Stdin, or once done is
// closed and its current Read returns (see [Run]).
func (r *runner) readLines(done <-chan struct{}) <-chan input {
	return fakecli.ReadLines(r.Env.Stdin, maxInputLine, done)
}

// player walks a transcript's records against a live client.
type player struct {
	*runner
	name  string
	delay time.Duration
	stdin <-chan input
	ids   map[string]string // the transcript's request ids -> the client's
	used  map[string]bool   // request ids the client has used

	recorded, id string // the transcript's session id, and the run's ("" for the same)
	store        *storeWriter
}

func (p *player) play(records []Record) int {
	code := ExitOK
	for i, rec := range records {
		switch rec.Dir {
		case DirOut:
			line := []byte(rec.Line)
			if _, answers := requestIDs(line); answers != "" {
				if id, ok := p.ids[answers]; ok {
					line = rewriteAnswer(line, id)
				}
			}
			if p.id != "" && p.recorded != "" {
				line = bytes.ReplaceAll(line, []byte(p.recorded), []byte(p.id))
			}
			if err := p.Emit(append(line, '\n'), p.delay); err != nil {
				return p.Exit(err)
			}
			p.store.out(line, rec.T)
		case DirIn:
			line, c, ok := p.expect(i, rec)
			if !ok {
				return c
			}
			if Kind(line) == "user" {
				p.store.user(line, rec.T)
			}
		case DirStdinClosed:
			in, c, ok := p.next()
			if !ok {
				return c
			}
			if in.Err != io.EOF {
				return p.unexpected(i, "the end of stdin", in)
			}
		case DirExit:
			code = exitStatus(rec)
			return code
		}
	}
	return code
}

// next waits for the client's next line; ok is false when ctx ended
// first, and code is then the status to exit with.
func (p *player) next() (in input, code int, ok bool) {
	select {
	case <-p.Ctx.Done():
		return input{}, p.Stop(), false
	case in = <-p.stdin:
		return in, 0, true
	}
}

// expect reads the client's next line and checks it against record i,
// loosely: the same kind (see [Kind]), a fresh request id for a request,
// and the right id in an answer to the CLI's request.
func (p *player) expect(i int, rec Record) (line []byte, code int, ok bool) {
	in, code, ok := p.next()
	if !ok {
		return nil, code, false
	}
	want := Kind([]byte(rec.Line))
	if in.Err != nil {
		return nil, p.unexpected(i, want, in), false
	}
	got := Kind(in.Line)
	if got == "" {
		// The real CLI dies on such a line.
		p.Errorf("fakeclaude: %s: record %d: stdin line is not a JSON object (%d bytes); the real CLI exits here", p.name, i+1, len(in.Line))
		return nil, ExitError, false
	}
	if got != want {
		return nil, p.unexpected(i, want, in), false
	}
	wantReq, wantAnswer := requestIDs([]byte(rec.Line))
	gotReq, gotAnswer := requestIDs(in.Line)
	switch {
	case wantReq != "":
		if gotReq == "" || p.used[gotReq] {
			p.Errorf("fakeclaude: %s: record %d: control request without a fresh request_id: %s", p.name, i+1, clip(in.Line))
			return nil, ExitError, false
		}
		p.used[gotReq] = true
		p.ids[wantReq] = gotReq
	case wantAnswer != "" && gotAnswer != wantAnswer:
		p.Errorf("fakeclaude: %s: record %d: the answer is for request %q, want %q: %s", p.name, i+1, gotAnswer, wantAnswer, clip(in.Line))
		return nil, ExitError, false
	}
	return in.Line, 0, true
}

// unexpected reports input the transcript did not expect, and returns the
// status to exit with.
func (p *player) unexpected(i int, want string, in input) int {
	got := "the end of stdin"
	switch {
	case in.Err == nil:
		got = Kind(in.Line) + ": " + clip(in.Line)
	case in.Err != io.EOF:
		got = "an error: " + in.Err.Error()
	}
	p.Errorf("fakeclaude: %s: record %d expects %s from the client, got %s", p.name, i+1, want, got)
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

// exitStatus is the status a DirExit record gives, as a shell reports it.
func exitStatus(rec Record) int {
	switch strings.TrimPrefix(rec.Signal, "SIG") {
	case "":
		return rec.Code
	case "INT":
		return ExitInterrupt
	case "TERM":
		return ExitTerminate
	}
	return ExitError
}
