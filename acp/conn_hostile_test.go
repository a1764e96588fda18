package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

func TestConnHandlerPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var notified atomic.Int32
		h := acp.Methods{
			Requests: map[string]acp.RequestFunc{
				"panic": func(context.Context, *acp.Conn, json.RawMessage) (any, error) { panic("boom") },
				"echo":  echo.Requests["echo"],
			},
			Notifications: map[string]acp.NotificationFunc{
				"panic": func(context.Context, *acp.Conn, json.RawMessage) { panic("boom") },
				"count": func(context.Context, *acp.Conn, json.RawMessage) { notified.Add(1) },
			},
		}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
		if got := p.recv(); got.Error == nil || got.Error.Code != acp.CodeInternalError || string(got.ID) != "1" {
			t.Errorf("reply to a panicking handler: %s, want error %d", got.line, acp.CodeInternalError)
		}
		p.send(`{"jsonrpc":"2.0","method":"panic"}`)
		p.send(`{"jsonrpc":"2.0","method":"count"}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`)
		if got := p.recv(); string(got.Result) != "{}" {
			t.Errorf("reply after the panics: %s, want a result", got.line)
		}
		if n := notified.Load(); n != 1 {
			t.Errorf("%d notifications after the panicking one, want 1", n)
		}
	})
}

// panicJSON panics when encoded.
type panicJSON struct{}

func (panicJSON) MarshalJSON() ([]byte, error) { panic("boom") }

// TestConnResultPanics checks that a result whose encoding panics is
// answered like a panicking handler.
func TestConnResultPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := acp.Methods{Requests: map[string]acp.RequestFunc{
			"bad":  func(context.Context, *acp.Conn, json.RawMessage) (any, error) { return panicJSON{}, nil },
			"echo": echo.Requests["echo"],
		}}
		p := newRawPeer(t, h, nil)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"bad"}`)
		if got := p.recv(); got.Error == nil || got.Error.Code != acp.CodeInternalError || string(got.ID) != "1" {
			t.Errorf("reply %s, want error %d", got.line, acp.CodeInternalError)
		}
		p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":[]}`)
		if got := p.recv(); string(got.Result) != "[]" {
			t.Errorf("reply after the panic: %s, want a result", got.line)
		}
	})
}

// nilErr is an error type whose methods dereference their receiver, so a
// nil *nilErr in an error interface panics when formatted.
type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

// panicErr panics in every method errors.Is, errors.As and fmt call.
type panicErr struct{}

func (panicErr) Error() string { panic("Error") }

func (panicErr) As(any) bool { panic("As") }

func (panicErr) Is(error) bool { panic("Is") }

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
				testwait.Do(t, "the Conn to end", func() { conn.Wait() })
			}()
			answering := allocated(func() {
				testwait.Do(t, "the Conn to read the request", func() {
					io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"big"}`+"\n")
				})
				if n := testwait.For(t, sink.lines, "the response"); n < size {
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

func (panicWriter) Close() error { panic("close") }

type goexitReader struct{}

func (goexitReader) Read([]byte) (int, error) { runtime.Goexit(); return 0, nil }

type goexitWriter struct{}

func (goexitWriter) Write([]byte) (int, error) { runtime.Goexit(); return 0, nil }

// asTrueErr claims to be every error type errors.As asks for, and sets
// none of them.
type asTrueErr struct{}

func (asTrueErr) Error() string { return "as" }

func (asTrueErr) As(any) bool { return true }

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
		{"reader error's As lies", errReader{asTrueErr{}}, "acp: reading: as"},
		{"reader returns a LineTooLongError", errReader{&acp.LineTooLongError{Length: 5, Max: 1}}, "acp: reading: acp: line of 5 bytes exceeds the maximum of 1"},
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
