package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
)

// The Conn benchmarks move realistic ACP traffic over io.Pipe, each beside
// a baseline (the same name ending in Baseline) that moves the same bytes
// with bufio and encoding/json and no connection logic: no ids, no
// dispatch, no goroutine per request. The baselines flush after every
// message, as any interactive JSON-RPC peer must: a chunk held back in a
// buffer is a chunk the user does not see.
//
// BenchmarkConnNotify and BenchmarkConnRoundTrip use the raw API
// (Conn.Notify, Conn.Request, a Methods table of json.RawMessage
// functions), and their baselines decode only the envelope. The typed
// benchmarks, issue 10's W1-W3, measure the package the way a user runs
// it: through acp.SessionUpdate.Notify and .Handle, acp.SessionPrompt.Call
// and .Handle, so that every message is encoded and decoded strictly into
// the package's types. Their baselines do the same job as a plain
// JSON-RPC peer would: read the envelope with the params raw, pick the
// params type by the method, and decode the params into a plain struct
// holding the same members (a content block's variants folded into one
// struct, since encoding/json has no unions). Each typed benchmark checks
// before timing that both sides put the same bytes on the wire, and
// BenchmarkTypedNotify and BenchmarkTypedRoundTrip send the bytes of
// BenchmarkConnNotify and BenchmarkConnRoundTrip, so that the typed path
// can be set against either baseline.
//
// Streams count one message per op, use b.N and wait for the last message
// inside the timed region; round trips use b.Loop.

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
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := client.Request(ctx, acp.SessionPrompt.Name, textPrompt)
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
	b.ReportAllocs()
	var id int64
	for b.Loop() {
		if err := enc.Encode(requestEnvelope{JSONRPC: "2.0", ID: id, Method: acp.SessionPrompt.Name, Params: textPrompt}); err != nil {
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

// W1: agent_message_chunk notifications, agent to client.

// chunkNotification is chunk as the typed API builds it.
var chunkNotification = acp.SessionNotification{
	SessionID: chunk.SessionID,
	Update:    acp.AgentMessageChunk{Content: acp.TextContent{Text: chunk.Update.Content.Text}},
}

// BenchmarkTypedNotify (W1) streams session/update chunks from an agent,
// which sends them with acp.SessionUpdate.Notify, to a client whose
// acp.SessionUpdate handler receives each decoded.
func BenchmarkTypedNotify(b *testing.B) {
	wantLine(b, lineOf(acp.MarshalNotification(acp.SessionUpdate.Name, chunkNotification)),
		notificationEnvelope{JSONRPC: "2.0", Method: acp.SessionUpdate.Name, Params: chunk})
	var count atomic.Int64
	var want int64
	all := make(chan struct{})
	var clientH acp.Methods
	acp.SessionUpdate.Handle(&clientH, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		if u, ok := n.Update.(acp.AgentMessageChunk); !ok || len(u.Content.(acp.TextContent).Text) == 0 {
			panic("not a text chunk")
		}
		if count.Add(1) == want {
			close(all)
		}
	})
	_, agent, closePair := acptest.NewPair(context.Background(), clientH, nil, nil)
	defer closePair()
	b.SetBytes(chunkLineLength(b))
	b.ReportAllocs()
	want = int64(b.N)
	b.ResetTimer()
	ctx := context.Background()
	for range b.N {
		if err := acp.SessionUpdate.Notify(ctx, agent, chunkNotification); err != nil {
			b.Fatal(err)
		}
	}
	<-all
}

// BenchmarkTypedNotifyBaseline is BenchmarkTypedNotify's baseline.
func BenchmarkTypedNotifyBaseline(b *testing.B) {
	pr, pw := io.Pipe()
	done := make(chan int64)
	go func() { // the client
		var count int64
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), acp.DefaultMaxLineLength)
		for sc.Scan() {
			var env inboundEnvelope
			if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
				panic(err)
			}
			if env.Method != acp.SessionUpdate.Name {
				continue
			}
			var n chunkParams
			if err := json.Unmarshal(env.Params, &n); err != nil {
				panic(err)
			}
			if n.Update.SessionUpdate != "agent_message_chunk" || n.Update.Content.Type != "text" || len(n.Update.Content.Text) == 0 {
				panic("not a text chunk")
			}
			count++
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

// W2: session/prompt round trips with one text block.

// textPrompt is the prompt of W2: one text block.
var textPrompt = plainPrompt{
	SessionID: "sess_8f14e45fceea167a5a36dedd4bea2543",
	Prompt:    []plainBlock{{Type: "text", Text: "Explain what this program prints, and why it prints it twice."}},
}

// BenchmarkTypedRoundTrip (W2) sends session/prompt requests one after
// another with acp.SessionPrompt.Call to an agent whose
// acp.SessionPrompt handler answers each at once.
func BenchmarkTypedRoundTrip(b *testing.B) {
	params := textPrompt.typed()
	wantLine(b, lineOf(acp.MarshalRequest(acp.IntID(0), acp.SessionPrompt.Name, params)),
		requestEnvelope{JSONRPC: "2.0", ID: 0, Method: acp.SessionPrompt.Name, Params: textPrompt})
	wantLine(b, lineOf(acp.MarshalResponse(acp.IntID(0), acp.PromptResult{StopReason: acp.StopReasonEndTurn})),
		resultEnvelope{JSONRPC: "2.0", ID: json.RawMessage("0"), Result: promptResult{StopReason: "end_turn"}})
	var agentH acp.Methods
	acp.SessionPrompt.Handle(&agentH, typedPromptHandler)
	client, _, closePair := acptest.NewPair(context.Background(), nil, agentH, nil)
	defer closePair()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := acp.SessionPrompt.Call(ctx, client, params)
		if err != nil || r.StopReason != acp.StopReasonEndTurn {
			b.Fatalf("result %+v: %v", r, err)
		}
	}
}

// BenchmarkTypedRoundTripBaseline is BenchmarkTypedRoundTrip's baseline.
func BenchmarkTypedRoundTripBaseline(b *testing.B) {
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	go func() { // the agent
		defer toClientW.Close()
		servePlain(toAgentR, toClientW)
	}()
	sc := bufio.NewScanner(toClientR)
	sc.Buffer(make([]byte, 64<<10), acp.DefaultMaxLineLength)
	bw := bufio.NewWriter(toAgentW)
	enc := json.NewEncoder(bw)
	b.ReportAllocs()
	var id int64
	for b.Loop() {
		if err := enc.Encode(requestEnvelope{JSONRPC: "2.0", ID: id, Method: acp.SessionPrompt.Name, Params: textPrompt}); err != nil {
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

// W3: inbound session/prompt requests carrying a file.

// filePrompt is the prompt of W3: a text block and an embedded Go file of
// about 1 KiB.
var filePrompt = plainPrompt{
	SessionID: "sess_8f14e45fceea167a5a36dedd4bea2543",
	Prompt: []plainBlock{
		{Type: "text", Text: "Why does the retry loop in fetch.go give up after one attempt? Please fix it and add a test."},
		{Type: "resource", Resource: &plainResource{URI: "file:///home/dev/project/internal/net/fetch.go", MimeType: "text/x-go", Text: fetchGo}},
	},
}

const fetchGo = `package net

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrGaveUp is returned by Fetch when every attempt failed.
var ErrGaveUp = errors.New("net: gave up")

// Fetch calls get until it succeeds, the context ends, or attempts run
// out, waiting a little longer after each failure.
func Fetch(ctx context.Context, get func() error, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = get(); err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i) * 100 * time.Millisecond):
		}
		return fmt.Errorf("%w after %d attempts: %w", ErrGaveUp, i+1, err)
	}
	return err
}

// Backoff returns how long to wait before attempt i ("0s" for the first).
func Backoff(i int) time.Duration {
	if i <= 0 {
		return 0
	}
	return time.Duration(1<<min(i, 10)) * 50 * time.Millisecond
}
`

// BenchmarkTypedPromptInbound (W3) feeds session/prompt request lines to
// a Conn whose acp.SessionPrompt handler answers each at once; the
// responses are read and counted.
func BenchmarkTypedPromptInbound(b *testing.B) {
	wantLine(b, lineOf(acp.MarshalRequest(acp.IntID(0), acp.SessionPrompt.Name, filePrompt.typed())),
		requestEnvelope{JSONRPC: "2.0", ID: 0, Method: acp.SessionPrompt.Name, Params: filePrompt})
	var agentH acp.Methods
	acp.SessionPrompt.Handle(&agentH, typedPromptHandler)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	counted := countLines(outR)
	b.SetBytes(int64(len(promptLine(nil, 0))))
	b.ReportAllocs()
	b.ResetTimer()
	go feedPrompts(inW, b.N)
	agent := acp.NewConn(context.Background(), inR, outW, agentH, nil)
	if err := agent.Wait(); err != nil {
		b.Fatal(err)
	}
	outW.Close()
	if n := <-counted; n != b.N {
		b.Fatalf("%d responses, want %d", n, b.N)
	}
}

// BenchmarkTypedPromptInboundBaseline is BenchmarkTypedPromptInbound's
// baseline.
func BenchmarkTypedPromptInboundBaseline(b *testing.B) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	counted := countLines(outR)
	b.SetBytes(int64(len(promptLine(nil, 0))))
	b.ReportAllocs()
	b.ResetTimer()
	go feedPrompts(inW, b.N)
	servePlain(inR, outW)
	outW.Close()
	if n := <-counted; n != b.N {
		b.Fatalf("%d responses, want %d", n, b.N)
	}
}

// promptLine appends W3's request line with id n, and its newline, to dst.
func promptLine(dst []byte, n int) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, `,"method":"session/prompt","params":`...)
	dst = append(dst, filePromptJSON...)
	return append(dst, "}\n"...)
}

var filePromptJSON = func() []byte {
	p, err := json.Marshal(filePrompt)
	if err != nil {
		panic(err)
	}
	return p
}()

// feedPrompts writes n of W3's lines to w, one Write each as a peer
// flushing every message does, then closes w.
func feedPrompts(w *io.PipeWriter, n int) {
	var line []byte
	for i := range n {
		line = promptLine(line[:0], i)
		if _, err := w.Write(line); err != nil {
			w.CloseWithError(err)
			return
		}
	}
	w.Close()
}

// countLines counts the lines read from r until it ends and sends the
// count.
func countLines(r io.Reader) <-chan int {
	counted := make(chan int, 1)
	go func() {
		n := 0
		buf := make([]byte, 32<<10)
		for {
			k, err := r.Read(buf)
			n += bytes.Count(buf[:k], []byte{'\n'})
			if err != nil {
				counted <- n
				return
			}
		}
	}()
	return counted
}

// typedPromptHandler is the agent's session/prompt handler in the typed
// benchmarks; plainPromptHandler is the baselines' one.
func typedPromptHandler(_ context.Context, _ *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
	if len(p.Prompt) == 0 {
		return acp.PromptResult{}, errors.New("empty prompt")
	}
	return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
}

func plainPromptHandler(p plainPrompt) (promptResult, error) {
	if len(p.Prompt) == 0 {
		return promptResult{}, errors.New("empty prompt")
	}
	return promptResult{StopReason: "end_turn"}, nil
}

// servePlain is the baselines' agent: it answers the session/prompt
// requests read from r on w, one after another, until r ends.
func servePlain(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), acp.DefaultMaxLineLength)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for sc.Scan() {
		var req inboundEnvelope
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			panic(err)
		}
		if req.Method != acp.SessionPrompt.Name {
			continue
		}
		var p plainPrompt
		if err := json.Unmarshal(req.Params, &p); err != nil {
			panic(err)
		}
		res, err := plainPromptHandler(p)
		if err != nil {
			panic(err)
		}
		if err := enc.Encode(resultEnvelope{JSONRPC: "2.0", ID: req.ID, Result: res}); err != nil {
			panic(err)
		}
		if err := bw.Flush(); err != nil {
			panic(err)
		}
	}
}

// plainPrompt is acp.PromptParams as a plain struct: its blocks hold the
// members of every variant the benchmarks send.
type plainPrompt struct {
	SessionID string          `json:"sessionId"`
	Prompt    []plainBlock    `json:"prompt"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

type plainBlock struct {
	Type     string         `json:"type"`
	Text     string         `json:"text,omitempty"`
	Resource *plainResource `json:"resource,omitempty"`
}

type plainResource struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
}

// typed returns p as acp.PromptParams.
func (p plainPrompt) typed() acp.PromptParams {
	t := acp.PromptParams{SessionID: p.SessionID, Meta: p.Meta}
	for _, block := range p.Prompt {
		switch block.Type {
		case "text":
			t.Prompt = append(t.Prompt, acp.TextContent{Text: block.Text})
		case "resource":
			text := block.Resource.Text
			t.Prompt = append(t.Prompt, acp.EmbeddedResource{Resource: acp.ResourceContents{
				URI: block.Resource.URI, MimeType: block.Resource.MimeType, Text: &text,
			}})
		}
	}
	return t
}

// lineOf returns the line an acp Marshal function made, with its newline.
func lineOf(line []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return append(line, '\n')
}

// wantLine fails b unless encoding/json encodes plain as line: the typed
// benchmark and its baseline must move the same bytes.
func wantLine(b *testing.B, line []byte, plain any) {
	b.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(plain); err != nil {
		b.Fatal(err)
	}
	if !bytes.Equal(line, buf.Bytes()) {
		b.Fatalf("acp sends\n%s\nthe baseline sends\n%s", line, buf.Bytes())
	}
}
