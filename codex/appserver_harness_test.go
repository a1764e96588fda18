package codex_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/codex/codextest"
)

// appServer is a Session connected to the in-process fake app-server,
// replaying a transcript, with the events the reading loop has seen. It is
// made and used inside a synctest bubble: every wait is on the bubble's
// fake clock, or on synctest.Wait, so a client that waits for what never
// comes fails at once instead of hanging.
type appServer struct {
	t       *testing.T
	s       *codex.Session
	ctx     context.Context // ends after a minute of the bubble's time
	clientW *io.PipeWriter  // the server's stdin, written by the Session
	served  chan error      // the fake's result

	mu     sync.Mutex
	events []codex.Event
	errs   []error
	ended  bool // the reading loop has ended
	seen   int  // events handed out by next
}

// records reads a transcript of testdata/appserver.
func records(t *testing.T, name string) []codextest.AppServerRecord {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "appserver", name+".ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := codextest.ReadAppServerTranscript(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// startAppServer starts the fake over recs, and a Session reading it.
func startAppServer(t *testing.T, recs []codextest.AppServerRecord) *appServer {
	serverR, clientW := io.Pipe() // the client writes the server's stdin
	clientR, serverW := io.Pipe() // the server writes the client's stdin
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	a := &appServer{t: t, s: codex.NewSession(clientW), ctx: ctx, clientW: clientW, served: make(chan error, 1)}
	go func() {
		err := codextest.ServeAppServer(ctx, recs, serverR, serverW)
		serverW.Close() // the server's exit closes its output
		serverR.Close()
		a.served <- err
	}()
	go func() {
		for e, err := range a.s.Events(clientR) {
			a.mu.Lock()
			if err != nil {
				a.errs = append(a.errs, err)
			} else {
				a.events = append(a.events, e)
			}
			a.mu.Unlock()
		}
		a.mu.Lock()
		a.ended = true
		a.mu.Unlock()
	}()
	t.Cleanup(func() {
		cancel()
		clientW.Close()
		clientR.Close()
	})
	return a
}

// waitFor waits until an event satisfies match, and returns it; events
// before it are not handed out again. It fails the test when the output
// ends first, or when everything is blocked and no event matches: then
// none will come.
func waitFor[E codex.Event](a *appServer, what string, match func(E) bool) E {
	a.t.Helper()
	synctest.Wait() // everything else is blocked: what has not come will not
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := a.seen; i < len(a.events); i++ {
		if e, ok := a.events[i].(E); ok && (match == nil || match(e)) {
			a.seen = i + 1
			return e
		}
	}
	if a.ended {
		a.t.Fatalf("waited for %s, but the server's output ended", what)
	}
	a.t.Fatalf("waited for %s, but nothing more is coming", what)
	panic("unreachable")
}

// turnEnd waits for the end of a turn.
func (a *appServer) turnEnd() codex.TurnEnd {
	a.t.Helper()
	return waitFor[codex.TurnEnd](a, "the end of the turn", nil)
}

// finish closes the server's input, as a client that is done, and
// returns the fake's result once the reading loop has seen the output
// end.
func (a *appServer) finish() error {
	a.t.Helper()
	a.clientW.Close()
	err := <-a.served
	synctest.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.ended {
		a.t.Fatal("the reading loop did not end with the server's output")
	}
	return err
}

// all returns every event and error the reading loop has seen.
func (a *appServer) all() ([]codex.Event, []error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]codex.Event(nil), a.events...), append([]error(nil), a.errs...)
}

// initialize runs the handshake as the captures' client did.
func (a *appServer) initialize() codex.ServerInfo {
	a.t.Helper()
	info, err := a.s.Initialize(a.ctx, codex.ClientInfo{Name: "cxapp_capture", Title: "cxapp capture script", Version: "0.1.0"}, codex.InitializeOptions{})
	if err != nil {
		a.t.Fatalf("Initialize: %v", err)
	}
	return info
}

// must fails the test on err.
func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

// describeErr renders an error for a golden file: its text, and which of
// the package's errors it matches.
func describeErr(err error) string {
	if err == nil {
		return ""
	}
	var matches []string
	for _, sentinel := range []struct {
		name string
		err  error
	}{
		{"ErrOutputEnded", codex.ErrOutputEnded}, {"ErrResumeNotFound", codex.ErrResumeNotFound},
		{"ErrAPI", codex.ErrAPI}, {"ErrFailed", codex.ErrFailed}, {"ErrNotPending", codex.ErrNotPending},
		{"ErrCancelled", codex.ErrCancelled}, {"ErrLineTooLong", codex.ErrLineTooLong},
		{"context.DeadlineExceeded", context.DeadlineExceeded},
	} {
		if errors.Is(err, sentinel.err) {
			matches = append(matches, sentinel.name)
		}
	}
	var rpc *codex.RPCError
	if errors.As(err, &rpc) {
		matches = append(matches, fmt.Sprintf("RPCError %d", rpc.Code))
	}
	var le *codex.LineError
	if errors.As(err, &le) {
		matches = append(matches, fmt.Sprintf("LineError line %d", le.Line))
	}
	if len(matches) == 0 {
		return err.Error()
	}
	return err.Error() + " [" + strings.Join(matches, ", ") + "]"
}
