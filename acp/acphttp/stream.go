package acphttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/msghead"
	"github.com/tidwall/gjson"
)

// An httpConn is one Streamable HTTP connection: the MessageReader and
// the writer of its acp.Conn. POSTs hand it the client's messages; the
// Conn's writes are routed to the connection's stream or a session's,
// where GET requests take them.
type httpConn struct {
	s      *Server
	id     string
	caller string // the Name of the Caller that opened it
	conn   *acp.Conn
	ledger *ledger

	in      chan item     // the client's messages, for ReadMessage
	stopIn  chan struct{} // closed by CloseRead and Close
	stopped sync.Once

	// The initialize request's raw id, and where its response goes: the
	// POST that made the connection answers it.
	initID   string
	initResp chan []byte

	taken atomic.Int64 // messages and keep-alives written to a stream

	mu       sync.Mutex
	room     *sync.Cond // broadcast when output is taken, or at close
	main     *mailbox   // the connection-scoped stream's
	boxes    map[string]*mailbox
	buffered int  // bytes queued in the mailboxes
	waiting  bool // the Conn's writer waits for room
	writing  int  // stream writes in progress
	posts    int  // POSTs in progress
	attached int  // streams open
	closed   bool // no more output: streams end once drained
	ready    bool // conn is set; guarded by s.mu

	idle, stalled quiet // the watchdog's alone
	sinceKeep     time.Duration
}

// A mailbox holds the messages of one stream until its GET takes them.
type mailbox struct {
	queue    [][]byte
	attached bool
	wake     chan struct{} // signalled when there is something to do
	wrote    bool          // written since the last keep-alive period
	keep     bool          // a keep-alive is due
	abort    func()        // makes the stream's write in progress fail
}

func newMailbox() *mailbox { return &mailbox{wake: make(chan struct{}, 1)} }

func (m *mailbox) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Streamable HTTP's statuses, with a plain-text reason.
func httpError(w http.ResponseWriter, status int, reason string) {
	http.Error(w, reason, status)
}

// jsonError answers with status and a JSON-RPC error response to id.
func jsonError(w http.ResponseWriter, status int, id acp.ID, e *acp.Error) {
	line, _ := acp.MarshalErrorResponse(id, e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(line)
}

// connection returns the connection that r's Acp-Connection-Id names, or
// answers 400 without one and 404 for one the server does not know. A
// connection that another caller opened is unknown to this one: the same
// 404 says nothing of it, so that no token reaches another editor's
// connection, even knowing its id.
func (s *Server) connection(w http.ResponseWriter, r *http.Request, caller Caller) *httpConn {
	id := r.Header.Get(HeaderConnectionID)
	if id == "" {
		httpError(w, http.StatusBadRequest, "Bad Request: missing "+HeaderConnectionID+" (initialize opens a connection)")
		return nil
	}
	s.mu.Lock()
	h := s.streams[id]
	if h != nil && !h.ready {
		h = nil
	}
	s.mu.Unlock()
	if h != nil && h.caller != caller.Name {
		s.log.Warn("acphttp: request for another caller's connection refused", "connection", h.id, "caller", caller.Name, "owner", h.caller, "remote", r.RemoteAddr)
		h = nil
	}
	if h == nil {
		httpError(w, http.StatusNotFound, "Not Found: unknown "+HeaderConnectionID)
		return nil
	}
	return h
}

// servePost takes one message from the client.
func (s *Server) servePost(w http.ResponseWriter, r *http.Request, caller Caller) {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: POST application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.lim.maxMessage)))
	if err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			s.tooLarge(w, r, caller, body)
			return
		}
		httpError(w, http.StatusBadRequest, "Bad Request: reading the body: "+err.Error())
		return
	}
	switch t := gjson.ParseBytes(body); {
	case !gjson.ValidBytes(body):
		jsonError(w, http.StatusBadRequest, acp.NullID, acp.Errorf(acp.CodeParseError, "Parse error: the body is not JSON"))
		return
	case t.IsArray():
		jsonError(w, http.StatusBadRequest, acp.NullID, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: JSON-RPC batches are not supported"))
		return
	case !t.IsObject():
		jsonError(w, http.StatusBadRequest, acp.NullID, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: not a JSON object"))
		return
	}
	m := inspect(body)
	if m.kind == kindRequest && m.method == acp.Initialize.Name {
		if r.Header.Get(HeaderConnectionID) != "" {
			httpError(w, http.StatusBadRequest, "Bad Request: initialize on an existing connection")
			return
		}
		s.initialize(w, r, caller, m, body)
		return
	}
	h := s.connection(w, r, caller)
	if h == nil {
		return
	}
	sid := r.Header.Get(HeaderSessionID)
	switch {
	case len(sid) > maxIDLength:
		httpError(w, http.StatusBadRequest, "Bad Request: "+HeaderSessionID+" too long")
		return
	case sid == "" && (sessionMethods[m.method] || m.session != ""):
		httpError(w, http.StatusBadRequest, "Bad Request: missing "+HeaderSessionID+" for "+echoID(m.method))
		return
	case sid != "" && m.session != "" && sid != m.session:
		httpError(w, http.StatusBadRequest, "Bad Request: "+HeaderSessionID+" does not match params.sessionId")
		return
	case sid != "" && m.session == "" && m.kind != kindResponse && !h.ledger.reaches(sid):
		httpError(w, http.StatusConflict, "Conflict: session "+echoID(sid)+" is not open on this connection")
		return
	}
	if ref, _ := h.ledger.admit(m, len(body)); ref != nil {
		s.log.Info("acphttp: message refused", "connection", h.id, "method", m.method, "status", ref.status, "error", ref.err.Message)
		if m.kind == kindRequest {
			jsonError(w, ref.status, rawID(m.id), ref.err)
		} else {
			httpError(w, ref.status, http.StatusText(ref.status)+": "+ref.err.Message)
		}
		return
	}
	if !h.deliver(r.Context(), item{msg: body}) {
		if m.kind == kindRequest {
			h.ledger.answered(m.id, nil) // never reached the agent
		}
		httpError(w, http.StatusNotFound, "Not Found: the connection has ended")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// tooLarge answers 413 to a POST over MaxMessageBytes, of which body is
// the start, from what its first bytes show, as the Conn answers a
// message too long over a WebSocket: a request gets a -32600 error with
// its id, anything else with a null id, and a response fails the agent's
// request it answers.
func (s *Server) tooLarge(w http.ResponseWriter, r *http.Request, caller Caller, body []byte) {
	max := s.lim.maxMessage
	why := "Invalid request: message exceeds the maximum of " + strconv.Itoa(max) + " bytes"
	length := int64(max) + 1
	if r.ContentLength > int64(max) {
		length = r.ContentLength
		why = "Invalid request: message of " + strconv.FormatInt(length, 10) + " bytes exceeds the maximum of " + strconv.Itoa(max)
	}
	raw := bytes.Clone(body[:min(len(body), lines.HeadLength)])
	head := msghead.Read(raw)
	if head.Kind == msghead.Response {
		h := s.connection(w, r, caller)
		if h == nil {
			return
		}
		h.deliver(r.Context(), item{err: &lines.TooLongError{Length: length, Max: max, Head: raw}})
		httpError(w, http.StatusRequestEntityTooLarge, "Request Entity Too Large: "+why)
		return
	}
	id := acp.NullID
	if head.Kind == msghead.Request {
		id = rawID(string(head.ID))
	}
	jsonError(w, http.StatusRequestEntityTooLarge, id, acp.Errorf(acp.CodeInvalidRequest, "%s", why))
}

// deliver hands a message to the Conn; false means the connection ended
// first, or the client gave up waiting.
func (h *httpConn) deliver(ctx context.Context, msg item) bool {
	h.mu.Lock()
	h.posts++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.posts--
		h.mu.Unlock()
	}()
	select {
	case h.in <- msg:
		return true
	case <-h.stopIn:
	case <-ctx.Done():
	}
	return false
}

// initialize opens a connection and answers its initialize request with
// the agent's response, 200.
func (s *Server) initialize(w http.ResponseWriter, r *http.Request, caller Caller, m message, body []byte) {
	h := &httpConn{
		s:        s,
		id:       newID(),
		caller:   caller.Name,
		ledger:   newLedger(s.lim.maxSessions, s.lim.maxBuffered),
		in:       make(chan item),
		stopIn:   make(chan struct{}),
		initID:   m.id,
		initResp: make(chan []byte, 1),
		main:     newMailbox(),
		boxes:    make(map[string]*mailbox),
	}
	h.room = sync.NewCond(&h.mu)
	handler := s.accept(w, &Connection{ID: h.id, Caller: caller, Request: r},
		func() { s.streams[h.id] = h },
		func() { delete(s.streams, h.id) })
	if handler == nil {
		return
	}
	h.conn = acp.NewConn(s.ctx, h, h, handler, s.connOptions())
	s.live(&h.ready, h.conn)
	go h.run()
	var resp []byte
	if h.deliver(r.Context(), item{msg: body}) {
		select {
		case resp = <-h.initResp:
		case <-h.conn.Done():
		case <-r.Context().Done():
		}
	}
	if resp == nil {
		h.conn.Close()
		httpError(w, http.StatusServiceUnavailable, "Service Unavailable: the connection ended before initialize was answered")
		return
	}
	w.Header().Set(HeaderConnectionID, h.id)
	w.Header().Set("Content-Type", "application/json")
	s.setCookie(w)
	w.WriteHeader(http.StatusOK)
	w.Write(withConnectionID(resp, h.id))
}

// withConnectionID adds connectionId to a successful initialize result,
// as the RFD shows it; the official SDK reads only the header.
func withConnectionID(resp []byte, id string) []byte {
	res := gjson.GetBytes(resp, "result")
	if !res.IsObject() || gjson.Get(res.Raw, "connectionId").Exists() || res.Index <= 0 {
		return resp
	}
	open := res.Index + 1 // just past the result's '{'
	var b bytes.Buffer
	b.Write(resp[:open])
	b.WriteString(`"connectionId":"`)
	b.WriteString(id) // base32: nothing to escape
	b.WriteByte('"')
	if strings.TrimSpace(res.Raw[1:len(res.Raw)-1]) != "" {
		b.WriteByte(',')
	}
	b.Write(resp[open:])
	return b.Bytes()
}

// run owns the connection for its life: it starts the watchdog, waits
// for the Conn, then forgets the connection.
func (h *httpConn) run() {
	defer h.s.owners.Done()
	dog := startWatchdog(h.s.opts.Clock, h.s.lim.tick(), h.check)
	err := h.conn.Wait()
	dog.halt()
	h.Close()
	h.s.mu.Lock()
	delete(h.s.streams, h.id)
	h.s.mu.Unlock()
	if err != nil {
		h.s.log.Info("acphttp: connection ended", "connection", h.id, "caller", h.caller, "error", err)
	}
}

func (h *httpConn) shutdown(ctx context.Context) { h.conn.Shutdown(ctx) }

// check is the watchdog's: keep-alives for quiet streams, the idle limit
// and the output stall.
func (h *httpConn) check() {
	lim, tick := h.s.lim, h.s.lim.tick()
	h.mu.Lock()
	present := h.attached > 0 || h.posts > 0
	busy := h.waiting || h.writing > 0
	if lim.keepAlive > 0 {
		if h.sinceKeep += tick; h.sinceKeep >= lim.keepAlive {
			h.sinceKeep = 0
			for _, m := range h.mailboxes() {
				if m.attached && !m.wrote {
					m.keep = true
					m.signal()
				}
				m.wrote = false
			}
		}
	}
	var aborts []func()
	stalled := lim.stall > 0 && h.stalled.observe(h.taken.Load(), busy, tick) >= lim.stall
	if stalled {
		for _, m := range h.mailboxes() {
			if m.abort != nil {
				aborts = append(aborts, m.abort)
			}
		}
	}
	idle := lim.idle > 0 && h.idle.observe(0, !present, tick) >= lim.idle
	h.mu.Unlock()
	switch {
	case stalled:
		h.s.log.Info("acphttp: closing a connection whose client stopped reading", "connection", h.id)
		for _, abort := range aborts {
			abort()
		}
		h.conn.Close()
	case idle:
		h.s.log.Info("acphttp: closing an idle connection", "connection", h.id)
		h.conn.Close()
	}
}

// mailboxes returns every mailbox; h.mu is held.
func (h *httpConn) mailboxes() []*mailbox {
	all := []*mailbox{h.main}
	for _, m := range h.boxes {
		all = append(all, m)
	}
	return all
}

// Read is never called: the Conn reads with ReadMessage.
func (h *httpConn) Read([]byte) (int, error) {
	return 0, errors.New("acphttp: Read on a MessageReader")
}

// ReadMessage returns the next message a POST delivered, or a
// *lines.TooLongError for a response too large to take.
func (h *httpConn) ReadMessage() ([]byte, error) {
	select {
	case it := <-h.in:
		return it.msg, it.err
	case <-h.stopIn:
		return nil, io.EOF
	}
}

// CloseRead ends the Conn's input, for acp.Conn.Shutdown: POSTs get 404.
func (h *httpConn) CloseRead() error {
	h.stopped.Do(func() { close(h.stopIn) })
	return nil
}

// Close ends the input and the output: each stream ends once it has
// written what is queued for it.
func (h *httpConn) Close() error {
	h.CloseRead()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		h.room.Broadcast()
		for _, m := range h.mailboxes() {
			m.signal()
		}
	}
	return nil
}

// Write routes one of the Conn's messages: the initialize response to
// its POST, a response to the stream of the request it answers, anything
// else to its session's stream (see route), or the connection's. It
// waits while the connection holds MaxBufferedBytes for its client.
func (h *httpConn) Write(line []byte) (int, error) {
	msg := bytes.TrimSuffix(line, []byte("\n"))
	id, method, response := outboundHead(msg)
	if response && h.initID != "" && id == h.initID {
		h.initID = "" // only this goroutine reads or writes it now
		h.ledger.answered(id, msg)
		h.initResp <- msg
		return len(line), nil
	}
	var session string
	if response {
		session, _ = h.ledger.answered(id, msg)
	} else if s := gjson.GetBytes(msg, "params.sessionId"); s.Type == gjson.String {
		session = s.Str
		if method == acp.SessionUpdate.Name {
			h.ledger.learn(msg)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.buffered >= h.s.lim.maxBuffered && !h.closed {
		h.waiting = true
		h.room.Wait()
	}
	h.waiting = false
	if h.closed {
		return 0, acp.ErrClosed
	}
	m := h.route(session)
	m.queue = append(m.queue, msg)
	h.buffered += len(msg)
	m.signal()
	return len(line), nil
}

// route returns the mailbox of a message for session: the session's own
// stream when a client reads it or the connection holds the session; for
// a child the agent exposed, its parent's, so that the child's messages
// come in order after the subagent_update that announced it, on a
// stream the client reads; otherwise, for a session the connection does
// not know or none, the connection's, which the client always reads.
// h.mu is held.
func (h *httpConn) route(session string) *mailbox {
	// Each step climbs to a parent learned before its child: at most
	// maxChildren steps.
	for range h.ledger.maxChildren + 1 {
		if session == "" {
			break
		}
		if m := h.boxes[session]; m != nil && m.attached {
			return m
		}
		parent, held := h.ledger.parent(session)
		if held {
			return h.mailbox(session)
		}
		session = parent
	}
	return h.main
}

// mailbox returns session's mailbox, made if need be, or the connection's
// for "" and for a session past MaxSessions; h.mu is held.
func (h *httpConn) mailbox(session string) *mailbox {
	if session == "" {
		return h.main
	}
	m := h.boxes[session]
	if m == nil {
		if len(h.boxes) >= h.s.lim.maxSessions || len(session) > maxIDLength {
			return h.main
		}
		m = newMailbox()
		h.boxes[session] = m
	}
	return m
}

// serveStream serves a GET stream: the connection's, or a session's with
// Acp-Session-Id.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, caller Caller) {
	if !acceptsEventStream(r.Header) {
		httpError(w, http.StatusNotAcceptable, "Not Acceptable: a stream is text/event-stream")
		return
	}
	h := s.connection(w, r, caller)
	if h == nil {
		return
	}
	sid := r.Header.Get(HeaderSessionID)
	if len(sid) > maxIDLength {
		httpError(w, http.StatusBadRequest, "Bad Request: "+HeaderSessionID+" too long")
		return
	}
	m, status := h.attach(sid)
	if m == nil {
		httpError(w, status, http.StatusText(status)+": the stream is open elsewhere, or the connection has too many")
		return
	}
	defer h.detach(sid, m)
	rc := http.NewResponseController(w)
	h.mu.Lock()
	m.abort = func() { rc.SetWriteDeadline(time.Unix(1, 0)) }
	h.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	h.pump(r.Context(), w, rc, m)
}

// acceptsEventStream reports whether Accept admits text/event-stream.
func acceptsEventStream(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for t := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(t, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "text/event-stream", "text/*", "*/*":
				return true
			}
		}
	}
	return false
}

// attach gives a GET the stream of session (the connection's for ""), or
// returns the status that refuses it: 409 when the stream has a receiver,
// or the connection has MaxSessions session streams.
func (h *httpConn) attach(session string) (*mailbox, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, http.StatusNotFound
	}
	m := h.main
	if session != "" {
		m = h.boxes[session]
		if m == nil {
			if len(h.boxes) >= h.s.lim.maxSessions {
				return nil, http.StatusConflict
			}
			m = newMailbox()
			h.boxes[session] = m
		}
	}
	if m.attached {
		return nil, http.StatusConflict
	}
	m.attached = true
	h.attached++
	return m, 0
}

// detach ends a GET's hold on its stream; a session's stream with nothing
// queued is forgotten once the connection no longer holds the session.
func (h *httpConn) detach(session string, m *mailbox) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m.attached, m.abort = false, nil
	h.attached--
	if session != "" && len(m.queue) == 0 && !h.ledger.holds(session) {
		delete(h.boxes, session)
	}
}

// pump writes a stream's messages as SSE events until the connection ends
// and the stream is drained, or the client goes.
func (h *httpConn) pump(ctx context.Context, w io.Writer, rc *http.ResponseController, m *mailbox) {
	var batch [][]byte
	for {
		h.mu.Lock()
		for len(m.queue) == 0 && !m.keep && !h.closed {
			h.mu.Unlock()
			select {
			case <-m.wake:
			case <-ctx.Done():
				return
			}
			h.mu.Lock()
		}
		batch, m.queue = m.queue, batch[:0]
		keep := m.keep && len(batch) == 0
		m.keep = false
		if len(batch) == 0 && !keep { // closed, and drained
			h.mu.Unlock()
			return
		}
		h.writing++
		m.wrote = true
		h.mu.Unlock()

		err := writeEvents(w, batch, keep)
		if err == nil {
			err = rc.Flush()
		}
		h.taken.Add(1)
		size := 0
		for i, msg := range batch {
			size += len(msg)
			batch[i] = nil
		}
		h.mu.Lock()
		h.writing--
		h.buffered -= size
		h.room.Broadcast()
		h.mu.Unlock()
		if err != nil {
			return // what was being written is lost; the client reopens
		}
	}
}

// writeEvents writes msgs as SSE events, or a keep-alive comment.
func writeEvents(w io.Writer, msgs [][]byte, keep bool) error {
	if keep {
		_, err := io.WriteString(w, ":\n\n")
		return err
	}
	for _, msg := range msgs {
		if _, err := io.WriteString(w, "data: "); err != nil {
			return err
		}
		if _, err := w.Write(msg); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n\n"); err != nil {
			return err
		}
	}
	return nil
}

// serveDelete closes a connection: 202.
func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request, caller Caller) {
	h := s.connection(w, r, caller)
	if h == nil {
		return
	}
	h.conn.Close()
	w.WriteHeader(http.StatusAccepted)
}
