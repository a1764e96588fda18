package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/google/go-cmp/cmp"
)

// rawPeer is the far end of a Conn, driven line by line by a test.
type rawPeer struct {
	t    *testing.T
	conn *acp.Conn
	in   *io.PipeWriter // the Conn's input
	out  *bufio.Reader  // the Conn's output
}

func newRawPeer(t *testing.T, h acp.Handler, opts *acp.ConnOptions) *rawPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := acp.NewConn(t.Context(), inR, outW, h, opts)
	t.Cleanup(func() {
		conn.Close()
		conn.Wait()
	})
	return &rawPeer{t: t, conn: conn, in: inW, out: bufio.NewReader(outR)}
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("sending %q: %v", line, err)
	}
}

// recv reads one line the Conn wrote and decodes it.
func (p *rawPeer) recv() wireMessage {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading from the conn: %v", err)
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("conn wrote %q: %v", line, err)
	}
	m.line = strings.TrimSuffix(string(line), "\n")
	return m
}

// wireMessage is any JSON-RPC message, decoded for comparison.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *acp.Error      `json:"error,omitempty"`
	line    string
}

// echo answers "echo" with its params and "fail" with its params as an
// acp.Error; anything else is not found.
var echo = acp.Methods{Requests: map[string]acp.RequestFunc{
	"echo": func(_ context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
		return params, nil
	},
	"fail": func(_ context.Context, _ *acp.Conn, params json.RawMessage) (any, error) {
		var e acp.Error
		if err := json.Unmarshal(params, &e); err != nil {
			return nil, err
		}
		return nil, &e
	},
}}

var ignoreLine = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".line" }, cmp.Ignore())

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// blockingReader's Read waits for release, as a read of a terminal or of a
// pipe in blocking mode does, and Close does not interrupt it.
type blockingReader struct{ release chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.release
	return 0, io.EOF
}

func (r blockingReader) Close() error { return nil }

// slowCloser is a reader whose Read and Close each wait for their own
// release.
type slowCloser struct {
	blockingReader
	closing chan struct{} // closed when Close is called
	release chan struct{} // Close returns when it is closed
}

func (r slowCloser) Close() error {
	close(r.closing)
	<-r.release
	return nil
}

// labelled counts the goroutines whose pprof labels include conn=value.
func labelled(t *testing.T, value string) int {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	// debug=1 groups goroutines with one stack and one label set into a
	// block with a line "N @ addresses" and a line "# labels: {…}"; the
	// first block also holds the profile's header.
	n := 0
	for block := range strings.SplitSeq(buf.String(), "\n\n") {
		if !strings.Contains(block, `"conn":"`+value+`"`) {
			continue
		}
		count := -1
		for line := range strings.Lines(block) {
			if before, _, ok := strings.Cut(line, " @ "); ok {
				var err error
				if count, err = strconv.Atoi(before); err != nil {
					t.Fatalf("goroutine profile line %q: %v", line, err)
				}
				break
			}
		}
		if count < 0 {
			t.Fatalf("goroutine profile block without a count: %q", block)
		}
		n += count
	}
	return n
}

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

// lineSink is a writer that discards what it is given and signals each
// line's end, allocating nothing.
type lineSink struct{ lines chan int }

func (s lineSink) Write(p []byte) (int, error) {
	if len(p) > 0 && p[len(p)-1] == '\n' {
		s.lines <- len(p)
	}
	return len(p), nil
}
