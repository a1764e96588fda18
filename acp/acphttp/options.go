package acphttp

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
)

// The defaults of [ServerOptions]' limits. The package doc compares them
// with the official TypeScript SDK's.
const (
	DefaultMaxMessageBytes  = 8 << 20  // bytes in one message
	DefaultMaxBufferedBytes = 16 << 20 // bytes a connection holds
	DefaultMaxSessions      = 64       // sessions one connection holds
	DefaultMaxConnections   = 1024     // connections one Server holds
	DefaultIdleTimeout      = 5 * time.Minute
	DefaultMaxOutputStall   = time.Minute
	DefaultKeepAlive        = 15 * time.Second
)

// maxIDLength bounds, in bytes, a connection or session id the server
// takes from a header and a session id it keeps: the SDK's maxIdLength.
const maxIDLength = 1024

// A Clock gives a [Server] its timers: the idle limit, the output stall
// and the keep-alives. A program passes a wrapper of [time.AfterFunc]; a
// test may pass a fake, or the real one inside a [testing/synctest]
// bubble. It is the only way the package learns that time has passed.
type Clock interface {
	// AfterFunc calls f in its own goroutine after d; stop cancels the
	// call and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// A Caller is what an [Authenticator] established about who sent a
// request. A connection belongs to the caller that opened it: every later
// request on it must come from a caller of the same Name.
type Caller struct {
	// Name identifies the caller, in the server's logs and to the function
	// that makes each connection's handler; "" is anonymous, as every
	// caller of [BearerToken] and [NoAuthentication] is.
	Name string
	// Claims is the Authenticator's own data about the caller (a token's
	// scopes, a user record), for that function; the Server never reads
	// it.
	Claims any
}

// An Authenticator decides whether the request may be served, and says
// who sent it: an error refuses it with 401 Unauthorized before anything
// else is read, and the error's text is not sent. It sees every request:
// each POST, GET stream and DELETE of Streamable HTTP, and the WebSocket
// upgrade. It must be safe for concurrent use.
type Authenticator func(r *http.Request) (Caller, error)

// BearerToken returns an Authenticator that admits a request whose
// Authorization header is "Bearer " followed by token, compared in
// constant time, as an anonymous Caller. An empty token admits nothing.
func BearerToken(token string) Authenticator {
	return BearerTokens(map[string]string{token: ""})
}

// BearerTokens returns an Authenticator that admits a request whose
// Authorization header is "Bearer " followed by one of the keys of
// tokens, compared in constant time, as the Caller named by its value: a
// token per editor keeps each editor to its own connections. An empty
// token admits nothing. The map is read once, here.
func BearerTokens(tokens map[string]string) Authenticator {
	type named struct {
		token []byte
		name  string
	}
	var all []named
	for token, name := range tokens {
		if token != "" {
			all = append(all, named{[]byte(token), name})
		}
	}
	return func(r *http.Request) (Caller, error) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return Caller{}, ErrUnauthorized
		}
		b, found := []byte(got), -1
		for i, t := range all { // every one, so that the time tells nothing
			if subtle.ConstantTimeCompare(b, t.token) == 1 {
				found = i
			}
		}
		if found < 0 {
			return Caller{}, ErrUnauthorized
		}
		return Caller{Name: all[found].name}, nil
	}
}

// NoAuthentication admits every request, as an anonymous Caller. Use it
// only where the network already authenticates (a loopback port, a
// private socket behind an authenticating proxy): anyone who can reach
// the endpoint can run the agent.
func NoAuthentication(*http.Request) (Caller, error) { return Caller{}, nil }

// ServerOptions configures a [Server]. Authenticate and Clock are
// required; every limit left zero takes its default, and a negative one
// is off.
type ServerOptions struct {
	// Authenticate decides for every request; see [Authenticator].
	Authenticate Authenticator
	// Clock gives the timers of IdleTimeout, MaxOutputStall and KeepAlive.
	Clock Clock

	// OriginPatterns are the host patterns (path.Match syntax, such as
	// "*.example.com"; with "://", scheme and host) whose pages may reach
	// the agent. By default a request whose Origin header names another
	// host than the request's is refused 403, a WebSocket upgrade or
	// Streamable HTTP alike, so that a web page cannot drive the agent
	// through a visitor's browser. A request without Origin, as programs
	// send, is not a browser's and is let through.
	OriginPatterns []string

	// MaxMessageBytes bounds one message from the client, a POST body or
	// a WebSocket message. A longer one is skipped and answered as
	// [acp.Conn] answers a line too long, 413 over Streamable HTTP (see
	// the package doc's Limits); the connection goes on.
	MaxMessageBytes int
	// MaxBufferedBytes bounds what a connection makes the server hold, in
	// each direction: the agent's messages its client has not yet read
	// (past it the agent's sends wait for the client, and MaxOutputStall
	// applies), and its requests the agent has not yet answered (past it
	// a request is refused: 429, or a JSON-RPC error over WebSocket). A
	// single message larger than the limit still passes when nothing else
	// is held.
	MaxBufferedBytes int
	// MaxSessions bounds the sessions one connection holds at once: a
	// session/new, session/fork, session/load or session/resume that would
	// pass it is refused, 429 or a JSON-RPC error.
	MaxSessions int
	// MaxConnections bounds the connections the Server holds at once: an
	// initialize or upgrade that would pass it gets 503.
	MaxConnections int
	// IdleTimeout is how long a connection whose client shows no sign of
	// life is kept: a Streamable HTTP connection with no stream open and
	// no request in progress, or a WebSocket whose client sends nothing,
	// not even the pong to the ping the server sends after half of it.
	// The connection then closes, which cancels its requests in progress.
	IdleTimeout time.Duration
	// MaxOutputStall is how long the agent's output may wait for a client
	// that stopped reading: once a connection holds MaxBufferedBytes for
	// its client, or a write to the client blocks, and the client takes
	// nothing for this long, the connection closes.
	MaxOutputStall time.Duration
	// KeepAlive is how often a quiet Streamable HTTP stream gets an SSE
	// comment, so that proxies do not time it out.
	KeepAlive time.Duration

	// AffinityCookie, if set, is sent with the response that opens each
	// connection (initialize's, and the upgrade's), for a load balancer
	// that routes on a cookie the backend sets. Clients return cookies
	// for the life of the connection, as the RFD requires.
	AffinityCookie *http.Cookie

	// Conn configures each connection's [acp.Conn]; nil gives its
	// defaults. Its MaxLineLength is replaced by MaxMessageBytes.
	Conn *acp.ConnOptions
	// Logger receives the server's diagnostics: refused requests and
	// closed connections at Info and Warn. Nil means silent.
	Logger *slog.Logger
}

// limits is ServerOptions with the defaults filled in, a negative limit
// made 0 (off) for the timers and the largest int for the sizes.
type limits struct {
	maxMessage, maxBuffered, maxSessions, maxConns int
	idle, stall, keepAlive                         time.Duration
}

func (o *ServerOptions) limits() limits {
	size := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return int(^uint(0) >> 1)
		}
		return v
	}
	dur := func(v, def time.Duration) time.Duration {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	return limits{
		maxMessage:  size(o.MaxMessageBytes, DefaultMaxMessageBytes),
		maxBuffered: size(o.MaxBufferedBytes, DefaultMaxBufferedBytes),
		maxSessions: size(o.MaxSessions, DefaultMaxSessions),
		maxConns:    size(o.MaxConnections, DefaultMaxConnections),
		idle:        dur(o.IdleTimeout, DefaultIdleTimeout),
		stall:       dur(o.MaxOutputStall, DefaultMaxOutputStall),
		keepAlive:   dur(o.KeepAlive, DefaultKeepAlive),
	}
}

// tick is the period of a connection's watchdog: a quarter of the
// shortest time limit, and no longer than the keep-alive, so that each
// limit is noticed within a quarter of itself. Zero means no timer.
func (l limits) tick() time.Duration {
	var t time.Duration
	for _, d := range []time.Duration{l.idle / 4, l.stall / 4, l.keepAlive} {
		if d > 0 && (t == 0 || d < t) {
			t = d
		}
	}
	return t
}
