//go:build unix

package acpcheck_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
	"github.com/coder/websocket"
)

// remoteDefects are the defects of TestRemoteDefects, and the check each
// must fail.
var remoteDefects = map[string]string{
	"proxy-adds-the-token": "remote.unauthenticated",
	"proxy-drops-origin":   "remote.origin",
	"no-415":               "remote.content-type",
	"no-406":               "remote.accept",
	"no-404":               "remote.connection-id",
	"shared-sessions":      "remote.isolation",
}

// TestRemoteDefects shows each remote check failing: echo-agent serves
// remotely behind a proxy that breaks one of the transport's rules, and a
// WebSocket server of the test's own lets every connection reach every
// session.
func TestRemoteDefects(t *testing.T) {
	t.Parallel()
	backend, err := url.Parse(listen(t, echoAgent, nil, nil, "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	backend.Path = ""
	// proxy returns echo-agent behind a proxy that changes each request
	// with in and each response with out.
	proxy := func(in func(*http.Request), out func(*http.Response)) http.Handler {
		p := httputil.NewSingleHostReverseProxy(backend)
		director := p.Director
		p.Director = func(r *http.Request) {
			director(r)
			if in != nil {
				in(r)
			}
		}
		p.ModifyResponse = func(r *http.Response) error {
			if out != nil {
				out(r)
			}
			return nil
		}
		return p
	}
	status := func(from, to int) func(*http.Response) {
		return func(r *http.Response) {
			if r.StatusCode == from {
				r.StatusCode, r.Status = to, http.StatusText(to)
			}
		}
	}
	handlers := map[string]http.Handler{
		"proxy-adds-the-token": proxy(func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret") }, nil),
		"proxy-drops-origin":   proxy(func(r *http.Request) { r.Header.Del("Origin") }, nil),
		"no-415":               proxy(nil, status(http.StatusUnsupportedMediaType, http.StatusBadRequest)),
		"no-406":               proxy(nil, status(http.StatusNotAcceptable, http.StatusBadRequest)),
		"no-404":               proxy(nil, status(http.StatusNotFound, http.StatusBadRequest)),
		"shared-sessions":      sharedSessions(t),
	}
	// Only the remote checks, and the session/new the isolation check
	// needs.
	skip := []string{"framing", "initialize", "errors", "session", "capability", "prompt", "cancel", "load", "list", "resume", "close", "delete", "v2", "schema", "client"}
	for name, check := range remoteDefects {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(handlers[name])
			t.Cleanup(srv.Close)
			target := acpcheck.Remote(srv.URL+"/acp", acpcheck.RemoteOptions{
				Transport:  acpcheck.WebSocket,
				HTTPClient: srv.Client(),
				Header:     http.Header{"Authorization": {"Bearer s3cret"}},
				Clock:      acpcheckos.Clock{},
			})
			r, err := acpcheck.Verify(t.Context(), target, &acpcheck.Options{Cwd: t.TempDir(), Skip: skip})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range r.Results {
				if res.ID == check && res.Outcome != acpcheck.Fail {
					t.Errorf("%s: %s (%s), want a failure", check, res.Outcome, res.Reason)
				}
			}
		})
	}
}

// sharedSessions is a WebSocket server that serves the reference agent
// on every connection, with no isolation between them: any connection
// reaches any session.
func sharedSessions(t *testing.T) http.Handler {
	a := newRefAgent("none")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		lines := &wsLines{ws: ws}
		c := acp.NewConn(context.Background(), lines, lines, &refConn{a: a, w: &defectWriter{a: a, w: lines}}, nil)
		c.Wait()
		ws.CloseNow()
	})
}

// wsLines carries one message per text frame as one line.
type wsLines struct {
	ws  *websocket.Conn
	buf []byte
}

func (l *wsLines) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		_, b, err := l.ws.Read(context.Background())
		if err != nil {
			return 0, io.EOF
		}
		l.buf = append(b, '\n')
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

func (l *wsLines) Write(p []byte) (int, error) {
	if err := l.ws.Write(context.Background(), websocket.MessageText, bytes.TrimSuffix(p, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
