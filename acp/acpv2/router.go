package acpv2

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/wire"
)

// ProtocolVersion is the version of ACP this package speaks: the v2
// draft.
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
const ProtocolVersion = 2

// CodeUnsupportedProtocolVersion is the code of the error an agent answers
// an initialize with when it serves no version the client can speak; its
// data is an [UnsupportedProtocolVersionErrorData].
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
const CodeUnsupportedProtocolVersion = -32022

// maxProtocolVersion is the largest version a client may ask for.
const maxProtocolVersion = 0xffff

// A Router serves one connection with an ACP v1 agent or an ACP v2
// agent, chosen at the connection's initialize, as the official
// TypeScript SDK's AgentProtocolRouter does. It is an [acp.Handler],
// made for its connection:
//
//	router := acpv2.NewRouter(v1Agent, v2Agent)
//	conn := acp.NewConn(ctx, os.Stdin, os.Stdout, router, nil)
//
// A server of many connections, such as
// [github.com/acpkit/acpkit/acp/acphttp.Server], makes a Router for each
// (the agents it routes to may be shared). A Router serves the first
// [acp.Conn] that calls it and answers any other's requests -32603.
//
// A connection starts unrouted. Until an initialize the Router accepts,
// it answers every other request -32600 and drops notifications (the
// [acp.Conn] drops responses to nothing it asked, and answers a JSON
// array, a batch, with one -32600 whose id is null). An initialize whose
// params are not an object with an integer protocolVersion from 0 to
// 65535, or whose params do not parse for the version chosen, is answered
// -32602, and one for a version it serves no agent for -32022 with an
// [UnsupportedProtocolVersionErrorData]. None of these closes the
// connection: the client may send initialize again.
//
// With both agents, a client that asks for version 2 or later gets the
// v2 agent and one that asks for 1 the v1 agent; with the v1 agent
// alone, every client gets it, as before ACP v2, whatever it asks for;
// with the v2 agent alone, a client that asks for less than 2 is refused.
// The agent sees the params normalised for its version: protocolVersion
// is the version chosen, and params written for a newer version are read
// as far as they parse (a malformed v2 info reads as
// {"name":"unknown","version":"unknown"}), and, for the v1 agent of a
// client that asked for v2, rewritten as v1's; params for exactly the
// version chosen are read strictly.
//
// The first initialize the Router accepts routes the connection to its
// agent for good, whether or not the agent then answers it: the Router
// never routes a connection again. The agent of the route takes every
// later initialize, normalised for its version, and the connection's
// other requests once one has succeeded (before, they are answered
// -32600). On a v2 route, as ACP v2 says, initialize may be repeated,
// asking for version 2 or later, only before any other request; one
// asking for less is refused, -32600 after a success and -32022 before;
// a repeat that fails leaves the earlier success in effect; and while an
// initialize is in progress, every other request and a second initialize
// are refused -32600. On a v1 route the v1 agent answers any initialize,
// with the version it speaks, as a v1 agent always has, and serves
// requests during a repeat. Notifications reach the agent once the
// connection is initialized.
//
// It differs from the SDK's router in three details: it normalises every
// initialize, where the SDK normalises the first and passes later ones
// as sent (a v1 agent of this package would fail to read v2 params); it
// drops notifications on a v1 route until an initialize has succeeded,
// where the SDK passes them from the first; and it does not check ACP
// v2's rule that request ids be strings or integers, which the SDK
// enforces by answering -32600 with a null id (an [acp.Conn] takes any
// JSON-RPC id).
//
// Its methods are safe for concurrent use, as a Handler's must be.
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
type Router struct {
	v1, v2 acp.Handler

	mu   sync.Mutex
	conn *acp.Conn // the connection served, once it has called
	st   routing
}

// routing is where the Router's connection stands.
type routing struct {
	// route is the version of the agent the connection is routed to, fixed
	// by the first initialize the Router accepted; 0 before.
	route int
	// initialized says that an initialize the agent answered succeeded.
	initialized bool
	// initializing counts the initializes the agent is answering.
	initializing int
	// served says that a request other than initialize was served since
	// the connection was initialized: ACP v2 refuses a repeat then.
	served bool
}

// version is the connection's version once initialized, 0 before.
func (st *routing) version() int {
	if !st.initialized {
		return 0
	}
	return st.route
}

// NewRouter returns a Router for one connection, serving the v1 agent v1
// and the v2 agent v2, either of which may be nil (but not both).
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
func NewRouter(v1, v2 acp.Handler) *Router {
	if v1 == nil && v2 == nil {
		panic("acpv2: NewRouter without an agent")
	}
	return &Router{v1: v1, v2: v2}
}

// Version returns the protocol version of the Router's connection: 1 or
// 2 once an initialize has succeeded, 0 before.
func (r *Router) Version() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.version()
}

// errOtherConn answers a request of a connection the Router does not
// serve.
var errOtherConn = acp.Errorf(acp.CodeInternalError, "Internal error: this connection's handler serves another connection (make an acpv2.Router per connection)")

// state returns the routing of conn, and false for a connection other
// than the Router's. r.mu is held.
func (r *Router) state(conn *acp.Conn) (*routing, bool) {
	if r.conn == nil {
		r.conn = conn
	}
	return &r.st, r.conn == conn
}

// HandleRequest answers initialize as the type's doc says, and passes
// every other request to the agent of the connection's route once it is
// initialized.
func (r *Router) HandleRequest(ctx context.Context, conn *acp.Conn, method string, params json.RawMessage) (any, error) {
	if method == Initialize.Name {
		return r.initialize(ctx, conn, params)
	}
	r.mu.Lock()
	st, ok := r.state(conn)
	if !ok {
		r.mu.Unlock()
		return nil, errOtherConn
	}
	route, initialized := st.route, st.initialized
	// A v1 agent serves requests during a repeat initialize; a v2 agent
	// refuses them.
	busy := route == ProtocolVersion && st.initializing > 0
	if initialized && !busy {
		st.served = true
	}
	r.mu.Unlock()
	switch {
	case !initialized:
		return nil, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: the connection must be initialized first")
	case busy:
		return nil, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: initialize is in progress")
	}
	return r.agent(route).HandleRequest(ctx, conn, method, params)
}

// HandleNotification passes a notification to the agent of the
// connection's version, and drops one that comes before the connection
// is initialized.
func (r *Router) HandleNotification(ctx context.Context, conn *acp.Conn, method string, params json.RawMessage) {
	r.mu.Lock()
	st, ok := r.state(conn)
	v := st.version()
	r.mu.Unlock()
	if ok && v != 0 {
		r.agent(v).HandleNotification(ctx, conn, method, params)
	}
}

func (r *Router) agent(version int) acp.Handler {
	if version == ProtocolVersion {
		return r.v2
	}
	return r.v1
}

// choose returns the version to serve a client that asks for requested,
// or 0 when there is none.
func (r *Router) choose(requested int) int {
	switch {
	case r.v2 == nil:
		return 1 // as before ACP v2: every client gets v1
	case requested >= ProtocolVersion:
		return ProtocolVersion
	case r.v1 != nil && requested >= 1:
		return 1
	}
	return 0
}

func (r *Router) supported() []int {
	var out []int
	if r.v1 != nil {
		out = append(out, 1)
	}
	if r.v2 != nil {
		out = append(out, ProtocolVersion)
	}
	return out
}

func (r *Router) initialize(ctx context.Context, conn *acp.Conn, params json.RawMessage) (any, error) {
	requested, ok := requestedVersion(params)
	if !ok {
		return nil, acp.Errorf(acp.CodeInvalidParams, "Invalid params: initialize.protocolVersion must be a valid ACP protocol version")
	}
	r.mu.Lock()
	st, ok := r.state(conn)
	if !ok {
		r.mu.Unlock()
		return nil, errOtherConn
	}
	route, refusal := st.route, r.refusal(st, requested)
	if route == 0 {
		route = r.choose(requested)
	}
	r.mu.Unlock()
	if refusal != nil {
		return nil, refusal
	}
	if route == 0 {
		return nil, acp.Errorf(CodeUnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(UnsupportedProtocolVersionErrorData{Requested: requested, Supported: r.supported()})
	}
	normalised, err := normaliseInitialize(route, requested, params)
	if err != nil {
		return nil, err // an *acp.Error naming the member, as acp.DecodeParams makes it
	}

	r.mu.Lock()
	switch {
	case st.route == 0:
		st.route = route
	case st.route != route:
		// Another initialize routed the connection meanwhile.
		r.mu.Unlock()
		return nil, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: initialize is already in progress")
	}
	if refusal := r.refusal(st, requested); refusal != nil {
		r.mu.Unlock()
		return nil, refusal
	}
	st.initializing++
	r.mu.Unlock()

	result, err := r.agent(route).HandleRequest(ctx, conn, Initialize.Name, normalised)
	r.mu.Lock()
	st.initializing--
	if err == nil {
		st.initialized = true
	}
	r.mu.Unlock()
	return result, err
}

// refusal returns the error a v2 route answers an initialize asking for
// requested with, or nil when it may be passed to the agent. r.mu is
// held.
func (r *Router) refusal(st *routing, requested int) *acp.Error {
	if st.route != ProtocolVersion {
		return nil
	}
	switch {
	case st.initializing > 0:
		return acp.Errorf(acp.CodeInvalidRequest, "Invalid request: initialize is already in progress")
	case st.initialized && st.served:
		return acp.Errorf(acp.CodeInvalidRequest, "Invalid request: initialize must not be repeated after other requests")
	case st.initialized && requested < ProtocolVersion:
		return acp.Errorf(acp.CodeInvalidRequest, "Invalid request: a repeated initialize must ask for protocol version %d or later", ProtocolVersion)
	case requested < ProtocolVersion:
		return acp.Errorf(CodeUnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(UnsupportedProtocolVersionErrorData{Requested: requested, Supported: []int{ProtocolVersion}})
	}
	return nil
}

// requestedVersion reads the protocol version initialize's params ask
// for.
func requestedVersion(params json.RawMessage) (int, bool) {
	var v int
	return v, wire.Read(params, "params").Int("protocolVersion", &v, wire.Required, 0, maxProtocolVersion)
}

// unknownImplementation stands for the malformed or missing info of an
// initialize written for a version newer than the one chosen.
var unknownImplementation = Implementation{Name: "unknown", Version: "unknown"}

// normaliseInitialize returns initialize's params as the agent of version
// reads them: for exactly the version asked for, read strictly; for an
// older one, read as far as they parse; with protocolVersion the version
// chosen.
func normaliseInitialize(version, requested int, params json.RawMessage) (json.RawMessage, error) {
	if version == 1 && requested < ProtocolVersion {
		p, err := acp.DecodeParams[acp.InitializeParams](params)
		if err != nil {
			return nil, err
		}
		p.ProtocolVersion = 1
		return json.Marshal(p)
	}
	var p InitializeParams
	var err error
	hasInfo := true
	if requested == ProtocolVersion {
		p, err = acp.DecodeParams[InitializeParams](params)
	} else {
		p, hasInfo, err = decodeNewerInitialize(params)
	}
	if err != nil {
		return nil, err
	}
	if version == 1 {
		return json.Marshal(v1Initialize(p, hasInfo))
	}
	p.ProtocolVersion = ProtocolVersion
	return json.Marshal(p)
}

// decodeNewerInitialize reads v2 initialize params written for a newer
// version: what does not parse is dropped (the lenient members read as
// their defaults already), and a malformed or missing info reads as
// unknownImplementation. hasInfo says whether info was the client's own.
func decodeNewerInitialize(params json.RawMessage) (p InitializeParams, hasInfo bool, err error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(params, &members); err != nil { // an object: requestedVersion read it
		return p, false, acp.Errorf(acp.CodeInvalidParams, "invalid params: %v", err)
	}
	_, err = acp.DecodeParams[Implementation](members["info"])
	hasInfo = err == nil && members["info"] != nil
	if !hasInfo {
		if members["info"], err = json.Marshal(unknownImplementation); err != nil {
			return p, false, err
		}
	}
	raw, err := json.Marshal(members)
	if err != nil {
		return p, false, err
	}
	p, err = acp.DecodeParams[InitializeParams](raw)
	return p, hasInfo, err
}

// v1Initialize rewrites v2 initialize params as v1's, as the SDK's router
// does for a v1 agent: the capabilities v2 takes for granted (boolean
// config options, plans) declared, the file system and terminal ones v2
// removed declared absent, and info kept only if it was the client's.
func v1Initialize(p InitializeParams, hasInfo bool) acp.InitializeParams {
	out := acp.InitializeParams{
		ProtocolVersion: 1,
		ClientCapabilities: acp.ClientCapabilities{
			Session: &acp.ClientSessionCapabilities{ConfigOptions: &acp.ConfigOptionsCapabilities{Boolean: &acp.BooleanConfigOptionCapabilities{}}},
			Plan:    &acp.PlanCapabilities{},
		},
		Meta: p.Meta,
	}
	if hasInfo {
		out.ClientInfo = &acp.Implementation{Name: p.Info.Name, Title: p.Info.Title, Version: p.Info.Version, Meta: p.Info.Meta}
	}
	if c := p.Capabilities; c != nil {
		out.ClientCapabilities.Meta = c.Meta
		if c.Auth != nil {
			out.ClientCapabilities.Auth = acp.ClientAuthCapabilities{Terminal: c.Auth.Terminal != nil, Meta: c.Auth.Meta}
		}
		if c.Elicitation != nil {
			// The same shape in both versions.
			if raw, err := json.Marshal(c.Elicitation); err == nil {
				if e, err := acp.DecodeParams[acp.ElicitationCapabilities](raw); err == nil {
					out.ClientCapabilities.Elicitation = &e
				}
			}
		}
	}
	return out
}
