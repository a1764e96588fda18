package acphttp_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
)

// protoRecorder records the protocol of every response, and counts the
// POSTs in flight.
type protoRecorder struct {
	rt     http.RoundTripper
	posts  sync.WaitGroup
	mu     sync.Mutex
	protos map[string]int
}

func (p *protoRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost {
		p.posts.Add(1)
		defer p.posts.Done()
	}
	resp, err := p.rt.RoundTrip(r)
	if err == nil {
		p.mu.Lock()
		p.protos[r.Method+" "+resp.Proto]++
		p.mu.Unlock()
	}
	return resp, err
}

// TestHTTP2 serves both profiles on one http.Server that speaks HTTP/1.1
// and cleartext HTTP/2, as the RFD asks for Streamable HTTP: a client
// with HTTP/2 prior knowledge gets every POST, GET and DELETE over
// HTTP/2, and a WebSocket upgrades over HTTP/1.1 on the same port.
func TestHTTP2(t *testing.T) {
	agent := newTestAgent().methods()
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return agent }, &acphttp.ServerOptions{Authenticate: acphttp.NoAuthentication, Clock: realClock{}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	h2 := &http.Transport{Protocols: new(http.Protocols)}
	h2.Protocols.SetUnencryptedHTTP2(true)
	rec := &protoRecorder{rt: h2, protos: map[string]int{}}
	for p := range profiles {
		opts := &acphttp.DialOptions{HTTPClient: &http.Client{Transport: rec}}
		if p == 0 {
			opts.HTTPClient = &http.Client{}
		}
		client := newTestClient()
		conn := dial(t, p, hs.URL, client.methods(), opts)
		ns, err := acp.SessionNew.Call(testwait.Context(t), conn, acp.NewSessionParams{Cwd: "/"})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := prompt(testwait.Context(t), conn, ns.SessionID, "over two"); err != nil || len(client.texts(ns.SessionID)) != 2 {
			t.Fatalf("%s: prompt: %v %v", profiles[p].name, r, err)
		}
		// The prompt's response comes on the session's stream, and may
		// come before its POST's 202: Close would then cancel that POST,
		// whose message the agent has answered, and its RoundTrip would
		// fail, recording no response. Close once every POST has its.
		testwait.Do(t, "the POSTs to be answered", rec.posts.Wait)
		conn.Close()
		testwait.Do(t, "the connection to end", func() { conn.Wait() })
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for k := range rec.protos {
		if k[len(k)-8:] != "HTTP/2.0" {
			t.Errorf("a response over %s", k)
		}
	}
	if rec.protos["POST HTTP/2.0"] < 3 || rec.protos["GET HTTP/2.0"] < 2 || rec.protos["DELETE HTTP/2.0"] != 1 {
		t.Errorf("responses: %v", rec.protos)
	}
}
