package acphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
)

// bigAgent is the test agent with x/big, which answers a string of the
// length its params give.
func bigAgent() acp.Methods {
	m := newTestAgent().methods()
	m.Requests["x/big"] = func(_ context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
		var n []int
		if err := json.Unmarshal(params, &n); err != nil || len(n) != 1 {
			return nil, acp.ErrInvalidParams
		}
		return strings.Repeat("x", n[0]), nil
	}
	return m
}

func big(ctx context.Context, conn *acp.Conn, n int) error {
	_, err := conn.Request(ctx, "x/big", []int{n})
	return err
}

// connect dials with profile p and sends initialize, returning the
// first error; the Conn is nil when dialling failed.
func connect(ctx context.Context, p int, env *pipeEnv, o acphttp.DialOptions) (*acp.Conn, error) {
	o.HTTPClient = env.client
	conn, err := profiles[p].dial(ctx, env.url, nil, &o)
	if err != nil {
		return nil, err
	}
	_, err = acp.Initialize.Call(ctx, conn, acp.InitializeParams{ProtocolVersion: 1})
	return conn, err
}

// An outcome is what a failure must look like to a client.
type outcome struct {
	is     []error // what errors.Is must match
	status int     // the *acphttp.StatusError's code; 0: errors.As finds none
	code   int     // the *acp.Error's code; 0: errors.As finds none
	// end is how the connection fails: it goes on, it ends with the
	// error (Wait returns an error of the same outcome), or it ends
	// cleanly (Wait returns nil).
	end end
}

type end int

const (
	goesOn end = iota
	endsWithError
	endsCleanly
)

// check reports how err differs from the outcome.
func (want outcome) check(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, target := range want.is {
		if !errors.Is(err, target) {
			t.Errorf("%s: %v; want errors.Is %v", what, err, target)
		}
	}
	var se *acphttp.StatusError
	status := 0
	if errors.As(err, &se) {
		status = se.StatusCode
		if status == http.StatusUnauthorized && se.Header.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("%s: a 401 whose challenge is %q, want Bearer", what, se.Header.Get("WWW-Authenticate"))
		}
	}
	if status != want.status {
		t.Errorf("%s: %v; errors.As finds status %d, want %d", what, err, status, want.status)
	}
	var ae *acp.Error
	code := 0
	if errors.As(err, &ae) {
		code = ae.Code
	}
	if code != want.code {
		t.Errorf("%s: %v; errors.As finds JSON-RPC code %d, want %d", what, err, code, want.code)
	}
}

// TestFailuresAlike checks that each failure a client can meet is the
// same error over both transports, and ends the connection or not alike.
func TestFailuresAlike(t *testing.T) {
	session := func(ctx context.Context, t *testing.T, conn *acp.Conn) string {
		t.Helper()
		ns, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: "/"})
		if err != nil {
			t.Fatalf("session/new: %v", err)
		}
		return ns.SessionID
	}
	tests := []struct {
		name   string
		server acphttp.ServerOptions
		dial   acphttp.DialOptions
		// fail makes the failure happen on a connection that connect
		// opened, and returns its error; nil means that connecting fails.
		// ctx ends a minute into the test.
		fail func(ctx context.Context, t *testing.T, env *pipeEnv, p int, conn *acp.Conn) error
		want outcome
	}{
		{
			name:   "no credentials",
			server: acphttp.ServerOptions{Authenticate: acphttp.BearerToken("s3cret")},
			want:   outcome{is: []error{acphttp.ErrUnauthorized}, status: 401, end: endsWithError},
		},
		{
			name:   "wrong credentials",
			server: acphttp.ServerOptions{Authenticate: acphttp.BearerToken("s3cret")},
			dial:   acphttp.DialOptions{Header: http.Header{"Authorization": {"Bearer guess"}}},
			want:   outcome{is: []error{acphttp.ErrUnauthorized}, status: 401, end: endsWithError},
		},
		{
			name: "a page of another origin",
			dial: acphttp.DialOptions{Header: http.Header{"Origin": {"https://evil.example"}}},
			want: outcome{is: []error{acphttp.ErrForbidden}, status: 403, end: endsWithError},
		},
		{
			name:   "the server is full",
			server: acphttp.ServerOptions{MaxConnections: 1},
			fail: func(ctx context.Context, t *testing.T, env *pipeEnv, p int, _ *acp.Conn) error {
				conn, err := connect(ctx, p, env, acphttp.DialOptions{})
				if conn != nil {
					defer conn.Close()
					outcome{status: 503}.check(t, "the second connection's Wait", waitEnd(t, conn))
				}
				return err
			},
			// The first connection goes on.
			want: outcome{status: 503},
		},
		{
			name: "another connection's session",
			fail: func(ctx context.Context, t *testing.T, _ *pipeEnv, _ int, conn *acp.Conn) error {
				_, err := prompt(ctx, conn, "sess-9", "hi")
				return err
			},
			want: outcome{is: []error{acp.ErrResourceNotFound}, code: acp.CodeResourceNotFound},
		},
		{
			name:   "past MaxSessions",
			server: acphttp.ServerOptions{MaxSessions: 1},
			fail: func(ctx context.Context, t *testing.T, _ *pipeEnv, _ int, conn *acp.Conn) error {
				session(ctx, t, conn)
				_, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: "/"})
				return err
			},
			want: outcome{is: []error{acp.ErrInternal}, code: acp.CodeInternalError},
		},
		{
			name:   "a request too large for the server",
			server: acphttp.ServerOptions{MaxMessageBytes: 1000},
			fail: func(ctx context.Context, t *testing.T, _ *pipeEnv, _ int, conn *acp.Conn) error {
				_, err := prompt(ctx, conn, session(ctx, t, conn), strings.Repeat("x", 2000))
				return err
			},
			want: outcome{is: []error{acp.ErrInvalidRequest}, code: acp.CodeInvalidRequest},
		},
		{
			name: "a response too large for the client",
			dial: acphttp.DialOptions{MaxMessageBytes: 1000},
			fail: func(ctx context.Context, t *testing.T, _ *pipeEnv, _ int, conn *acp.Conn) error {
				return big(ctx, conn, 2000)
			},
			want: outcome{is: []error{acp.ErrLineTooLong}},
		},
		{
			name: "the server closes the connection",
			fail: func(ctx context.Context, t *testing.T, env *pipeEnv, _ int, conn *acp.Conn) error {
				synctest.Wait() // the connection's stream is open
				env.srv.Close()
				waitEnd(t, conn)
				return big(ctx, conn, 1)
			},
			want: outcome{is: []error{acp.ErrClosed}, end: endsCleanly},
		},
	}
	for _, tt := range tests {
		for p, profile := range profiles {
			t.Run(tt.name+"/"+profile.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					env := newPipeEnv(t, bigAgent(), tt.server)
					// In the bubble the minute passes as soon as everything
					// waits: a failure that hangs fails the test at once.
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					defer cancel()
					conn, err := connect(ctx, p, env, tt.dial)
					if tt.fail != nil {
						if err != nil {
							t.Fatalf("connect: %v", err)
						}
						err = tt.fail(ctx, t, env, p, conn)
					}
					tt.want.check(t, "the failure", err)
					if conn == nil {
						return // dialling failed: there is no connection
					}
					defer conn.Close()
					switch tt.want.end {
					case goesOn:
						if err := big(ctx, conn, 10); err != nil {
							t.Errorf("the connection after the failure: %v", err)
						}
					case endsWithError:
						werr := waitEnd(t, conn)
						want := tt.want
						want.code = 0
						want.check(t, "Wait", werr)
					case endsCleanly:
						if werr := waitEnd(t, conn); werr != nil {
							t.Errorf("Wait = %v, want nil", werr)
						}
					}
				})
			})
		}
	}
}

// TestUnknownConnection checks that a Streamable HTTP connection the
// server no longer knows (a load balancer sent the client to another
// instance, say) ends with the server's 404. A WebSocket has no such
// failure: its socket is its connection.
func TestUnknownConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := newPipeServer(t, bigAgent(), acphttp.ServerOptions{})
		second := newPipeServer(t, bigAgent(), acphttp.ServerOptions{})
		var current atomic.Pointer[acphttp.Server]
		current.Store(first)
		env := servePipe(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
		t.Cleanup(func() {
			first.Close()
			second.Close()
		})
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		conn, err := connect(ctx, 1, env, acphttp.DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		current.Store(second)
		want := outcome{is: []error{acp.ErrClosed}, status: 404, end: endsWithError}
		want.check(t, "a request", big(ctx, conn, 1))
		want.is = nil
		want.check(t, "Wait", waitEnd(t, conn))
	})
}

// waitEnd waits a minute, in the bubble's time, for conn to end, and
// returns what Wait reports.
func waitEnd(t *testing.T, conn *acp.Conn) error {
	t.Helper()
	select {
	case <-conn.Done():
	case <-time.After(time.Minute):
		t.Fatalf("waited a minute for the connection to end")
	}
	return conn.Wait()
}

// TestResponseTooLargeForServer checks that a client's response over the
// server's MaxMessageBytes fails the agent's request it answers, rather
// than leave it waiting, and that the connection goes on, over both
// transports.
func TestResponseTooLargeForServer(t *testing.T) {
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asked := make(chan error, 1)
				agent := bigAgent()
				acp.SessionPrompt.Handle(&agent, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
					_, err := acp.SessionRequestPermission.Call(ctx, conn, acp.RequestPermissionParams{
						SessionID: p.SessionID,
						ToolCall:  acp.PermissionToolCall{ToolCallID: "t1"},
						Options:   []acp.PermissionOption{{OptionID: "yes", Name: "Yes", Kind: acp.PermissionAllowOnce}},
					})
					asked <- err
					return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
				})
				var client acp.Methods
				acp.SessionRequestPermission.Handle(&client, func(context.Context, *acp.Conn, acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
					return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: strings.Repeat("y", 2000)}}, nil
				})
				env := newPipeEnv(t, agent, acphttp.ServerOptions{MaxMessageBytes: 1000})
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				conn, err := profiles[p].dial(ctx, env.url, client, &acphttp.DialOptions{HTTPClient: env.client})
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if _, err := acp.Initialize.Call(ctx, conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
					t.Fatal(err)
				}
				ns, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: "/"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := prompt(ctx, conn, ns.SessionID, "ask"); err != nil {
					t.Errorf("prompt, for a minute: %v", err)
				}
				select {
				case err := <-asked:
					if !errors.Is(err, acp.ErrLineTooLong) {
						t.Errorf("the agent's request: %v, want ErrLineTooLong", err)
					}
				default:
					t.Errorf("the agent's request did not return")
				}
				if err := big(ctx, conn, 10); err != nil {
					t.Errorf("the connection after: %v", err)
				}
			})
		})
	}
}
