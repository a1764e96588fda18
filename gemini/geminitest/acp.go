package geminitest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/tidwall/gjson"
)

// ACPEntry is one entry of an ACP transcript: a line of JSON in the
// format of the captures of `gemini --acp` (../../captures/gemini/acp in
// the shared material), {"dir":"client"|"agent","t_ms":N,"msg":{…}}, and,
// to script faults, an agent's line that is not JSON ({"dir":"agent",
// "raw":"…"}) or its exit ({"dir":"agent","exit":N}).
type ACPEntry struct {
	// Dir is who wrote the line: "client" or "agent".
	Dir string `json:"dir"`
	// Msg is the JSON-RPC message, as the wire carried it.
	Msg json.RawMessage `json:"msg,omitempty"`
	// Raw, when not nil, is a line the agent wrote as it is, in place of
	// Msg.
	Raw *string `json:"raw,omitempty"`
	// Exit, when not nil, is the status the agent exited with there.
	Exit *int `json:"exit,omitempty"`
}

// ErrNotACPEntry is wrapped by the error of a transcript line that is
// not an [ACPEntry].
var ErrNotACPEntry = errors.New("geminitest: not an ACP transcript entry")

// ReadACP reads an ACP transcript, one [ACPEntry] a line; blank lines are
// skipped.
func ReadACP(r io.Reader) ([]ACPEntry, error) {
	var out []ACPEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var e ACPEntry
		if err := json.Unmarshal(line, &e); err != nil || e.Dir != "client" && e.Dir != "agent" ||
			e.Msg == nil && e.Raw == nil && (e.Exit == nil || e.Dir != "agent") {
			return nil, fmt.Errorf("%w: line %d: %.80q", ErrNotACPEntry, n, line)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// runACP replays an ACP transcript as `gemini --acp` would have spoken,
// or leniently, in a folder trusted or not: see [Run].
func (r *runner) runACP(name string, trusted bool) int {
	f, err := r.Env.Open(name)
	if err != nil {
		r.Errorf("fakegemini: %v", err)
		return ExitError
	}
	entries, err := ReadACP(f)
	f.Close()
	if err != nil {
		r.Errorf("fakegemini: %s: %v", name, err)
		return ExitError
	}
	if err := r.CopyCompanion(name, ".stderr", r.Env.Stderr); err != nil {
		r.Errorf("fakegemini: %v", err)
		return ExitError
	}
	delay, err := r.Delay(EnvDelay)
	if err != nil {
		return ExitError
	}
	if r.Getenv(EnvLenient) == "1" {
		return r.runLenient(entries, delay, trusted)
	}
	done := make(chan struct{})
	defer close(done)
	p := acpPlayer{runner: r, entries: entries, ids: map[string]string{}, delay: delay}
	if code, exited := p.emit(); exited {
		return code
	}
	input := fakecli.ReadLines(r.Env.Stdin, 64<<20, done)
	for {
		var in fakecli.Input
		select {
		case <-r.Ctx.Done():
			return r.Stop()
		case in = <-input:
		}
		if in.Err != nil {
			return ExitOK // the client closed the agent's input
		}
		if code, exited := p.take(in.Line); exited {
			return code
		}
	}
}

// acpPlayer is where a replay of an ACP transcript stands.
type acpPlayer struct {
	*runner
	entries []ACPEntry
	next    int               // the first entry not replayed
	ids     map[string]string // the client's request ids as recorded, to those it used
	delay   time.Duration
}

// take answers a line of the client's: it finds the next entry of the
// client's that the line matches (a request or notification of the same
// method, or the response to the same request of the agent's), skipping
// the exchanges the client did not have, and replays what the agent said
// after it. A request that matches none is answered -32601.
func (p *acpPlayer) take(line []byte) (code int, exited bool) {
	m := acp.Classify(line)
	for j := p.next; j < len(p.entries); j++ {
		e := p.entries[j]
		if e.Dir != "client" || !matches(acp.Classify(e.Msg), m) {
			continue
		}
		if m.Kind == acp.KindRequest {
			p.ids[gjson.GetBytes(e.Msg, "id").Raw] = m.ID.String()
		}
		p.next = j + 1
		return p.emit()
	}
	p.Errorf("fakegemini: the transcript has no %s %s here", m.Kind, m.Method)
	if m.Kind == acp.KindRequest {
		line, _ := acp.MarshalErrorResponse(m.ID.Clone(), acp.Errorf(acp.CodeMethodNotFound, "%q is not in the transcript here", m.Method))
		if err := p.Emit(line, 0); err != nil {
			return p.Exit(err), true
		}
	}
	return 0, false
}

// matches reports whether the client's line m is the one the transcript
// recorded as rec.
func matches(rec, m acp.Message) bool {
	if rec.Kind != m.Kind {
		return false
	}
	if m.Kind == acp.KindResponse {
		return rec.ID.Equal(m.ID)
	}
	return rec.Method == m.Method
}

// emit replays the agent's entries up to the client's next one, each
// response with the id the client used for its request.
func (p *acpPlayer) emit() (code int, exited bool) {
	for ; p.next < len(p.entries) && p.entries[p.next].Dir == "agent"; p.next++ {
		e := p.entries[p.next]
		var line []byte
		switch {
		case e.Exit != nil:
			return *e.Exit, true
		case e.Raw != nil:
			line = []byte(*e.Raw)
		default:
			line = p.respondAs(e.Msg)
		}
		if err := p.Emit(line, p.delay); err != nil {
			return p.Exit(err), true
		}
	}
	return 0, false
}

// respondAs returns msg, a response of the agent's, with the id the
// client used for the request it answers; any other message as it is.
func (p *acpPlayer) respondAs(msg json.RawMessage) []byte {
	out := append([]byte(nil), msg...)
	if acp.Classify(msg).Kind != acp.KindResponse {
		return out
	}
	id := gjson.GetBytes(msg, "id")
	used, ok := p.ids[id.Raw]
	if !ok || id.Index <= 0 {
		return out
	}
	return append(append(out[:id.Index:id.Index], used...), msg[id.Index+len(id.Raw):]...)
}
