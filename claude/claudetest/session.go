package claudetest

import (
	"bytes"
	"io"
	"strings"
	"time"

	"github.com/acpkit/acpkit/internal/lines"
)

// maxInputLine bounds a line the client writes to the fake in
// streaming-input mode; a turn carrying images stays far below it.
const maxInputLine = 64 << 20

// input is one line the client wrote, or the error that ended its input.
type input struct {
	line []byte
	err  error
}

// session replays a two-direction transcript: the mode the official SDKs
// use, with --input-format stream-json. See [Run].
func (r *runner) session(inv invocation) int {
	if len(inv.prompt) > 0 {
		r.errorf("fakeclaude: no prompt argument with --input-format stream-json: turns come on stdin")
		return ExitError
	}
	f, name, delay, ok := r.prepare(inv, "Error: --input-format=stream-json requires output-format=stream-json.")
	if !ok {
		return ExitError
	}
	records, err := ReadRecords(f)
	f.Close()
	if err != nil {
		r.errorf("fakeclaude: %s: %v", name, err)
		return ExitError
	}
	if err := r.copyCompanion(name); err != nil {
		r.errorf("fakeclaude: %v", err)
		return ExitError
	}
	done := make(chan struct{})
	defer close(done)
	p := player{runner: r, name: name, delay: delay, stdin: r.readLines(done), ids: map[string]string{}, used: map[string]bool{}}
	return p.play(records)
}

// readLines reads the client's lines in a goroutine, since a Read cannot be
// interrupted; it ends at the end of Stdin, or once done is closed and its
// current Read returns (see [Run]).
func (r *runner) readLines(done <-chan struct{}) <-chan input {
	ch := make(chan input)
	go func() {
		send := func(in input) bool {
			select {
			case ch <- in:
				return true
			case <-done:
				return false
			}
		}
		if r.env.Stdin == nil {
			send(input{err: io.EOF})
			return
		}
		lr := lines.NewReader(r.env.Stdin, maxInputLine)
		for {
			line, err := lr.Next()
			if err != nil { // io.EOF, a read error, or a runaway line
				send(input{err: err})
				return
			}
			if !send(input{line: bytes.Clone(line)}) {
				return
			}
		}
	}()
	return ch
}

// player walks a transcript's records against a live client.
type player struct {
	*runner
	name  string
	delay time.Duration
	stdin <-chan input
	ids   map[string]string // the transcript's request ids -> the client's
	used  map[string]bool   // request ids the client has used
}

func (p *player) play(records []Record) int {
	code := ExitOK
	for i, rec := range records {
		switch rec.Dir {
		case DirOut:
			if p.delay > 0 && p.env.Sleep != nil {
				if err := p.env.Sleep(p.ctx, p.delay); err != nil {
					return p.stopped()
				}
			}
			if p.ctx.Err() != nil {
				return p.stopped()
			}
			line := []byte(rec.Line)
			if _, answers := requestIDs(line); answers != "" {
				if id, ok := p.ids[answers]; ok {
					line = rewriteAnswer(line, id)
				}
			}
			if p.env.Stdout != nil {
				if _, err := p.env.Stdout.Write(append(line, '\n')); err != nil {
					p.errorf("fakeclaude: writing stdout: %v", err)
					return ExitError
				}
			}
		case DirIn:
			if c, ok := p.expect(i, rec); !ok {
				return c
			}
		case DirStdinClosed:
			in, c, ok := p.next()
			if !ok {
				return c
			}
			if in.err != io.EOF {
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
	case <-p.ctx.Done():
		return input{}, p.stopped(), false
	case in = <-p.stdin:
		return in, 0, true
	}
}

// expect reads the client's next line and checks it against record i,
// loosely: the same kind (see [Kind]), a fresh request id for a request,
// and the right id in an answer to the CLI's request.
func (p *player) expect(i int, rec Record) (code int, ok bool) {
	in, code, ok := p.next()
	if !ok {
		return code, false
	}
	want := Kind([]byte(rec.Line))
	if in.err != nil {
		return p.unexpected(i, want, in), false
	}
	got := Kind(in.line)
	if got == "" {
		// The real CLI dies on such a line.
		p.errorf("fakeclaude: %s: record %d: stdin line is not a JSON object (%d bytes); the real CLI exits here", p.name, i+1, len(in.line))
		return ExitError, false
	}
	if got != want {
		return p.unexpected(i, want, in), false
	}
	wantReq, wantAnswer := requestIDs([]byte(rec.Line))
	gotReq, gotAnswer := requestIDs(in.line)
	switch {
	case wantReq != "":
		if gotReq == "" || p.used[gotReq] {
			p.errorf("fakeclaude: %s: record %d: control request without a fresh request_id: %s", p.name, i+1, clip(in.line))
			return ExitError, false
		}
		p.used[gotReq] = true
		p.ids[wantReq] = gotReq
	case wantAnswer != "" && gotAnswer != wantAnswer:
		p.errorf("fakeclaude: %s: record %d: the answer is for request %q, want %q: %s", p.name, i+1, gotAnswer, wantAnswer, clip(in.line))
		return ExitError, false
	}
	return 0, true
}

// unexpected reports input the transcript did not expect, and returns the
// status to exit with.
func (p *player) unexpected(i int, want string, in input) int {
	got := "the end of stdin"
	switch {
	case in.err == nil:
		got = Kind(in.line) + ": " + clip(in.line)
	case in.err != io.EOF:
		got = "an error: " + in.err.Error()
	}
	p.errorf("fakeclaude: %s: record %d expects %s from the client, got %s", p.name, i+1, want, got)
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
