package bridge

import (
	"context"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/acp/goose"
)

// Versions are the versions of ACP an editor's connection may speak.
type Versions uint8

const (
	// V1 is ACP v1.
	V1 Versions = 1 << iota
	// V2 is the ACP v2 draft (see package acpv2).
	//
	// Experimental: ACP v2 is a draft, and this follows it: it may change
	// incompatibly, or be removed, in any release.
	V2
)

// Editor is what an [Agent] knows of an editor before it connects.
type Editor struct {
	// Versions are the versions of ACP to speak with it, chosen at its
	// initialize: with both, the v2 draft for an editor that asks for 2 or
	// later and v1 for any other; with V2 alone, an editor that asks for
	// less is refused. 0 means both.
	Versions Versions
	// Caller names the editor as its transport authenticated it (an
	// acphttp.Caller's Name); "" when none did, as on stdio. The Agent's
	// logs of the editor's sessions carry it.
	Caller string
}

// Handler returns the handler of one editor's connection, to serve with
// an [acp.Conn]: initialize, session/new, load, resume, fork, list,
// delete, close, set_mode, set_config_option, prompt, cancel and logout
// (v2's auth/login and auth/logout), in each version e allows (the
// package doc's ACP v2 says what v2 gives). The handler belongs to that
// connection alone: it keeps what the editor declared at initialize (its
// capabilities and version), which decides what its sessions send it,
// and it answers another connection's requests -32603. Make one for each
// connection; the Agent serves them all, with one set of sessions and
// CLI processes.
//
//	conn := acp.NewConn(ctx, os.Stdin, os.Stdout, agent.Handler(bridge.Editor{}), nil)
func (a *Agent) Handler(e Editor) acp.Handler {
	ed := &editor{a: a, caller: e.Caller}
	switch e.Versions {
	case V1:
		return ed.methods()
	case V2:
		return acpv2.NewRouter(nil, ed.methodsV2())
	}
	return acpv2.NewRouter(ed.methods(), ed.methodsV2())
}

// editor is one editor's connection: the handlers that serve it, and
// what it declared.
type editor struct {
	a      *Agent
	caller string

	mu   sync.Mutex
	conn *acp.Conn // the connection served, once it has called
	caps acp.ClientCapabilities
	v2   bool // initialized in ACP v2
}

// errOtherConn answers a request of a connection an editor's handler does
// not serve.
var errOtherConn = acp.Errorf(acp.CodeInternalError, "Internal error: this handler serves another editor's connection (make one with Agent.Handler for each)")

// bind binds e to conn, the connection of its first request, and reports
// whether conn is e's.
func (e *editor) bind(conn *acp.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn == nil {
		e.conn = conn
	}
	return e.conn == conn
}

// declare keeps what the editor declared at initialize.
func (e *editor) declare(caps acp.ClientCapabilities, v2 bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.caps, e.v2 = caps, v2
}

// capabilities returns the capabilities the editor declared.
func (e *editor) capabilities() acp.ClientCapabilities {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.caps
}

// isV2 reports whether the editor speaks ACP v2.
func (e *editor) isV2() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.v2
}

// connection returns the editor's connection; nil before its first
// request.
func (e *editor) connection() *acp.Conn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.conn
}

// handle registers f as the handler of m in ms, for e's connection.
func handle[P, R any](e *editor, ms *acp.Methods, m acp.Method[P, R], f func(context.Context, P) (R, error)) {
	m.Handle(ms, func(ctx context.Context, conn *acp.Conn, p P) (R, error) {
		if !e.bind(conn) {
			var zero R
			return zero, errOtherConn
		}
		return f(ctx, p)
	})
}

// handleNotification registers f as the handler of n in ms, for e's
// connection.
func handleNotification[P any](e *editor, ms *acp.Methods, n acp.Notification[P], f func(context.Context, P)) {
	n.Handle(ms, func(ctx context.Context, conn *acp.Conn, p P) {
		if e.bind(conn) {
			f(ctx, p)
		}
	})
}

// methods is the editor's ACP v1 method table.
func (e *editor) methods() acp.Methods {
	a := e.a
	var m acp.Methods
	handle(e, &m, acp.Initialize, e.initialize)
	handle(e, &m, acp.SessionNew, e.newSession)
	handle(e, &m, acp.SessionLoad, func(ctx context.Context, p acp.LoadSessionParams) (acp.LoadSessionResult, error) {
		return a.load(ctx, e, opening{id: p.SessionID, cwd: p.Cwd, dirs: p.AdditionalDirectories, servers: p.MCPServers})
	})
	handle(e, &m, acp.SessionResume, func(ctx context.Context, p acp.ResumeSessionParams) (acp.ResumeSessionResult, error) {
		r, err := a.resume(ctx, e, opening{id: p.SessionID, cwd: p.Cwd, dirs: p.AdditionalDirectories, servers: p.MCPServers})
		return acp.ResumeSessionResult(r), err
	})
	handle(e, &m, acp.Logout, a.logout)
	handle(e, &m, acp.SessionFork, e.forkV1)
	handle(e, &m, acp.SessionList, a.list)
	handle(e, &m, acp.SessionDelete, a.delete)
	handle(e, &m, acp.SessionClose, a.close)
	handle(e, &m, acp.SessionSetMode, func(ctx context.Context, p acp.SetSessionModeParams) (acp.SetSessionModeResult, error) {
		s, err := a.session(p.SessionID)
		if err != nil {
			return acp.SetSessionModeResult{}, err
		}
		_, err = s.set(ctx, e, configMode, p.ModeID)
		return acp.SetSessionModeResult{}, err
	})
	handle(e, &m, acp.SessionSetConfigOption, func(ctx context.Context, p acp.SetSessionConfigOptionParams) (acp.SetSessionConfigOptionResult, error) {
		s, err := a.session(p.SessionID)
		if err != nil {
			return acp.SetSessionConfigOptionResult{}, err
		}
		v, err := s.set(ctx, e, p.ConfigID, p.Value)
		return acp.SetSessionConfigOptionResult{ConfigOptions: v.options}, err
	})
	handle(e, &m, acp.SessionPrompt, func(ctx context.Context, p acp.PromptParams) (acp.PromptResult, error) {
		s, err := a.session(p.SessionID)
		if err != nil {
			return acp.PromptResult{}, err
		}
		if err := a.checkPrompt(p.Prompt); err != nil {
			return acp.PromptResult{}, err
		}
		return s.prompt(ctx, e, p.Prompt)
	})
	handleNotification(e, &m, acp.SessionCancel, func(ctx context.Context, p acp.CancelParams) {
		if s, err := a.session(p.SessionID); err == nil {
			s.cancel()
		}
	})
	return m
}

// acceptsNotices reports whether the editor takes notice updates.
func (e *editor) acceptsNotices() bool { return e.capabilities().AcceptsNotices() }

// acceptsForms reports whether the editor takes elicitation in form
// mode.
func (e *editor) acceptsForms() bool {
	el := e.capabilities().Elicitation
	return el != nil && el.Form != nil
}

// acceptsGoose reports whether the editor takes goose's custom
// notifications.
func (e *editor) acceptsGoose() bool { return goose.AcceptsCustomNotifications(e.capabilities()) }
