package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// A shutdownTransport connects a Conn to its peer. agentR and agentW are
// what the Conn is given; peer is the other end, reading what the Conn
// writes and writing what it reads.
type shutdownTransport struct {
	name string
	// fakeTime: the transport blocks only on the bubble's channels, so
	// that time passes only when the Conn is stuck: Shutdown must then
	// take no time at all.
	fakeTime bool
	open     func(t *testing.T) (agentR io.Reader, agentW io.Writer, peer io.ReadWriteCloser)
}

// onlyReadWriteClose hides every method of a connection but Read, Write
// and Close: no CloseRead, no deadline, as an SSH channel or a custom
// stream.
type onlyReadWriteClose struct{ io.ReadWriteCloser }

// splitPeer is the far end of a Conn over two pipes.
type splitPeer struct {
	io.Reader      // the Conn's output
	io.WriteCloser // the Conn's input
}

var shutdownTransports = []shutdownTransport{
	{"io.Pipe pair", true, func(t *testing.T) (io.Reader, io.Writer, io.ReadWriteCloser) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		return inR, outW, splitPeer{outR, inW}
	}},
	// One object that is both reader and writer, without CloseRead.
	{"net.Pipe", true, func(t *testing.T) (io.Reader, io.Writer, io.ReadWriteCloser) {
		agent, peer := net.Pipe()
		return agent, agent, peer
	}},
	{"net.Pipe with only Read, Write and Close", true, func(t *testing.T) (io.Reader, io.Writer, io.ReadWriteCloser) {
		agent, peer := net.Pipe()
		rwc := onlyReadWriteClose{agent}
		return rwc, rwc, peer
	}},
	// A *net.TCPConn, which has CloseRead. Network I/O is not durably
	// blocking, so the bubble's clock stands still while it waits.
	{"TCP loopback", false, func(t *testing.T) (io.Reader, io.Writer, io.ReadWriteCloser) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Skipf("no loopback TCP: %v", err)
		}
		defer ln.Close()
		accepted := make(chan net.Conn, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				t.Error(err)
			}
			accepted <- c
		}()
		peer, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		agent := <-accepted
		if agent == nil {
			t.FailNow()
		}
		return agent, agent, peer
	}},
}

// inBubble runs test under testing/synctest over a fresh connection of
// tr, and fails it if a goroutine it started is left when it ends.
//
// A goroutine blocked on the network is not durably blocked: the bubble
// can neither report a hang over TCP nor let its clock run out. So a
// timer of real time, started outside the bubble, bounds such a test:
// after testwait.Limit it fails it and closes the connection, so that
// what waited on the network ends and the bubble sees what is stuck.
func inBubble(t *testing.T, tr shutdownTransport, test func(t *testing.T, agentR io.Reader, agentW io.Writer, peer io.ReadWriteCloser)) {
	var mu sync.Mutex
	var open []io.Closer // the connection's ends, once open
	if !tr.fakeTime {
		watchdog := time.AfterFunc(testwait.Limit, func() {
			t.Errorf("waited %v for the test over %s to end: closing the connection", testwait.Limit, tr.name)
			mu.Lock()
			defer mu.Unlock()
			for _, c := range open {
				c.Close()
			}
		})
		defer watchdog.Stop()
	}
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		agentR, agentW, peer := tr.open(t)
		defer peer.Close()
		if c, ok := agentR.(io.Closer); ok && !tr.fakeTime {
			mu.Lock()
			open = append(open, peer, c)
			mu.Unlock()
		}
		test(t, agentR, agentW, peer)
	})
}

// pauseSignal is a slog.Handler that closes paused when the Conn logs that
// it stopped reading because too many requests wait.
type pauseSignal struct {
	once   *sync.Once
	paused chan struct{}
}

func (p pauseSignal) Enabled(context.Context, slog.Level) bool { return true }
func (p pauseSignal) WithAttrs([]slog.Attr) slog.Handler       { return p }
func (p pauseSignal) WithGroup(string) slog.Handler            { return p }
func (p pauseSignal) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "reading paused") {
		p.once.Do(func() { close(p.paused) })
	}
	return nil
}

// readAll reads the lines the Conn writes until the end of its output,
// and returns them, and the error that ended them, on the channel.
func readAll(r io.Reader) <-chan []string {
	out := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		if err := sc.Err(); err != nil {
			got = append(got, "read error: "+err.Error())
		}
		out <- got
	}()
	return out
}

// shutdownPrompt answers "prompt" with "cancelled" once its context ends,
// after telling started.
func shutdownPrompt(started chan<- int) acp.Methods {
	return acp.Methods{Requests: map[string]acp.RequestFunc{
		"prompt": func(ctx context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
			var n []int
			json.Unmarshal(params, &n)
			started <- n[0]
			<-ctx.Done()
			return "cancelled", nil
		},
	}}
}

// shutdownNow calls Shutdown with context.Background(), which must return
// without waiting for anything but the handlers, which return at once.
// Where the bubble's clock can move, it must not have moved.
func shutdownNow(t *testing.T, tr shutdownTransport, conn *acp.Conn) {
	t.Helper()
	start := time.Now()
	shut := make(chan error, 1)
	go func() { shut <- conn.Shutdown(context.Background()) }()
	select {
	case err := <-shut:
		if err != nil {
			t.Errorf("Shutdown = %v, want nil", err)
		}
	case <-time.After(time.Hour):
		t.Fatal("Shutdown(context.Background()) has not returned after an hour")
	}
	if d := time.Since(start); tr.fakeTime && d != 0 {
		t.Errorf("Shutdown took %v", d)
	}
	if err := conn.Wait(); err != nil {
		t.Errorf("Wait = %v, want nil", err)
	}
}

// TestConnShutdownAnswersEveryRequest checks that Shutdown answers every
// request the Conn has read, at several limits, with the slots full, the
// queue full, and one request more read while reading is paused; and that
// it then ends at once with context.Background(), and the peer sees the
// end of its input after the answers.
func TestConnShutdownAnswersEveryRequest(t *testing.T) {
	for _, tr := range shutdownTransports {
		for _, limit := range []int{1, 2, 3, 8} {
			t.Run(fmt.Sprintf("%s/limit %d", tr.name, limit), func(t *testing.T) {
				inBubble(t, tr, func(t *testing.T, agentR io.Reader, agentW io.Writer, peer io.ReadWriteCloser) {
					started := make(chan int, 2*limit+1)
					paused := pauseSignal{new(sync.Once), make(chan struct{})}
					conn := acp.NewConn(t.Context(), agentR, agentW, shutdownPrompt(started),
						&acp.ConnOptions{MaxConcurrentRequests: limit, Logger: slog.New(paused)})
					replies := readAll(peer)

					n := 2*limit + 1 // limit running, limit waiting, one read past them
					go func() {
						for i := 1; i <= n; i++ {
							if _, err := fmt.Fprintf(peer, `{"jsonrpc":"2.0","id":%d,"method":"prompt","params":[%d]}`+"\n", i, i); err != nil {
								t.Errorf("sending request %d: %v", i, err)
								return
							}
						}
					}()
					for range limit {
						<-started
					}
					<-paused.paused

					shutdownNow(t, tr, conn)
					var want []string
					for i := 1; i <= n; i++ {
						want = append(want, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"cancelled"}`, i))
					}
					got := <-replies // to the end of the Conn's output
					if diff := cmp.Diff(want, sortedByID(t, got)); diff != "" {
						t.Errorf("answers (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

// TestConnShutdownIdle checks that Shutdown of a Conn with nothing to
// answer ends at once with context.Background(), whether its reader is
// also its writer or not, and that the peer sees the end of its input.
func TestConnShutdownIdle(t *testing.T) {
	for _, tr := range shutdownTransports {
		t.Run(tr.name, func(t *testing.T) {
			inBubble(t, tr, func(t *testing.T, agentR io.Reader, agentW io.Writer, peer io.ReadWriteCloser) {
				conn := acp.NewConn(t.Context(), agentR, agentW, nil, nil)
				// One request answered first, so that the Conn is surely
				// reading again when Shutdown comes.
				out := bufio.NewReader(peer)
				go fmt.Fprintf(peer, `{"jsonrpc":"2.0","id":1,"method":"nothing"}`+"\n")
				line, err := out.ReadString('\n')
				if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: nothing"}}` + "\n"; line != want || err != nil {
					t.Fatalf("peer read %q, %v; want %q", line, err, want)
				}
				replies := readAll(out)
				shutdownNow(t, tr, conn)
				if got := <-replies; len(got) != 0 {
					t.Errorf("peer read %q after Shutdown, want the end of its input", got)
				}
			})
		})
	}
}

// TestConnShutdownStillReading checks that Shutdown ends at once, the
// answers written, while the peer goes on writing: the Read in progress
// keeps returning lines, which the Conn drops.
func TestConnShutdownStillReading(t *testing.T) {
	for _, tr := range shutdownTransports {
		t.Run(tr.name, func(t *testing.T) {
			inBubble(t, tr, func(t *testing.T, agentR io.Reader, agentW io.Writer, peer io.ReadWriteCloser) {
				started := make(chan int, 1)
				conn := acp.NewConn(t.Context(), agentR, agentW, shutdownPrompt(started), nil)
				replies := readAll(peer)
				fmt.Fprintf(peer, `{"jsonrpc":"2.0","id":1,"method":"prompt","params":[1]}`+"\n")
				<-started
				writing := make(chan struct{})
				go func() {
					defer close(writing)
					for i := 2; ; i++ {
						if _, err := fmt.Fprintf(peer, `{"jsonrpc":"2.0","method":"note","params":[%d]}`+"\n", i); err != nil {
							return // the Conn closed its end
						}
						if !tr.fakeTime && i > 1000 {
							return
						}
					}
				}()
				shutdownNow(t, tr, conn)
				want := []string{`{"jsonrpc":"2.0","id":1,"result":"cancelled"}`}
				got := <-replies
				if n := len(got); !tr.fakeTime && n > 1 && strings.HasSuffix(got[n-1], "connection reset by peer") {
					// TCP resets a connection closed with unread input, as
					// the peer's notes are: after the answer, that is fine.
					got = got[:n-1]
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("peer read (-want +got):\n%s", diff)
				}
				peer.Close()
				<-writing
			})
		})
	}
}

// sortedByID orders response lines by their numeric id: handlers that run
// at once answer in any order.
func sortedByID(t *testing.T, lines []string) []string {
	t.Helper()
	id := func(l string) int {
		var m struct{ ID int }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("not a response: %q", l)
		}
		return m.ID
	}
	return slices.SortedStableFunc(slices.Values(lines), func(a, b string) int { return id(a) - id(b) })
}
