package acphttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/acpkit/acpkit/acp"
	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
)

// A wsConn is one WebSocket connection: the MessageReader and the writer
// of its acp.Conn. The Conn's reading goroutine is the only caller of
// ReadMessage, and its writing goroutine the only caller of Write.
type wsConn struct {
	s      *Server
	id     string
	caller string // the Name of the Caller that opened it
	ws     *websocket.Conn
	conn   *acp.Conn
	ledger *ledger

	buf         *bytes.Buffer    // the message ReadMessage last returned
	lr          io.LimitedReader // readMessage's, kept so that a message costs no allocation
	initialized bool             // the client has sent initialize

	heard    atomic.Int64 // frames and pongs from the client
	written  atomic.Int64 // frames written to the client
	writing  atomic.Int32 // writes in progress
	pinging  atomic.Bool
	idle     quiet // the watchdog's alone
	stalled  quiet
	pings    sync.WaitGroup
	pingCtx  context.Context
	stopPing context.CancelFunc

	ready     bool // conn is set; guarded by s.mu
	closeOnce sync.Once
	draining  atomic.Bool // shutting down: drop what the client sends
	closing   atomic.Bool // the server has begun closing the socket

	closeMu sync.Mutex // guards code and reason
	code    websocket.StatusCode
	reason  string
}

// bufs holds the buffers of messages read, between messages: an idle
// connection holds none.
var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// keepBuf is the largest buffer put back in bufs.
const keepBuf = 64 << 10

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, caller Caller) {
	c := &wsConn{s: s, id: newID(), caller: caller.Name, ledger: newLedger(s.lim.maxSessions, s.lim.maxBuffered), code: websocket.StatusNormalClosure}
	handler := s.accept(w, &Connection{ID: c.id, Caller: caller, Request: r},
		func() { s.sockets[c] = struct{}{} },
		func() { delete(s.sockets, c) })
	if handler == nil {
		return
	}
	defer s.owners.Done()
	defer func() {
		s.mu.Lock()
		delete(s.sockets, c)
		s.mu.Unlock()
	}()
	w.Header().Set(HeaderConnectionID, c.id)
	s.setCookie(w)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // ServeHTTP has checked the origin
		OnPongReceived:     func(context.Context, []byte) { c.heard.Add(1) },
	})
	if err != nil {
		// Accept has answered: 426 for a malformed upgrade.
		s.log.Info("acphttp: WebSocket upgrade refused", "remote", r.RemoteAddr, "error", err)
		return
	}
	ws.SetReadLimit(-1) // readMessage bounds what it keeps, and goes on
	c.ws = ws
	c.pingCtx, c.stopPing = context.WithCancel(s.ctx)
	c.conn = acp.NewConn(s.ctx, c, c, handler, s.connOptions())
	s.live(&c.ready, c.conn)
	dog := startWatchdog(s.opts.Clock, s.lim.tick(), c.check)
	err = c.conn.Wait()
	dog.halt()
	c.stopPing()
	c.pings.Wait()
	switch {
	case err != nil && s.ctx.Err() != nil:
		c.closeWith(websocket.StatusGoingAway, "server closing")
	case err != nil:
		s.log.Info("acphttp: WebSocket connection ended", "connection", c.id, "caller", c.caller, "error", err)
		c.closeWith(websocket.StatusInternalError, "connection failed")
	}
	c.Close()
	c.putBuf()
}

// check is the watchdog's: it closes a connection whose client has been
// silent for IdleTimeout, after a ping at half of it, and one whose
// output has not moved for MaxOutputStall.
func (c *wsConn) check() {
	lim, tick := c.s.lim, c.s.lim.tick()
	if lim.idle > 0 {
		silent := c.idle.observe(c.heard.Load(), true, tick)
		switch {
		case silent >= lim.idle:
			c.s.log.Info("acphttp: closing an idle WebSocket", "connection", c.id)
			c.closeWith(websocket.StatusPolicyViolation, "idle for "+lim.idle.String())
			c.conn.Close()
			return
		case silent >= lim.idle/2 && !c.pinging.Swap(true):
			c.pings.Go(func() {
				defer c.pinging.Store(false)
				c.ws.Ping(c.pingCtx) // the pong counts in heard
			})
		}
	}
	if lim.stall > 0 && c.stalled.observe(c.written.Load(), c.writing.Load() > 0, tick) >= lim.stall {
		c.s.log.Info("acphttp: closing a WebSocket whose client stopped reading", "connection", c.id)
		c.closeWith(websocket.StatusPolicyViolation, "output stalled for "+lim.stall.String())
		c.ws.CloseNow() // a close frame could not be written either
		c.conn.Close()
	}
}

// closeWith sets the close frame's code and reason, unless one is set.
func (c *wsConn) closeWith(code websocket.StatusCode, reason string) {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closing.CompareAndSwap(false, true) {
		c.code, c.reason = code, reason
	}
}

// Close closes the socket with the code set by closeWith, normal closure
// if none was. The Conn calls it when it ends.
func (c *wsConn) Close() error {
	c.closeWith(websocket.StatusNormalClosure, "")
	c.closeOnce.Do(func() {
		c.closeMu.Lock()
		code, reason := c.code, c.reason
		c.closeMu.Unlock()
		c.ws.Close(code, reason)
	})
	return nil
}

func (c *wsConn) shutdown(ctx context.Context) { c.conn.Shutdown(ctx) }

func (c *wsConn) putBuf() {
	if c.buf != nil {
		if c.buf.Cap() <= keepBuf {
			c.buf.Reset()
			bufs.Put(c.buf)
		}
		c.buf = nil
	}
}

// Read is never called: the Conn reads with ReadMessage.
func (c *wsConn) Read([]byte) (int, error) { return 0, errors.New("acphttp: Read on a MessageReader") }

// ReadMessage returns the client's next text frame that may reach the
// agent. It answers the others itself: a binary frame (which the RFD
// ignores) with an Invalid Request error, a message for a session the
// connection does not hold or past a limit with its JSON-RPC error. A
// message over MaxMessageBytes is skipped and reported as a
// *lines.TooLongError, which the Conn answers as a line too long.
func (c *wsConn) ReadMessage() ([]byte, error) {
	c.putBuf()
	for {
		typ, r, err := c.ws.Reader(context.Background())
		if err != nil {
			return nil, c.readError(err)
		}
		c.heard.Add(1)
		if c.draining.Load() {
			return nil, io.EOF
		}
		if typ != websocket.MessageText {
			if _, err := io.Copy(io.Discard, r); err != nil {
				return nil, c.readError(err)
			}
			c.reply(acp.NullID, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: a binary frame; ACP messages are text frames"))
			continue
		}
		c.buf = bufs.Get().(*bytes.Buffer)
		tooLong, err := readMessage(&c.lr, r, c.buf, c.s.lim.maxMessage)
		if err != nil {
			return nil, c.readError(err)
		}
		if tooLong != nil {
			c.s.log.Info("acphttp: message too large", "connection", c.id, "bytes", tooLong.Length)
			c.putBuf()
			return nil, tooLong
		}
		msg := c.buf.Bytes()
		m := inspect(msg)
		isInit := m.kind == kindRequest && m.method == acp.Initialize.Name
		switch {
		case !c.initialized && (m.kind == kindRequest || m.kind == kindNotification) && !isInit:
			c.closeWith(websocket.StatusProtocolError, "the first message must be initialize")
			return nil, io.EOF
		case isInit && c.initialized:
			c.reply(rawID(m.id), acp.Errorf(acp.CodeInvalidRequest, "Invalid request: initialize on a connection already initialized"))
			c.putBuf()
			continue
		case isInit:
			c.initialized = true
		}
		if ref, _ := c.ledger.admit(m, len(msg)); ref != nil {
			if m.kind == kindRequest {
				c.reply(rawID(m.id), ref.err)
			}
			c.s.log.Info("acphttp: message refused", "connection", c.id, "method", m.method, "error", ref.err.Message)
			c.putBuf()
			continue
		}
		return msg, nil
	}
}

// readError is what ReadMessage returns for a read error: the end of
// input for a close the server began or a normal one from the client.
func (c *wsConn) readError(err error) error {
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway:
		return io.EOF
	}
	if c.closing.Load() {
		return io.EOF
	}
	return err
}

// reply sends the transport's own answer to the request with id.
func (c *wsConn) reply(id acp.ID, e *acp.Error) {
	line, err := acp.MarshalErrorResponse(id, e)
	if err != nil {
		return
	}
	c.send(line)
}

// rawID turns a raw JSON id back into an acp.ID.
func rawID(raw string) acp.ID {
	id, err := acp.ParseID([]byte(raw))
	if err != nil {
		return acp.NullID
	}
	return id
}

// Write sends one message of the Conn's as one text frame, and notes the
// agent's answers to the client's requests.
func (c *wsConn) Write(line []byte) (int, error) {
	msg := bytes.TrimSuffix(line, []byte("\n"))
	id, method, response := outboundHead(msg)
	switch {
	case response:
		c.ledger.answered(id, msg)
	case method == acp.SessionUpdate.Name:
		c.ledger.learn(msg) // the client may then act on the child
	}
	if err := c.send(msg); err != nil {
		return 0, err
	}
	return len(line), nil
}

// send writes msg as one text frame.
func (c *wsConn) send(msg []byte) error {
	c.writing.Add(1)
	err := c.ws.Write(context.Background(), websocket.MessageText, msg)
	c.writing.Add(-1)
	c.written.Add(1)
	return err
}

// CloseRead stops reading, for [acp.Conn.Shutdown]: a message read from
// now on is dropped, and the close frame will say 1001. It leaves the
// socket open: the Conn closes it once every answer is written. Closing
// here, or once the ledger had no request in flight, could cut the last
// answer, which the ledger counts answered before it is sent.
func (c *wsConn) CloseRead() error {
	c.closeWith(websocket.StatusGoingAway, "server shutting down")
	c.draining.Store(true)
	return nil
}

// outboundHead reads the head of a message the Conn wrote: its id and
// method, and whether it is a response. It stops at the first member
// after them, so it does not walk a large result or params.
func outboundHead(msg []byte) (id, method string, response bool) {
	gjson.ParseBytes(msg).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			id = v.Raw
		case "method":
			method = v.Str
			return false
		case "result", "error":
			response = true
			return false
		}
		return true
	})
	return id, method, response
}
