package acphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/coder/websocket"
)

// The benchmarks measure the path users take, a Go client's acp.Conn to
// a Server's acp.Conn over loopback, against a plain baseline on the same
// loopback: the same websocket library (or net/http and SSE), messages
// encoded and decoded with encoding/json, the same bytes on the wire. The
// TypeScript SDK's AcpServer, driven by the same Go client, runs where
// node is installed.
//
//	go test -run '^$' -bench . -benchtime 2s ./acp/acphttp
//
// Notify is one session/update from the agent to the client, inside a
// prompt that streams b.N of them; RoundTrip is one session/prompt that
// streams nothing, from request to response.
//
// The baseline does only what any ACP peer must: its agent runs each
// request on a goroutine of its own (a prompt runs while the client's
// session/cancel, or its answer to a permission question, arrives), and
// its client waits for a response from the goroutine that reads.

// update is the notification every side sends, as a struct for the
// baseline's encoding/json.
type update struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}

// envelope is any message, as the baseline decodes it.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

type promptParams struct {
	SessionID string `json:"sessionId"`
	Prompt    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"prompt"`
}

func newUpdate(session string) update {
	var u update
	u.JSONRPC, u.Method = "2.0", "session/update"
	u.Params.SessionID = session
	u.Params.Update.SessionUpdate = "agent_message_chunk"
	u.Params.Update.Content.Type, u.Params.Update.Content.Text = "text", "chunk"
	return u
}

// baselineAgent answers a prompt as testAgent does, with encoding/json:
// send is how its messages reach the client.
func baselineAgent(msg []byte, send func([]byte) error) error {
	var env envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		return err
	}
	if env.Method != "session/prompt" {
		return nil
	}
	var p promptParams
	if err := json.Unmarshal(env.Params, &p); err != nil {
		return err
	}
	n := 0
	if len(p.Prompt) > 0 {
		n, _ = strconv.Atoi(strings.TrimPrefix(p.Prompt[0].Text, "bench "))
	}
	u := newUpdate(p.SessionID)
	for range n {
		b, _ := json.Marshal(u)
		if err := send(b); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": env.ID, "result": map[string]string{"stopReason": "end_turn"}})
	return send(b)
}

// baselineClient is the client's side: it sends prompts, decodes every
// message, counts the updates and hands back each response.
type baselineClient struct {
	updates   int
	responses chan struct{}
}

func (c *baselineClient) receive(msg []byte) error {
	var env envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		return err
	}
	if env.Method == "session/update" {
		var u update
		if err := json.Unmarshal(msg, &u); err != nil {
			return err
		}
		c.updates++
		return nil
	}
	c.responses <- struct{}{}
	return nil
}

var promptID int

func promptLine(text string) []byte {
	promptID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": promptID, "method": "session/prompt", "params": map[string]any{"sessionId": "sess-1", "prompt": []map[string]string{{"type": "text", "text": text}}}})
	return b
}

// wsBaseline serves baselineAgent over a bare WebSocket and returns a
// client's send function and its client.
func wsBaseline(b *testing.B) (func([]byte) error, *baselineClient) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ws.SetReadLimit(acphttp.DefaultMaxMessageBytes)
		send := func(m []byte) error { return ws.Write(context.Background(), websocket.MessageText, m) }
		var handlers sync.WaitGroup
		defer handlers.Wait()
		for {
			_, msg, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			handlers.Go(func() { baselineAgent(msg, send) })
		}
	}))
	b.Cleanup(hs.Close)
	ws, _, err := websocket.Dial(b.Context(), hs.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	ws.SetReadLimit(acphttp.DefaultMaxMessageBytes)
	c := &baselineClient{responses: make(chan struct{}, 1)}
	go func() {
		for {
			_, msg, err := ws.Read(context.Background())
			if err != nil || c.receive(msg) != nil {
				return
			}
		}
	}()
	b.Cleanup(func() { ws.CloseNow() })
	return func(m []byte) error { return ws.Write(context.Background(), websocket.MessageText, m) }, c
}

// httpBaseline serves baselineAgent over plain POST and one SSE stream.
func httpBaseline(b *testing.B) (func([]byte) error, *baselineClient) {
	out := make(chan []byte, 64)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			rc := http.NewResponseController(w)
			rc.Flush()
			for {
				select {
				case m := <-out:
					io.WriteString(w, "data: ")
					w.Write(m)
					io.WriteString(w, "\n\n")
					if len(out) == 0 {
						rc.Flush()
					}
				case <-r.Context().Done():
					return
				}
			}
		case http.MethodPost:
			msg, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusAccepted)
			go baselineAgent(msg, func(m []byte) error { out <- m; return nil })
		}
	}))
	b.Cleanup(hs.Close)
	req, _ := http.NewRequestWithContext(b.Context(), http.MethodGet, hs.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	c := &baselineClient{responses: make(chan struct{}, 1)}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), acphttp.DefaultMaxMessageBytes)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				if c.receive(data) != nil {
					return
				}
			}
		}
	}()
	send := func(m []byte) error {
		resp, err := http.Post(hs.URL, "application/json", bytes.NewReader(m))
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil
	}
	return send, c
}

// benchAcp opens a Go client's session on the agent at url over profile
// p; the counter counts its updates.
func benchAcp(b *testing.B, p int, url string) (*acp.Conn, string, *counter) {
	got := &counter{}
	conn, err := profiles[p].dial(b.Context(), url, got.methods(), &acphttp.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		conn.Close()
		conn.Wait()
	})
	if _, err := acp.Initialize.Call(b.Context(), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
		b.Fatal(err)
	}
	s, err := acp.SessionNew.Call(b.Context(), conn, acp.NewSessionParams{Cwd: "/"})
	if err != nil {
		b.Fatal(err)
	}
	return conn, s.SessionID, got
}

// peers are the servers each benchmark runs against.
func peers(b *testing.B) map[string]string {
	_, url := serve(b, newTestAgent().methods(), nil)
	m := map[string]string{"acphttp": url}
	if _, err := exec.LookPath("node"); err == nil {
		m["ts-sdk"] = startTSAgent(b)
	}
	return m
}

func benchProfiles(b *testing.B, baseline func(*testing.B) (func([]byte) error, *baselineClient), p int) {
	b.Run("Notify", func(b *testing.B) {
		for name, url := range peers(b) {
			b.Run(name, func(b *testing.B) {
				conn, session, got := benchAcp(b, p, url)
				b.ResetTimer()
				r, err := prompt(b.Context(), conn, session, fmt.Sprintf("bench %d", b.N))
				if err != nil || r.StopReason != acp.StopReasonEndTurn || got.n.Load() != int64(b.N) {
					b.Fatalf("prompt: %v %v, %d updates of %d", r, err, got.n.Load(), b.N)
				}
			})
		}
		b.Run("baseline", func(b *testing.B) {
			send, c := baseline(b)
			b.ResetTimer()
			if err := send(promptLine(fmt.Sprintf("bench %d", b.N))); err != nil {
				b.Fatal(err)
			}
			<-c.responses
			if c.updates != b.N {
				b.Fatalf("%d updates of %d", c.updates, b.N)
			}
		})
	})
	b.Run("RoundTrip", func(b *testing.B) {
		for name, url := range peers(b) {
			b.Run(name, func(b *testing.B) {
				conn, session, _ := benchAcp(b, p, url)
				b.ResetTimer()
				for range b.N {
					if _, err := prompt(b.Context(), conn, session, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run("baseline", func(b *testing.B) {
			send, c := baseline(b)
			b.ResetTimer()
			for range b.N {
				if err := send(promptLine("")); err != nil {
					b.Fatal(err)
				}
				<-c.responses
			}
		})
	})
}

func BenchmarkWebSocket(b *testing.B)      { benchProfiles(b, wsBaseline, 0) }
func BenchmarkStreamableHTTP(b *testing.B) { benchProfiles(b, httpBaseline, 1) }
