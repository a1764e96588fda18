package acpcheck_test

import (
	"bufio"
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/tidwall/gjson"
)

// TestRemoteWireOrder runs the session checks over WebSocket against the
// reference agent, whose sessions send a burst of updates right behind
// the response to session/new, as claude-acp's do. On the wire every
// update follows the response: the suite must judge that order, not the
// one in which its goroutines happen to see the messages, and its trace
// must show the messages as they were sent, ids included.
func TestRemoteWireOrder(t *testing.T) {
	t.Parallel()
	a := newRefAgent("speaks-after-new")
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return &refConn{a: a} }, &acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: acpcheckos.Clock{}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	target := acpcheck.Remote(hs.URL+"/acp", acpcheck.RemoteOptions{Transport: acpcheck.WebSocket, HTTPClient: hs.Client(), Clock: acpcheckos.Clock{}})
	var trace bytes.Buffer
	skip := []string{"framing", "initialize", "errors", "capability", "prompt", "cancel", "load", "list", "resume", "close", "delete", "v2", "schema", "client", "remote"}
	r, err := acpcheck.Verify(t.Context(), target, &acpcheck.Options{Cwd: t.TempDir(), Skip: skip, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, res := range r.Results {
		if res.ID == "session.updates-after-new" {
			ran = true
			if res.Outcome != acpcheck.Pass {
				t.Errorf("%s: %s (%s), want a pass", res.ID, res.Outcome, res.Reason)
			}
		}
	}
	if !ran {
		t.Error("no check session.updates-after-new")
	}

	// Each connection's first message is the suite's initialize, with the
	// id the Conn gave it.
	first := map[int64]string{}
	lines := bufio.NewScanner(&trace)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		rec := gjson.ParseBytes(lines.Bytes())
		if _, seen := first[rec.Get("conn").Int()]; !seen {
			first[rec.Get("conn").Int()] = rec.Get("dir").String() + " " + rec.Get("msg").Raw
		}
	}
	if len(first) == 0 {
		t.Fatal("the trace holds no message")
	}
	for conn, msg := range first {
		if !strings.HasPrefix(msg, `client {"jsonrpc":"2.0","id":0,"method":"initialize"`) {
			t.Errorf("connection %d's trace begins with %s, want the client's initialize with id 0", conn, msg)
		}
	}
}
