package acpv2_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// agents are a v1 and a v2 agent that record the initialize params they
// get and say, in session/new's session id, which of them answered.
type agents struct {
	mu       sync.Mutex
	v1Params []string // the params of each initialize the v1 agent got, re-encoded
	v2Params []string
	fail     int    // how many initializes to fail before answering
	enter    func() // called in each initialize, if set
}

func (a *agents) failing() bool {
	if a.enter != nil {
		a.enter()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail > 0 {
		a.fail--
		return true
	}
	return false
}

func (a *agents) record(dst *[]string, p any) {
	b, _ := json.Marshal(p)
	a.mu.Lock()
	*dst = append(*dst, string(b))
	a.mu.Unlock()
}

func (a *agents) v1() acp.Methods {
	var m acp.Methods
	acp.Initialize.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		a.record(&a.v1Params, p)
		if a.failing() {
			return acp.InitializeResult{}, errors.New("not now")
		}
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	acp.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		return acp.NewSessionResult{SessionID: "v1"}, nil
	})
	return m
}

func (a *agents) v2() acp.Methods {
	var m acp.Methods
	acpv2.Initialize.Handle(&m, func(_ context.Context, _ *acp.Conn, p acpv2.InitializeParams) (acpv2.InitializeResult, error) {
		a.record(&a.v2Params, p)
		if a.failing() {
			return acpv2.InitializeResult{}, errors.New("not now")
		}
		return acpv2.InitializeResult{ProtocolVersion: p.ProtocolVersion, Info: acpv2.Implementation{Name: "agent", Version: "1"}}, nil
	})
	acpv2.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acpv2.NewSessionParams) (acpv2.NewSessionResult, error) {
		return acpv2.NewSessionResult{SessionID: "v2"}, nil
	})
	return m
}

// wire is the client's end of a connection to a router: lines in, lines
// out.
type wire struct {
	t     *testing.T
	conn  *acp.Conn // the agent's, when the router is a Go Router
	in    io.Writer
	lines chan string
}

// scan sends the lines r yields to w.lines, and closes it at the end.
func (w *wire) scan(r io.Reader) {
	defer close(w.lines)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		w.lines <- sc.Text()
	}
}

func serveRouter(t *testing.T, router *acpv2.Router) *wire {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	conn := acp.NewConn(context.Background(), toAgentR, fromAgentW, router, nil)
	w := &wire{t: t, conn: conn, in: toAgentW, lines: make(chan string, 16)}
	go w.scan(fromAgentR)
	t.Cleanup(func() {
		toAgentW.Close()
		var err error
		testwait.Do(t, "the router's connection to end", func() { err = conn.Wait() })
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		fromAgentW.Close()
	})
	return w
}

// exchange sends line and, unless want is "", checks that the next line
// back holds every member want has; with want "", it checks that nothing
// comes back for line, by sending a request after it whose answer must
// come first.
func (w *wire) exchange(line, want string) {
	w.t.Helper()
	w.send(line)
	if want == "" {
		line, want = `{"jsonrpc":"2.0","id":"probe","method":"_probe"}`, `{"id":"probe"}`
		w.send(line)
	}
	got := testwait.For(w.t, w.lines, "the answer to "+line)
	if msg := subset(want, got); msg != "" {
		w.t.Errorf("sent %s\ngot  %s\nwant %s: %s", line, got, want, msg)
	}
}

// send writes line, failing the test if the router has not read it
// within testwait.Limit.
func (w *wire) send(line string) {
	w.t.Helper()
	var err error
	testwait.Do(w.t, "the router to read "+line, func() { _, err = io.WriteString(w.in, line+"\n") })
	if err != nil {
		w.t.Fatal(err)
	}
}

// subset reports how got, a JSON object, lacks a member of want, or "".
func subset(want, got string) string {
	var w, g map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return "bad want: " + err.Error()
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return "not JSON: " + err.Error()
	}
	return subsetOf(w, g, "")
}

func subsetOf(want, got any, path string) string {
	wm, ok := want.(map[string]any)
	if !ok {
		if diff := cmp.Diff(want, got); diff != "" {
			return path + ": " + diff
		}
		return ""
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return path + " is not an object"
	}
	for k, wv := range wm {
		gv, ok := gm[k]
		if !ok {
			return path + "." + k + " is missing"
		}
		if msg := subsetOf(wv, gv, path+"."+k); msg != "" {
			return msg
		}
	}
	return ""
}

const (
	initV1     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"zed","version":"1"}}}`
	initV2     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"editor","version":"2"},"capabilities":{"auth":{"terminal":{}}}}}`
	initV3     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":3,"info":{"name":7},"capabilities":{"auth":{"terminal":{}},"telepathy":{}}}}`
	newSession = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`
	v1Session  = `{"id":1,"result":{"sessionId":"v1"}}`
	v2Session  = `{"id":1,"result":{"sessionId":"v2"}}`
	refused    = `{"error":{"code":-32600}}`
)

func initialize(version int, id int) string {
	switch version {
	case 1:
		return strings.Replace(initV1, `"id":0`, `"id":`+itoa(id), 1)
	case 2:
		return strings.Replace(initV2, `"id":0`, `"id":`+itoa(id), 1)
	}
	return strings.Replace(initV3, `"id":0`, `"id":`+itoa(id), 1)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// routers are the routers TestRouter runs its matrix over: this package's
// Router, and the official TypeScript SDK's AgentProtocolRouter, whose
// behaviour this package follows. Each serves a v1 agent, a v2 agent or
// both, that fail the first fail initializes they get, and returns the
// client's end and a function that ends the connection and returns the
// params of each initialize each agent got.
var routers = []struct {
	name  string
	serve func(t *testing.T, v1, v2 bool, fail int) (*wire, func() (v1, v2 []string))
}{
	{"Go", func(t *testing.T, v1, v2 bool, fail int) (*wire, func() (v1, v2 []string)) {
		a := &agents{fail: fail}
		var h1, h2 acp.Handler
		if v1 {
			h1 = a.v1()
		}
		if v2 {
			h2 = a.v2()
		}
		w := serveRouter(t, acpv2.NewRouter(h1, h2))
		return w, func() ([]string, []string) {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.v1Params, a.v2Params
		}
	}},
	{"TypeScript", serveTS},
}

// serveTS serves testdata/interop/router.mjs, the SDK's router over the
// same agents as [agents]'s. The params it returns are those of the first
// initialize each agent got, which the router normalises (it passes the
// later ones unchanged), read and written again as this package reads
// and writes them.
func serveTS(t *testing.T, v1, v2 bool, fail int) (*wire, func() (v1, v2 []string)) {
	config, _ := json.Marshal(map[string]any{"v1": v1, "v2": v2, "fail": fail})
	cmd := tssdk.Command(t, "testdata/interop/router.mjs", string(config))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &wire{t: t, in: in, lines: make(chan string, 16)}
	go w.scan(out)
	var once sync.Once
	var got [2][]string
	end := func() {
		in.Close()
		for range w.lines { // drain, so that the script can exit
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("router.mjs: %v\n%s", err, stderr.String())
		}
		for line := range strings.Lines(stderr.String()) {
			var r struct {
				Agent  string
				Params json.RawMessage
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("router.mjs wrote %q on stderr", line)
			}
			i := map[string]int{"v1": 0, "v2": 1}[r.Agent]
			if len(got[i]) > 0 {
				continue // passed unchanged
			}
			var p any
			if r.Agent == "v1" {
				p, err = acp.DecodeParams[acp.InitializeParams](r.Params)
			} else {
				p, err = acp.DecodeParams[acpv2.InitializeParams](r.Params)
			}
			if err != nil {
				t.Errorf("the %s agent got initialize params %s: %v", r.Agent, r.Params, err)
			}
			b, _ := json.Marshal(p)
			got[i] = append(got[i], string(b))
		}
	}
	t.Cleanup(func() { once.Do(end) })
	return w, func() ([]string, []string) {
		once.Do(end)
		return got[0], got[1]
	}
}

// What the agents get, re-encoded, for initialize(1), (2) and (3), and
// for (2) by a v1 agent.
const (
	v1Got     = `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"auth":{"terminal":false}},"clientInfo":{"name":"zed","version":"1"}}`
	v2Got     = `{"protocolVersion":2,"info":{"name":"editor","version":"2"},"capabilities":{"auth":{"terminal":{}}}}`
	v3Got     = `{"protocolVersion":2,"info":{"name":"unknown","version":"unknown"},"capabilities":{"auth":{"terminal":{}}}}`
	v2AsV1Got = `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"session":{"configOptions":{"boolean":{}}},"plan":{},"auth":{"terminal":true}},"clientInfo":{"name":"editor","version":"2"}}`
)

// TestRouter is the router's behaviour as a matrix: clients of v1, of v2
// and of an unknown future version, and garbage before initialize,
// against a router with both agents and with each alone, with this
// package's Router and the SDK's. Each step sends a line and checks the
// answer ("" for none; ts, when set, is what the SDK answers instead); the
// agents' initialize params are checked after, the SDK's as serveTS
// says.
func TestRouter(t *testing.T) {
	type step struct{ send, want, ts string }
	tests := []struct {
		name     string
		v1, v2   bool
		fail     int // initializes the agent fails
		steps    []step
		v1Params []string // what the v1 agent's initialize got
		v2Params []string
	}{
		{
			name: "v1 client", v1: true, v2: true,
			steps: []step{
				{initialize(1, 0), `{"id":0,"result":{"protocolVersion":1}}`, ""},
				{newSession, v1Session, ""},
			},
			v1Params: []string{v1Got},
		},
		{
			name: "v2 client", v1: true, v2: true,
			steps: []step{
				{initialize(2, 0), `{"id":0,"result":{"protocolVersion":2,"info":{"name":"agent"}}}`, ""},
				{newSession, v2Session, ""},
			},
			v2Params: []string{v2Got},
		},
		{
			name: "future client: v2, its params read as far as they parse", v1: true, v2: true,
			steps: []step{
				{initialize(3, 0), `{"id":0,"result":{"protocolVersion":2}}`, ""},
				{newSession, v2Session, ""},
			},
			v2Params: []string{v3Got},
		},
		{
			name: "garbage before initialize", v1: true, v2: true,
			steps: []step{
				{`not json`, `{"id":null,"error":{"code":-32700}}`, ""},
				{`[{"jsonrpc":"2.0","id":5,"method":"initialize"}]`, `{"id":null,"error":{"code":-32600}}`, ""},
				{`"initialize"`, `{"id":null,"error":{"code":-32600}}`, ""},
				{newSession, `{"id":1,"error":{"code":-32600}}`, ""},
				{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, "", ""},
				{`{"jsonrpc":"2.0","id":99,"result":{}}`, "", ""},
				{`{"jsonrpc":"2.0","id":7,"method":"initialize"}`, `{"id":7,"error":{"code":-32602}}`, ""},
				{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2"}}`, `{"id":7,"error":{"code":-32602}}`, ""},
				{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":65536}}`, `{"id":7,"error":{"code":-32602}}`, ""},
				{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":0}}`, `{"id":7,"error":{"code":-32022,"data":{"requested":0,"supported":[1,2]}}}`, ""},
				// The SDK's data is zod's report, a string.
				{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":2}}`, `{"id":7,"error":{"code":-32602,"data":{"field":"info"}}}`, `{"id":7,"error":{"code":-32602}}`},
				{initialize(2, 8), `{"id":8,"result":{"protocolVersion":2}}`, ""},
				{newSession, v2Session, ""},
			},
			v2Params: []string{v2Got},
		},
		{
			name: "a failed initialize leaves the connection open", v1: true, v2: true, fail: 1,
			steps: []step{
				{initialize(2, 0), `{"id":0,"error":{"code":-32603}}`, ""},
				{newSession, refused, ""},
				{initialize(2, 2), `{"id":2,"result":{"protocolVersion":2}}`, ""},
				{newSession, v2Session, ""},
			},
			v2Params: []string{
				v2Got,
				v2Got,
			},
		},
		{
			name: "a failed v2 initialize keeps the route: v1 is refused", v1: true, v2: true, fail: 1,
			steps: []step{
				{initialize(2, 0), `{"id":0,"error":{"code":-32603}}`, ""},
				{initialize(1, 2), `{"id":2,"error":{"code":-32022,"data":{"requested":1,"supported":[2]}}}`, ""},
				{initialize(3, 3), `{"id":3,"result":{"protocolVersion":2}}`, ""},
				{newSession, v2Session, ""},
			},
			v2Params: []string{
				v2Got,
				v3Got,
			},
		},
		{
			name: "a failed v1 initialize keeps the route: v2 gets v1", v1: true, v2: true, fail: 1,
			steps: []step{
				{initialize(1, 0), `{"id":0,"error":{"code":-32603}}`, ""},
				{newSession, refused, ""},
				{initialize(2, 2), `{"id":2,"result":{"protocolVersion":1}}`, ""},
				{newSession, v1Session, ""},
			},
			v1Params: []string{
				v1Got,
				v2AsV1Got,
			},
		},
		{
			name: "v2: a repeat asking for v2 before other requests, then none", v1: true, v2: true,
			steps: []step{
				{initialize(2, 0), `{"id":0,"result":{"protocolVersion":2}}`, ""},
				{initialize(1, 2), `{"id":2,"error":{"code":-32600}}`, ""},
				{initialize(3, 3), `{"id":3,"result":{"protocolVersion":2}}`, ""},
				{newSession, v2Session, ""},
				{initialize(2, 4), `{"id":4,"error":{"code":-32600}}`, ""},
				{newSession, v2Session, ""},
			},
			v2Params: []string{
				v2Got,
				v3Got,
			},
		},
		{
			name: "v1: a repeat at any time, answered in v1", v1: true, v2: true,
			steps: []step{
				{initialize(1, 0), `{"id":0,"result":{"protocolVersion":1}}`, ""},
				{newSession, v1Session, ""},
				{initialize(2, 2), `{"id":2,"result":{"protocolVersion":1}}`, ""},
				{initialize(1, 3), `{"id":3,"result":{"protocolVersion":1}}`, ""},
				{newSession, v1Session, ""},
			},
			v1Params: []string{
				v1Got,
				v2AsV1Got,
				v1Got,
			},
		},
		{
			name: "v1 agent alone: a v2 client gets v1, its params rewritten", v1: true,
			steps: []step{
				{initialize(2, 0), `{"id":0,"result":{"protocolVersion":1}}`, ""},
				{newSession, v1Session, ""},
			},
			v1Params: []string{v2AsV1Got},
		},
		{
			name: "v1 agent alone: a future client gets v1, without a malformed info", v1: true,
			steps: []step{
				{initialize(3, 0), `{"id":0,"result":{"protocolVersion":1}}`, ""},
			},
			v1Params: []string{`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"session":{"configOptions":{"boolean":{}}},"plan":{},"auth":{"terminal":true}}}`},
		},
		{
			name: "v1 agent alone: version 0 gets v1, as before v2", v1: true,
			steps: []step{
				{strings.Replace(initialize(1, 0), `"protocolVersion":1`, `"protocolVersion":0`, 1), `{"id":0,"result":{"protocolVersion":1}}`, ""},
			},
			v1Params: []string{v1Got},
		},
		{
			name: "v2 agent alone: a v1 client is refused", v2: true,
			steps: []step{
				{initialize(1, 0), `{"id":0,"error":{"code":-32022,"data":{"requested":1,"supported":[2]}}}`, ""},
				{newSession, refused, ""},
				{initialize(2, 2), `{"id":2,"result":{"protocolVersion":2}}`, ""},
			},
			v2Params: []string{v2Got},
		},
	}
	for _, router := range routers {
		t.Run(router.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					w, params := router.serve(t, tt.v1, tt.v2, tt.fail)
					for _, s := range tt.steps {
						want := s.want
						if router.name == "TypeScript" && s.ts != "" {
							want = s.ts
						}
						w.exchange(s.send, want)
					}
					v1, v2 := params()
					wantV1, wantV2 := tt.v1Params, tt.v2Params
					if router.name == "TypeScript" {
						wantV1, wantV2 = wantV1[:min(1, len(wantV1))], wantV2[:min(1, len(wantV2))]
					}
					if diff := cmp.Diff(wantV1, v1); diff != "" {
						t.Errorf("the v1 agent's initialize params (-want +got):\n%s", diff)
					}
					if diff := cmp.Diff(wantV2, v2); diff != "" {
						t.Errorf("the v2 agent's initialize params (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

// TestRouterInitializeInProgress checks what a connection's requests get
// while the agent is answering an initialize, the first or a repeat, and
// that the connection is initialized once it has answered: on a v2 route
// every other request and another initialize are refused; on a v1 route,
// as the SDK's v1 agent does, requests are refused until an initialize
// succeeds and served during a repeat, and the v1 agent answers another
// initialize.
func TestRouterInitializeInProgress(t *testing.T) {
	tests := []struct {
		name        string
		version     int
		repeat      bool   // block the second initialize, not the first
		during      string // what session/new gets meanwhile
		initDuring  string // what another initialize gets meanwhile
		versionThen int    // Version after both
	}{
		{"v2, the first", 2, false, refused, refused, 0},
		{"v2, a repeat", 2, true, refused, refused, 2},
		{"v1, the first", 1, false, refused, `{"result":{"protocolVersion":1}}`, 1},
		{"v1, a repeat", 1, true, v1Session, `{"result":{"protocolVersion":1}}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entered, release := make(chan struct{}), make(chan struct{})
			var mu sync.Mutex
			calls := 0
			block := func() {
				mu.Lock()
				calls++
				n := calls
				mu.Unlock()
				if n == 1 && !tt.repeat || n == 2 && tt.repeat {
					close(entered)
					<-release
				}
			}
			a := &agents{enter: block}
			router := acpv2.NewRouter(a.v1(), a.v2())
			w := serveRouter(t, router)
			if tt.repeat {
				w.exchange(initialize(tt.version, 10), `{"id":10,"result":{}}`)
			}
			w.send(initialize(tt.version, 0))
			testwait.For(t, entered, "the initialize to reach the agent")
			w.exchange(newSession, tt.during)
			w.exchange(initialize(tt.version, 5), tt.initDuring)
			if v := router.Version(); v != tt.versionThen {
				t.Errorf("Version() = %d during the initialize, want %d", v, tt.versionThen)
			}
			close(release)
			if got := testwait.For(t, w.lines, "the answer to the initialize"); subset(`{"id":0,"result":{}}`, got) != "" {
				t.Errorf("initialize answered %s", got)
			}
			want := v2Session
			if tt.version == 1 {
				want = v1Session
			}
			w.exchange(newSession, want)
			if v := router.Version(); v != tt.version {
				t.Errorf("Version() = %d, want %d", v, tt.version)
			}
		})
	}
}

// TestRouterConnections checks that a Router per connection, over the
// same agents, serves each connection with the version its client asked
// for, and that a Router refuses a second connection's requests.
func TestRouterConnections(t *testing.T) {
	a := &agents{}
	r1, r2 := acpv2.NewRouter(a.v1(), a.v2()), acpv2.NewRouter(a.v1(), a.v2())
	v1, v2 := serveRouter(t, r1), serveRouter(t, r2)
	v2.exchange(initialize(2, 0), `{"id":0,"result":{"protocolVersion":2}}`)
	v1.exchange(newSession, refused)
	v1.exchange(initialize(1, 0), `{"id":0,"result":{"protocolVersion":1}}`)
	v1.exchange(newSession, v1Session)
	v2.exchange(newSession, v2Session)
	if r1.Version() != 1 || r2.Version() != 2 {
		t.Errorf("versions %d and %d, want 1 and 2", r1.Version(), r2.Version())
	}

	shared := serveRouter(t, r1)
	shared.exchange(initialize(2, 0), `{"id":0,"error":{"code":-32603}}`)
	shared.exchange(newSession, `{"error":{"code":-32603}}`)
	if r1.Version() != 1 {
		t.Errorf("after another connection's requests, version %d, want 1", r1.Version())
	}
}
