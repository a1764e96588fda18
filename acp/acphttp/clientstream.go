package acphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/transport"
	"github.com/tidwall/gjson"
)

// maxErrorBody bounds, in bytes, what a client keeps of an error
// response's body ([StatusError.Body]), as the official SDK does.
const maxErrorBody = 8 << 10

// inboxLength is how many messages from the server a client holds before
// its streams stop reading, until the Conn takes them.
const inboxLength = 64

// DialStreamableHTTP returns a connection to the agent at url over the
// RFD's Streamable HTTP profile, whose peer is served by client (nil
// answers every request with [acp.ErrMethodNotFound]). It sends nothing
// until the connection's first message, which must be initialize: its
// POST opens the connection, and the connection's GET stream opens
// then. A session's stream opens when a response names the session
// (session/new's), or before the first request for it (session/load's);
// a notification for a session opens none.
//
// A failure is the same error as over a WebSocket, as far as the
// transports allow. initialize's POST is the WebSocket's upgrade: if it
// fails (a status other than 200, a body that is not initialize's
// response, no connection id), the connection ends, Wait returns the
// error, and so does initialize, wrapped in [acp.ErrClosed]; a status is
// a [*StatusError]. A request the server refuses with a JSON-RPC error
// (as a [Server] refuses a message for a session the connection does
// not hold, past a limit, or too large) fails with that [*acp.Error], as
// over a WebSocket; one refused with any other body fails with a
// [*StatusError]. A 409 fails the session's requests until
// session/load or session/resume attaches it again. 401, 403, 404 and
// 410 mean the connection is gone, and so does any other failure to
// send a notification or a response but 409 and 413, which drop the
// one message: the connection ends, and Wait returns the error. Close
// sends DELETE.
//
// The connection's requests go over TCP connections of its own, all
// closed by the time Wait returns: those of a clone of HTTPClient's
// *http.Transport, or of [http.DefaultTransport] when it has none.
// net/http may fail a request on a kept-alive TCP connection with the
// cancellation of the request that used it just before, and the end of
// a connection cancels its requests in flight: through a shared pool,
// closing one connection could end another. A Transport that is another
// RoundTripper is used as it is.
//
// The reconnect path is DialWebSocket's.
func DialStreamableHTTP(url string, client acp.Handler, opts *DialOptions) (*acp.Conn, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	hc, closeIdle := ownTransport(o.HTTPClient)
	c := &streamClient{
		url:       url,
		hc:        hc,
		closeIdle: closeIdle,
		header:    o.Header,
		max:       o.MaxMessageBytes,
		sessions:  make(map[string]*sessionStream),
		routes:    make(map[string]string),
		pending:   make(map[string]string),
		wake:      make(chan struct{}, 1),
		room:      make(chan struct{}, 1),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return acp.NewConn(context.Background(), c, c, client, o.Conn), nil
}

// ownTransport returns a copy of hc whose Transport is a clone of its
// *http.Transport (of http.DefaultTransport when it has none), and the
// clone's CloseIdleConnections; or hc itself and nil when its Transport
// is another RoundTripper.
func ownTransport(hc *http.Client) (*http.Client, func()) {
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	if !ok {
		return hc, nil
	}
	own := *hc
	tr := t.Clone()
	own.Transport = tr
	return &own, tr.CloseIdleConnections
}

// streamClient is the MessageReader and writer of a client's Streamable
// HTTP connection. Write runs on the Conn's writing goroutine, which
// alone sets connID; the streams' goroutines push what they read.
type streamClient struct {
	url       string
	hc        *http.Client
	closeIdle func() // closes the idle TCP connections of hc; nil: not ours
	header    http.Header
	max       int
	connID    string

	ctx      context.Context // the requests' but DELETE's; cancelled at the end
	cancel   context.CancelFunc
	requests sync.WaitGroup // the requests made with ctx, until Do returns
	tasks    sync.WaitGroup // streams and the DELETE
	once     sync.Once

	mu       sync.Mutex
	inbox    []item
	wake     chan struct{} // signalled when inbox grows or ends
	room     chan struct{} // signalled when inbox shrinks
	end      error         // why the input ended; io.EOF for cleanly
	ended    bool
	sessions map[string]*sessionStream
	routes   map[string]string // the server's request ids, to their session
	pending  map[string]string // our requests on a session, to it
	failed   map[string]error  // sessions refused 409, until reattached
	open     int               // session streams running
	mainEOF  bool              // the connection's stream ended cleanly
}

// An item is what the inbox holds for the Conn: a message, or an error
// that does not end the connection: a *transport.RequestError, which
// fails one request, or a *lines.TooLongError.
type item struct {
	msg []byte
	err error
}

// A sessionStream is the GET stream of one session.
type sessionStream struct {
	ready chan struct{} // closed once the stream is open, or failed
	err   error         // why it failed, set before ready closes
}

func (c *streamClient) Read([]byte) (int, error) {
	return 0, errors.New("acphttp: Read on a MessageReader")
}

// ReadMessage returns the next message from the server: from a stream,
// initialize's response, or an error response the client made for a
// request the server refused; or an error for the Conn that does not end
// it (see item). At the end it cancels the requests in flight, waits
// for them and the streams to stop, and closes its TCP connections.
func (c *streamClient) ReadMessage() ([]byte, error) {
	for {
		c.mu.Lock()
		if len(c.inbox) > 0 {
			it := c.inbox[0]
			c.inbox[0] = item{}
			c.inbox = c.inbox[1:]
			c.mu.Unlock()
			select {
			case c.room <- struct{}{}:
			default:
			}
			return it.msg, it.err
		}
		if c.ended {
			err := c.end
			c.mu.Unlock()
			c.cancel()
			c.tasks.Wait()
			c.requests.Wait()
			if c.closeIdle != nil {
				c.closeIdle()
			}
			return nil, err
		}
		c.mu.Unlock()
		<-c.wake
	}
}

// push queues an item for the Conn. A stream's push waits while the
// inbox is full; the client's own errors do not.
func (c *streamClient) push(it item, stream bool) bool {
	for {
		c.mu.Lock()
		if c.ended {
			c.mu.Unlock()
			return false
		}
		if !stream || len(c.inbox) < inboxLength {
			c.inbox = append(c.inbox, it)
			c.mu.Unlock()
			c.signal()
			return true
		}
		c.mu.Unlock()
		select {
		case <-c.room:
		case <-c.ctx.Done():
			return false
		}
	}
}

func (c *streamClient) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// spawn runs f on a goroutine that ReadMessage waits for at the end,
// unless the input has ended; the check and the count are one step, so
// that no goroutine starts once ReadMessage may be waiting.
func (c *streamClient) spawn(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return false
	}
	c.tasks.Go(f)
	return true
}

// stop ends the input with err, io.EOF for a clean end.
func (c *streamClient) stop(err error) {
	c.mu.Lock()
	if !c.ended {
		c.ended, c.end = true, err
	}
	c.mu.Unlock()
	c.signal()
}

// Close ends the connection: it stops the streams and sends DELETE.
func (c *streamClient) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		id := c.connID
		c.mu.Unlock()
		if id != "" {
			c.spawn(func() {
				req, err := c.request(context.Background(), http.MethodDelete, nil, id, "")
				if err != nil {
					return
				}
				if resp, err := c.hc.Do(req); err == nil {
					drain(resp)
				}
			})
		}
		c.stop(io.EOF)
		c.cancel()
	})
	return nil
}

// do makes req, a request made with ctx, unless the input has ended:
// then none starts, so that the end of the connection can wait for every
// one in flight.
func (c *streamClient) do(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, acp.ErrClosed
	}
	c.requests.Add(1)
	c.mu.Unlock()
	defer c.requests.Done()
	return c.hc.Do(req)
}

// isEnded reports whether the input has ended.
func (c *streamClient) isEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// request builds a request with the client's headers and the RFD's.
func (c *streamClient) request(ctx context.Context, method string, body []byte, conn, session string) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, r)
	if err != nil {
		return nil, err
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if conn != "" {
		req.Header.Set(HeaderConnectionID, conn)
	}
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	return req, nil
}

// newStatusError reads the start of an unexpected response's body.
func newStatusError(resp *http.Response) *StatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return &StatusError{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
}

// gone reports whether a status means the whole connection is unusable.
func gone(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return true
	}
	return false
}

// fail fails our request id with err. A refusal whose body is a
// JSON-RPC error response, as a Server answers every refusal it can put
// in JSON-RPC terms, fails it with that error, as the same refusal does
// over a WebSocket; any other error fails it as it is.
func (c *streamClient) fail(id string, err error) {
	var se *StatusError
	if errors.As(err, &se) {
		if m := acp.Classify(bytes.TrimSpace(se.Body)); m.Kind == acp.KindResponse && m.Err != nil {
			if line, merr := acp.MarshalErrorResponse(rawID(id), m.Err); merr == nil {
				c.push(item{msg: line}, false)
				return
			}
		}
	}
	c.push(item{err: &transport.RequestError{ID: []byte(id), Err: err}}, false)
}

// Write sends one of the Conn's messages: initialize's POST opens the
// connection; any other is POSTed with its headers. An error ends the
// connection.
func (c *streamClient) Write(line []byte) (int, error) {
	msg := bytes.Clone(bytes.TrimSuffix(line, []byte("\n")))
	m := inspect(msg)
	if c.connID == "" {
		if m.kind != kindRequest || m.method != acp.Initialize.Name {
			return 0, errors.New("acphttp: the first message must be initialize")
		}
		if err := c.initialize(m, msg); err != nil {
			return 0, err
		}
		return len(line), nil
	}
	session := m.session
	if m.kind == kindResponse {
		c.mu.Lock()
		session = c.routes[m.id]
		delete(c.routes, m.id)
		c.mu.Unlock()
	}
	if session != "" && m.kind == kindRequest {
		// A request's response, and what the agent sends for the
		// session, come on the session's stream. A notification gets
		// nothing back: it opens no stream, which a server may refuse
		// with the 404 that ends the connection when the session is
		// unknown to it, as a session/cancel's may be.
		if attachMethod(m.method) {
			c.mu.Lock()
			delete(c.failed, session)
			c.mu.Unlock()
		}
		if err := c.openSession(session); err != nil {
			c.fail(m.id, err)
			return len(line), nil
		}
		c.mu.Lock()
		c.pending[m.id] = session
		c.mu.Unlock()
	}
	err := c.post(msg, session)
	if err == nil || c.isEnded() {
		// Once the connection has ended, a message whose POST its end
		// cancelled, or that came too late to be sent, is dropped, as
		// Close drops what is unwritten: the end is Wait's error, and
		// the Conn fails the requests outstanding.
		return len(line), nil
	}
	var se *StatusError
	isStatus := errors.As(err, &se)
	if isStatus && se.StatusCode == http.StatusConflict && session != "" {
		c.failSession(session, err)
	}
	if m.kind == kindRequest && (!isStatus || !gone(se.StatusCode)) {
		c.mu.Lock()
		_, still := c.pending[m.id]
		delete(c.pending, m.id)
		c.mu.Unlock()
		if still || session == "" {
			c.fail(m.id, err)
		}
		if isStatus {
			return len(line), nil
		}
	}
	if isStatus && (se.StatusCode == http.StatusConflict || se.StatusCode == http.StatusRequestEntityTooLarge) {
		// A notification for a session that is gone, or a message the
		// server would not take: it is dropped, as over a WebSocket,
		// where the server's Conn answers it. A response too large
		// fails the agent's request it answers.
		return len(line), nil
	}
	return 0, err
}

// post POSTs msg, expecting 202.
func (c *streamClient) post(msg []byte, session string) error {
	req, err := c.request(c.ctx, http.MethodPost, msg, c.connID, session)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return newStatusError(resp)
	}
	drain(resp)
	return nil
}

// initialize POSTs the initialize request, which opens the connection
// and its stream, as a WebSocket's upgrade does. Any failure ends the
// connection: without a connection id, no other message can be sent.
func (c *streamClient) initialize(m message, msg []byte) error {
	req, err := c.request(c.ctx, http.MethodPost, msg, "", "")
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return newStatusError(resp)
	}
	body, tooLong, err := readBody(resp.Body, c.max)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("acphttp: reading initialize's response: %w", err)
	}
	if tooLong == nil {
		if h := inspect(body); h.kind != kindResponse || h.id != m.id {
			return errors.New("acphttp: initialize's response is not its JSON-RPC response")
		}
	}
	id := resp.Header.Get(HeaderConnectionID)
	if id == "" && tooLong == nil {
		id = gjson.GetBytes(body, "result.connectionId").Str
	}
	if id == "" || len(id) > maxIDLength {
		return errors.New("acphttp: initialize's response has no " + HeaderConnectionID)
	}
	c.mu.Lock()
	c.connID = id
	c.mu.Unlock()
	if tooLong != nil {
		// Answered as a WebSocket's message too long is: the Conn fails
		// initialize from the head, and the connection goes on.
		c.push(item{err: tooLong}, false)
	} else {
		c.push(item{msg: body}, false)
	}
	opened := make(chan error, 1)
	c.spawn(func() { c.stream("", opened) })
	return nil
}

// openSession opens session's stream unless it is open, and waits for it.
func (c *streamClient) openSession(session string) error {
	c.mu.Lock()
	s, err := c.startSession(session)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	<-s.ready
	return s.err
}

// startSession starts opening session's stream unless it is open or
// opening, and returns it; c.mu is held.
func (c *streamClient) startSession(session string) (*sessionStream, error) {
	if err := c.failed[session]; err != nil {
		return nil, err
	}
	if s := c.sessions[session]; s != nil {
		return s, nil
	}
	if c.ended || c.mainEOF {
		return nil, acp.ErrClosed
	}
	s := &sessionStream{ready: make(chan struct{})}
	c.sessions[session] = s
	opened := make(chan error, 1)
	c.tasks.Add(2) // under c.mu, as spawn does
	c.open++
	go func() {
		defer c.tasks.Done()
		c.stream(session, opened)
	}()
	go func() {
		defer c.tasks.Done()
		select {
		case s.err = <-opened:
		case <-c.ctx.Done():
			s.err = acp.ErrClosed
		}
		close(s.ready)
	}()
	return s, nil
}

// failSession fails the requests in flight on session with err, and every
// later one until session/load or session/resume attaches it again.
func (c *streamClient) failSession(session string, err error) {
	c.mu.Lock()
	if c.failed == nil {
		c.failed = make(map[string]error)
	}
	c.failed[session] = err
	c.mu.Unlock()
	c.failPending(session, err)
}

// failPending fails the requests in flight on session.
func (c *streamClient) failPending(session string, err error) {
	c.mu.Lock()
	var ids []string
	for id, s := range c.pending {
		if s == session {
			ids = append(ids, id)
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.fail(id, err)
	}
}

// stream reads one GET stream, the connection's ("") or a session's, and
// reports on opened whether it opened. The connection's stream ending
// ends the connection; a session's ending fails its requests in flight,
// and the next message for the session opens it again.
func (c *streamClient) stream(session string, opened chan<- error) {
	err := c.readStream(session, opened)
	if session == "" {
		if err != nil && c.ctx.Err() == nil {
			c.stop(err)
			return
		}
		// The server ended the connection: its session streams end too,
		// once they have delivered what they hold, and the last one to
		// end ends the input.
		c.mu.Lock()
		c.mainEOF = true
		last := c.open == 0
		c.mu.Unlock()
		if last {
			c.stop(io.EOF)
		}
		return
	}
	c.mu.Lock()
	delete(c.sessions, session)
	c.open--
	last := c.open == 0 && c.mainEOF
	c.mu.Unlock()
	if last {
		defer c.stop(io.EOF)
	}
	var se *StatusError
	switch {
	case c.ctx.Err() != nil:
	case errors.As(err, &se) && se.StatusCode == http.StatusConflict:
		c.failSession(session, err)
	case errors.As(err, &se) && gone(se.StatusCode):
		c.stop(err)
	default:
		if err == nil {
			err = errors.New("acphttp: the session's stream closed")
		}
		c.failPending(session, err)
	}
}

func (c *streamClient) readStream(session string, opened chan<- error) error {
	req, err := c.request(c.ctx, http.MethodGet, nil, c.connID, session)
	if err != nil {
		opened <- err
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.do(req)
	if err != nil {
		opened <- err
		return err
	}
	if resp.StatusCode != http.StatusOK {
		se := newStatusError(resp)
		opened <- se
		return se
	}
	defer resp.Body.Close()
	opened <- nil
	sse := newSSEReader(resp.Body, c.max)
	for {
		data, err := sse.Next()
		if tooLong, ok := err.(*lines.TooLongError); ok {
			// Skipped: the Conn answers it from its head, as it answers
			// a line too long.
			if !c.push(item{err: tooLong}, true) {
				return nil
			}
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		m := inspect(data)
		switch m.kind {
		case kindRequest:
			if session != "" {
				c.mu.Lock()
				c.routes[m.id] = session
				c.mu.Unlock()
			}
		case kindResponse:
			c.mu.Lock()
			delete(c.pending, m.id)
			c.mu.Unlock()
			if s := gjson.GetBytes(data, "result.sessionId"); s.Type == gjson.String && s.Str != "" && len(s.Str) <= maxIDLength {
				// Started here, before the response reaches the Conn,
				// not on a goroutine of its own that may run late: after
				// the client's first message for the session opened the
				// stream, after the server ended it and the connection,
				// when it would open the stream again and get 404.
				c.mu.Lock()
				c.startSession(s.Str)
				c.mu.Unlock()
			}
		}
		if !c.push(item{msg: data}, true) {
			return nil
		}
	}
}
