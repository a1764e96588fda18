package acpcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/tidwall/gjson"
)

// From says who wrote a message.
type from uint8

const (
	fromClient from = iota
	fromAgent
)

func (f from) String() string {
	if f == fromAgent {
		return "agent"
	}
	return "client"
}

// event is one message on a connection's wire, as the suite saw it: over
// stdio every line either side wrote, byte for byte and in order; over a
// remote transport every message, as the client's Conn read or wrote it
// and in that order (acp.ConnOptions' OnRead and OnWrite).
type event struct {
	seq     int // its place on its connection's wire, from 0
	from    from
	msg     acp.Message // classified; ID, Params and Result alias line
	session string      // params.sessionId, or "" when it has none
	line    []byte      // the line as written, without its newline
	// partial is set for the bytes an agent left after its last newline,
	// when its output ended.
	partial bool
}

// isUpdate reports whether e is the agent's session/update.
func (e *event) isUpdate() bool {
	return e.from == fromAgent && e.msg.Kind == acp.KindNotification && e.msg.Method == acp.SessionUpdate.Name
}

// updateKind returns a session/update's sessionUpdate tag.
func (e *event) updateKind() string {
	return gjson.GetBytes(e.msg.Params, "update.sessionUpdate").String()
}

// wireLog is a connection's events, appended by whoever reads or writes
// the wire and read by the checks, which wait on it.
type wireLog struct {
	conn  int // the connection's number, in the trace
	trace *tracer

	mu      sync.Mutex
	events  []event
	changed chan struct{} // closed and replaced at each append
	closed  bool          // the agent's output has ended
}

func newWireLog(conn int, trace *tracer) *wireLog {
	return &wireLog{conn: conn, trace: trace, changed: make(chan struct{})}
}

// add appends the message line, which it keeps; from says who wrote it.
func (l *wireLog) add(f from, line []byte, partial bool) {
	msg := acp.Classify(line)
	e := event{from: f, msg: msg, line: line, partial: partial}
	if msg.Params != nil {
		e.session = gjson.GetBytes(msg.Params, "sessionId").String()
	}
	l.mu.Lock()
	e.seq = len(l.events)
	l.events = append(l.events, e)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
	l.trace.write(l.conn, f, line, partial)
}

// end records that the agent's output has ended.
func (l *wireLog) end() {
	l.mu.Lock()
	l.closed = true
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// snapshot returns the events so far; the caller must not modify them.
func (l *wireLog) snapshot() []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events[:len(l.events):len(l.events)]
}

// waitFor waits until found returns true for the events so far (it is
// called again at each new event), and returns what it found; it fails
// with what, once ctx ends or the agent's output ends first.
func (l *wireLog) waitFor(ctx context.Context, what string, found func([]event) bool) error {
	for {
		l.mu.Lock()
		events, changed, closed := l.events[:len(l.events):len(l.events)], l.changed, l.closed
		l.mu.Unlock()
		if found(events) {
			return nil
		}
		if closed {
			return fmt.Errorf("the agent's output ended before %s", what)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("no %s before the check's time ran out (%w)", what, context.Cause(ctx))
		}
	}
}

// lineRecorder is an io.Writer that splits what the agent writes into
// lines and logs each.
type lineRecorder struct {
	log     *wireLog
	f       from
	pending []byte
}

func (r *lineRecorder) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.pending = append(r.pending, p...)
			return n, nil
		}
		line := append(r.pending, p[:i]...)
		r.pending = nil
		r.log.add(r.f, line, false)
		p = p[i+1:]
	}
}

// flush logs the bytes after the last newline, at the end of the output.
func (r *lineRecorder) flush() {
	if len(r.pending) > 0 {
		r.log.add(r.f, r.pending, true)
		r.pending = nil
	}
}

// recordingReader reads the agent's output and logs each line before the
// connection sees it, so that the log holds the wire in its order.
type recordingReader struct {
	r   io.Reader
	rec lineRecorder
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.rec.Write(p[:n])
	if err != nil {
		r.rec.flush()
		r.rec.log.end()
	}
	return n, err
}

// lockedWriter writes the client's lines to the agent whole, logging
// each: the Conn's and the checks' raw ones alike.
type lockedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	log *wireLog
}

// Write writes one line: the Conn writes each message in one Write.
func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Logged before it is written: the agent's answer to it may be read,
	// and logged, before Write returns.
	w.log.add(fromClient, bytes.Clone(bytes.TrimSuffix(p, []byte("\n"))), false)
	return w.w.Write(p)
}

// tracer writes every connection's messages to the Trace writer, one JSON
// object per line: {"conn":N,"dir":"client"|"agent","msg":…}, or "raw"
// with the line as a string where it is not JSON, and "partial":true for
// an agent's last line that had no newline.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *tracer) write(conn int, f from, line []byte, partial bool) {
	if t == nil || t.w == nil {
		return
	}
	rec := struct {
		Conn    int             `json:"conn"`
		Dir     string          `json:"dir"`
		Msg     json.RawMessage `json:"msg,omitempty"`
		Raw     *string         `json:"raw,omitempty"`
		Partial bool            `json:"partial,omitempty"`
	}{Conn: conn, Dir: f.String(), Partial: partial}
	var compact bytes.Buffer
	if json.Valid(line) && json.Compact(&compact, line) == nil {
		rec.Msg = compact.Bytes()
	} else {
		s := string(line)
		rec.Raw = &s
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w.Write(append(b, '\n'))
}
