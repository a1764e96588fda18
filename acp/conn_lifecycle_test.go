package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
)

// TestConnPeerCloses ends one side while the other has a request in flight
// and a handler running.
func TestConnPeerCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		handlerDone := make(chan error, 1)
		agentH := acp.Methods{Requests: map[string]acp.RequestFunc{
			"wait": func(ctx context.Context, _ *acp.Conn, _ json.RawMessage) (any, error) {
				close(started)
				<-ctx.Done()
				handlerDone <- context.Cause(ctx)
				return nil, ctx.Err()
			},
		}}
		client, agent, closePair := acptest.NewPair(t.Context(), nil, agentH, nil)
		errc := make(chan error, 1)
		go func() {
			_, err := client.Request(t.Context(), "wait", nil)
			errc <- err
		}()
		<-started
		client.Close()
		if err := <-errc; !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Request in flight at Close = %v, want ErrClosed", err)
		}
		if cause := <-handlerDone; !errors.Is(cause, acp.ErrClosed) {
			t.Errorf("agent handler's context cause = %v, want ErrClosed", cause)
		}
		if err := agent.Wait(); err != nil {
			t.Errorf("agent Wait = %v, want nil (its input ended)", err)
		}
		if err := client.Wait(); err != nil {
			t.Errorf("client Wait = %v, want nil after Close", err)
		}
		if _, err := client.Request(t.Context(), "wait", nil); !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Request after Close = %v, want ErrClosed", err)
		}
		if err := agent.Notify(t.Context(), "x", nil); !errors.Is(err, acp.ErrClosed) {
			t.Errorf("Notify after the end = %v, want ErrClosed", err)
		}
		if err := closePair(); err != nil {
			t.Errorf("closePair = %v", err)
		}
	})
}

func TestConnWaitCause(t *testing.T) {
	boom := errors.New("boom")
	t.Run("read error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			conn := acp.NewConn(t.Context(), io.MultiReader(strings.NewReader("{}\n"), errReader{boom}), io.Discard, nil, nil)
			if err := conn.Wait(); !errors.Is(err, boom) {
				t.Errorf("Wait = %v, want %v", err, boom)
			}
		})
	})
	t.Run("write error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			inR, inW := io.Pipe()
			conn := acp.NewConn(t.Context(), inR, errWriter{boom}, nil, nil)
			io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"x"}`+"\n")
			if err := conn.Wait(); !errors.Is(err, boom) {
				t.Errorf("Wait = %v, want %v", err, boom)
			}
			if _, err := conn.Request(t.Context(), "x", nil); !errors.Is(err, acp.ErrClosed) || !errors.Is(err, boom) {
				t.Errorf("Request after a write error = %v, want ErrClosed wrapping %v", err, boom)
			}
		})
	})
	t.Run("context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			inR, _ := io.Pipe()
			conn := acp.NewConn(ctx, inR, io.Discard, nil, nil)
			cancel(boom)
			if err := conn.Wait(); !errors.Is(err, boom) {
				t.Errorf("Wait = %v, want %v", err, boom)
			}
		})
	})
	t.Run("end of input", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			conn := acp.NewConn(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","method":"x"}`), io.Discard, nil, nil)
			if err := conn.Wait(); err != nil {
				t.Errorf("Wait = %v, want nil", err)
			}
		})
	})
}

// TestConnLogger checks that diagnostics reach the Logger given.
func TestConnLogger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"panic": func(context.Context, *acp.Conn, json.RawMessage) (any, error) { panic("boom") },
		}}
		input := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"panic"}`,
			strings.Repeat("x", 100),
			`{"jsonrpc":"2.0","id":99,"result":null}`,
			`not json`,
		}, "\n")
		conn := acp.NewConn(t.Context(), strings.NewReader(input), io.Discard, h, &acp.ConnOptions{MaxLineLength: 50, Logger: log})
		if err := conn.Wait(); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"handler panicked", "line too long", "response to no pending request", "invalid message"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, buf.String())
			}
		}
	})
}

// TestConnWaitsForRead checks Wait's contract with a reader whose Close
// does not interrupt its Read: Wait returns when the Read does.
func TestConnWaitsForRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		ctx, cancel := context.WithCancelCause(t.Context())
		r := blockingReader{release: make(chan struct{})}
		conn := acp.NewConn(ctx, r, io.Discard, nil, nil)
		waited := make(chan error, 1)
		go func() { waited <- conn.Wait() }()
		cancel(boom)
		<-conn.Done()
		synctest.Wait()
		select {
		case err := <-waited:
			t.Fatalf("Wait returned %v during a Read", err)
		default:
		}
		close(r.release)
		if err := <-waited; !errors.Is(err, boom) {
			t.Errorf("Wait = %v, want %v", err, boom)
		}
	})
}

// TestConnWaitsForContextClose checks that Wait does not return while the
// Conn, because its context ended, is still closing the reader.
func TestConnWaitsForContextClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		r := slowCloser{blockingReader{make(chan struct{})}, make(chan struct{}), make(chan struct{})}
		conn := acp.NewConn(ctx, r, io.Discard, nil, nil)
		waited := make(chan error, 1)
		go func() { waited <- conn.Wait() }()
		cancel()
		<-r.closing
		close(r.blockingReader.release) // the Read returns; Close has not
		synctest.Wait()
		select {
		case err := <-waited:
			t.Fatalf("Wait returned %v while the reader was being closed", err)
		default:
		}
		close(r.release)
		if err := <-waited; !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want context.Canceled", err)
		}
	})
}

// TestConnLeavesNoGoroutine checks that no goroutine of a Conn is left once
// Wait has returned, with requests in flight both ways and handlers running
// when the connection is closed. Every goroutine the Conns start inherits a
// pprof label from the test goroutine, so the goroutine profile shows which
// are still there.
func TestConnLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const label = "TestConnLeavesNoGoroutine"
		pprof.SetGoroutineLabels(pprof.WithLabels(t.Context(), pprof.Labels("conn", label)))
		started := make(chan struct{}, 2)
		h := acp.Methods{
			Requests: map[string]acp.RequestFunc{
				"wait": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
					started <- struct{}{}
					<-ctx.Done()
					return nil, ctx.Err()
				},
			},
			Notifications: map[string]acp.NotificationFunc{"n": func(context.Context, *acp.Conn, json.RawMessage) {}},
		}
		client, agent, closePair := acptest.NewPair(t.Context(), h, h, nil)
		errs := make(chan error, 2)
		for _, c := range []*acp.Conn{client, agent} {
			go func() {
				_, err := c.Request(t.Context(), "wait", nil)
				errs <- err
			}()
			if err := c.Notify(t.Context(), "n", nil); err != nil {
				t.Fatal(err)
			}
		}
		pprof.SetGoroutineLabels(context.Background()) // the test goroutine is not counted
		<-started
		<-started
		synctest.Wait()
		// Two Request callers, and per Conn a reader, a writer and a handler.
		if n := labelled(t, label); n != 8 {
			t.Fatalf("%d labelled goroutines while running, want 8", n)
		}

		if err := closePair(); err != nil {
			t.Errorf("closePair = %v", err)
		}
		for range 2 {
			if err := <-errs; !errors.Is(err, acp.ErrClosed) {
				t.Errorf("Request in flight at Close = %v, want ErrClosed", err)
			}
		}
		// Goroutines that have returned from Wait or closed a channel may
		// still be on their way out: let everything that can run, run.
		synctest.Wait()
		if n := labelled(t, label); n != 0 {
			t.Errorf("%d goroutines left after Wait returned", n)
		}
	})
}

// blockedWriter is a writer whose Write blocks until release is closed, as
// a pipe or stdout does when the peer stops reading. It is not an
// io.Closer, so Close cannot interrupt it.
type blockedWriter struct {
	release chan struct{}
	once    sync.Once
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

func (w *blockedWriter) unblock() { w.once.Do(func() { close(w.release) }) }

// TestConnCloseReleasesSenders checks that Close makes Request and Notify
// calls that wait for room in the output return ErrClosed at once, even
// with context.Background() and a writer blocked for good; only Wait waits
// for the writer.
func TestConnCloseReleasesSenders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		inR, inW := io.Pipe()
		defer inW.Close()
		w := &blockedWriter{release: make(chan struct{})}
		defer w.unblock()
		conn := acp.NewConn(t.Context(), inR, w, nil, nil)

		errs := make(chan error)
		const callers = 200 // far more than the output queue holds
		for i := range callers {
			go func() {
				var err error
				if i%2 == 0 {
					_, err = conn.Request(context.Background(), "r", nil)
				} else {
					err = conn.Notify(context.Background(), "n", nil)
				}
				errs <- err
			}()
		}
		synctest.Wait() // every caller is queued or blocked on the queue
		conn.Close()
		synctest.Wait()
		for range callers {
			select {
			case err := <-errs:
				if !errors.Is(err, acp.ErrClosed) && err != nil {
					t.Errorf("after Close: %v, want ErrClosed (or nil for a notification queued before)", err)
				}
			default:
				t.Fatal("a sender is still blocked after Close")
			}
		}
		waited := make(chan error)
		go func() { waited <- conn.Wait() }()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatal("Wait returned while the writer is blocked")
		default:
		}
		w.unblock()
		if err := <-waited; err != nil {
			t.Errorf("Wait = %v", err)
		}
	})
}

// TestConnShutdown checks that Shutdown stops reading, lets running
// handlers answer, and gives up on those that do not return in time.
func TestConnShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		started := make(chan struct{}, 2)
		stuck := make(chan struct{})
		defer close(stuck)
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"prompt": func(ctx context.Context, conn *acp.Conn, _ json.RawMessage) (any, error) {
				started <- struct{}{}
				<-ctx.Done()
				if err := conn.Notify(context.Background(), "said", []string{"bye"}); err != nil {
					return nil, err
				}
				return "cancelled", nil
			},
			"stuck": func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				started <- struct{}{}
				<-stuck
				return nil, nil
			},
		}}

		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"prompt"}`)
		<-started
		shut := make(chan error)
		go func() { shut <- p.conn.Shutdown(t.Context()) }()
		for _, want := range []string{`{"jsonrpc":"2.0","method":"said","params":["bye"]}`, `{"jsonrpc":"2.0","id":1,"result":"cancelled"}`} {
			if got := p.recv(); got.line != want {
				t.Errorf("after Shutdown got %s, want %s", got.line, want)
			}
		}
		if err := <-shut; err != nil {
			t.Errorf("Shutdown = %v, want nil", err)
		}
		if err := p.conn.Wait(); err != nil {
			t.Errorf("Wait = %v, want nil", err)
		}

		// A handler that ignores its context: Shutdown gives up when its
		// context ends, closing the connection.
		q := newRawPeer(t, h, nil)
		q.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
		<-started
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := q.conn.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
		}
		select {
		case <-q.conn.Done():
		default:
			t.Error("the Conn is still reading after Shutdown")
		}
	})
}
