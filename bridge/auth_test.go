package bridge_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// TestAuthMethods checks that initialize advertises Claude Code's
// terminal sign-in, with Config.LoginArgs, to an editor that runs
// terminal methods and to no other, as ACP requires, in v1 and v2; and
// logout beside it.
func TestAuthMethods(t *testing.T) {
	login := acp.AuthMethod{Type: acp.AuthMethodTerminal, ID: "login", Name: "Sign in to Claude Code",
		Description: "Runs `claude auth login` in a terminal", Args: []string{"login"}}
	tests := []struct {
		name      string
		loginArgs []string
		terminal  bool
		want      []acp.AuthMethod
	}{
		{"terminal editor", []string{"login"}, true, []acp.AuthMethod{login}},
		{"editor without terminal auth", []string{"login"}, false, []acp.AuthMethod{}},
		{"program without LoginArgs", nil, true, []acp.AuthMethod{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var caps acp.ClientCapabilities
				caps.Auth.Terminal = tt.terminal
				e := newFeatureEnv(t, "", bridge.Config{LoginArgs: tt.loginArgs}, &featureEditor{}, caps)
				defer e.close()
				if diff := cmp.Diff(tt.want, e.init.AuthMethods); diff != "" {
					t.Errorf("v1 authMethods (-want +got):\n%s", diff)
				}
				if a := e.init.AgentCapabilities.Auth; a == nil || a.Logout == nil {
					t.Errorf("v1 agentCapabilities.auth = %+v, want logout", a)
				}

				ae := newAgentEnv(t, bridge.Config{LoginArgs: tt.loginArgs})
				defer ae.close()
				p := acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}}
				if tt.terminal {
					p.Capabilities = &acpv2.ClientCapabilities{Auth: &acpv2.ClientAuthCapabilities{Terminal: &acpv2.TerminalAuthCapabilities{}}}
				}
				v2, err := acpv2.Initialize.Call(bg, ae.dial(2), p)
				must(t, err)
				var got []acp.AuthMethod
				for _, m := range v2.AuthMethods {
					got = append(got, acp.AuthMethod{Type: m.Type, ID: m.MethodID, Name: m.Name, Description: m.Description, Args: m.Args})
				}
				if len(tt.want) == 0 {
					tt.want = nil
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("v2 authMethods (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestPromptNeedsSignIn checks that a prompt whose CLI reports its
// credentials refused or missing (real Claude Code 2.1.328: an invalid
// key, and no key at all) fails with ACP's auth_required, -32000, so
// that the editor offers the sign-in, and that the CLI's "run /login" is
// not shown as a notice.
func TestPromptNeedsSignIn(t *testing.T) {
	tests := []struct {
		transcript, message string
		status              int
	}{
		{"auth-invalid-key", "Claude Code needs you to sign in (Invalid API key · Fix external API key)", 401},
		{"auth-logged-out", "Claude Code needs you to sign in (Not logged in · Please run /login)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.transcript, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
				ed := &featureEditor{}
				e := newFeatureEnv(t, capture(tt.transcript), bridge.Config{}, ed, caps)
				defer e.close()
				_, err := e.prompt(e.newSession(), "Say hello.")
				ae, data := errorOf(t, err)
				want := bridge.ErrorData{Kind: bridge.KindAuthRequired, APIErrorStatus: tt.status}
				if ae.Code != acp.CodeAuthRequired || ae.Message != tt.message || data != want {
					t.Errorf("prompt failed with %d %q %+v, want %d %q %+v", ae.Code, ae.Message, data, acp.CodeAuthRequired, tt.message, want)
				}
				if n := ed.seenOf(`update {"sessionId":"11111111-2222-4333-8444-555555555555","update":{"sessionUpdate":"notice"`); n != nil {
					t.Errorf("notices sent: %q", n)
				}
			})
		})
	}
}

// TestLogout checks that logout runs the CLI's sign-out through the
// Starter, outside any session, and fails -32603 with its words when it
// fails.
func TestLogout(t *testing.T) {
	for _, tt := range []struct {
		cli  bridge.CLI
		args string
		fail bool
	}{{bridge.Claude, "auth logout", false}, {bridge.Claude, "auth logout", true}, {bridge.Codex, "logout", false}} {
		fail := tt.fail
		synctest.Test(t, func(t *testing.T) {
			var started []string
			cfg := bridge.Config{CLI: tt.cli, Start: func(dir string, args []string) (bridge.Process, error) {
				started = append(started, dir+"|"+strings.Join(args, " "))
				p := newScript(t, dir, args, true)
				go func() {
					io.Copy(io.Discard, p.inR) // the input is closed at once
					if fail {
						p.errW.Write([]byte("no credentials to remove\n"))
						p.exit(1)
						return
					}
					p.exit(0)
				}()
				return p, nil
			}}
			e := newFeatureEnv(t, "", cfg, &featureEditor{}, acp.ClientCapabilities{})
			defer e.close()
			_, err := acp.Logout.Call(bg, e.client, acp.LogoutParams{})
			if diff := cmp.Diff([]string{"|" + tt.args}, started); diff != "" {
				t.Errorf("processes started (-want +got):\n%s", diff)
			}
			if !fail {
				if err != nil {
					t.Errorf("logout: %v", err)
				}
				return
			}
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeInternalError || !strings.Contains(ae.Message, "no credentials to remove") {
				t.Errorf("logout of a failing sign-out: %v, want -32603 with its stderr", err)
			}
		})
	}
}
