package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/acpkit/acpkit/internal/msghead"
	"github.com/acpkit/acpkit/internal/transport"
	"github.com/tidwall/gjson"
)

// A Handler serves what a peer sends on a [Conn]: an agent's Handler
// answers initialize, session/prompt and so on; a client's Handler receives
// session/update and answers session/request_permission.
//
// [Methods] is a Handler built from a table of functions.
type Handler interface {
	// HandleRequest answers one request. Requests run concurrently, up to
	// [ConnOptions].MaxConcurrentRequests at once and each on a goroutine of
	// its own, so HandleRequest must be safe for concurrent use and may
	// wait, on the peer too. Requests start in the order they arrived, but
	// nothing else orders them: a request may be handled, and answered,
	// before one that arrived earlier, as JSON-RPC allows. A peer that
	// needs one request done before the next (session/new before a
	// session/prompt naming the new session) waits for the response before
	// sending the next, as ACP clients do. params is the raw JSON of the
	// request's params, nil when absent; the handler owns it.
	//
	// The result is encoded with encoding/json as the response's result
	// (nil is sent as null). An error that is or wraps an [*Error] is sent
	// as is; return [ErrMethodNotFound] for a method the handler does not
	// serve. Any other error is sent as [CodeInternalError] with the
	// error's text, except the context's error after the peer cancelled
	// the request, which is sent as [ErrRequestCancelled].
	//
	// Every request is answered, whatever the handler does: a panic, a
	// call to [runtime.Goexit] (as t.FailNow makes), a result that cannot
	// be encoded as valid JSON in valid UTF-8, and an error whose methods
	// panic (a nil pointer in a non-nil error, say) are answered
	// [CodeInternalError] and logged; error data that cannot be encoded is
	// left out. The connection goes on.
	//
	// ctx is cancelled when the peer sends $/cancel_request for this
	// request (its [context.Cause] is then [ErrRequestCancelled]), when the
	// connection ends (cause [ErrClosed]) — the end of the input included,
	// see [NewConn] — and when the context given to [NewConn] ends.
	// Notifications the handler sends with conn.Notify before it returns
	// reach the peer before its response; to send something only after
	// it, from another goroutine too, see [AfterResponse].
	HandleRequest(ctx context.Context, conn *Conn, method string, params json.RawMessage) (result any, err error)

	// HandleNotification receives one notification. Notifications are
	// delivered one at a time, in the order they arrived, on the goroutine
	// that reads the connection: nothing more is read until it returns.
	// That keeps session/update chunks in order and slows a peer that sends
	// faster than the handler consumes, but it means HandleNotification
	// must not wait for a response on the same connection (call
	// conn.Request from another goroutine). A response that follows
	// notifications on the wire is delivered after they have been handled.
	//
	// Unknown notifications should be ignored. $/cancel_request is handled
	// by the Conn and never reaches the handler. params is owned by the
	// handler; ctx ends when the connection does. A panic or a call to
	// [runtime.Goexit] is logged; the connection goes on.
	HandleNotification(ctx context.Context, conn *Conn, method string, params json.RawMessage)
}

// RequestFunc answers one request; see [Handler.HandleRequest].
type RequestFunc func(ctx context.Context, conn *Conn, params json.RawMessage) (result any, err error)

// NotificationFunc receives one notification; see
// [Handler.HandleNotification].
type NotificationFunc func(ctx context.Context, conn *Conn, params json.RawMessage)

// Methods is a [Handler] that dispatches on the method name. A request for
// a method missing from Requests is answered with [ErrMethodNotFound]; a
// notification missing from Notifications is ignored. The maps must not be
// modified while a Conn uses them.
type Methods struct {
	Requests      map[string]RequestFunc
	Notifications map[string]NotificationFunc
}

// HandleRequest calls the method's RequestFunc.
func (m Methods) HandleRequest(ctx context.Context, conn *Conn, method string, params json.RawMessage) (any, error) {
	f, ok := m.Requests[method]
	if !ok {
		return nil, methodNotFound(method)
	}
	return f(ctx, conn, params)
}

// HandleNotification calls the method's NotificationFunc, if any.
func (m Methods) HandleNotification(ctx context.Context, conn *Conn, method string, params json.RawMessage) {
	if f, ok := m.Notifications[method]; ok {
		f(ctx, conn, params)
	}
}

func methodNotFound(method string) *Error {
	return Errorf(CodeMethodNotFound, "Method not found: %s", echo(method))
}

// maxEcho bounds, in bytes, what an error message or log entry quotes of
// what the peer sent (a method name, an id), so that a megabyte of method
// name does not come back as a megabyte of error.
const maxEcho = 128

// echo returns s cut to at most maxEcho bytes, on a UTF-8 boundary, with
// "…" appended when it was cut.
func echo(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ErrClosed is returned by [Conn.Request] when the connection ends before
// the response arrives, and by calls made after it ended. The error may
// also wrap the cause, as [Conn.Wait] reports it.
var ErrClosed = errors.New("acp: connection closed")

// ErrInvalidResponse is matched by the error [Conn.Request] returns when the
// peer answers with a line that carries the request's id and no method but
// is not a valid response: it lacks "jsonrpc": "2.0", holds both result and
// error, or neither, or an error that is not a JSON-RPC error object. The
// error says which. Such a line gets no reply, since it answers a request
// rather than makes one; a line like it whose id is not that of a pending
// request cannot be told from a request without its method, and is answered
// [CodeInvalidRequest].
var ErrInvalidResponse = errors.New("acp: invalid response")

// DefaultMaxConcurrentRequests is how many inbound requests a [Conn] runs at
// once unless [ConnOptions] says otherwise.
const DefaultMaxConcurrentRequests = 64

// writeQueueLength bounds the lines waiting for the writer goroutine; a
// sender blocks (honouring its context) when the peer reads slower.
const writeQueueLength = 64

// ConnOptions configures a [Conn]. The zero value (or a nil pointer) gives
// the defaults.
type ConnOptions struct {
	// MaxConcurrentRequests is how many inbound requests may run at once;
	// 0 or less means [DefaultMaxConcurrentRequests]. A request that arrives
	// while that many run waits, without a goroutine, for one to finish;
	// waiting requests start in the order they arrived. The Conn reads on
	// meanwhile, so the responses that running handlers wait for (a
	// permission, say), notifications and cancellations still arrive. A
	// $/cancel_request for a waiting request answers it with
	// [ErrRequestCancelled] without running its handler. When the input
	// ends (or at [Conn.Shutdown]), waiting requests still run in turn,
	// with their contexts already cancelled like those of the running
	// ones, so that every request the peer sent before closing its side
	// gets its handler's answer; after [Conn.Close] or a failure to write,
	// when no answer can be written, they are dropped without running.
	//
	// At most as many requests as the limit may wait, to bound the memory
	// a peer can make the Conn hold. Only then, as a last resort, does the
	// Conn stop reading until a request finishes, and nothing behind the
	// next request is read meanwhile; if every running handler is waiting
	// on the peer, that is a deadlock. A peer reaches it only with more
	// than twice the limit of requests unanswered. That next request has
	// been read, and is answered like a waiting one, at [Conn.Shutdown]
	// too.
	MaxConcurrentRequests int
	// MaxLineLength is the longest line accepted, in bytes excluding the
	// terminator; 0 or less means [DefaultMaxLineLength]. A longer line is
	// skipped, and only its first 256 bytes are read as JSON: ids come
	// first as peers write messages, and as Conn does. When they show a
	// response to a pending [Conn.Request] (its "id" member comes before
	// "result" or "error"), that Request fails with an error matching
	// [ErrLineTooLong]. When they show a request (its "id" and "method"
	// members come before the rest), it is answered [CodeInvalidRequest]
	// with its id, so that the requester learns why at once. Any other
	// long line is answered [CodeInvalidRequest] with a null id: one whose
	// id comes after its params or result cannot be told apart, so its
	// requester, or the Request it answers, waits for its context to end.
	MaxLineLength int
	// Logger receives the connection's diagnostics: dropped and malformed
	// messages at Debug and Warn, handler panics at Error. Nil means silent.
	Logger *slog.Logger
	// OnRead and OnWrite, when not nil, are shown every message of the
	// connection as it crosses the wire, without its newline: a log or a
	// trace of the wire in its order, which the handlers and callers of
	// Request, running on goroutines of their own, cannot give.
	//
	// OnRead is called on the reading goroutine with each message read,
	// whatever it holds (one the Conn then rejects as invalid too), before
	// the Conn acts on it: before the Request it answers returns, before a
	// notification's handler runs or a request's starts. A message too
	// long to read (see MaxLineLength) is not shown. OnWrite is called on
	// the writing goroutine with each message just before it is written,
	// so it is shown before any answer to it can be read; a message
	// dropped unwritten because the connection closed is not shown.
	//
	// Calls of one of them never overlap, and come in the order of the
	// wire; OnRead may run concurrently with OnWrite. msg is the Conn's,
	// valid only during the call: copy what is kept. Nothing more is read
	// (or written) until the call returns, so it should be quick, and must
	// not wait for the peer. A panic ends the connection, as a failure of
	// the reader or the writer does.
	OnRead, OnWrite func(msg []byte)
}

// A Conn is one JSON-RPC 2.0 connection over a reader and a writer, as ACP
// runs it: one message per line, requests in both directions. Agents and
// clients use it alike. All its methods are safe for concurrent use.
//
// A request whose id is that of a request still running or waiting is not
// run: it is answered [CodeInvalidRequest] with that id, so the peer sees
// two responses with the id, this one at once and the first request's
// later. Only a peer that breaks JSON-RPC's rule of unique ids in flight
// sees it, and that answer is the only one that can tell it.
//
// The connection reads until the input ends, [Conn.Close] is called, the
// context given to [NewConn] ends, or writing fails. [Conn.Wait] waits for
// that and for the handlers still running, then reports why it ended.
type Conn struct {
	h     Handler
	log   *slog.Logger
	r     io.Reader
	w     io.Writer
	lr    *lines.Reader
	admit chan struct{} // one token per inbound request running or waiting
	limit int           // how many inbound requests may run at once

	onRead, onWrite func(msg []byte) // ConnOptions' hooks; nil for none

	ctx    context.Context // parent of handler contexts; ends at shutdown
	cancel context.CancelCauseFunc
	stopAf func() bool   // stops the context.AfterFunc watching the caller's ctx
	afDone chan struct{} // closed when that AfterFunc has run, if it ran

	writeq     chan []byte   // lines for the writer goroutine, each ending in "\n"
	idle       chan *inbound // requests for handler goroutines waiting for one
	gate       chan struct{} // held by the reading goroutine while it handles a line; by finish for good
	readDone   chan struct{} // closed when no line will be handled any more
	readerDone chan struct{} // closed when the reading goroutine has returned
	stopWriter chan struct{} // closed when no handler can write any more
	writerDone chan struct{} // closed when the writer goroutine has returned
	drained    chan struct{} // closed when every answer is written, or dropped
	finished   chan struct{} // closed when every goroutine has returned

	done     chan struct{} // closed at shutdown: no more input is read
	shutOnce sync.Once
	err      error // why the connection ended; set before done closes
	ioOnce   sync.Once

	// Set at Close or on failure: the output is unusable, writes are
	// dropped, and senders waiting for room in writeq give up.
	broken     atomic.Bool
	brokenc    chan struct{} // closed when broken is set
	brokenOnce sync.Once

	handlers sync.WaitGroup // goroutines running request handlers

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]chan response // outbound requests awaiting a response
	inflight map[string]*inbound     // inbound requests running or waiting, by raw id
	running  int                     // inbound requests running; the queue is empty below limit
	queue    []*inbound              // inbound requests waiting for a slot, oldest first
}

type response struct {
	result json.RawMessage
	err    error // the peer's *Error, or ErrInvalidResponse wrapped
}

// An inbound request, running or waiting for a slot.
type inbound struct {
	id     ID
	key    string // id.String(), its key in inflight
	method string
	params json.RawMessage

	// Set under mu when the request starts running; a nil Context while
	// it waits. The handler's context, which leads AfterResponse to in.
	ctx    handlerContext
	cancel context.CancelCauseFunc

	peerCancelled atomic.Bool
	sent          atomic.Bool              // the response is queued, or cannot be
	hooks         atomic.Pointer[hookList] // what AfterResponse registered; nil for nothing
}

// hookList is what AfterResponse registered for a request, to run once
// its response is queued.
type hookList struct {
	mu  sync.Mutex
	fns []func()
}

// handlerContext is the context a request's handler gets: the request's
// own, which also leads [AfterResponse] to the request. It lives inside
// the inbound, so that it costs no allocation of its own.
type handlerContext struct {
	context.Context
	c  *Conn
	in *inbound
}

// afterResponseKey is the context key under which a handlerContext
// gives its request.
type afterResponseKey struct{}

func (h *handlerContext) Value(key any) any {
	if key == (afterResponseKey{}) {
		return h.in
	}
	return h.Context.Value(key)
}

// AfterResponse arranges for f to run once the [Conn] has queued the
// response to the request whose handler was given ctx (or a context
// derived from it): whatever f sends on the Conn then reaches the peer
// after that response. A handler uses it to let another goroutine speak
// of what the response announces, such as the session a session/new
// creates, without letting it overtake the response.
//
// f runs on the handler's goroutine, after the handler has returned,
// in the order of the calls; it also runs when the response could not be
// queued because the connection had closed or failed, so that what it
// releases is released. Until f returns, the request's slot (see
// [ConnOptions].MaxConcurrentRequests) stays taken, so f should be
// quick. A panic in f is logged and recovered. Called once the response
// is queued, AfterResponse runs f at once. It reports false, without
// running f, when ctx is not a request handler's context. It is safe
// for concurrent use.
func AfterResponse(ctx context.Context, f func()) bool {
	in, _ := ctx.Value(afterResponseKey{}).(*inbound)
	if in == nil {
		return false
	}
	l := in.hooks.Load()
	if l == nil {
		in.hooks.CompareAndSwap(nil, &hookList{})
		l = in.hooks.Load()
	}
	l.mu.Lock()
	l.fns = append(l.fns, f)
	l.mu.Unlock()
	if in.sent.Load() {
		in.ctx.c.runHooks(in) // the response went first: run f now
	}
	return true
}

// NewConn starts a connection that reads messages from r and writes them to
// w, serving what the peer sends with h (nil answers every request with
// [ErrMethodNotFound] and ignores notifications). opts may be nil. The Conn
// runs a reading and a writing goroutine, and one per running request; none
// outlives [Conn.Wait].
//
// The end of the input (r returns [io.EOF]) ends the connection cleanly.
// Nothing more can arrive then, not even a cancellation, so the contexts of
// running handlers are cancelled (cause [ErrClosed]); their responses, and
// the notifications they send before returning, are still written. That
// suits ACP, where an editor closes the agent's stdin to stop it. A peer
// that merely half-closes its end still gets its answers, but from handlers
// told to stop.
//
// ctx bounds the connection: when it ends, the connection closes as with
// [Conn.Close] and [Conn.Wait] reports the context's cause. The Conn does not
// otherwise own r and w, except that [Conn.Close] closes them if they
// implement [io.Closer], the only portable way to interrupt a blocked Read
// or Write.
func NewConn(ctx context.Context, r io.Reader, w io.Writer, h Handler, opts *ConnOptions) *Conn {
	var o ConnOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxConcurrentRequests <= 0 {
		o.MaxConcurrentRequests = DefaultMaxConcurrentRequests
	}
	// As many requests again may wait as may run; min keeps the sum an int.
	maxWaiting := min(o.MaxConcurrentRequests, math.MaxInt-o.MaxConcurrentRequests)
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Conn{
		h:          h,
		log:        log,
		r:          r,
		w:          w,
		lr:         lines.NewReader(r, maxLineLength(o.MaxLineLength)),
		admit:      make(chan struct{}, o.MaxConcurrentRequests+maxWaiting),
		limit:      o.MaxConcurrentRequests,
		onRead:     o.OnRead,
		onWrite:    o.OnWrite,
		writeq:     make(chan []byte, writeQueueLength),
		stopWriter: make(chan struct{}),
		writerDone: make(chan struct{}),
		finished:   make(chan struct{}),
		done:       make(chan struct{}),
		brokenc:    make(chan struct{}),
		idle:       make(chan *inbound),
		gate:       make(chan struct{}, 1),
		readDone:   make(chan struct{}),
		readerDone: make(chan struct{}),
		drained:    make(chan struct{}),
		afDone:     make(chan struct{}),
		pending:    make(map[int64]chan response),
		inflight:   make(map[string]*inbound),
	}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.stopAf = context.AfterFunc(ctx, func() {
		defer close(c.afDone)
		c.fail(context.Cause(ctx))
	})
	go c.writeLoop()
	go c.readLoop()
	return c
}

// Wait blocks until the connection has ended and every handler has
// returned, then returns nil if the input ended cleanly or [Conn.Close] was
// called, and otherwise the cause: a read or write error, or the cause of
// the context given to [NewConn]. No goroutine of the Conn is left running
// when Wait returns.
//
// So Wait waits for the reader's Read in progress. Closing the reader, as
// [Conn.Close] does, interrupts a Read on an [io.Pipe], a net.Conn, or an
// [os.File] that the runtime polls (one made by [os.Pipe], or by
// [os.NewFile] from a descriptor in non-blocking mode), but not a Read on a
// file in blocking mode, as [os.Stdin] usually is: Wait then returns when
// that Read does, at the peer's next line or the end of its output.
// examples/echo-agent shows how to make stdin interruptible. Wait also waits
// for queued messages to be written, so if the peer stops reading and the
// writer is not an [io.Closer], it blocks until the peer reads or the writer
// fails.
func (c *Conn) Wait() error {
	<-c.finished
	return c.err
}

// Done returns a channel that is closed when the connection stops reading:
// the input ended, [Conn.Close] was called, or the connection failed.
// Handlers may still be running; [Conn.Wait] waits for them.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection: it stops reading, cancels the contexts of
// running handlers, makes outstanding [Conn.Request] calls and every
// [Conn.Request] and [Conn.Notify] waiting for room in the output return
// [ErrClosed] at once, drops messages not yet written, and closes the
// reader and the writer if they implement [io.Closer], to interrupt a Read
// or Write in progress (see [Conn.Wait] for when that works). It does not
// wait, not even for a Write that cannot be interrupted: call [Conn.Wait]
// for that. Close always returns nil; it is safe to call more than once.
func (c *Conn) Close() error {
	c.markBroken()
	c.shutdown(nil)
	c.closeIO()
	return nil
}

// Shutdown ends the connection gracefully, as the end of its input does:
// it stops reading, cancels the contexts of running handlers (cause
// [ErrClosed]) and lets them finish, writing their responses and the
// notifications they send before returning, then waits as [Conn.Wait] does
// and returns what it returns. Requests still waiting for a slot run in
// turn, as at the end of the input, and so does one read while reading
// was paused for them (see [ConnOptions].MaxConcurrentRequests). That is
// how an agent should stop on SIGTERM: the editor gets an answer,
// "cancelled" for a prompt, to every request the agent has read; a line
// read after Shutdown began is dropped.
//
// To stop reading at once, Shutdown closes the reader if it implements
// CloseRead (a *net.TCPConn, say), or [io.Closer] when it is not also the
// writer; see [Conn.Wait] for which Reads that interrupts. Once every
// answer is written it closes the reader and the writer as [Conn.Close]
// does, so that the peer sees the end of its input; that also ends a Read
// on a reader that is the writer too and has no CloseRead (a [net.Pipe], a
// *tls.Conn), so Shutdown ends as soon as its handlers have returned. If
// ctx ends before the Conn has finished, Shutdown closes it as Close does,
// dropping what is unwritten, and returns the context's error at once. A
// handler must not call Shutdown: it would wait for itself until ctx ends.
func (c *Conn) Shutdown(ctx context.Context) error {
	c.shutdown(nil)
	c.closeReader()
	select {
	case <-c.drained:
	case <-ctx.Done():
		c.Close()
		return ctx.Err()
	}
	// Closing also ends a Read that closeReader could not interrupt: on a
	// reader that is the writer too, without CloseRead (a net.Pipe, a
	// *tls.Conn).
	c.closeIO()
	select {
	case <-c.finished:
		return c.err
	case <-ctx.Done():
		c.Close()
		return ctx.Err()
	}
}

// closeReader interrupts a Read in progress without closing the writer.
func (c *Conn) closeReader() {
	if cr, ok := c.r.(interface{ CloseRead() error }); ok {
		closeQuietly(cr.CloseRead)
		return
	}
	if rc, ok := c.r.(io.Closer); ok && !sameObject(c.r, c.w) {
		closeQuietly(rc.Close)
	}
}

// sameObject reports whether r and w are one value, such as a net.Conn
// passed as both. Values of types that cannot be compared are not.
func sameObject(r io.Reader, w io.Writer) (same bool) {
	defer func() { recover() }() // comparing uncomparable types panics
	return any(r) == any(w)
}

// Request sends a request for method with params (encoded with
// encoding/json before Request sends them; nil omits them) and waits for the
// response. Params must encode to a JSON object or array, in valid UTF-8:
// anything else is refused before anything is written, with an error
// matching [ErrParamsNotStructured] or [ErrNotJSON]. It returns the
// response's raw result, which the caller owns, or the peer's error as an
// [*Error], which matches the sentinels such as [ErrMethodNotFound] under
// [errors.Is]. A line that carries the request's id but is not a valid
// response (both result and error, say) fails it with an error matching
// [ErrInvalidResponse], and so does a response too long to read with an
// error matching [ErrLineTooLong] (see [ConnOptions].MaxLineLength).
//
// When ctx ends first, Request sends $/cancel_request for it and returns an
// error that wraps ctx.Err() and the context's cause; a response arriving
// later is dropped. When the connection ends first, it returns an error
// matching [ErrClosed].
//
// Request ids are integers counted from 0.
func (c *Conn) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if ctx.Err() != nil {
		return nil, ctxError(ctx, method)
	}
	select {
	case <-c.done:
		return nil, c.closedErr()
	default:
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	n := c.nextID
	c.nextID++
	c.pending[n] = ch
	c.mu.Unlock()

	line, err := encodeLine(IntID(n), method, "params", params)
	if err == nil {
		err = c.send(ctx, line)
	}
	if err != nil {
		if !c.forget(n) {
			// send queued the line, and found the writer stopped only
			// after it had written the line and the response had come.
			return (<-ch).unpack()
		}
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			err = ctxError(ctx, method)
		}
		return nil, err
	}

	select {
	case r := <-ch:
		return r.unpack()
	case <-ctx.Done():
		if !c.forget(n) {
			return (<-ch).unpack() // the response won the race and is on its way
		}
		c.cancelOutbound(n)
		return nil, ctxError(ctx, method)
	case <-c.done:
		if !c.forget(n) {
			return (<-ch).unpack()
		}
		return nil, c.closedErr()
	}
}

// ctxError is Request's error once ctx has ended: it wraps ctx.Err() and,
// when it is another error, the context's cause, so that both errors.Is
// checks work.
func ctxError(ctx context.Context, method string) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause != nil && cause != err {
		return fmt.Errorf("acp: %s request: %w: %w", method, err, cause)
	}
	return fmt.Errorf("acp: %s request: %w", method, err)
}

func (r response) unpack() (json.RawMessage, error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.result, nil
}

// forget removes outbound request n from the pending table and reports
// whether it was still there.
func (c *Conn) forget(n int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[n]
	delete(c.pending, n)
	return ok
}

// cancelOutbound tells the peer to stop working on request n. It does not
// block: if the write queue is full the cancellation, which is advisory, is
// dropped.
func (c *Conn) cancelOutbound(n int64) {
	line, err := encodeLine(ID{}, CancelRequest.Name, "params", CancelRequestParams{RequestID: IntID(n)})
	if err != nil || c.broken.Load() {
		return
	}
	select {
	case c.writeq <- line:
	default:
		c.log.Warn("acp: write queue full, $/cancel_request dropped", "id", n)
	}
}

// Notify sends a notification for method with params (encoded with
// encoding/json before Notify returns; nil omits them), which it refuses as
// [Conn.Request] does. It returns once the message is queued to be written,
// in order after everything sent before it; if the peer reads slowly and
// the queue is full, it waits, until ctx ends (so a ctx that has already
// ended matters only then). A nil error
// means queued, not delivered: [Conn.Close] drops what is still queued, and
// an error from the write itself ends the connection and is reported by
// [Conn.Wait].
//
// A handler may call Notify until it returns, even after the input has
// ended. Once the connection is closed, or done writing because the input
// ended and every handler returned, Notify returns an error matching
// [ErrClosed]; when it races with that end, it may return the error for a
// message that was written after all.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	line, err := encodeLine(ID{}, method, "params", params)
	if err != nil {
		return err
	}
	return c.send(ctx, line)
}

// send queues line for the writer. ctx matters only when the queue is full.
func (c *Conn) send(ctx context.Context, line []byte) error {
	if c.broken.Load() {
		return c.closedErr()
	}
	select {
	case c.writeq <- line:
	default:
		select {
		case c.writeq <- line:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.brokenc:
			return c.closedErr()
		case <-c.writerDone:
			return c.closedErr()
		}
	}
	// The line is queued, but it will never be written if the connection
	// broke meanwhile (the writer drops what it finds then) or the writer
	// has already stopped. Two cheap checks rather than waiting for the
	// write: they miss only a send racing with the writer's last look at
	// the queue, after every handler has returned.
	if c.broken.Load() {
		return c.closedErr()
	}
	select {
	case <-c.writerDone:
		return c.closedErr()
	default:
		return nil
	}
}

// reply queues a response from the reading goroutine or a handler; it
// gives up only when the output is broken or the writer has stopped.
func (c *Conn) reply(line []byte) {
	if c.broken.Load() {
		return
	}
	select {
	case c.writeq <- line:
	case <-c.brokenc:
	case <-c.writerDone:
	}
}

func (c *Conn) replyError(id ID, e *Error) {
	c.reply(errorLine(id, e))
}

// errorLine encodes an error response to id, with e's data if it is valid
// JSON in valid UTF-8 and without it otherwise.
func errorLine(id ID, e *Error) []byte {
	line, err := encodeLine(responseID(id), "", "error", e)
	if err != nil { // e.Data is not valid JSON: send the rest
		line, _ = encodeLine(responseID(id), "", "error", &Error{Code: e.Code, Message: e.Message})
	}
	return line
}

func (c *Conn) closedErr() error {
	<-c.done // closedErr is called only once shutdown has begun or ended
	if c.err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.err)
	}
	return ErrClosed
}

// shutdown stops reading, ends every handler's context and starts
// finishing the Conn. The first cause is kept: nil for a clean end.
func (c *Conn) shutdown(cause error) {
	c.shutOnce.Do(func() {
		c.err = cause
		close(c.done)
		c.cancel(ErrClosed)
		go c.finish()
	})
}

// fail ends the connection because of cause, dropping what is unwritten.
func (c *Conn) fail(cause error) {
	c.markBroken()
	c.shutdown(cause)
	c.closeIO()
}

// markBroken makes every write a no-op and releases the senders waiting
// for room in the write queue: once the Conn is closed or has failed they
// must not wait for a writer that may be blocked for good.
func (c *Conn) markBroken() {
	c.brokenOnce.Do(func() {
		c.broken.Store(true)
		close(c.brokenc)
	})
}

func (c *Conn) closeIO() {
	c.ioOnce.Do(func() {
		// Errors are ignored: the reader and writer may be one object
		// (a net.Conn) that refuses a second Close.
		if rc, ok := c.r.(io.Closer); ok {
			closeQuietly(rc.Close)
		}
		if wc, ok := c.w.(io.Closer); ok {
			closeQuietly(wc.Close)
		}
	})
}

// closeQuietly calls the caller's close function, ignoring its error and
// a panic: it may run on a goroutine of the Conn, where the caller could
// not recover one.
func closeQuietly(close func() error) {
	defer func() { recover() }()
	close()
}

func (c *Conn) writeLoop() {
	defer close(c.writerDone)
	for {
		select {
		case line := <-c.writeq:
			c.write(line)
		case <-c.stopWriter:
			for {
				select {
				case line := <-c.writeq:
					c.write(line)
				default:
					return
				}
			}
		}
	}
}

func (c *Conn) write(line []byte) {
	if c.broken.Load() {
		return
	}
	if err := c.writeLine(line); err != nil {
		c.fail(fmt.Errorf("acp: writing: %w", err))
	}
}

// writeLine and readLine call the caller's writer and reader on a
// goroutine of the Conn, where the caller cannot recover a panic: a panic
// becomes an error that ends the connection. A call to runtime.Goexit (as
// a test's fake calling t.FailNow makes) ends the goroutine whatever is
// done, so it fails the connection, and a new goroutine finishes the
// reader's work.
func (c *Conn) writeLine(line []byte) (err error) {
	returned := false
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		} else if !returned {
			c.fail(errors.New("acp: writing: the writer exited its goroutine"))
		}
	}()
	// The writer goroutine is the only one writing, and each line already
	// ends in its newline: one Write, no copy, no lock.
	if c.onWrite != nil {
		c.onWrite(line[:len(line)-1])
	}
	var n int
	n, err = c.w.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	returned = true
	return err
}

func (c *Conn) readLine() (line []byte, err error) {
	returned := false
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		} else if !returned {
			go c.endReading(errors.New("acp: reading: the reader exited its goroutine"))
		}
	}()
	line, err = c.nextLine()
	if err == nil && c.onRead != nil {
		c.onRead(line)
	}
	returned = true
	return line, err
}

// readLoop reads and dispatches messages until the connection ends.
func (c *Conn) readLoop() {
	c.endReading(c.read())
}

// endReading ends the connection's reading because of cause (nil for the
// end of input), and marks the reading goroutine returned.
func (c *Conn) endReading(cause error) {
	c.shutdown(cause)
	close(c.readerDone)
}

// finish, once the connection has stopped reading, waits for the line
// being handled, then for the handlers and the writer, and marks the Conn
// finished once the reading goroutine has returned too. It does not wait
// for that goroutine's Read: Shutdown may have to close the reader to end
// it, once every answer is written.
func (c *Conn) finish() {
	c.gate <- struct{}{} // the reading goroutine handles no more lines
	close(c.readDone)    // no request will come for idle handler goroutines
	// Requests waiting for a slot run as slots free, unless the output is
	// broken: then next leaves them here, and no answer could be sent.
	c.handlers.Wait()
	c.mu.Lock()
	c.queue = nil
	c.mu.Unlock()
	close(c.stopWriter)
	<-c.writerDone
	close(c.drained)
	<-c.readerDone
	if !c.stopAf() {
		<-c.afDone // it is running, closing r and w: let it finish
	}
	c.cancel(ErrClosed)
	close(c.finished)
}

// read is the reading loop; it returns nil at the end of input and the
// read error otherwise.
func (c *Conn) read() error {
	for {
		line, err := c.readLine()
		if stop, cause := c.handle(line, err); stop {
			return cause
		}
	}
}

// handle handles what one read returned, holding the gate, and reports
// whether reading ends, and why: nil for the end of input, or once the
// connection has ended, when whatever the reader says is moot.
func (c *Conn) handle(line []byte, err error) (stop bool, cause error) {
	select {
	case c.gate <- struct{}{}:
	case <-c.done:
		return true, nil
	}
	defer func() { <-c.gate }() // also when a notification handler calls runtime.Goexit
	select {
	case <-c.done:
		return true, nil
	default:
	}
	if err != nil {
		// The line reader's own error, or a transport's of this module,
		// told by its type: the caller's reader may return any error,
		// with any Is or As method.
		tooLong, isTooLong := err.(*lines.TooLongError)
		failed, isFailed := err.(*transport.RequestError)
		switch {
		case isTooLong:
			c.tooLong(tooLong)
			return false, nil
		case isFailed:
			c.failRequest(failed)
			return false, nil
		case err == io.EOF:
			return true, nil
		default:
			return true, fmt.Errorf("acp: reading: %w", err)
		}
	}
	msg := Classify(line)
	switch msg.Kind {
	case KindRequest:
		c.startRequest(msg)
	case KindNotification:
		c.notification(msg)
	case KindResponse:
		c.response(msg)
	default:
		if !c.failPending(msg, line) {
			c.log.Warn("acp: invalid message", "error", msg.Err, "id", msg.ID.String())
			c.replyError(msg.ID, msg.Err)
		}
	}
	return false, nil
}

// startRequest admits an inbound request: it starts its handler on a new
// goroutine if fewer than limit run, and queues it otherwise. It waits
// only when the queue is full too, for a request to be answered; at
// shutdown too, since the request has been read and must be answered,
// unless the output breaks and no answer can be.
func (c *Conn) startRequest(msg Message) {
	select {
	case c.admit <- struct{}{}:
	default:
		c.log.Debug("acp: too many requests waiting, reading paused", "max", cap(c.admit))
		select {
		case c.admit <- struct{}{}:
		case <-c.brokenc:
			return
		}
	}
	id := msg.ID.Clone()
	in := &inbound{id: id, key: id.String(), method: msg.Method, params: bytes.Clone(msg.Params)}
	c.mu.Lock()
	if _, dup := c.inflight[in.key]; dup {
		c.mu.Unlock()
		<-c.admit
		c.log.Warn("acp: duplicate request id", "id", echo(in.key), "method", echo(msg.Method))
		c.replyError(id, Errorf(CodeInvalidRequest, "Invalid request: id %s is already in use", echo(in.key)))
		return
	}
	c.inflight[in.key] = in
	if c.running == c.limit {
		c.queue = append(c.queue, in)
		c.mu.Unlock()
		return
	}
	c.running++
	c.begin(in)
	c.mu.Unlock()
	select {
	case c.idle <- in: // a goroutine whose handler returned takes it
	default:
		c.handlers.Add(1)
		go c.serve(in)
	}
}

// begin gives in its context; c.mu is held.
func (c *Conn) begin(in *inbound) {
	ctx, cancel := context.WithCancelCause(c.ctx)
	in.ctx, in.cancel = handlerContext{Context: ctx, c: c, in: in}, cancel
}

// serve runs in's handler and answers it, then runs the requests that
// waited for its slot, oldest first, until none waits. Then it waits, idle,
// for the next request startRequest hands it, until reading has stopped:
// reusing the goroutine spares each request a new goroutine whose stack
// grows again in the decoders.
func (c *Conn) serve(in *inbound) {
	defer c.handlers.Done()
	for {
		for in != nil {
			in = c.run(in)
		}
		select {
		case in = <-c.idle:
		case <-c.readDone:
			return
		}
	}
}

// run runs in's handler, answers the request, and returns the request that
// takes over its slot, if any. A handler that calls [runtime.Goexit] (as
// t.FailNow does) ends the goroutine: run's deferred call then answers
// for it and hands the slot to a new goroutine, so that neither the
// requester nor the requests waiting for a slot wait forever.
func (c *Conn) run(in *inbound) (next *inbound) {
	const (
		handling  = iota // the handler, or the encoding of what it returned
		answering        // the response is encoded: queuing it, running hooks
		answered
	)
	stage := handling
	defer func() {
		switch stage {
		case answered:
			return
		case handling:
			c.log.Error("acp: request handler exited its goroutine", "method", echo(in.method))
			c.answer(in, errorLine(in.id, Errorf(CodeInternalError, "Internal error: the handler for %s exited without returning", echo(in.method))))
		case answering:
			c.log.Error("acp: AfterResponse function exited its goroutine", "method", echo(in.method))
		}
		if next := c.next(); next != nil {
			c.handlers.Add(1) // this goroutine's own count is not yet done
			go c.serve(next)
		}
		<-c.admit
	}()
	result, err := c.callHandler(&in.ctx, in.method, in.params)
	// Encoding runs the handler's code too (a MarshalJSON, the error's
	// methods), which may call runtime.Goexit as well; so may a function
	// given to AfterResponse.
	line := c.responseLine(in.id, in.method, result, err, in.peerCancelled.Load())
	stage = answering
	c.answer(in, line)
	stage = answered
	next = c.next()
	<-c.admit // the answered request's token, after next has taken its slot
	return next
}

// answer retires in and sends line, its response, then runs what
// AfterResponse registered.
func (c *Conn) answer(in *inbound, line []byte) {
	c.mu.Lock()
	delete(c.inflight, in.key)
	c.mu.Unlock()
	in.cancel(nil)
	c.reply(line)
	// sent is stored before hooks is loaded, and AfterResponse adds to
	// hooks before it loads sent: one of the two sees the other's hook.
	in.sent.Store(true)
	if in.hooks.Load() != nil {
		c.runHooks(in)
	}
}

// runHooks runs the hooks registered for in so far, oldest first, and
// forgets them; a panic in one is logged.
func (c *Conn) runHooks(in *inbound) {
	l := in.hooks.Load()
	l.mu.Lock()
	fns := l.fns
	l.fns = nil
	l.mu.Unlock()
	for _, f := range fns {
		c.runHook(in.method, f)
	}
}

func (c *Conn) runHook(method string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("acp: AfterResponse function panicked", "method", echo(method), "panic", p, "stack", string(debug.Stack()))
		}
	}()
	f()
}

// next hands the caller's slot to the oldest waiting request and returns
// it, or frees the slot and returns nil when none waits or the output is
// broken, so that no answer could be sent.
func (c *Conn) next() *inbound {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 || c.broken.Load() {
		c.running--
		return nil
	}
	in := c.queue[0]
	c.queue[0] = nil
	c.queue = c.queue[1:]
	c.begin(in)
	return in
}

// callHandler calls the handler, turning a panic into an error. It does not
// return if the handler calls [runtime.Goexit]; see [Conn.run].
func (c *Conn) callHandler(ctx context.Context, method string, params json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("acp: request handler panicked", "method", echo(method), "panic", p, "stack", string(debug.Stack()))
			result, err = nil, Errorf(CodeInternalError, "Internal error: the handler for %s panicked", echo(method))
		}
	}()
	if c.h == nil {
		return nil, methodNotFound(method)
	}
	return c.h.HandleRequest(ctx, c, method, params)
}

// responseLine encodes the response to request id. Whatever the handler
// returned, it returns a line: a result that cannot be encoded (its
// MarshalJSON panics or fails, or emits invalid UTF-8) and an error that
// misbehaves (a nil pointer in a non-nil error, an Error or As method that
// panics) are answered [CodeInternalError], since the handler's mistakes
// must not cost the requester its answer or the process its life.
func (c *Conn) responseLine(id ID, method string, result any, err error, peerCancelled bool) []byte {
	if err == nil {
		line, merr := marshalResult(id, result)
		if merr == nil {
			return line
		}
		c.log.Error("acp: cannot encode result", "method", echo(method), "error", merr)
		err = Errorf(CodeInternalError, "Internal error: cannot encode the result of %s", echo(method))
	}
	return errorLine(id, c.wireError(method, err, peerCancelled))
}

// wireError turns a handler's error into the *Error sent for it. The
// error is the handler's value: its methods may panic, so they run under
// recover.
func (c *Conn) wireError(method string, err error, peerCancelled bool) (e *Error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("acp: request handler's error panicked", "method", echo(method), "type", fmt.Sprintf("%T", err), "panic", p)
			e = Errorf(CodeInternalError, "Internal error: the handler for %s returned an unusable %T error", echo(method), err)
		}
	}()
	var wire *Error
	switch {
	case errors.As(err, &wire) && wire != nil:
		return wire
	case peerCancelled && errors.Is(err, context.Canceled):
		return ErrRequestCancelled
	default:
		return &Error{Code: CodeInternalError, Message: err.Error()}
	}
}

// marshalResult encodes a success response to id, turning a panic in the
// result's MarshalJSON (which encoding/json lets through) into an error: it
// is the handler's panic, and the connection survives those.
func marshalResult(id ID, result any) (line []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return encodeLine(responseID(id), "", "result", result)
}

// notification delivers an inbound notification, on the reading goroutine.
func (c *Conn) notification(msg Message) {
	if msg.Method == CancelRequest.Name {
		c.cancelInbound(msg.Params)
		return
	}
	if c.h == nil {
		return
	}
	returned := false
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("acp: notification handler panicked", "method", echo(msg.Method), "panic", p, "stack", string(debug.Stack()))
			return
		}
		if !returned {
			// runtime.Goexit is ending the reading goroutine: read on in
			// a new one, or nothing more would be read and Wait would
			// never return.
			c.log.Error("acp: notification handler exited its goroutine", "method", echo(msg.Method))
			go c.readLoop()
		}
	}()
	c.h.HandleNotification(c.ctx, c, msg.Method, bytes.Clone(msg.Params))
	returned = true
}

// cancelInbound handles $/cancel_request: {"requestId": id}. Of a repeated
// requestId the last wins, as in every decoder of the package.
func (c *Conn) cancelInbound(params []byte) {
	id := members.Get(gjson.ParseBytes(params), "requestId")
	if !id.Exists() {
		c.log.Warn("acp: $/cancel_request without requestId")
		return
	}
	c.mu.Lock()
	in := c.inflight[id.Raw]
	if in == nil {
		c.mu.Unlock()
		c.log.Debug("acp: $/cancel_request for no running request", "id", id.Raw)
		return
	}
	if in.ctx.Context == nil { // waiting: answer it now, without running it
		delete(c.inflight, in.key)
		c.queue = slices.DeleteFunc(c.queue, func(q *inbound) bool { return q == in })
		c.mu.Unlock()
		c.replyError(in.id, ErrRequestCancelled)
		<-c.admit
		return
	}
	cancel := in.cancel
	c.mu.Unlock()
	in.peerCancelled.Store(true)
	cancel(ErrRequestCancelled)
}

// claim takes the pending outbound request whose id is raw out of the
// table and returns its number and the channel its Request waits on; the
// channel is nil when raw is not the id of a pending request. The reading
// goroutine, the only one that sends on these channels, calls it.
func (c *Conn) claim(raw []byte) (int64, chan response) {
	n, ok := parseRequestID(raw)
	if !ok {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.pending[n]
	delete(c.pending, n)
	return n, ch
}

// response hands an inbound response to the Request waiting for it.
func (c *Conn) response(msg Message) {
	_, ch := c.claim(msg.ID.Raw())
	if ch == nil {
		c.log.Debug("acp: response to no pending request, dropped", "id", msg.ID.String())
		return
	}
	var r response
	if msg.Err != nil {
		e := *msg.Err
		e.Data = bytes.Clone(e.Data)
		r.err = &e
	} else {
		r.result = bytes.Clone(msg.Result)
	}
	ch <- r // buffered, and only this goroutine sends
}

// failPending fails the pending outbound request that the invalid message
// msg (read from line) answers, and reports whether there was one. A line
// with one of our ids and no method is a broken response, not a broken
// request: it gets no reply. Only invalid lines pay for the second look at
// line, which Classify has already validated as JSON when it read an id.
func (c *Conn) failPending(msg Message, line []byte) bool {
	if gjson.GetBytes(line, "method").Exists() {
		return false
	}
	n, ch := c.claim(msg.ID.Raw())
	if ch == nil {
		return false
	}
	c.log.Warn("acp: invalid response", "error", msg.Err, "id", n)
	why := strings.TrimPrefix(msg.Err.Message, "Invalid request: ")
	ch <- response{err: fmt.Errorf("%w: %s", ErrInvalidResponse, why)}
	return true
}

// tooLong answers a line too long to read from what its first bytes show
// (see [ConnOptions].MaxLineLength): a response fails the pending request
// it answers with an error matching [ErrLineTooLong] and gets no reply; a
// request is answered [CodeInvalidRequest] with its id; anything else
// with a null id.
func (c *Conn) tooLong(tooLong *lines.TooLongError) {
	c.log.Warn("acp: line too long, skipped", "bytes", tooLong.Length, "max", tooLong.Max)
	head := msghead.Read(tooLong.Head)
	if head.Kind == msghead.Response {
		if n, ch := c.claim(head.ID); ch != nil {
			ch <- response{err: fmt.Errorf("acp: response to request %d: %w", n, frameError(tooLong))}
			return
		}
		c.log.Debug("acp: response to no pending request, dropped", "id", echo(string(head.ID)))
		return
	}
	id := NullID
	if head.Kind == msghead.Request {
		if parsed, err := ParseID(head.ID); err == nil {
			id = parsed
		}
	}
	c.replyError(id, Errorf(CodeInvalidRequest, "Invalid request: line of %d bytes exceeds the maximum of %d", tooLong.Length, tooLong.Max))
}

// failRequest fails the pending request a transport could not deliver
// or get the answer of.
func (c *Conn) failRequest(failed *transport.RequestError) {
	if _, ch := c.claim(failed.ID); ch != nil {
		ch <- response{err: failed.Err}
		return
	}
	c.log.Debug("acp: transport failure of no pending request, dropped", "id", echo(string(failed.ID)), "error", failed.Err)
}

// parseRequestID reads an id this Conn generated: a non-negative decimal
// integer, without allocating.
func parseRequestID(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 || (raw[0] == '0' && len(raw) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
