package bridge

import (
	"context"
	"io"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

// Signing in and out. ACP's terminal authentication runs the agent's own
// program again, in the user's terminal, with [Config].LoginArgs: that
// program runs the CLI's sign-in ([CLIInfo].SignIn) and exits with its
// status. The Agent itself only advertises the method, runs the CLI's
// sign-out for logout, and answers a prompt whose CLI reports missing or
// refused credentials with ACP's auth_required error, so that the editor
// offers the sign-in.

// logout runs the CLI's sign-out ([CLIInfo].SignOut) through
// [Config].Start, outside any session's directory, and waits for it. The
// sessions' CLIs go on: ACP leaves them to the agent, and their next API
// request fails auth_required once the credentials are gone.
func (a *Agent) logout(ctx context.Context, _ acp.LogoutParams) (acp.LogoutResult, error) {
	if a.info.SignOut == nil {
		return acp.LogoutResult{}, acp.Errorf(acp.CodeMethodNotFound, "Method not found: %s has no sign-out", a.info.Name)
	}
	p, err := a.cfg.Start("", a.info.SignOut)
	if err != nil {
		return acp.LogoutResult{}, acp.Errorf(acp.CodeInternalError, "running %s's sign-out: %v", a.info.Name, err)
	}
	stop := context.AfterFunc(ctx, func() { p.Signal(Kill) })
	defer stop()
	p.Stdin().Close()
	var stderr tail
	done := make(chan struct{})
	go func() {
		defer close(done)
		if r := p.Stderr(); r != nil {
			io.Copy(&stderr, r)
		}
	}()
	io.Copy(io.Discard, p.Stdout())
	<-done
	if err := p.Wait(); err != nil {
		msg := err.Error()
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += ": " + s
		}
		return acp.LogoutResult{}, acp.Errorf(acp.CodeInternalError, "%s's sign-out (%s) failed: %s", a.info.Name, strings.Join(a.info.SignOut, " "), msg)
	}
	return acp.LogoutResult{}, nil
}

// authRequired is the error of a prompt whose CLI, name, reported its
// credentials refused or missing, in message (its own words, "" for
// none), the request failing with HTTP status (0 when unknown): ACP's
// auth_required, -32000, which tells the editor to offer a sign-in, with
// [ErrorData] of kind [KindAuthRequired].
func authRequired(name, message string, status int) error {
	text := name + " needs you to sign in"
	if message != "" {
		text += " (" + message + ")"
	}
	return acp.Errorf(acp.CodeAuthRequired, "%s", text).WithData(ErrorData{Kind: KindAuthRequired, APIErrorStatus: status})
}
