package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// This file holds the ACP client the tests drive the agent with, in process
// (agent_test.go) and as a subprocess (main_test.go).

// event is a notification the client received, rendered as one line:
//
//	run run-2                     session_info_update, _meta.goose.activeRunId
//	run null                      the same, the run ended
//	queued {"runId":…}            session_info_update, _meta.goose.queuedSteer
//	chunk " word"                 agent_message_chunk
//	usage used=4 size=128000      usage_update
//	goose used=4 in=2 out=2 m     _goose/unstable/session/update usage_update
type event struct {
	Session   string
	Line      string
	MessageID string // of a chunk
}

// recorder is the client's handler: it records every notification.
type recorder struct {
	t       *testing.T
	runs    chan string   // every run id announced, in order
	chunked chan struct{} // ready once a chunk has arrived

	mu     sync.Mutex
	events []event
}

func newRecorder(t *testing.T) *recorder {
	return &recorder{t: t, runs: make(chan string, 100), chunked: make(chan struct{}, 1)}
}

// methods is the client's method table. A notification whose params do
// not decode never reaches the recorder, so the events a test expects are
// missing and the test fails.
func (r *recorder) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, r.sessionUpdate)
	goose.SessionUpdate.Handle(&m, r.gooseUpdate)
	return m
}

func (r *recorder) sessionUpdate(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
	ev := event{Session: n.SessionID}
	switch u := n.Update.(type) {
	case acp.AgentMessageChunk:
		text, ok := u.Content.(acp.TextContent)
		if !ok {
			r.t.Errorf("chunk of %T", u.Content)
		}
		ev.Line = fmt.Sprintf("chunk %q", text.Text)
		ev.MessageID = u.MessageID
		select {
		case r.chunked <- struct{}{}:
		default:
		}
	case acp.SessionInfoUpdate:
		m, ok := goose.ParseMeta(u.Meta)
		switch {
		case !ok:
			ev.Line = "info without goose meta"
		case m.ActiveRunID != nil && *m.ActiveRunID == "":
			ev.Line = "run null"
		case m.ActiveRunID != nil:
			ev.Line = "run " + *m.ActiveRunID
			r.runs <- *m.ActiveRunID
		case m.QueuedSteer != nil:
			ev.Line = "queued " + string(m.QueuedSteer)
		}
	case acp.UsageUpdate:
		ev.Line = fmt.Sprintf("usage used=%d size=%d", u.Used, u.Size)
	default:
		ev.Line = fmt.Sprintf("%T", u)
	}
	r.add(ev)
}

func (r *recorder) gooseUpdate(_ context.Context, _ *acp.Conn, n goose.SessionNotification) {
	u, ok := n.Update.(goose.UsageUpdate)
	if !ok {
		r.t.Errorf("goose update %T", n.Update)
		return
	}
	r.add(event{Session: n.SessionID, Line: fmt.Sprintf("goose used=%d in=%s out=%s %s",
		u.Used, deref(u.AccumulatedInputTokens), deref(u.AccumulatedOutputTokens), u.Model)})
}

func deref(p *uint64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

func (r *recorder) add(ev event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

// take returns and forgets the events recorded so far for the session.
func (r *recorder) take(session string) []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var mine, rest []event
	for _, ev := range r.events {
		if ev.Session == session {
			mine = append(mine, ev)
		} else {
			rest = append(rest, ev)
		}
	}
	r.events = rest
	return mine
}

// lines returns the events' lines.
func lines(evs []event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Line
	}
	return out
}

// client drives an agent over an acp.Conn.
type client struct {
	t    *testing.T
	conn *acp.Conn
	rec  *recorder
	// bounded bounds each call by testwait.Limit: the agent is a process,
	// and no synctest bubble reports a hang. (In a bubble the bound would
	// run on the bubble's clock, cutting the agent's delays short.)
	bounded bool
}

// ctx returns the context of one call.
func (c *client) ctx() context.Context {
	if c.bounded {
		return testwait.Context(c.t)
	}
	return c.t.Context()
}

// call sends a request with params of any shape, valid or not, and decodes
// its result into a T.
func call[T any](c *client, method string, params any) T {
	c.t.Helper()
	raw, err := c.conn.Request(c.ctx(), method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	v, err := acp.DecodeResult[T](raw)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return v
}

// typedCall calls m, which must succeed.
func typedCall[P, R any](c *client, m acp.Method[P, R], params P) R {
	c.t.Helper()
	r, err := m.Call(c.ctx(), c.conn, params)
	if err != nil {
		c.t.Fatalf("%s: %v", m.Name, err)
	}
	return r
}

// callErr sends a request that must fail and returns its error.
func callErr(c *client, method string, params any) *acp.Error {
	c.t.Helper()
	raw, err := c.conn.Request(c.ctx(), method, params)
	var e *acp.Error
	if !errors.As(err, &e) {
		c.t.Fatalf("%s: got %s, %v; want an error response", method, raw, err)
	}
	return e
}

func (c *client) initialize(customNotifications bool) acp.InitializeResult {
	c.t.Helper()
	var caps acp.ClientCapabilities
	if customNotifications {
		caps.Meta = json.RawMessage(`{"goose":{"customNotifications":true}}`)
	}
	return typedCall(c, acp.Initialize, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps})
}

func (c *client) newSession() string {
	c.t.Helper()
	return typedCall(c, acp.SessionNew, acp.NewSessionParams{Cwd: "/tmp"}).SessionID
}

func (c *client) prompt(session, text string) acp.StopReason {
	c.t.Helper()
	return typedCall(c, acp.SessionPrompt, promptParams(session, text)).StopReason
}

// promptAsync sends a prompt from a goroutine of its own, and returns a
// channel that yields its stop reason. An error fails the test (and ""
// comes) unless the test has ended: t.Fatal cannot end the test from that
// goroutine.
func (c *client) promptAsync(session, text string) <-chan acp.StopReason {
	ctx := c.ctx()
	ch := make(chan acp.StopReason, 1)
	go func() {
		r, err := acp.SessionPrompt.Call(ctx, c.conn, promptParams(session, text))
		if err != nil && c.t.Context().Err() == nil {
			c.t.Errorf("%s: %v", acp.SessionPrompt.Name, err)
		}
		ch <- r.StopReason
	}()
	return ch
}

func (c *client) cancel(session string) {
	c.t.Helper()
	if err := acp.SessionCancel.Notify(c.ctx(), c.conn, acp.CancelParams{SessionID: session}); err != nil {
		c.t.Fatal(err)
	}
}

func promptParams(session, text string) acp.PromptParams {
	return acp.PromptParams{SessionID: session, Prompt: acp.ContentBlocks{acp.TextContent{Text: text}}}
}

func steerParams(session, runID, text string) goose.SteerParams {
	return goose.SteerParams{SessionID: session, ExpectedRunID: runID, Prompt: acp.ContentBlocks{acp.TextContent{Text: text}}}
}

// wantError checks an error's code and data.
func wantError(t *testing.T, e *acp.Error, code int, data string) {
	t.Helper()
	if e.Code != code {
		t.Errorf("error %v: want code %d", e, code)
	}
	if diff := cmp.Diff(data, string(e.Data)); diff != "" {
		t.Errorf("error %v: data (-want +got):\n%s", e, diff)
	}
}

// turn returns the lines a prompt of words in a session with no earlier
// turn sends: the run starts, each word is echoed, the run ends, and usage
// is reported (goose's too when gooseUsage).
func turn(runID string, words []string, model string, gooseUsage bool) []string {
	var want []string
	want = append(want, "run "+runID)
	for i, w := range words {
		if i > 0 {
			w = " " + w
		}
		want = append(want, fmt.Sprintf("chunk %q", w))
	}
	want = append(want, "run null")
	n := len(words)
	if gooseUsage {
		want = append(want, fmt.Sprintf("goose used=%d in=%d out=%d %s", 2*n, n, n, model))
	}
	return append(want, fmt.Sprintf("usage used=%d size=%d", 2*n, contextWindow))
}

// runOf returns the run id the first event announces.
func runOf(evs []event) string {
	if len(evs) == 0 {
		return ""
	}
	return strings.TrimPrefix(evs[0].Line, "run ")
}
