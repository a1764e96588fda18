package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

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

// nilErr is an error type whose methods dereference their receiver, so a
// nil *nilErr in an error interface panics when formatted.
type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

// panicErr panics in every method errors.Is, errors.As and fmt call.
type panicErr struct{}

func (panicErr) Error() string   { panic("Error") }
func (panicErr) As(any) bool     { panic("As") }
func (panicErr) Is(error) bool   { panic("Is") }
func (panicErr) Unwrap() []error { panic("Unwrap") }

// goexitJSON and goexitErr call runtime.Goexit, as t.FailNow does, when
// the Conn encodes them.
type goexitJSON struct{}

func (goexitJSON) MarshalJSON() ([]byte, error) { runtime.Goexit(); return nil, nil }

type goexitErr struct{}

func (goexitErr) Error() string { runtime.Goexit(); return "" }

// badUTF8 encodes to a JSON string holding a byte that is not UTF-8, which
// encoding/json lets through from a MarshalJSON method.
type badUTF8 struct{}

func (badUTF8) MarshalJSON() ([]byte, error) { return []byte("\"\xff\""), nil }

// TestConnHandlerMisbehaves checks that whatever a handler returns, panics
// with or does to its goroutine becomes a response, and that the Conn goes
// on: with one request at a time, a request whose slot was never released
// would leave the next one unanswered.
func TestConnHandlerMisbehaves(t *testing.T) {
	tests := []struct {
		name    string
		handler acp.RequestFunc
		want    string // the response's error, or result
	}{
		{
			name: "typed nil error",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				var e *nilErr
				return "result", e
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m returned an unusable *acp_test.nilErr error"}`,
		},
		{
			name: "typed nil *acp.Error",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				var e *acp.Error
				return nil, e
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m returned an unusable *acp.Error error"}`,
		},
		{
			name: "error whose methods panic",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				return nil, panicErr{}
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m returned an unusable acp_test.panicErr error"}`,
		},
		{
			name: "panic(nil)",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				panic(nil)
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m panicked"}`,
		},
		{
			name: "runtime.Goexit",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				runtime.Goexit()
				return nil, nil
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m exited without returning"}`,
		},
		{
			name: "runtime.Goexit in the result's MarshalJSON",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				return goexitJSON{}, nil
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m exited without returning"}`,
		},
		{
			name: "runtime.Goexit in the error's Error method",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				return nil, goexitErr{}
			},
			want: `{"code":-32603,"message":"Internal error: the handler for m exited without returning"}`,
		},
		{
			name: "result in invalid UTF-8 (json.RawMessage)",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				return json.RawMessage("\"\xff\""), nil
			},
			want: `{"code":-32603,"message":"Internal error: cannot encode the result of m"}`,
		},
		{
			name: "result in invalid UTF-8 (MarshalJSON)",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				return map[string]any{"a": badUTF8{}}, nil
			},
			want: `{"code":-32603,"message":"Internal error: cannot encode the result of m"}`,
		},
		{
			name: "error data in invalid UTF-8",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				return nil, &acp.Error{Code: 7, Message: "with data", Data: json.RawMessage("[\"\xff\"]")}
			},
			want: `{"code":7,"message":"with data"}`,
		},
		{
			name: "error data nested too deep",
			handler: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
				deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
				return nil, &acp.Error{Code: 7, Message: "deep", Data: json.RawMessage(deep)}
			},
			want: `{"code":7,"message":"deep"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noGoroutineLeft(t)
				h := acp.Methods{Requests: map[string]acp.RequestFunc{"m": tt.handler, "echo": echo.Requests["echo"]}}
				p := newRawPeer(t, h, &acp.ConnOptions{MaxConcurrentRequests: 1})
				p.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
				p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`)
				got := p.recv()
				if string(got.ID) != "1" || got.Error == nil {
					t.Fatalf("first response %s, want an error for id 1", got.line)
				}
				e, _ := json.Marshal(got.Error)
				if diff := cmp.Diff(tt.want, string(e)); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if got := p.recv(); string(got.ID) != "2" || string(got.Result) != "[2]" {
					t.Errorf("the next request got %s, want [2]", got.line)
				}
			})
		})
	}
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

// TestConnBoundsEchoes checks that an error message quotes at most a
// bounded part of what the peer sent.
func TestConnBoundsEchoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		p := newRawPeer(t, nil, nil)
		long := strings.Repeat("é", 1<<19) // 1 MiB of method name
		p.send(`{"jsonrpc":"2.0","id":1,"method":"` + long + `"}`)
		got := p.recv()
		if got.Error == nil || got.Error.Code != acp.CodeMethodNotFound {
			t.Fatalf("reply %.200s, want method not found", got.line)
		}
		if len(got.line) > 300 {
			t.Errorf("reply of %d bytes to an unknown method of %d bytes", len(got.line), len(long))
		}
		if want := "Method not found: " + strings.Repeat("é", 64) + "…"; got.Error.Message != want {
			t.Errorf("message %q, want %q", got.Error.Message, want)
		}
	})
}

// TestConnResponseTooLong checks what becomes of a line longer than the
// requester's limit: a response whose id comes first fails its request, a
// request is answered -32600 with a null id, and the Conn goes on.
func TestConnResponseTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		p := newRawPeer(t, nil, &acp.ConnOptions{MaxLineLength: 1000})
		big := strings.Repeat("x", 2000)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		type result struct {
			raw json.RawMessage
			err error
		}
		call := func() <-chan result {
			c := make(chan result, 1)
			go func() {
				raw, err := p.conn.Request(ctx, "big", nil)
				c <- result{raw, err}
			}()
			return c
		}
		first := call()
		if got := p.recv(); string(got.ID) != "0" {
			t.Fatalf("request %s, want id 0", got.line)
		}
		p.send(`{"jsonrpc":"2.0","id":0,"result":"` + big + `"}`)
		r := <-first
		var tooLong *acp.LineTooLongError
		if !errors.As(r.err, &tooLong) || !errors.Is(r.err, acp.ErrLineTooLong) || tooLong.Length != int64(2000+len(`{"jsonrpc":"2.0","id":0,"result":""}`)) {
			t.Errorf("Request = %s, %v; want a LineTooLongError", r.raw, r.err)
		}

		// An error response too, with the id after other members.
		second := call()
		p.recv()
		p.send(`{"jsonrpc":"2.0", "x":[1,{"y":null}] , "id" : 1 ,"error":{"code":1,"message":"` + big + `"}}`)
		if r := <-second; !errors.Is(r.err, acp.ErrLineTooLong) {
			t.Errorf("Request = %s, %v; want ErrLineTooLong", r.raw, r.err)
		}

		// A request too long to read is answered with a null id.
		p.send(`{"jsonrpc":"2.0","id":9,"method":"m","params":["` + big + `"]}`)
		if got := p.recv(); string(got.ID) != "null" || got.Error == nil || got.Error.Code != acp.CodeInvalidRequest {
			t.Errorf("reply to a long request %s, want -32600 with a null id", got.line)
		}

		// A response whose result comes before its id cannot be told from
		// the rest: its request waits for its context; the Conn goes on.
		third := call()
		p.recv()
		p.send(`{"jsonrpc":"2.0","result":"` + big + `","id":2}`)
		p.recv() // answered as an invalid request: nothing tells it apart
		fourth := call()
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":3,"result":"small"}`)
		if r := <-fourth; r.err != nil || string(r.raw) != `"small"` {
			t.Errorf("the request after = %s, %v", r.raw, r.err)
		}
		synctest.Wait()
		select {
		case r := <-third:
			t.Errorf("Request with an unrecognisable long response returned %s, %v", r.raw, r.err)
		default:
		}
		cancel()
		if r := <-third; !errors.Is(r.err, context.Canceled) {
			t.Errorf("Request = %v after its context ended, want context.Canceled", r.err)
		}
	})
}

// lineSink is a writer that discards what it is given and signals each
// line's end, allocating nothing.
type lineSink struct{ lines chan int }

func (s lineSink) Write(p []byte) (int, error) {
	if len(p) > 0 && p[len(p)-1] == '\n' {
		s.lines <- len(p)
	}
	return len(p), nil
}

// TestConnLargeResultCopies bounds what answering a large result allocates
// beyond what encoding it takes: the line is built in the buffer the value
// is encoded into and written from it, not copied to frame it and again to
// terminate it. A json.RawMessage is not passed through encoding/json at
// all.
func TestConnLargeResultCopies(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	const size = 16 << 20
	text := strings.Repeat("x", size)
	allocated := func(f func()) float64 {
		var before, after runtime.MemStats
		// Two collections empty sync.Pools (and their victim caches), so
		// that a buffer left by an earlier call does not count.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / size
	}
	for _, tt := range []struct {
		name    string
		result  any
		marshal bool // whether encoding it with encoding/json is expected
	}{
		{"json.RawMessage", json.RawMessage(`"` + text + `"`), false},
		{"struct", struct{ Text string }{text}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			encoding := 0.0
			if tt.marshal {
				encoding = allocated(func() { json.Marshal(tt.result) })
			}
			inR, inW := io.Pipe()
			sink := lineSink{lines: make(chan int, 1)}
			h := acp.Methods{Requests: map[string]acp.RequestFunc{
				"big": func(context.Context, *acp.Conn, json.RawMessage) (any, error) { return tt.result, nil },
			}}
			conn := acp.NewConn(t.Context(), inR, sink, h, nil)
			defer func() {
				inW.Close()
				conn.Wait()
			}()
			answering := allocated(func() {
				io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"big"}`+"\n")
				if n := <-sink.lines; n < size {
					t.Errorf("response of %d bytes", n)
				}
			})
			// json.Marshal's own result is the copy the line replaces.
			if answering > encoding+1.25 {
				t.Errorf("answering a %d-byte result allocated %.2f bytes per byte, encoding it %.2f; want at most one copy more", size, answering, encoding)
			}
			t.Logf("answering allocated %.2f bytes per byte of result, json.Marshal %.2f", answering, encoding)
		})
	}
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

// TestConnNotificationHandlerExits checks that a notification handler that
// panics or calls runtime.Goexit, on the reading goroutine, does not stop
// the Conn from reading.
func TestConnNotificationHandlerExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		h := acp.Methods{
			Notifications: map[string]acp.NotificationFunc{
				"exit":  func(context.Context, *acp.Conn, json.RawMessage) { runtime.Goexit() },
				"panic": func(context.Context, *acp.Conn, json.RawMessage) { panic("boom") },
			},
			Requests: map[string]acp.RequestFunc{"echo": echo.Requests["echo"]},
		}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","method":"exit"}`)
		p.send(`{"jsonrpc":"2.0","method":"panic"}`)
		p.send(`{"jsonrpc":"2.0","method":"exit"}`)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
		if got := p.recv(); got.line != `{"jsonrpc":"2.0","id":1,"result":[1]}` {
			t.Errorf("after the handlers exited: %s", got.line)
		}
		p.in.Close()
		if err := p.conn.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
	})
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("read") }

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("write") }
func (panicWriter) Close() error              { panic("close") }

type goexitReader struct{}

func (goexitReader) Read([]byte) (int, error) { runtime.Goexit(); return 0, nil }

type goexitWriter struct{}

func (goexitWriter) Write([]byte) (int, error) { runtime.Goexit(); return 0, nil }

// asTrueErr claims to be every error type errors.As asks for, and sets
// none of them.
type asTrueErr struct{}

func (asTrueErr) Error() string { return "as" }
func (asTrueErr) As(any) bool   { return true }

type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }

// TestConnHostileReaderWriter checks that a reader or writer that panics,
// calls runtime.Goexit or returns an error of a misleading type ends the
// connection with an error instead of the process, a hang or a busy loop.
func TestConnHostileReaderWriter(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"reader calls Goexit", goexitReader{}, "acp: reading: the reader exited its goroutine"},
		{"reader error's As lies", errorReader{asTrueErr{}}, "acp: reading: as"},
		{"reader returns a LineTooLongError", errorReader{&acp.LineTooLongError{Length: 5, Max: 1}}, "acp: reading: acp: line of 5 bytes exceeds the maximum of 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noGoroutineLeft(t)
				var out strings.Builder
				conn := acp.NewConn(t.Context(), tt.r, &out, nil, nil)
				if err := conn.Wait(); err == nil || err.Error() != tt.want {
					t.Errorf("Wait = %v, want %s", err, tt.want)
				}
				if out.Len() != 0 {
					t.Errorf("wrote %q", out.String())
				}
			})
		})
	}
	t.Run("writer calls Goexit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			noGoroutineLeft(t)
			inR, inW := io.Pipe()
			defer inW.Close()
			conn := acp.NewConn(t.Context(), inR, goexitWriter{}, nil, nil)
			conn.Notify(t.Context(), "n", nil)
			for range 200 { // more than the queue holds: none may block
				if err := conn.Notify(t.Context(), "n", nil); err != nil {
					if !errors.Is(err, acp.ErrClosed) {
						t.Errorf("Notify = %v, want ErrClosed", err)
					}
					break
				}
			}
			if err := conn.Wait(); err == nil || err.Error() != "acp: writing: the writer exited its goroutine" {
				t.Errorf("Wait = %v", err)
			}
		})
	})
}

// TestConnReaderWriterPanic checks that a reader or writer that panics ends
// the connection with an error instead of the process.
func TestConnReaderWriterPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		conn := acp.NewConn(t.Context(), panicReader{}, io.Discard, nil, nil)
		if err := conn.Wait(); err == nil || !strings.Contains(err.Error(), "reading: panicked: read") {
			t.Errorf("Wait with a panicking reader = %v", err)
		}

		inR, inW := io.Pipe()
		defer inW.Close()
		conn = acp.NewConn(t.Context(), inR, panicWriter{}, nil, nil)
		conn.Notify(t.Context(), "n", nil)
		if err := conn.Wait(); err == nil || !strings.Contains(err.Error(), "writing: panicked: write") {
			t.Errorf("Wait with a panicking writer = %v", err)
		}
		conn.Close() // the writer's Close panics too
	})
}

// TestConnCloseWhileWaiting checks that Close drops the requests waiting
// for a slot without running them: no answer could be written.
func TestConnCloseWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noGoroutineLeft(t)
		var mu sync.Mutex
		var ran []string
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"block": func(ctx context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
				mu.Lock()
				ran = append(ran, string(params))
				mu.Unlock()
				<-ctx.Done()
				return nil, ctx.Err()
			},
		}}
		p := newRawPeer(t, h, &acp.ConnOptions{MaxConcurrentRequests: 1})
		for i := 1; i <= 3; i++ {
			p.send(`{"jsonrpc":"2.0","id":1` + strings.Repeat("0", i) + `,"method":"block","params":[` + strings.Repeat("1", i) + `]}`)
		}
		synctest.Wait()
		p.conn.Close()
		if err := p.conn.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		if diff := cmp.Diff([]string{"[1]"}, ran); diff != "" {
			t.Errorf("handlers run (-want +got):\n%s", diff)
		}
	})
}
