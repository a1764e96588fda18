package bridge

import (
	"context"

	"github.com/acpkit/acpkit/acp"
)

// fork is session/fork (unstable): a new session, with an id of its own,
// that starts as a copy of the conversation of the session o.id, open or
// kept by the CLI, and goes on apart from it; the original is left as it
// was. Only a CLI that [CLIInfo].Forks serves it. The fork's CLI starts
// at once, as a new session's does.
func (a *Agent) fork(ctx context.Context, ed *editor, o opening) (acp.NewSessionResult, error) {
	if !a.info.Forks {
		return acp.NewSessionResult{}, acp.Errorf(acp.CodeMethodNotFound, "Method not found: %s cannot fork a session", a.info.Name)
	}
	if o.id == "" {
		return acp.NewSessionResult{}, acp.InvalidParam("sessionId", "sessionId is empty")
	}
	if err := refuseChild(o.id); err != nil {
		return acp.NewSessionResult{}, err
	}
	if err := a.checkDirs(o); err != nil {
		return acp.NewSessionResult{}, err
	}
	src := o.id
	if s := a.lookup(o.id); s != nil {
		src = s.storedID()
		if src == "" {
			return acp.NewSessionResult{}, acp.InvalidParam("sessionId", "session %s holds no conversation yet to fork", o.id)
		}
	} else if a.canLoad() {
		f, err := a.find(src, o.cwd)
		if err != nil {
			return acp.NewSessionResult{}, err
		}
		src = f.ID
	}
	o.forkOf, o.id = src, a.cfg.NewSessionID()
	s, err := a.open(ctx, ed, o)
	if err != nil {
		return acp.NewSessionResult{}, err
	}
	v, err := s.describe()
	s.warm()
	return acp.NewSessionResult{SessionID: s.id, Modes: v.modes, ConfigOptions: v.options}, err
}

func (e *editor) forkV1(ctx context.Context, p acp.ForkSessionParams) (acp.ForkSessionResult, error) {
	res, err := e.a.fork(ctx, e, opening{id: p.SessionID, cwd: p.Cwd, dirs: p.AdditionalDirectories, servers: p.MCPServers})
	return acp.ForkSessionResult{SessionID: res.SessionID, Modes: res.Modes, ConfigOptions: res.ConfigOptions}, err
}
