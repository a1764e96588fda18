package acphttp

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/acpkit/acpkit/acp"
)

// The RFD's headers.
const (
	HeaderConnectionID = "Acp-Connection-Id"
	HeaderSessionID    = "Acp-Session-Id"
)

// A Server serves one ACP agent at one HTTP endpoint (/acp by convention)
// over both profiles of the RFD: a WebSocket upgrade, and Streamable
// HTTP's POST, GET and DELETE. Each connection a client opens is an
// [acp.Conn] of its own, served by a handler made for it, as on stdio.
// The Server opens no listener: the program mounts it on its own
// [http.Server].
//
// Its methods are safe for concurrent use.
type Server struct {
	newHandler func(*Connection) acp.Handler
	opts       ServerOptions
	lim        limits
	log        *slog.Logger

	ctx    context.Context // parent of every Conn's; cancelled by Close
	cancel context.CancelFunc

	mu      sync.Mutex
	streams map[string]*httpConn // Streamable HTTP connections by id
	sockets map[*wsConn]struct{}
	closing bool
	owners  sync.WaitGroup // one per connection: its owner goroutine
}

// A Connection is a connection the Server has accepted, as the function
// that makes its handler sees it.
type Connection struct {
	// ID is the connection's Acp-Connection-Id.
	ID string
	// Caller is who the Authenticator found opened the connection. Every
	// later request on it must come from a caller of the same Name: one
	// of another is refused as for an unknown connection, 404.
	Caller Caller
	// Request is the request that opened the connection: the WebSocket
	// upgrade, or initialize's POST, whose body has been read. Its
	// Context ends with that request, not with the connection.
	Request *http.Request
}

// NewServer returns a Server that serves each connection it accepts with
// the handler newHandler makes for it (often an [acp.Methods]). The
// handler lives as long as the connection: newHandler is called once,
// when the connection is accepted and before anything of the client's
// reaches it, and the Server drops the handler when the connection ends,
// which its methods learn from their Conn's Done. So a handler may keep
// the connection's state: the client's capabilities, the version chosen
// at initialize, who the caller is. Nothing here shares one handler
// between connections unless newHandler returns the same one, as it may
// an acp.Methods, which keeps no state of its own. A nil handler refuses
// the connection with 403 Forbidden. newHandler is called from concurrent
// requests.
//
// opts must give an Authenticate and a Clock.
func NewServer(newHandler func(c *Connection) acp.Handler, opts *ServerOptions) (*Server, error) {
	if newHandler == nil {
		return nil, errors.New("acphttp: NewServer needs a function that makes each connection's handler")
	}
	if opts == nil || opts.Authenticate == nil {
		return nil, errors.New("acphttp: ServerOptions needs an Authenticate (NoAuthentication to serve anyone)")
	}
	s := &Server{newHandler: newHandler, opts: *opts, lim: opts.limits()}
	if s.lim.tick() > 0 && opts.Clock == nil {
		return nil, errors.New("acphttp: ServerOptions needs a Clock for IdleTimeout, MaxOutputStall and KeepAlive")
	}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.streams = make(map[string]*httpConn)
	s.sockets = make(map[*wsConn]struct{})
	return s, nil
}

// connOptions returns the options of a new connection's Conn.
func (s *Server) connOptions() *acp.ConnOptions {
	var o acp.ConnOptions
	if s.opts.Conn != nil {
		o = *s.opts.Conn
	}
	o.MaxLineLength = s.lim.maxMessage
	return &o
}

// ServeHTTP serves one request: it authenticates it, then routes it as
// the RFD's table does.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	caller, err := s.opts.Authenticate(r)
	if err != nil {
		s.log.Info("acphttp: request refused", "method", r.Method, "remote", r.RemoteAddr, "error", err)
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if !s.originAllowed(r) {
		s.log.Info("acphttp: request from a page of another origin refused", "method", r.Method, "remote", r.RemoteAddr)
		http.Error(w, "Forbidden: a page of another origin", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodGet:
		if headerHasToken(r.Header, "Upgrade", "websocket") {
			s.serveWebSocket(w, r, caller)
			return
		}
		s.serveStream(w, r, caller)
	case http.MethodPost:
		s.servePost(w, r, caller)
	case http.MethodDelete:
		s.serveDelete(w, r, caller)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// originAllowed reports whether r's Origin may reach the agent: none (a
// program's request), the request's own host, or one that
// OriginPatterns admits, by the rules of github.com/coder/websocket's
// AcceptOptions.OriginPatterns.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(r.Host, u.Host) {
		return true
	}
	for _, pattern := range s.opts.OriginPatterns {
		target := u.Host
		if strings.Contains(pattern, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(pattern), strings.ToLower(target)); ok {
			return true
		}
	}
	return false
}

// headerHasToken reports whether a comma-separated header holds token,
// compared without case.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// errBusy is why a connection cannot be opened: the Server holds
// MaxConnections, or is shutting down.
var errBusy = errors.New("acphttp: the server takes no more connections")

// reserve admits a new connection, which its owner goroutine runs, and
// registers it with add. The caller calls s.owners.Done when the
// connection has ended.
func (s *Server) reserve(add func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || len(s.streams)+len(s.sockets) >= s.lim.maxConns {
		return errBusy
	}
	add()
	s.owners.Add(1)
	return nil
}

// accept admits the connection c, registered with add and forgotten with
// drop, and returns its handler; nil means it has answered: 503 past
// MaxConnections or once Shutdown has begun, 403 when newHandler refuses
// the connection, 500 when it panics. The caller of a handler it returns
// calls s.owners.Done when the connection has ended.
func (s *Server) accept(w http.ResponseWriter, c *Connection, add, drop func()) (h acp.Handler) {
	if err := s.reserve(add); err != nil {
		httpError(w, http.StatusServiceUnavailable, "Service Unavailable: "+err.Error())
		return nil
	}
	defer func() {
		if h != nil {
			return
		}
		s.mu.Lock()
		drop()
		s.mu.Unlock()
		s.owners.Done()
		if p := recover(); p != nil {
			s.log.Error("acphttp: making a connection's handler panicked", "caller", c.Caller.Name, "panic", p, "stack", string(debug.Stack()))
			httpError(w, http.StatusInternalServerError, "Internal Server Error")
			return
		}
		s.log.Info("acphttp: connection refused: no handler for it", "caller", c.Caller.Name, "remote", c.Request.RemoteAddr)
		httpError(w, http.StatusForbidden, "Forbidden: the agent serves no connection for this caller")
	}()
	return s.newHandler(c)
}

// live marks a reserved connection's Conn started, so that Shutdown
// sees it. One that Shutdown began too early to see is shut down here,
// as Shutdown would have: a WebSocket's Conn reads from the moment it is
// made, so it may have a prompt in progress already, which must be
// answered. Once the Server is closed, s.ctx has ended and the Conn with
// it.
func (s *Server) live(ready *bool, conn *acp.Conn) {
	s.mu.Lock()
	*ready = true
	closing := s.closing
	s.mu.Unlock()
	if closing {
		conn.Shutdown(s.ctx)
	}
}

// newID returns a connection id: 128 random bits, in base32.
func newID() string { return rand.Text() }

// setCookie sends the affinity cookie, if any.
func (s *Server) setCookie(w http.ResponseWriter) {
	if s.opts.AffinityCookie != nil {
		http.SetCookie(w, s.opts.AffinityCookie)
	}
}

// Shutdown stops the Server gracefully: it takes no new connection, and
// shuts each connection down as [acp.Conn.Shutdown] does, so that every
// request the agent has read is answered (a prompt "cancelled") before
// its streams or its WebSocket close (code 1001). It returns when every
// connection has ended, or ctx ends first: it then closes what is left
// as Close does and returns ctx's error.
//
// Call it before, or from [http.Server.RegisterOnShutdown] with,
// http.Server.Shutdown, which waits for active requests (the streams)
// and not for WebSockets.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	var conns []connection
	for _, c := range s.streams {
		if c.ready {
			conns = append(conns, c)
		}
	}
	for c := range s.sockets {
		if c.ready {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.shutdown(ctx) })
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		s.owners.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.Close()
		<-done
		return ctx.Err()
	}
}

// Close closes every connection at once, cancelling the requests in
// progress and dropping what is unsent, and waits for them to end.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	s.owners.Wait()
	return nil
}

// A connection is one client's, over either profile.
type connection interface {
	// shutdown ends the connection as acp.Conn.Shutdown does.
	shutdown(ctx context.Context)
}
