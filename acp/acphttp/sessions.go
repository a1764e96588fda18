package acphttp

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/tidwall/gjson"
)

// A sessionState is how far a connection holds a session.
type sessionState int

const (
	// attaching: a session/load or session/resume for it is with the
	// agent, which decides whether this client may have it. Nothing else
	// for the session is let through until it answers.
	attaching sessionState = iota + 1
	// held: the agent created the session for this connection or
	// attached it; the client may use it.
	held
)

// An exchange is a request of the client's that the agent has not yet
// answered.
type exchange struct {
	method  string
	session string // the session it acts on, "" for none
	size    int    // its bytes, counted against MaxBufferedBytes
	// wasHeld says, for an attach, whether the session was held before.
	wasHeld bool
	// stream is the session whose stream carries the response over
	// Streamable HTTP, "" for the connection's.
	stream string
}

// A refusal is why the transport answers a client's message itself
// rather than pass it to the agent. status is the HTTP status for
// Streamable HTTP; err is the JSON-RPC error for a request.
type refusal struct {
	status int
	err    *acp.Error
}

func (r *refusal) Error() string { return r.err.Message }

// ledger keeps, for one connection, the sessions it holds, the child
// sessions the agent exposed on them, and the requests it has in flight:
// it is what keeps a connection from reaching another's sessions and
// bounds what it can make the agent hold. Its methods are safe for
// concurrent use.
type ledger struct {
	maxSessions int
	maxChildren int
	maxHeld     int // bytes of requests in flight

	mu       sync.Mutex
	sessions map[string]sessionState
	// children maps each child session the agent announced with a
	// subagent_update to its parent: a session the connection holds, or
	// another child. It holds no cycle: a child is learned only after
	// its parent, and forgetting a session forgets its descendants.
	children map[string]string
	inflight map[string]exchange // by raw id
	creating int                 // session/new and session/fork in flight
	heldSize int                 // bytes of the requests in inflight
}

// childrenPerSession bounds the children a connection learns: so many
// for each session it may hold (1024 by default, the SDK's
// maxBufferedSessionStreams; with ids of maxIDLength, 2 MiB). A child
// announced past the bound is not learned: its messages go to the
// connection's stream, and the client's for it are refused.
const childrenPerSession = 16

func newLedger(maxSessions, maxHeld int) *ledger {
	return &ledger{
		maxSessions: maxSessions,
		maxChildren: childrenPerSession * maxSessions,
		maxHeld:     maxHeld,
		sessions:    make(map[string]sessionState),
		children:    make(map[string]string),
		inflight:    make(map[string]exchange),
	}
}

// subagentUpdate marks the session/update that announces a child.
var subagentUpdate = []byte(`"subagent_update"`)

// learn records the child session that msg, a session/update of the
// agent's, announces with a subagent_update on a session the connection
// holds or a child it learned, so that the child's messages reach the
// client and the client's reach the agent. It ignores any other message,
// an id over maxIDLength, a session already known (the first
// announcement decides the parent: later ones only update metadata), and
// children past maxChildren.
func (l *ledger) learn(msg []byte) {
	if !bytes.Contains(msg, subagentUpdate) {
		return
	}
	r := gjson.GetManyBytes(msg, "params.update.sessionUpdate", "params.sessionId", "params.update.sessionId")
	if r[0].Str != "subagent_update" || r[1].Type != gjson.String || r[2].Type != gjson.String {
		return
	}
	parent, child := r[1].Str, r[2].Str
	if child == "" || len(child) > maxIDLength {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.knows(parent) || l.knows(child) || len(l.children) >= l.maxChildren {
		return
	}
	l.children[strings.Clone(child)] = strings.Clone(parent)
}

// knows reports whether the connection holds s, is attaching it, or
// learned it as a child; l.mu is held.
func (l *ledger) knows(s string) bool {
	if l.sessions[s] != 0 {
		return true
	}
	_, ok := l.children[s]
	return ok
}

// forget forgets session s and every child below it; l.mu is held.
func (l *ledger) forget(s string) {
	delete(l.sessions, s)
	delete(l.children, s)
	for swept := true; swept; {
		swept = false
		for c, p := range l.children {
			if !l.knows(p) {
				delete(l.children, c)
				swept = true
			}
		}
	}
}

// parent returns, for session s, whether the connection holds it (or is
// attaching it), and otherwise the parent it learned for it ("" for a
// session it does not know).
func (l *ledger) parent(s string) (parent string, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions[s] != 0 {
		return "", true
	}
	return l.children[s], false
}

// admit decides whether the client's message m, of size bytes, may reach
// the agent, and records a request it lets through. stream is the session
// whose stream will carry a request's response ("" for the connection
// stream). It refuses a message for a session the connection does not
// hold, a request whose id is in flight, and what would pass a limit.
func (l *ledger) admit(m message, size int) (*refusal, string) {
	if m.kind != kindRequest && m.kind != kindNotification {
		return nil, "" // responses and invalid messages go to the Conn
	}
	if m.ambiguous {
		return &refusal{400, acp.Errorf(acp.CodeInvalidParams, "Invalid params: sessionId must be one string member named exactly sessionId")}, ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	state := l.sessions[m.session]
	if _, child := l.children[m.session]; child && state == 0 {
		state = held // the agent exposed it on a session the client holds
	}
	attach := attachMethod(m.method)
	if m.session != "" && state != held && !(attach && m.kind == kindRequest && state == 0) {
		return &refusal{409, acp.Errorf(acp.CodeResourceNotFound, "Resource not found: session %s is not open on this connection; session/load or session/resume attaches it", echoID(m.session))}, ""
	}
	if m.kind == kindNotification {
		return nil, ""
	}
	if _, dup := l.inflight[m.id]; dup {
		return &refusal{400, acp.Errorf(acp.CodeInvalidRequest, "Invalid request: id %s is already in use", echoID(m.id))}, ""
	}
	if l.heldSize > 0 && l.heldSize+size > l.maxHeld {
		return &refusal{429, acp.Errorf(acp.CodeInternalError, "Internal error: the connection has %d bytes of requests in progress, and may have %d", l.heldSize, l.maxHeld)}, ""
	}
	creates := createMethod(m.method) || attach && state == 0
	if creates && len(l.sessions)+l.creating >= l.maxSessions {
		return &refusal{429, acp.Errorf(acp.CodeInternalError, "Internal error: the connection holds %d sessions, the most it may; session/close one first", l.maxSessions)}, ""
	}
	x := exchange{method: m.method, session: m.session, size: size, wasHeld: state == held}
	if m.session != "" && m.method != "session/load" {
		x.stream = m.session // session/load's response comes on the connection stream
	}
	switch {
	case createMethod(m.method):
		l.creating++
	case attach && state == 0:
		l.sessions[m.session] = attaching
	}
	l.inflight[m.id] = x
	l.heldSize += size
	return nil, x.stream
}

// answered records the agent's response line to the request with raw id,
// and returns the stream that carries it ("" for the connection's) and
// whether the id was one of the client's requests in flight.
func (l *ledger) answered(id string, line []byte) (stream string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	x, ok := l.inflight[id]
	if !ok {
		return "", false
	}
	delete(l.inflight, id)
	l.heldSize -= x.size
	if !createMethod(x.method) && !attachMethod(x.method) && x.method != "session/close" {
		return x.stream, true
	}
	success := gjson.GetBytes(line, "result").Exists()
	switch {
	case createMethod(x.method):
		l.creating--
		if s := gjson.GetBytes(line, "result.sessionId"); success && s.Type == gjson.String && len(s.Str) <= maxIDLength {
			l.sessions[s.Str] = held
		}
	case attachMethod(x.method):
		switch {
		case success:
			l.sessions[x.session] = held
		case !x.wasHeld:
			l.forget(x.session)
		}
	case x.method == "session/close" && success:
		l.forget(x.session)
	}
	return x.stream, true
}

// holds reports whether the connection holds session s, or is attaching it.
func (l *ledger) holds(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sessions[s] != 0
}

// reaches reports whether the connection holds session s, is attaching
// it, or learned it as a child.
func (l *ledger) reaches(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.knows(s)
}

// echoID quotes at most 64 bytes of a client's id for an error message.
func echoID(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
