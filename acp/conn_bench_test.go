package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
)

// The Conn benchmarks move realistic ACP traffic over io.Pipe. Each has a
// baseline beside it that moves the same bytes with bufio and encoding/json
// and no connection logic: no ids, no dispatch, no goroutine per request.
// The baselines flush after every message, as any interactive JSON-RPC peer
// must: a chunk held back in a buffer is a chunk the user does not see.

type chunkParams struct {
	SessionID string      `json:"sessionId"`
	Update    chunkUpdate `json:"update"`
}

type chunkUpdate struct {
	SessionUpdate string       `json:"sessionUpdate"`
	Content       chunkContent `json:"content"`
}

type chunkContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// chunk is an agent_message_chunk session/update whose line is about 250
// bytes.
var chunk = chunkParams{
	SessionID: "sess_8f14e45fceea167a5a36dedd4bea2543",
	Update: chunkUpdate{
		SessionUpdate: "agent_message_chunk",
		Content:       chunkContent{Type: "text", Text: strings.Repeat("streamed words ", 8)},
	},
}

type notificationEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type inboundEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

func chunkLineLength(b *testing.B) int64 {
	line, err := acp.MarshalNotification(acp.SessionUpdate.Name, chunk)
	if err != nil {
		b.Fatal(err)
	}
	return int64(len(line) + 1)
}

// BenchmarkConnNotify streams session/update chunks from an agent to a
// client whose handler counts them.
func BenchmarkConnNotify(b *testing.B) {
	var count atomic.Int64
	all := make(chan struct{})
	var want int64
	clientH := acp.Methods{Notifications: map[string]acp.NotificationFunc{
		acp.SessionUpdate.Name: func(context.Context, *acp.Conn, json.RawMessage) {
			if count.Add(1) == want {
				close(all)
			}
		},
	}}
	_, agent, closePair := acptest.NewPair(context.Background(), clientH, nil, nil)
	defer closePair()
	b.SetBytes(chunkLineLength(b))
	b.ReportAllocs()
	want = int64(b.N)
	b.ResetTimer()
	ctx := context.Background()
	for range b.N {
		if err := agent.Notify(ctx, acp.SessionUpdate.Name, chunk); err != nil {
			b.Fatal(err)
		}
	}
	<-all
}

// BenchmarkConnNotifyBaseline is BenchmarkConnNotify's baseline.
func BenchmarkConnNotifyBaseline(b *testing.B) {
	pr, pw := io.Pipe()
	done := make(chan int64)
	go func() {
		var count int64
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), acp.DefaultMaxLineLength)
		for sc.Scan() {
			var env inboundEnvelope
			if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
				panic(err)
			}
			if env.Method == acp.SessionUpdate.Name {
				count++
			}
		}
		done <- count
	}()
	bw := bufio.NewWriter(pw)
	enc := json.NewEncoder(bw)
	b.SetBytes(chunkLineLength(b))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := enc.Encode(notificationEnvelope{JSONRPC: "2.0", Method: acp.SessionUpdate.Name, Params: chunk}); err != nil {
			b.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	pw.Close()
	if n := <-done; n != int64(b.N) {
		b.Fatalf("counted %d, want %d", n, b.N)
	}
}

type promptParams struct {
	SessionID string `json:"sessionId"`
	Prompt    []any  `json:"prompt"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type resourceBlock struct {
	Type     string `json:"type"`
	Resource struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"resource"`
}

func newPrompt() promptParams {
	var res resourceBlock
	res.Type = "resource"
	res.Resource.URI = "file:///home/user/project/main.go"
	res.Resource.MimeType = "text/x-go"
	res.Resource.Text = "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"
	return promptParams{
		SessionID: "sess_8f14e45fceea167a5a36dedd4bea2543",
		Prompt:    []any{textBlock{Type: "text", Text: "Explain what this program prints."}, res},
	}
}

type promptResult struct {
	StopReason string `json:"stopReason"`
}

// BenchmarkConnRoundTrip sends session/prompt requests one after another,
// each answered at once.
func BenchmarkConnRoundTrip(b *testing.B) {
	agentH := acp.Methods{Requests: map[string]acp.RequestFunc{
		acp.SessionPrompt.Name: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
			return promptResult{StopReason: "end_turn"}, nil
		},
	}}
	client, _, closePair := acptest.NewPair(context.Background(), nil, agentH, nil)
	defer closePair()
	prompt := newPrompt()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := client.Request(ctx, acp.SessionPrompt.Name, prompt)
		if err != nil {
			b.Fatal(err)
		}
		var r promptResult
		if err := json.Unmarshal(res, &r); err != nil || r.StopReason != "end_turn" {
			b.Fatalf("result %s: %v", res, err)
		}
	}
}

type requestEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type resultEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// BenchmarkConnRoundTripBaseline is BenchmarkConnRoundTrip's baseline.
func BenchmarkConnRoundTripBaseline(b *testing.B) {
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	go func() { // the agent
		defer toClientW.Close()
		sc := bufio.NewScanner(toAgentR)
		sc.Buffer(make([]byte, 64<<10), acp.DefaultMaxLineLength)
		bw := bufio.NewWriter(toClientW)
		enc := json.NewEncoder(bw)
		for sc.Scan() {
			var req inboundEnvelope
			if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
				panic(err)
			}
			if err := enc.Encode(resultEnvelope{JSONRPC: "2.0", ID: req.ID, Result: promptResult{StopReason: "end_turn"}}); err != nil {
				panic(err)
			}
			if err := bw.Flush(); err != nil {
				panic(err)
			}
		}
	}()
	sc := bufio.NewScanner(toClientR)
	sc.Buffer(make([]byte, 64<<10), acp.DefaultMaxLineLength)
	bw := bufio.NewWriter(toAgentW)
	enc := json.NewEncoder(bw)
	prompt := newPrompt()
	b.ReportAllocs()
	var id int64
	for b.Loop() {
		if err := enc.Encode(requestEnvelope{JSONRPC: "2.0", ID: id, Method: acp.SessionPrompt.Name, Params: prompt}); err != nil {
			b.Fatal(err)
		}
		id++
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
		if !sc.Scan() {
			b.Fatal(sc.Err())
		}
		var resp inboundEnvelope
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			b.Fatal(err)
		}
		var r promptResult
		if err := json.Unmarshal(resp.Result, &r); err != nil || r.StopReason != "end_turn" {
			b.Fatalf("result %s: %v", resp.Result, err)
		}
	}
	toAgentW.Close()
	for sc.Scan() {
	}
}
