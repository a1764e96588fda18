package acphttp_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"golang.org/x/sync/errgroup"
)

// The load test's connections: each holds one session.
const (
	loadWebSockets = 1000
	loadStreamable = 200
	loadWords      = 20 // updates each prompt streams
)

// TestLoad serves 1,000 WebSocket and 200 Streamable HTTP connections on
// loopback, each with a session streaming updates, all at once. The
// clients run in a child process (this test binary again, as
// TestLoadClients), so that this process's heap is the server's alone:
// it measures the memory each idle connection holds, which must stay
// within 64 KiB, and checks that every prompt of every connection is
// answered in full. -short skips it, as does the race detector.
//
//	go test -run '^TestLoad$' -v ./acp/acphttp
func TestLoad(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the load test runs without -short and without -race")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	srv, url := serve(t, newTestAgent().methods(), &acphttp.ServerOptions{MaxConnections: 2 * (loadWebSockets + loadStreamable)})
	_ = srv
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLoadClients$", "-test.v")
	cmd.Env = append(os.Environ(), "ACPHTTP_LOAD_URL="+url)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	start := time.Now()
	base := heap()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	lines := bufio.NewScanner(stdout)
	await := func(what string) {
		t.Helper()
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), what) {
				return
			}
			if strings.Contains(lines.Text(), "FAIL") {
				t.Fatalf("the clients: %s", lines.Text())
			}
		}
		t.Fatalf("the clients ended before %s", what)
	}
	await("WS-READY")
	ws := heap()
	fmt.Fprintln(stdin, "go")
	await("HTTP-READY")
	all := heap()
	fmt.Fprintln(stdin, "go")
	await("DONE")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the clients: %v", err)
	}
	perWS := ws.sub(base).div(loadWebSockets)
	perHTTP := all.sub(ws).div(loadStreamable)
	t.Logf("idle WebSocket connection: %s", perWS)
	t.Logf("idle Streamable HTTP connection: %s", perHTTP)
	t.Logf("%d connections served and answered in %v", loadWebSockets+loadStreamable, time.Since(start).Round(time.Millisecond))
	if perWS.heap > 64<<10 {
		t.Errorf("an idle WebSocket connection holds %d bytes of heap, more than 64 KiB", perWS.heap)
	}
	if perHTTP.heap > 64<<10 {
		t.Errorf("an idle Streamable HTTP connection holds %d bytes of heap, more than 64 KiB", perHTTP.heap)
	}
}

// mem is what a process holds: heap in use and goroutine stacks.
type mem struct{ heap, stack int64 }

func heap() mem {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return mem{int64(m.HeapInuse), int64(m.StackInuse)}
}

func (m mem) sub(o mem) mem { return mem{m.heap - o.heap, m.stack - o.stack} }
func (m mem) div(n int) mem { return mem{m.heap / int64(n), m.stack / int64(n)} }
func (m mem) String() string {
	return fmt.Sprintf("%.1f KiB heap, %.1f KiB stacks", float64(m.heap)/1024, float64(m.stack)/1024)
}

// TestLoadClients is TestLoad's child: it opens the connections, says
// WS-READY and HTTP-READY once each profile's are open and idle, each
// with a session that has streamed one prompt, waits for a line on stdin
// after each, then prompts every session at once and says DONE.
func TestLoadClients(t *testing.T) {
	url := os.Getenv("ACPHTTP_LOAD_URL")
	if url == "" {
		t.Skip("run by TestLoad")
	}
	stdin := bufio.NewScanner(os.Stdin)
	tr := &http.Transport{MaxIdleConnsPerHost: 4 * loadStreamable}
	client := &http.Client{Transport: tr}
	type open struct {
		conn    *acp.Conn
		session string
		got     *counter
	}
	var conns []open
	var mu sync.Mutex
	dialAll := func(p, n int) {
		var g errgroup.Group
		g.SetLimit(32)
		for range n {
			g.Go(func() error {
				got := &counter{}
				conn, err := profiles[p].dial(t.Context(), url, got.methods(), &acphttp.DialOptions{HTTPClient: client})
				if err != nil {
					return err
				}
				if _, err := acp.Initialize.Call(t.Context(), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
					return err
				}
				s, err := acp.SessionNew.Call(t.Context(), conn, acp.NewSessionParams{Cwd: "/"})
				if err != nil {
					return err
				}
				if err := streamOnce(t.Context(), conn, s.SessionID, got); err != nil {
					return err
				}
				mu.Lock()
				conns = append(conns, open{conn, s.SessionID, got})
				mu.Unlock()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatalf("%s: %v", profiles[p].name, err)
		}
	}
	dialAll(0, loadWebSockets)
	fmt.Println("WS-READY")
	stdin.Scan()
	dialAll(1, loadStreamable)
	fmt.Println("HTTP-READY")
	stdin.Scan()
	var g errgroup.Group
	for _, c := range conns {
		g.Go(func() error { return streamOnce(t.Context(), c.conn, c.session, c.got) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		c.conn.Close()
		c.conn.Wait()
	}
	tr.CloseIdleConnections()
	fmt.Println("DONE")
}

// streamOnce prompts a session for loadWords updates and checks that all
// came before the answer.
func streamOnce(ctx context.Context, conn *acp.Conn, session string, got *counter) error {
	before := got.n.Load()
	words := strings.Repeat("word ", loadWords)
	r, err := prompt(ctx, conn, session, words)
	if err != nil {
		return err
	}
	if n := got.n.Load() - before; r.StopReason != acp.StopReasonEndTurn || n != loadWords {
		return fmt.Errorf("session %s: %s after %s updates", session, r.StopReason, strconv.FormatInt(n, 10))
	}
	return nil
}
