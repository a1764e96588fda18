// Package acp implements the wire format of the Agent Client Protocol (ACP):
// JSON-RPC 2.0 messages, one JSON object per line, exchanged between an
// editor (the client) and a coding agent.
//
// The package is pure: it reads and writes only the readers, writers and
// byte slices its callers hand it, and never opens files, processes or
// network connections, nor reads the clock.
//
// # Classifying a line
//
// [Classify] tells what one inbound line is — a request, a notification, a
// response, or invalid — straight from its bytes, without decoding it: one
// pass checks that the line is JSON in valid UTF-8 and finds its members. An
// invalid line comes back with the error to reply with ([CodeParseError] or
// [CodeInvalidRequest]) and the id to echo. Ids are kept byte-exact, so a
// reply echoes exactly what came in. The methods this package declares are
// returned as their values' Name, so classifying them allocates nothing.
// The [Message]'s ID, Params and Result alias the line: copy them (with
// [ID.Clone] and [bytes.Clone]) before the line's buffer is reused. When a
// member name is repeated, the last occurrence wins, as with encoding/json,
// so the typed params decoders agree with the classifier.
//
// # Framing
//
// ACP carries one JSON-RPC message per line. [FrameReader] splits a stream
// into lines without looking inside them: it strips "\n" and "\r\n", skips
// blank lines, and reports a line longer than its maximum
// ([DefaultMaxLineLength] by default) as a [*LineTooLongError] matching
// [ErrLineTooLong], then carries on with the next line, so one oversized
// message never ends a connection. Its frames alias an internal buffer, so
// reading allocates nothing. [FrameWriter] writes one message per line,
// whole and in call order from any number of goroutines, compacting
// pretty-printed JSON and refusing anything that is not JSON ([ErrNotJSON]).
//
// # Methods
//
// Every ACP method is one exported value that binds its name to its params
// and result types: [SessionPrompt] is a [Method][[PromptParams],
// [PromptResult]], [SessionUpdate] a [Notification][[SessionNotification]].
// An agent registers a handler in its [Methods] table with Handle, and the
// handler gets decoded, checked params, never raw JSON:
//
//	var agent acp.Methods
//	acp.SessionPrompt.Handle(&agent, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
//		err := acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{…})
//		…
//		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
//	})
//
// A client calls the same value: acp.SessionPrompt.Call(ctx, conn, params)
// returns a [PromptResult] checked as strictly as params are. The methods
// an agent calls on a client ([SessionRequestPermission], [FSReadTextFile],
// …) work the same way in the other direction. An extension declares its
// method in one line, with its own types, and uses it alike. A request for
// a method no handler was registered for is answered [CodeMethodNotFound].
// The raw [Methods] maps and the [Handler] interface remain for routers and
// proxies that forward JSON as is.
//
// # Connections
//
// [Conn] runs JSON-RPC over any reader and writer (stdio, pipes, sockets),
// for agents and clients alike. A [Handler], usually a [Methods] table,
// serves what the peer sends. Requests run concurrently (up to
// [ConnOptions].MaxConcurrentRequests; more wait their turn in arrival order
// while the connection reads on, so handlers may wait on the peer), each
// with a context that is cancelled by the peer's $/cancel_request, by the
// connection's end (the end of the input included), or by the caller; their
// result or [*Error] becomes the response. Every request is answered,
// whatever its handler does: a panic, [runtime.Goexit], an error whose
// methods panic or a result that is not valid JSON in valid UTF-8 becomes
// an internal error, and the connection goes on. Notifications are
// delivered one at a time in arrival order; when the handler is slower than
// the peer the connection stops reading rather than queue or drop.
// [Conn.Request] waits for a response and cancels it when its context ends;
// [Conn.Notify] queues a notification behind everything sent before it, so a
// handler's updates always precede its response. Neither writes a message
// a peer could not read: params must be an object or an array
// ([ErrParamsNotStructured]) in valid UTF-8 ([ErrNotJSON]). Malformed lines
// get their JSON-RPC error replies and the connection goes on. So do lines
// too long to read: a request is answered with its id when its first bytes
// show it, and a response fails its [Conn.Request] ([ErrLineTooLong]); see
// [ConnOptions].MaxLineLength.
// [Conn.Shutdown] ends a connection gracefully, answering what it has read;
// [Conn.Close] ends it at once. [Conn.Wait] waits for the Conn's goroutines
// and handlers, and for the reader's Read in progress, then reports nil
// when the input ended and the cause otherwise. Package
// [github.com/acpkit/acpkit/acp/acptest] joins a client and an agent Conn in
// memory for tests.
//
// # Errors
//
// [Error] is the JSON-RPC error object. Errors match under [errors.Is] by
// code, so an error that came over the wire can be tested against the
// sentinels such as [ErrMethodNotFound] and [ErrResourceNotFound]. A handler
// returns an *Error to choose the reply the peer gets.
//
// # Params and results
//
// [DecodeParams], which Handle calls, decodes a request's params into a
// typed value such as [NewSessionParams], returning an *[Error] with code
// [CodeInvalidParams] whose message and data name the offending member
// ([InvalidField] reads it back). Null params read as {}, a null member as
// absent where the schema allows null, unknown members are ignored, and of
// duplicated members the last wins (as in encoding/json and [Classify]).
// [DecodeResult], which Call uses, decodes a response's result, such as
// [InitializeResult], with the same checks; a result that breaks them
// matches [ErrInvalidResponse]. Types of other packages declare their
// required members with the struct tag acp:"required". Reply with detail
// in one expression with [Errorf] and [Error.WithData].
//
// Members are read leniently exactly where the schema says so: a member
// annotated default-on-error reads as its default when its value is
// invalid (of the wrong type, or an object that breaks its own schema),
// one annotated default-on-null reads null as its default, and an array
// annotated skip-invalid-items drops the items that do not decode and
// keeps the others. Each type's doc names its lenient members, but for
// _meta, which every type reads leniently: an invalid _meta reads as
// absent. Every other member is read strictly, and a required member must
// be present.
//
// Absence reads one way throughout: an optional string or slice is empty
// (nil) when absent, and a field is a pointer only where absent differs
// from a zero value (an optional count, a capability declared by its
// presence, a systemPrompt that may be present and empty). Every type's
// Meta field is its _meta member, kept raw.
//
// # Content and session updates
//
// [ContentBlock] and [Update] are closed unions: only this package
// adds variants, and unknown variants decode to [UnknownContent] and
// [UnknownUpdate], kept byte for byte, so a newer peer never breaks an older
// reader. The schema's other unions are alike ([ToolCallContent],
// [MCPServer], …), or read into one struct whose tag is a field
// ([SessionConfigOption], [AuthMethod], …), which keeps a shape it does not
// know in its Raw. Send a session/update with [SessionUpdate].Notify and
// receive one with [SessionUpdate].Handle, which skips a malformed known
// update, as the official TypeScript client does. Send a [Notice] only
// when [ClientCapabilities.AcceptsNotices] says the client asked for them.
//
// # The schema layer
//
// The types of the protocol, their codecs and the method values are
// generated (go generate) from the schema files of ACP v1 in schema/, as
// the official TypeScript SDK ships them, by internal/acpgen, with a short
// naming table (schema/names.txt) where the schema's names do not fit Go's.
// Their doc comments are the schema's descriptions. What only the
// unstable edition of the schema defines is marked Unstable in its doc:
// it may change or be removed, and a peer of the stable protocol ignores
// it. The few types the generator does not shape (an [ID], an [Error], a
// [SystemPrompt] that may be a plain string, …) are written by hand, each
// saying why. Adopting a release of the schema is: replace the files in
// schema/, run go generate, review the diff.
//
// # Building lines
//
// [MarshalRequest], [MarshalNotification], [MarshalResponse] and
// [MarshalErrorResponse] build the JSON-RPC envelopes; every Marshal
// function returns one compact line of JSON without its newline.
//
// # Negotiation
//
// Answer initialize with [NegotiateVersion]. Declared capabilities are
// plain fields, false or nil when the peer left them out; methods such as
// [AgentCapabilities.Accepts] and [ClientCapabilities.AcceptsNotices]
// answer the questions that take more than reading one field.
//
// # Usage
//
// [UsageUpdate] carries tokens in the context window now and the
// session's cost; package usage renders a session's accounting as one
// ([github.com/acpkit/acpkit/usage.Snapshot.ACPUpdate]), so that this
// package depends on nothing of the module's but its internal packages.
//
// # Extensions
//
// An extension's methods are [Method] and [Notification] values like the
// package's own. Package [github.com/acpkit/acpkit/acp/goose] holds
// goose's (steer, its run metadata in _meta, its usage payload).
package acp
