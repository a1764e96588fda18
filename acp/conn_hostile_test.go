package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime/pprof"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/google/go-cmp/cmp"
)

// noGoroutineLeft labels the goroutines the test starts from now on, and
// when the test ends (after the cleanups registered later, which close and
// wait for its Conns) fails it if any of them is still there. Call it
// first, in a synctest bubble.
func noGoroutineLeft(t *testing.T) {
	t.Helper()
	label := "leak:" + t.Name()
	pprof.SetGoroutineLabels(pprof.WithLabels(t.Context(), pprof.Labels("conn", label)))
	t.Cleanup(func() {
		pprof.SetGoroutineLabels(context.Background())
		synctest.Wait()
		if n := labelled(t, label); n != 0 {
			t.Errorf("%d goroutines left after the test's Conns ended", n)
		}
	})
}

// badUTF8 encodes to a JSON string holding a byte that is not UTF-8, which
// encoding/json lets through from a MarshalJSON method.
type badUTF8 struct{}

func (badUTF8) MarshalJSON() ([]byte, error) { return []byte("\"\xff\""), nil }

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

// TestConnRefusesUnsendable checks that Request and Notify refuse, before
// writing anything, params that a peer could not accept.
func TestConnRefusesUnsendable(t *testing.T) {
	tests := []struct {
		name   string
		params any
		want   error
	}{
		{"number", 5, acp.ErrParamsNotStructured},
		{"string", "s", acp.ErrParamsNotStructured},
		{"boolean", true, acp.ErrParamsNotStructured},
		{"raw string", json.RawMessage(`"s"`), acp.ErrParamsNotStructured},
		{"invalid UTF-8", json.RawMessage("[\"\xff\"]"), acp.ErrNotJSON},
		{"invalid UTF-8 from MarshalJSON", []any{badUTF8{}}, acp.ErrNotJSON},
		{"invalid raw JSON", json.RawMessage(`{`), acp.ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noGoroutineLeft(t)
				var seen []string
				h := acp.Methods{
					Notifications: map[string]acp.NotificationFunc{
						"n": func(_ context.Context, _ *acp.Conn, params json.RawMessage) { seen = append(seen, string(params)) },
					},
					Requests: map[string]acp.RequestFunc{"echo": echo.Requests["echo"]},
				}
				client, _, closePair := acptest.NewPair(t.Context(), nil, h, nil)
				defer closePair()
				if err := client.Notify(t.Context(), "n", tt.params); !errors.Is(err, tt.want) {
					t.Errorf("Notify = %v, want %v", err, tt.want)
				}
				if _, err := client.Request(t.Context(), "r", tt.params); !errors.Is(err, tt.want) {
					t.Errorf("Request = %v, want %v", err, tt.want)
				}
				// A valid notification after them is the first the peer
				// sees; it has handled it once it answers the next request.
				if err := client.Notify(t.Context(), "n", []int{1}); err != nil {
					t.Fatal(err)
				}
				if _, err := client.Request(t.Context(), "echo", []int{2}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"[1]"}, seen); diff != "" {
					t.Errorf("notifications received (-want +got):\n%s", diff)
				}
			})
		})
	}
}
