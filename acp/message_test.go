package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/internal/transport"
	"github.com/google/go-cmp/cmp"
)

// messages is an acp.MessageReader over a channel of messages, and a
// writer that records each Write as one message.
type messages struct {
	in chan string

	mu     sync.Mutex
	writes []string
	wrote  chan struct{}
}

func newMessages() *messages {
	return &messages{in: make(chan string), wrote: make(chan struct{}, 100)}
}

func (m *messages) ReadMessage() ([]byte, error) {
	msg, ok := <-m.in
	if !ok {
		return nil, io.EOF
	}
	return []byte(msg), nil
}

func (m *messages) Read([]byte) (int, error) { panic("Read called on a MessageReader") }

// send hands msg to the Conn's reader, failing the test if the Conn does
// not read it within testwait.Limit.
func (m *messages) send(t *testing.T, msg string) {
	t.Helper()
	testwait.Do(t, "the Conn to read a message", func() { m.in <- msg })
}

func (m *messages) Write(p []byte) (int, error) {
	m.mu.Lock()
	m.writes = append(m.writes, string(p))
	m.mu.Unlock()
	m.wrote <- struct{}{}
	return len(p), nil
}

func TestConnMessageReader(t *testing.T) {
	m := newMessages()
	conn := acp.NewConn(t.Context(), m, m, echo, &acp.ConnOptions{MaxLineLength: 100})
	// A message may hold JSON's newlines; a blank one is skipped; one too
	// long is answered as a line too long is.
	m.send(t, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"echo\",\n  \"params\": {\"a\": \"x\\ny\"}\n}")
	testwait.For(t, m.wrote, "the answer to request 1")
	m.send(t, " \n\t")
	m.send(t, `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"long":"`+strings.Repeat("x", 100)+`"}}`)
	testwait.For(t, m.wrote, "the answer to request 2")
	m.send(t, `{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}`)
	testwait.For(t, m.wrote, "the answer to request 3")
	close(m.in)
	var err error
	testwait.Do(t, "the Conn to end", func() { err = conn.Wait() })
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":"x\ny"}}` + "\n",
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid request: line of 161 bytes exceeds the maximum of 100"}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"result":[3]}` + "\n",
	}
	if diff := cmp.Diff(want, m.writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

// TestConnWritesWholeMessages checks the promise MessageReader's doc makes
// to writers: each Write is one message and its newline, even when many
// are sent at once from many goroutines.
func TestConnWritesWholeMessages(t *testing.T) {
	m := newMessages()
	conn := acp.NewConn(t.Context(), m, m, nil, nil)
	var wg sync.WaitGroup
	const n = 50
	for i := range n {
		wg.Go(func() {
			conn.Notify(context.Background(), "note", map[string]any{"i": i, "text": strings.Repeat("y", i*100)})
		})
	}
	testwait.Do(t, "the notifications to be sent", wg.Wait)
	for i := range n {
		testwait.For(t, m.wrote, fmt.Sprintf("write %d of %d", i+1, n))
	}
	close(m.in)
	testwait.Do(t, "the Conn to end", func() { conn.Wait() })
	for _, w := range m.writes {
		if strings.Count(w, "\n") != 1 || !strings.HasSuffix(w, "\n") || !json.Valid([]byte(w)) {
			t.Errorf("a Write was not one message and its newline: %.80q", w)
		}
	}
}

// failing is a MessageReader that fails every request its Conn writes,
// as a transport of this module does when it cannot deliver one.
type failing struct {
	*messages
	cause error
}

func (f failing) Write(p []byte) (int, error) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(p, &req); err == nil && req.ID != nil {
		f.in <- "fail " + string(req.ID)
	}
	return f.messages.Write(p)
}

func (f failing) ReadMessage() ([]byte, error) {
	msg, err := f.messages.ReadMessage()
	if id, ok := strings.CutPrefix(string(msg), "fail "); ok {
		return nil, &transport.RequestError{ID: []byte(id), Err: f.cause}
	}
	return msg, err
}

// TestConnTransportFailure checks that a transport's RequestError fails
// the request it names with its error, and the connection goes on.
func TestConnTransportFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := errors.New("502 Bad Gateway")
		f := failing{newMessages(), cause}
		conn := acp.NewConn(t.Context(), f, f, nil, nil)
		for range 2 {
			if _, err := conn.Request(t.Context(), "m", nil); err != cause {
				t.Errorf("Request = %v, want the transport's error", err)
			}
		}
		// One for no pending request is dropped.
		f.in <- "fail 99"
		select {
		case <-conn.Done():
			t.Errorf("the connection ended: %v", conn.Wait())
		default:
		}
		close(f.in)
		if err := conn.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
	})
}
