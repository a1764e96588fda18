package acphttp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
)

// TestStreamableRefusedNotification checks that a notification naming a
// session the connection does not hold, which the server refuses (409),
// ends nothing over Streamable HTTP: JSON-RPC answers no notification,
// and the connection goes on to answer the next request, as acpcheck's
// errors.notification-unanswered expects. The client opens no stream
// for such a session: a notification gets nothing back on one, and a
// server may refuse a stream for a session the connection does not know
// with the RFD's 404, which means the whole connection is gone.
func TestStreamableRefusedNotification(t *testing.T) {
	for _, tc := range []struct {
		name string
		// refuse404 answers a GET for the unknown session 404, as the
		// RFD's routing says for a session unknown to the connection.
		refuse404 bool
	}{
		{name: "server"},
		{name: "rfd-404", refuse404: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const unknown = "no-such-session"
			var streams atomic.Int64 // GETs for the unknown session
			srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return newTestAgent().methods() },
				&acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: realClock{}})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && r.Header.Get(acphttp.HeaderSessionID) == unknown {
					streams.Add(1)
					if tc.refuse404 {
						http.Error(w, "Not Found: unknown "+acphttp.HeaderSessionID, http.StatusNotFound)
						return
					}
				}
				srv.ServeHTTP(w, r)
			}))
			t.Cleanup(func() {
				srv.Close()
				hs.Close()
			})
			conn := dial(t, 1, hs.URL, nil, nil)
			ctx := testwait.Context(t)
			if err := conn.Notify(ctx, "_test/notice", map[string]any{"n": 1}); err != nil {
				t.Fatalf("an unknown notification: %v", err)
			}
			if err := acp.SessionCancel.Notify(ctx, conn, acp.CancelParams{SessionID: unknown}); err != nil {
				t.Fatalf("session/cancel of a session the connection does not hold: %v", err)
			}
			_, err = conn.Request(ctx, "_test/barrier", map[string]any{})
			if e := (*acp.Error)(nil); !errors.As(err, &e) || e.Code != acp.CodeMethodNotFound {
				t.Fatalf("a request after the refused notification: %v, want a %d error from the agent", err, acp.CodeMethodNotFound)
			}
			if n := streams.Load(); n != 0 {
				t.Errorf("the client opened %d streams for a session it only sent a notification for", n)
			}
			conn.Close()
			testwait.Do(t, "the connection to end", func() { err = conn.Wait() })
			if err != nil {
				t.Errorf("Wait: %v, want nil: the client closed the connection", err)
			}
		})
	}
}
