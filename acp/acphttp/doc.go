// Package acphttp carries ACP over HTTP, as the "Streamable HTTP &
// WebSocket Transport" RFD defines it: a [Server] that serves an agent at
// one endpoint over both of its profiles, and [DialWebSocket] and
// [DialStreamableHTTP], which connect a client to a remote agent. Each
// side of each connection is an ordinary [acp.Conn], so an agent written
// for stdio is served remotely with no change to its handlers, and a
// client drives a remote agent as it drives a subprocess.
//
// The Server serves each connection with a handler made for it: a
// program gives [NewServer] a function that makes one, and it is called
// once per connection with the [Connection] (its id, the [Caller]
// authentication found, the request that opened it). The handler lives
// as long as the connection, so what one editor declared at initialize
// is not what another sees. An [acp.Methods], which keeps no state, may
// serve them all:
//
//	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return agent }, opts)
//
// The package opens nothing of its own: a Server serves the requests of
// the program's [http.Server] (it opens no listener), the clients dial
// through the caller's [http.Client], and the limits that take time are
// timed with the caller's [Clock]. github.com/coder/websocket, which does
// the WebSocket framing, times its own close handshake (5 s).
//
// # Serving
//
// Mount a Server at /acp. One http.Server can speak HTTP/1.1 and
// cleartext HTTP/2 (set its Protocols); the WebSocket profile upgrades
// over HTTP/1.1, Streamable HTTP runs over either. Call [Server.Shutdown]
// before http.Server's, which waits for requests (the streams) but not
// for WebSockets. The RFD's routing, with the status of every refusal:
//
//	GET with Upgrade: websocket  a WebSocket; one message per text frame.
//	                             101 with Acp-Connection-Id; 503 past
//	                             MaxConnections; 403 when NewServer's
//	                             function makes no handler for it, 500
//	                             when it panics. Close codes: 1002 for a
//	                             first message other than initialize,
//	                             1008 past a limit, 1001 at shutdown.
//	POST                         one message. initialize without
//	                             Acp-Connection-Id opens a connection: 200
//	                             with the agent's response and the header
//	                             (403 and 500 as for an upgrade).
//	                             Anything else: 202. 415 unless
//	                             application/json; 413 over
//	                             MaxMessageBytes (see Limits); 400 for
//	                             JSON that is not
//	                             an object, a batch, initialize on a
//	                             connection, no Acp-Connection-Id, a
//	                             session request without Acp-Session-Id or
//	                             with another than params.sessionId; 404
//	                             for an unknown connection or another
//	                             caller's; 409 for a session the
//	                             connection does not hold; 429 past
//	                             MaxSessions or MaxBufferedBytes.
//	GET, Accept: text/event-stream
//	                             the connection's stream, or with
//	                             Acp-Session-Id a session's. 406 without
//	                             the Accept; 400 without
//	                             Acp-Connection-Id; 404 for an unknown
//	                             one or another caller's; 409 when the
//	                             stream already has a reader, or past
//	                             MaxSessions streams.
//	DELETE                       ends the connection: 202; 400 without
//	                             Acp-Connection-Id, 404 for an unknown one
//	                             or another caller's.
//	any other method             405.
//
// Every request first passes ServerOptions.Authenticate: 401 if it
// refuses, before anything else is read; else it says who the [Caller]
// is. [BearerToken] and [BearerTokens] (a named caller per token) are
// ready-made. Then its Origin: 403 for a page of another host than the
// request's, over both profiles (see ServerOptions.OriginPatterns).
//
// A connection belongs to the caller that opened it: a request naming it
// from a caller of another Name gets the 404 of an unknown connection, so
// that one editor cannot reach another's, even with a valid token and the
// connection's id.
//
// A refusal that concerns one request carries the JSON-RPC error that
// the same refusal gets over a WebSocket, with the request's id: 409
// with a -32002 error (Resource not found), 429 with the limit's, 413
// with a -32600. So a client sees the same error over either profile.
//
// # Isolation
//
// A connection's handler is its own, but the agent behind the handlers
// may hold the sessions of all: a connection reaches only the sessions it
// holds: those the agent created for it (session/new,
// session/fork), those it attached with a session/load or
// session/resume that the agent accepted, and the child sessions the
// agent exposed on them (a subagent_update on a session the connection
// holds, or on one of their children, announces a child). A child is
// forgotten with its parent's session/close, and every session with the
// connection. A connection learns at most 16 children per MaxSessions
// (1024 by default); the messages of one announced past that bound reach
// the client on the connection's stream, and the client's for it are
// refused. The agent still decides what a client may do with a child,
// as with any session. A message naming another session never reaches
// the agent: 409 over Streamable HTTP, or over a
// WebSocket a -32002 (Resource not found) error for a request and
// nothing for a notification. The agent still decides who may attach a
// session: session/load and session/resume must check that the client
// may have it. A message whose sessionId a decoder could read two ways
// (a repeated member, one named in another case, which encoding/json
// matches, one that is not a string) is refused with 400 or -32602.
//
// # Streams
//
// Over a WebSocket every message of the agent's comes on the one socket,
// in the order the agent sent it. Over Streamable HTTP, as the RFD
// routes them, a message naming a session (params.sessionId, or the
// request a response answers) comes on that session's GET stream, and
// any other on the connection's. Two departures keep every message
// delivered, in order:
//
//   - A child session's messages come on its parent's stream (its root
//     held session's, for a child of a child), right after the
//     subagent_update that announced it, as the subagents RFD has them
//     "delivered automatically on the same connection", with no stream
//     to open. A client that opens the child's stream itself (GET with
//     its Acp-Session-Id, as the client of [DialStreamableHTTP] does
//     when it first sends a request for the child; a notification, a
//     session/cancel, opens none) gets them there from then on, and
//     again on the parent's once it closes it.
//   - A message naming a session the connection neither holds nor
//     learned as a child, and whose stream no client reads, comes on the
//     connection's stream. The RFD routes by session and says nothing of
//     a session without a stream; the SDK (2.4.0) keeps such messages
//     for a stream that no client may ever open, where they count
//     against maxBufferedBytes until they stall the connection.
//
// A held session's stream keeps its messages while no client reads it,
// up to MaxBufferedBytes for the connection: the client opens it after
// session/new's response, and reopens it after a drop.
//
// # Limits
//
// Every limit has a default; the official TypeScript SDK's
// ConnectionLimits (2.4.0) are beside them:
//
//	limit              default          SDK
//	MaxMessageBytes    8 MiB            HTTP body 16 MiB (node adapter); client 32 MiB;
//	                                    WebSocket none of its own
//	MaxBufferedBytes   16 MiB, output   maxBufferedBytes 64 MiB, output (and WebSocket
//	                   and requests     frames waiting to be handled)
//	                   in progress
//	MaxSessions        64               maxBufferedSessionStreams 1024 (sessions
//	                                    holding output that no stream reads)
//	MaxConnections     1024             none
//	IdleTimeout        5 min            none
//	MaxOutputStall     1 min            maxOutputStallMs 60 s
//	KeepAlive          15 s             15 s, fixed
//	id length          1024 bytes       maxIdLength 1024
//
// A message over MaxMessageBytes, either way, is skipped, and answered
// as [acp.Conn] answers a line too long (see
// [acp.ConnOptions].MaxLineLength) from its first bytes: a request
// gets a -32600 error with its id (in the 413's body over Streamable
// HTTP), and a response fails the request it answers with an error
// matching [acp.ErrLineTooLong]. The connection goes on, where the
// SDK's client ends it.
//
// The SDK bounds no connection count and no idle time: a client that
// opens connections and goes away holds them until the process ends.
// Here a Streamable HTTP connection with no stream open and nothing in
// progress for IdleTimeout ends, cancelling its turns, and so does a
// WebSocket whose client answers nothing, not even the ping sent at half
// of it.
//
// # Departures
//
// A client that vanishes mid-turn cancels the turn: a WebSocket's end
// ends its Conn at once; a Streamable HTTP connection left without a
// stream ends after IdleTimeout; DELETE ends it at once. Each ending
// cancels the handlers' contexts, as the end of stdin does. Shutdown
// answers every request the agent has read (a prompt "cancelled") and
// then closes the streams and sockets. No goroutine outlives its
// connection.
//
// # The RFD and the SDK
//
// Where they disagree, this package does what the SDK does, so that it
// interoperates with it both ways, except where noted:
//
//   - The RFD puts the connection id in initialize's response body and
//     header; the SDK sends and reads only the header. The server sends
//     both (result.connectionId); the client reads the header, and the
//     body when a server sends only that.
//   - For a session the connection does not know, the RFD says 404; the
//     SDK's client takes 401, 403, 404 and 410 to mean the whole
//     connection is gone, and 409 to mean one session failed. The server
//     answers 409 (and 404 only for an unknown connection).
//   - The RFD's reconnect flow opens a session's stream before the
//     session/load that attaches it, and its routing says 404 for a
//     session unknown to the connection; the SDK's client does open it
//     first, and its server takes any session id. The server opens a
//     stream for any session, up to MaxSessions; it carries only what
//     the agent sends for that session on this connection.
//   - The RFD answers a batch with 501; the SDK with 400 and a -32600
//     error, as here.
//   - The RFD requires HTTP/2 for Streamable HTTP; the SDK's client and
//     server speak HTTP/1.1. Both are served, and both dialled.
//   - The RFD ignores binary frames, and the SDK drops them silently.
//     They are ignored here too, and answered with a -32600 error with a
//     null id, so that the sender learns why.
//   - The RFD leaves origin checks to a later phase; the SDK makes none.
//     A request from a page of another origin, upgrade or Streamable
//     HTTP, is refused here by default.
//   - The SDK's Streamable HTTP client fails a request whose POST is
//     refused with a -32603 error whose data is {"status", "body"}.
//     Here it fails with the JSON-RPC error in the body, as over a
//     WebSocket, or a [*StatusError] when the body holds none; a failed
//     initialize ends the connection, as in the SDK, and a 413 for a
//     notification or a response drops that message rather than end
//     the connection.
//   - The SDK refuses (400) a client's response to the agent's request
//     when its Acp-Session-Id is not the request's session; it is let
//     through here, since the Conn matches the response to its request.
//   - The SDK answers a malformed POST body 400 in text; here 400 with a
//     -32700 error.
//
// # Reconnecting
//
// ACP v1 does not resume a connection, and messages sent while a client
// was away are not replayed. To reconnect, as the RFD gives it: dial a
// new connection with the same Header and an HTTPClient whose Jar kept
// the affinity cookie, send initialize, check agentCapabilities
// (loadSession, or sessionCapabilities.resume), then session/load or
// session/resume each session.
//
// # Behind a proxy
//
// Affinity: the client keeps the cookies a load balancer sets (HAProxy's
// "cookie NAME insert"), or the server's own ServerOptions.AffinityCookie,
// for the connection's life. Buffering: Streamable HTTP sends small
// events, which a proxy must not hold back (HAProxy: option
// http-no-delay; nginx: proxy_buffering off, which the server's
// X-Accel-Buffering: no asks for), and long-lived streams, which need
// timeouts longer than KeepAlive.
package acphttp
