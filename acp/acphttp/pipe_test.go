package acphttp_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
)

// pipeListener is a net.Listener of in-memory connections, so that a
// server and its clients run inside a synctest bubble, where only
// durable blocking lets fake time pass.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	n     atomic.Int64 // numbers the connections

	mu   sync.Mutex
	open map[pipeAddr]bool // the connections the server has not closed
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{}), open: make(map[pipeAddr]bool)}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr("pipe") }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := net.Pipe()
	// The server sees each connection at an address of its own, as
	// over TCP.
	addr := pipeAddr("pipe-" + strconv.FormatInt(l.n.Add(1), 10))
	select {
	case l.conns <- &addrConn{Conn: server, addr: addr, l: l}:
		l.mu.Lock()
		l.open[addr] = true
		l.mu.Unlock()
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }

// openConns returns the addresses of the connections the server holds
// open, sorted.
func (l *pipeListener) openConns() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for a := range l.open {
		out = append(out, string(a))
	}
	slices.Sort(out)
	return out
}

// addrConn is the server's end of a pipe, whose peer has the address
// addr.
type addrConn struct {
	net.Conn
	addr pipeAddr
	l    *pipeListener
}

func (c *addrConn) RemoteAddr() net.Addr { return c.addr }

func (c *addrConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.open, c.addr)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// pipeEnv is a Server on an http.Server over a pipeListener, and an
// http.Client that reaches it.
type pipeEnv struct {
	srv    *acphttp.Server
	url    string
	client *http.Client
	l      *pipeListener
}

// newPipeEnv starts the servers; everything stops at the end of the
// test, which must run inside the bubble.
func newPipeEnv(t *testing.T, agent acp.Handler, opts acphttp.ServerOptions) *pipeEnv {
	t.Helper()
	srv := newPipeServer(t, agent, opts)
	env := servePipe(t, srv)
	env.srv = srv
	t.Cleanup(func() { srv.Close() }) // before the http.Server's close
	return env
}

// newPipeServer returns a Server for a pipeEnv; the caller closes it.
func newPipeServer(t *testing.T, agent acp.Handler, opts acphttp.ServerOptions) *acphttp.Server {
	t.Helper()
	if opts.Authenticate == nil {
		opts.Authenticate = acphttp.NoAuthentication
	}
	opts.Clock = realClock{}
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return agent }, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// servePipe serves h on an http.Server over a pipeListener; the env's
// srv is left nil.
func servePipe(t *testing.T, h http.Handler) *pipeEnv {
	t.Helper()
	l := newPipeListener()
	hs := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		hs.Serve(l)
	}()
	tr := &http.Transport{DialContext: l.dial}
	t.Cleanup(func() {
		hs.Close()
		<-served
		tr.CloseIdleConnections()
		// A connection whose request body was not read whole (a POST
		// refused 413) sleeps 500 ms before it closes, to avoid a TCP
		// reset: in the bubble, that time passes at once.
		time.Sleep(time.Second)
	})
	return &pipeEnv{url: "http://pipe/acp", client: &http.Client{Transport: tr}, l: l}
}

// dial connects with profile p and initializes.
func (e *pipeEnv) dial(t *testing.T, p int, h acp.Handler) *acp.Conn {
	t.Helper()
	return dial(t, p, e.url, h, &acphttp.DialOptions{HTTPClient: e.client})
}
