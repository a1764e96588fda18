package codextest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// LenientOptions tune [ServeLenientAppServer]. The zero value plays turns
// at once and numbers its ids.
type LenientOptions struct {
	// Delay is how long to wait before each line of a turn; Sleep waits
	// it, returning early with ctx's error when ctx ends. Nil Sleep skips
	// the waits.
	Delay time.Duration
	Sleep func(ctx context.Context, d time.Duration) error
	// NewID returns a new thread or turn id, each call another. Nil
	// numbers them, which makes ids that other servers, started alike,
	// make too: a program that runs several servers passes random ones.
	NewID func() string
}

// ServeLenientAppServer answers any client of `codex app-server` from
// what records show of the real server, rather than replaying them in
// order as [ServeAppServer] does: several threads, turns started and
// interrupted in any order, requests the transcript never had. It writes
// the server's lines to stdout, one per line, and reads the client's from
// stdin until its end, then returns nil; when ctx ends it returns ctx's
// error.
//
// Of the client's requests:
//
//   - initialize is answered as recorded, once; a second is refused
//     "Already initialized", and any other request before it "Not
//     initialized", as the real server does;
//   - thread/start and thread/fork open a thread with a new id, answered
//     as recorded, then thread/started, the recorded thread id replaced
//     by the new one. thread/resume opens the thread it names: the fake
//     keeps no store, so it takes any thread id for one it holds;
//   - turn/start on an open thread is answered with a new turn id, and the
//     transcript's turns are played in turn, one for each turn/start,
//     starting over after the last: each notification (but the thread's
//     thread/started) and server request from its turn/start to its
//     turn/completed, with the ids rewritten, [LenientOptions.Delay]
//     before each. A request waits for the client's answer: "cancel" ends
//     the turn as interrupted, any other goes on with the recorded turn.
//     A turn/start on a thread not open is refused "thread not found",
//     and one while a turn runs in the thread "turn already running";
//   - turn/interrupt is answered {} and, when the thread has a turn
//     running, ends it as the real server does: thread/status/changed to
//     idle and turn/completed with status "interrupted" and no items;
//   - any other method is answered as the transcript answered it first
//     (preferring a result to an error), with the notifications that
//     followed, the recorded thread replaced by the one the request
//     names; a method it never had, as the real server answers an
//     unknown one: error -32600 "Invalid request: unknown variant".
//
// Notifications, answers to requests no turn waits for, and lines that
// are not JSON objects are ignored. A transcript without an answered
// initialize, an opened thread and a completed turn cannot serve a client:
// ServeLenientAppServer then returns an error wrapping
// [ErrAppServerTranscript] at once.
//
// Like ServeAppServer it reads stdin in a goroutine, which ends when
// stdin's Read returns after ServeLenientAppServer has; the goroutines
// that wait Delay end before it returns.
func ServeLenientAppServer(ctx context.Context, records []AppServerRecord, stdin io.Reader, stdout io.Writer, opts LenientOptions) error {
	sc, err := readScript(records)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &lenientServer{
		script: sc, opts: opts, ctx: ctx, out: stdout,
		threads: map[string]*lenientThread{}, pending: map[string]*lenientTurn{},
		ticks: make(chan *lenientTurn),
	}
	done := make(chan struct{})
	defer func() {
		close(done)
		cancel()
		s.wg.Wait()
	}()
	in := fakecli.ReadLines(stdin, maxInputLine, done)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case t := <-s.ticks:
			if t.thread.turn == t {
				err = s.step(t)
			}
		case line := <-in:
			if line.Err == io.EOF {
				return nil
			}
			if line.Err != nil {
				return fmt.Errorf("codextest: reading the client's input: %w", line.Err)
			}
			err = s.handle(bytes.TrimSpace(line.Line))
		}
		if err != nil {
			return err
		}
	}
}

// script is what a transcript shows of the real server, as the lenient
// server answers from it.
type script struct {
	replies map[string]reply // by method, the first answer to a request
	turns   []recordedTurn
}

// reply is the server's answer to a request, and the notifications that
// followed it before the client wrote again.
type reply struct {
	lines  [][]byte // the answer first
	failed bool     // the answer is an error
	thread string   // the thread the answer opened; "" for none
	from   string   // the thread the request named (thread/fork's source); "" for none
}

// recordedTurn is a turn the transcript played: the answer to its
// turn/start, then its notifications and requests up to its
// turn/completed.
type recordedTurn struct {
	thread, turn string
	answer       []byte
	lines        [][]byte
}

// readScript reads the replies and turns out of records.
func readScript(records []AppServerRecord) (*script, error) {
	sc := &script{replies: map[string]reply{}}
	initialized := false
	for i, rec := range records {
		root := gjson.ParseBytes(rec.Msg)
		method, id := members.Get(root, "method"), members.Get(root, "id")
		if rec.Dir != DirClient || !method.Exists() || !id.Exists() {
			continue
		}
		answer, after := answerTo(records[i+1:], id.Raw)
		if answer == nil {
			continue
		}
		result := members.Get(gjson.ParseBytes(answer), "result")
		if !initialized && method.Str != "initialize" {
			continue // "Not initialized", which the server says itself
		}
		initialized = true
		if method.Str == "turn/start" {
			if t, ok := readTurn(records[i+1:], answer, members.Get(root, "params")); ok {
				sc.turns = append(sc.turns, t)
			}
			continue
		}
		if old, ok := sc.replies[method.Str]; ok && (!old.failed || !result.Exists()) {
			continue
		}
		r := reply{lines: [][]byte{answer}, failed: !result.Exists()}
		r.thread = members.Get(members.Get(result, "thread"), "id").Str
		r.from = members.Get(members.Get(root, "params"), "threadId").Str
		switch {
		case method.Str == "thread/start" || method.Str == "thread/fork":
			// Its thread/started comes when it comes, often after the
			// client's next request.
			if started := threadStarted(records[i+1:], r.thread); started != nil {
				r.lines = append(r.lines, started)
			}
		default:
			for _, next := range after {
				if next.Dir != DirServer || next.Msg == nil || !members.Get(gjson.ParseBytes(next.Msg), "method").Exists() {
					break
				}
				r.lines = append(r.lines, bytes.TrimSpace(next.Msg))
			}
		}
		sc.replies[method.Str] = r
	}
	if _, ok := sc.replies["initialize"]; !ok {
		return nil, fmt.Errorf("%w: no answered initialize to serve a client from", ErrAppServerTranscript)
	}
	if sc.opening("thread/start").lines == nil {
		return nil, fmt.Errorf("%w: no thread opened to serve a client from", ErrAppServerTranscript)
	}
	if len(sc.turns) == 0 {
		return nil, fmt.Errorf("%w: no completed turn to serve a client from", ErrAppServerTranscript)
	}
	return sc, nil
}

// answerTo finds the server's answer to the request with id (JSON text)
// in records, and returns it with the records after it; nil when there is
// none.
func answerTo(records []AppServerRecord, id string) ([]byte, []AppServerRecord) {
	for j, rec := range records {
		if rec.Dir != DirServer || rec.Msg == nil {
			continue
		}
		root := gjson.ParseBytes(rec.Msg)
		if !members.Get(root, "method").Exists() && compactID(members.Get(root, "id").Raw) == compactID(id) {
			return bytes.TrimSpace(rec.Msg), records[j+1:]
		}
	}
	return nil, nil
}

// threadStarted finds the thread/started notification of thread in
// records; nil when there is none.
func threadStarted(records []AppServerRecord, thread string) []byte {
	for _, rec := range records {
		root := gjson.ParseBytes(rec.Msg)
		if rec.Dir == DirServer && members.Get(root, "method").Str == "thread/started" &&
			members.Get(members.Get(members.Get(root, "params"), "thread"), "id").Str == thread {
			return bytes.TrimSpace(rec.Msg)
		}
	}
	return nil
}

// readTurn reads the turn a turn/start with params started, from the
// records after it; false when it was refused or never completed.
func readTurn(records []AppServerRecord, answer []byte, params gjson.Result) (recordedTurn, bool) {
	t := recordedTurn{
		thread: members.Get(params, "threadId").Str,
		turn:   members.Get(members.Get(members.Get(gjson.ParseBytes(answer), "result"), "turn"), "id").Str,
		answer: answer,
	}
	if t.thread == "" || t.turn == "" {
		return t, false
	}
	for _, rec := range records {
		if rec.Dir != DirServer || rec.Msg == nil {
			continue
		}
		root := gjson.ParseBytes(rec.Msg)
		method := members.Get(root, "method")
		if !method.Exists() || method.Str == "thread/started" {
			continue // an answer, or the thread's opening
		}
		t.lines = append(t.lines, bytes.TrimSpace(rec.Msg))
		if method.Str == "turn/completed" && members.Get(members.Get(members.Get(root, "params"), "turn"), "id").Str == t.turn {
			return t, true
		}
	}
	return t, false
}

// opening is the reply that opens a thread for method, thread/start's
// where the transcript has no answer of method's that did.
func (sc *script) opening(method string) reply {
	if r, ok := sc.replies[method]; ok && r.thread != "" {
		return r
	}
	if r, ok := sc.replies["thread/start"]; ok && r.thread != "" {
		if method == "thread/resume" {
			r.lines = r.lines[:1] // a resumed thread is not started
		}
		return r
	}
	for _, m := range []string{"thread/resume", "thread/fork"} {
		if r, ok := sc.replies[m]; ok && r.thread != "" {
			return reply{lines: r.lines[:1], thread: r.thread}
		}
	}
	return reply{}
}

// lenientServer is the state of ServeLenientAppServer, owned by its loop.
type lenientServer struct {
	script *script
	opts   LenientOptions
	ctx    context.Context
	out    io.Writer
	wg     sync.WaitGroup

	initialized bool
	ids         int // ids NewID-less servers made
	threads     map[string]*lenientThread
	turns       int                     // turns started, which picks the next recorded one
	requests    int                     // requests sent to the client, which numbers them
	pending     map[string]*lenientTurn // by the id (JSON text) of the request it waits on
	ticks       chan *lenientTurn       // a turn whose next line is due
}

// lenientThread is a thread open in the server.
type lenientThread struct {
	id   string
	turn *lenientTurn // the turn running; nil when none
}

// lenientTurn is a turn being played.
type lenientTurn struct {
	thread *lenientThread
	id     string
	rec    recordedTurn
	next   int               // the index in rec.lines of the line to write next
	sent   map[string]string // the recorded ids of its requests -> those sent
}

// newID returns a new thread or turn id.
func (s *lenientServer) newID() string {
	if s.opts.NewID != nil {
		return s.opts.NewID()
	}
	s.ids++
	return fmt.Sprintf("00000000-0000-7000-8000-%012d", s.ids)
}

// handle answers a line of the client's.
func (s *lenientServer) handle(line []byte) error {
	if !isObject(line) {
		return nil
	}
	root := gjson.ParseBytes(line)
	method, id := members.Get(root, "method"), members.Get(root, "id")
	params := members.Get(root, "params")
	switch {
	case !id.Exists():
		return nil // a notification: initialized
	case !method.Exists():
		return s.answered(id.Raw, members.Get(root, "result"))
	case method.Str == "initialize" && s.initialized:
		return s.fail(id.Raw, "Already initialized")
	case method.Str == "initialize":
		s.initialized = true
		return s.reply(id.Raw, s.script.replies["initialize"], nil)
	case !s.initialized:
		return s.fail(id.Raw, "Not initialized")
	}
	switch method.Str {
	case "thread/start", "thread/fork", "thread/resume":
		var t *lenientThread
		if method.Str == "thread/resume" {
			named := members.Get(params, "threadId").Str
			if named == "" {
				return s.fail(id.Raw, "Invalid request: missing field `threadId`")
			}
			if t = s.threads[named]; t == nil {
				t = &lenientThread{id: named}
			}
		} else {
			t = &lenientThread{id: s.newID()}
		}
		s.threads[t.id] = t
		r := s.script.opening(method.Str)
		return s.reply(id.Raw, r, map[string]string{r.thread: t.id, r.from: members.Get(params, "threadId").Str})
	case "turn/start":
		return s.startTurn(id.Raw, members.Get(params, "threadId").Str)
	case "turn/interrupt":
		if err := s.write([]byte(`{"id":` + id.Raw + `,"result":{}}`)); err != nil {
			return err
		}
		if th := s.threads[members.Get(params, "threadId").Str]; th != nil && th.turn != nil {
			return s.interrupted(th.turn)
		}
		return nil
	}
	if r, ok := s.script.replies[method.Str]; ok {
		var with map[string]string
		if named := members.Get(params, "threadId").Str; named != "" {
			with = map[string]string{r.from: named, r.thread: named}
		}
		return s.reply(id.Raw, r, with)
	}
	return s.fail(id.Raw, "Invalid request: unknown variant `"+method.Str+"`")
}

// startTurn answers turn/start on threadID and starts playing a turn.
func (s *lenientServer) startTurn(id, threadID string) error {
	th := s.threads[threadID]
	switch {
	case th == nil:
		return s.fail(id, "thread not found: "+threadID)
	case th.turn != nil:
		return s.fail(id, "turn already running: "+th.turn.id)
	}
	t := &lenientTurn{thread: th, id: s.newID(), rec: s.script.turns[s.turns%len(s.script.turns)], sent: map[string]string{}}
	s.turns++
	th.turn = t
	if err := s.write(withID(s.rewrite(t.rec.answer, t), id)); err != nil {
		return err
	}
	s.schedule(t)
	return nil
}

// schedule makes t's next line due after the delay.
func (s *lenientServer) schedule(t *lenientTurn) {
	s.wg.Go(func() {
		if s.opts.Sleep != nil && s.opts.Delay > 0 && s.opts.Sleep(s.ctx, s.opts.Delay) != nil {
			return
		}
		select {
		case s.ticks <- t:
		case <-s.ctx.Done():
		}
	})
}

// step writes t's next line: a request waits for its answer, the
// turn/completed ends the turn, any other line is followed by the next.
func (s *lenientServer) step(t *lenientTurn) error {
	line := s.rewrite(t.rec.lines[t.next], t)
	t.next++
	root := gjson.ParseBytes(line)
	if id := members.Get(root, "id"); id.Exists() {
		sent := strconv.Itoa(s.requests)
		s.requests++
		t.sent[compactID(id.Raw)] = sent
		s.pending[sent] = t
		return s.write(withID(line, sent))
	}
	if t.next == len(t.rec.lines) {
		t.thread.turn = nil
	} else {
		s.schedule(t)
	}
	return s.write(line)
}

// answered takes the client's answer to the request id: the turn waiting
// on it goes on, or ends interrupted when the answer is cancel.
func (s *lenientServer) answered(id string, result gjson.Result) error {
	t := s.pending[compactID(id)]
	delete(s.pending, compactID(id))
	if t == nil || t.thread.turn != t {
		return nil
	}
	for _, name := range []string{"decision", "action"} {
		if members.Get(result, name).Str == "cancel" {
			return s.interrupted(t)
		}
	}
	s.schedule(t)
	return nil
}

// interrupted ends t as interrupted, as the real server ends a turn on
// turn/interrupt.
func (s *lenientServer) interrupted(t *lenientTurn) error {
	t.thread.turn = nil
	for id, p := range s.pending {
		if p == t {
			delete(s.pending, id)
		}
	}
	idle := `{"method":"thread/status/changed","params":{"threadId":` + quote(t.thread.id) + `,"status":{"type":"idle"}}}`
	done := `{"method":"turn/completed","params":{"threadId":` + quote(t.thread.id) + `,"turn":{"id":` + quote(t.id) +
		`,"rootTurnId":` + quote(t.id) + `,"items":[],"itemsView":"notLoaded","status":"interrupted","error":null,"startedAt":null,"completedAt":null,"durationMs":null}}}`
	if err := s.write([]byte(idle)); err != nil {
		return err
	}
	return s.write([]byte(done))
}

// rewrite returns a line of t's recording with the recorded thread, turn
// and request ids replaced by t's.
func (s *lenientServer) rewrite(line []byte, t *lenientTurn) []byte {
	line = replaceIDs(line, map[string]string{t.rec.thread: t.thread.id, t.rec.turn: t.id})
	root := gjson.ParseBytes(line)
	if members.Get(root, "method").Str == "serverRequest/resolved" {
		req := members.Get(members.Get(root, "params"), "requestId")
		if sent, ok := t.sent[compactID(req.Raw)]; ok {
			line = bytes.Replace(line, []byte(`"requestId":`+req.Raw), []byte(`"requestId":`+sent), 1)
		}
	}
	return line
}

// reply writes r as the answer to the request id, with the ids in with
// replaced.
func (s *lenientServer) reply(id string, r reply, with map[string]string) error {
	for i, line := range r.lines {
		line = replaceIDs(line, with)
		if i == 0 {
			line = withID(line, id)
		}
		if err := s.write(line); err != nil {
			return err
		}
	}
	return nil
}

// fail answers the request id with the real server's error: -32600 and
// message.
func (s *lenientServer) fail(id, message string) error {
	return s.write([]byte(`{"error":{"code":-32600,"message":` + quote(message) + `},"id":` + id + `}`))
}

// write writes a line to the client.
func (s *lenientServer) write(line []byte) error {
	if _, err := s.out.Write(append(line[:len(line):len(line)], '\n')); err != nil {
		return fmt.Errorf("codextest: writing to the client: %w", err)
	}
	return nil
}

// withID returns line, an answer or a request, with its id replaced by
// id (JSON text).
func withID(line []byte, id string) []byte {
	return replaceValue(line, members.Get(gjson.ParseBytes(line), "id"), id)
}

// replaceIDs returns line with every JSON string equal to a key of ids
// replaced by its value. The ids are UUIDs, which no other text holds.
func replaceIDs(line []byte, ids map[string]string) []byte {
	for old, id := range ids {
		if old != "" && old != id {
			line = bytes.ReplaceAll(line, []byte(quote(old)), []byte(quote(id)))
		}
	}
	return line
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
