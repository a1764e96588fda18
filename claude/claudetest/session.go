package claudetest

import (
	"bytes"
	"cmp"
	"io"
	"slices"
	"strconv"
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
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		r.Errorf("fakeclaude: %s: %v", name, err)
		return ExitError
	}
	printed := isPrintTranscript(data)
	var records []Record
	if printed {
		records = printRecords(data)
	} else if records, err = ReadRecords(bytes.NewReader(data)); err != nil {
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
	if printed {
		return p.playTurns(records)
	}
	return p.play(records)
}

// isPrintTranscript reports whether data is a transcript of a -p run,
// the CLI's lines alone, rather than of both directions: its first line
// that is a JSON object is one of the CLI's, with a type and no dir.
func isPrintTranscript(data []byte) bool {
	for line := range bytes.Lines(data) {
		if v := gjson.ParseBytes(line); v.IsObject() {
			return members.Get(v, "type").Exists() && !members.Get(v, "dir").Exists()
		}
	}
	return false
}

// printRecords returns the lines of a -p transcript as the CLI's records,
// blank lines left out.
func printRecords(data []byte) []Record {
	var out []Record
	for line := range bytes.Lines(data) {
		if line = bytes.TrimRight(line, "\r\n"); len(bytes.TrimSpace(line)) > 0 {
			out = append(out, Record{Dir: DirOut, Line: string(line)})
		}
	}
	return out
}

// playTurns plays the CLI's records of a -p transcript in streaming-input
// mode: a turn for each user message, each turn the records up to and
// including the next result line (the last turn also those after it). It
// answers every control request with success and an empty response, and
// exits 0 when the client closes its input; a user message after the
// last turn fails the run.
func (p *player) playTurns(records []Record) int {
	for i := 1; ; i++ {
		in, code, ok := p.next()
		switch {
		case !ok:
			return code
		case in.Err == io.EOF:
			return ExitOK
		case in.Err != nil:
			return p.unexpected(i, "a line", in)
		}
		switch kind := Kind(in.Line); {
		case kind == "":
			p.Errorf("fakeclaude: %s: stdin line %d is not a JSON object (%d bytes); the real CLI exits here", p.name, i, len(in.Line))
			return ExitError
		case kind == "user":
			if len(records) == 0 {
				p.Errorf("fakeclaude: %s: a turn after the transcript's last: %s", p.name, clip(in.Line))
				return ExitError
			}
			p.store.user(in.Line, 0)
			n := turnLength(records)
			for _, rec := range records[:n] {
				line := []byte(rec.Line)
				if p.id != "" && p.recorded != "" {
					line = bytes.ReplaceAll(line, []byte(p.recorded), []byte(p.id))
				}
				if err := p.Emit(append(line, '\n'), p.delay); err != nil {
					return p.Exit(err)
				}
				p.store.out(line, 0)
			}
			records = records[n:]
		case strings.HasPrefix(kind, "control_request/"):
			id, _ := requestIDs(in.Line)
			answer := `{"type":"control_response","response":{"subtype":"success","request_id":` + strconv.Quote(id) + `,"response":{}}}`
			if err := p.Emit([]byte(answer+"\n"), 0); err != nil {
				return p.Exit(err)
			}
		}
	}
}

// turnLength returns how many of records make the next turn: up to and
// including the first result line, or all when no result line follows.
func turnLength(records []Record) int {
	for i, rec := range records {
		if Kind([]byte(rec.Line)) == "result" {
			if i+1 < len(records) && !slices.ContainsFunc(records[i+1:], func(r Record) bool { return Kind([]byte(r.Line)) == "result" }) {
				return len(records) // the last turn keeps what follows its result
			}
			return i + 1
		}
	}
	return len(records)
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
	if in.Err == io.EOF && want == "user" {
		// The end of input between turns: the real CLI exits 0.
		return nil, ExitOK, false
	}
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
