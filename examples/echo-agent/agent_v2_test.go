package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// The agent in ACP v2, in process, inside a synctest bubble as agent_test.go
// runs it in v1.

// v2Client is a v2 client of the agent: it records each session's
// updates as lines.
type v2Client struct {
	t    *testing.T
	conn *acp.Conn
	// bounded bounds each call by testwait.Limit, as client's does.
	bounded bool

	mu      sync.Mutex
	updates map[string][]string
	changed chan struct{} // has a value after an update
}

func newV2Client(t *testing.T) *v2Client {
	return &v2Client{t: t, updates: map[string][]string{}, changed: make(chan struct{}, 1)}
}

// methods is the client's method table.
func (c *v2Client) methods() acp.Methods {
	var m acp.Methods
	acpv2.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acpv2.SessionNotification) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.updates[n.SessionID] = append(c.updates[n.SessionID], describeV2(n.Update))
		select {
		case c.changed <- struct{}{}:
		default:
		}
	})
	return m
}

// ctx returns the context of one call.
func (c *v2Client) ctx() context.Context {
	if c.bounded {
		return testwait.Context(c.t)
	}
	return context.Background()
}

// initialize initializes the connection in v2.
func (c *v2Client) initialize() acpv2.InitializeResult {
	c.t.Helper()
	r, err := acpv2.Initialize.Call(c.ctx(), c.conn, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "test", Version: "1"}})
	if err != nil || r.ProtocolVersion != 2 || r.Capabilities == nil || r.Capabilities.Session == nil {
		c.t.Fatalf("initialize: %+v, %v", r, err)
	}
	return r
}

func pairV2(t *testing.T, delay time.Duration) *v2Client {
	c := newV2Client(t)
	a := newAgent(delay, slog.New(slog.NewTextHandler(io.Discard, nil)))
	// As -protocol v2 serves it. Not t.Context(): it ends before cleanups
	// run, failing the connections rather than letting closePair close
	// them.
	conn, _, closePair := acptest.NewPair(context.Background(), c.methods(), acpv2.NewRouter(nil, a.methodsV2()), nil)
	t.Cleanup(func() {
		if err := closePair(); err != nil {
			t.Errorf("closing the pair: %v", err)
		}
		a.turns.Wait()
	})
	c.conn = conn
	c.initialize()
	return c
}

// describeV2 writes an update as a line.
func describeV2(u acpv2.Update) string {
	switch u := u.(type) {
	case acpv2.UserMessage:
		return fmt.Sprintf("user %s %s", u.MessageID, texts(u.Content))
	case acpv2.AgentMessage:
		return fmt.Sprintf("agent %s %s", u.MessageID, texts(u.Content))
	case acpv2.AgentMessageChunk:
		return fmt.Sprintf("chunk %s %q", u.MessageID, texts(acpv2.ContentBlocks{u.Content}))
	case acpv2.SessionStateUpdate:
		switch s := u.State.(type) {
		case acpv2.IdleStateUpdate:
			return "idle " + string(s.StopReason)
		case acpv2.RunningStateUpdate:
			return "running"
		}
	case acpv2.UsageUpdate:
		return fmt.Sprintf("usage used=%d", u.Used)
	}
	return fmt.Sprintf("%T", u)
}

func texts(blocks acpv2.ContentBlocks) string {
	var out []string
	for _, b := range blocks {
		if t, ok := b.(acpv2.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "|")
}

// lifecycle keeps the lines of updates that say where the session's
// turns stand: the user messages inserted, running and idle.
func lifecycle(lines []string) []string {
	return slices.DeleteFunc(lines, func(l string) bool {
		return !strings.HasPrefix(l, "user ") && !strings.HasPrefix(l, "idle ") && l != "running"
	})
}

func (c *v2Client) take(session string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates[session]
	delete(c.updates, session)
	return u
}

// takeUntil waits, for at most testwait.Limit, until the session's
// updates hold last, then takes them.
func (c *v2Client) takeUntil(session, last string) []string {
	c.t.Helper()
	deadline := time.After(testwait.Limit)
	for {
		c.mu.Lock()
		got := slices.Contains(c.updates[session], last)
		c.mu.Unlock()
		if got {
			return c.take(session)
		}
		select {
		case <-c.changed:
		case <-deadline:
			c.t.Fatalf("waited %v for %q; got %q", testwait.Limit, last, c.take(session))
		}
	}
}

func (c *v2Client) newSession() string {
	c.t.Helper()
	return c.newSessionIn("/w")
}

func (c *v2Client) newSessionIn(cwd string) string {
	c.t.Helper()
	r, err := acpv2.SessionNew.Call(c.ctx(), c.conn, acpv2.NewSessionParams{Cwd: cwd})
	if err != nil {
		c.t.Fatal(err)
	}
	return r.SessionID
}

func (c *v2Client) prompt(ctx context.Context, session, text string) (acpv2.PromptResult, error) {
	return acpv2.SessionPrompt.Call(ctx, c.conn, acpv2.PromptParams{SessionID: session, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: text}}})
}

func TestPromptV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pairV2(t, time.Second)
		sid := c.newSession()
		start := time.Now()
		ack, err := c.prompt(context.Background(), sid, "hello there")
		if err != nil {
			t.Fatal(err)
		}
		// Acknowledged at once, with the user message's id.
		if time.Since(start) != 0 || ack.MessageID == "" {
			t.Errorf("acknowledged after %v with %+v", time.Since(start), ack)
		}
		synctest.Wait()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		u := ack.MessageID
		want := []string{"user " + u + " hello there", "running", `chunk msg-3 "hello"`, `chunk msg-3 " there"`, "usage used=4", "idle end_turn"}
		if diff := cmp.Diff(want, c.take(sid)); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
	})
}

// TestHeldPromptV2 checks that a prompt sent during another is held and
// inserted when that one is idle, and that session/cancel cancels the
// turn and answers the prompts still held -32800.
func TestHeldPromptV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pairV2(t, time.Second)
		sid := c.newSession()
		if _, err := c.prompt(context.Background(), sid, "one two"); err != nil {
			t.Fatal(err)
		}
		second := async(func() error { _, err := c.prompt(context.Background(), sid, "three"); return err })
		synctest.Wait()
		select {
		case err := <-second:
			t.Fatalf("the second prompt was answered during the first turn: %v", err)
		default:
		}
		time.Sleep(2 * time.Second) // the first turn ends; the second starts
		synctest.Wait()
		if err := <-second; err != nil {
			t.Fatal(err)
		}
		third := async(func() error { _, err := c.prompt(context.Background(), sid, "four"); return err })
		synctest.Wait()
		if err := acpv2.SessionCancel.Notify(context.Background(), c.conn, acpv2.CancelParams{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if err := <-third; !errors.Is(err, acp.ErrRequestCancelled) {
			t.Errorf("the held prompt: %v, want -32800", err)
		}
		want := []string{"user msg-user-2 one two", "running", "idle end_turn", "user msg-user-4 three", "running", "idle cancelled"}
		if diff := cmp.Diff(want, lifecycle(c.take(sid))); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
	})
}

// TestResumeV2 checks session/list, session/resume with and without
// replay, and session/close.
func TestResumeV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pairV2(t, 0)
		sid := c.newSession()
		if _, err := c.prompt(context.Background(), sid, "remember me"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		c.take(sid)
		list, err := acpv2.SessionList.Call(context.Background(), c.conn, acpv2.ListSessionsParams{})
		if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].Cwd != "/w" {
			t.Errorf("session/list: %+v, %v", list, err)
		}
		resume := func(replay bool) []string {
			p := acpv2.ResumeSessionParams{SessionID: sid, Cwd: "/w"}
			if replay {
				p.ReplayFrom = acpv2.ReplayFromStart{}
			}
			if _, err := acpv2.SessionResume.Call(context.Background(), c.conn, p); err != nil {
				t.Fatal(err)
			}
			return c.take(sid)
		}
		if diff := cmp.Diff([]string{"idle "}, resume(false)); diff != "" {
			t.Errorf("resume without replay (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"user msg-user-2 remember me", "agent msg-3 remember me", "idle "}, resume(true)); diff != "" {
			t.Errorf("resume with replay (-want +got):\n%s", diff)
		}
		if _, err := acpv2.SessionClose.Call(context.Background(), c.conn, acpv2.CloseSessionParams{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.prompt(context.Background(), sid, "gone?"); !errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("a prompt after session/close: %v, want -32002", err)
		}
	})
}

// TestWithdrawnPromptV2 checks that a held prompt the client withdraws
// ($/cancel_request) is answered -32800 and never inserted, and that the
// session goes on with the next.
func TestWithdrawnPromptV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pairV2(t, time.Second)
		sid := c.newSession()
		if _, err := c.prompt(context.Background(), sid, "one"); err != nil {
			t.Fatal(err)
		}
		ctx, withdraw := context.WithCancel(context.Background())
		held := async(func() error { _, err := c.prompt(ctx, sid, "never"); return err })
		synctest.Wait()
		withdraw()
		if err := <-held; !errors.Is(err, context.Canceled) {
			t.Fatalf("the withdrawn prompt: %v", err)
		}
		time.Sleep(2 * time.Second) // the first turn ends, and no other starts
		synctest.Wait()
		if _, err := c.prompt(context.Background(), sid, "three"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		want := []string{"user msg-user-2 one", "running", "idle end_turn", "user msg-user-6 three", "running", "idle end_turn"}
		if diff := cmp.Diff(want, lifecycle(c.take(sid))); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
	})
}

// TestCloseDuringTurnV2 checks that session/close cancels the turn in
// progress, answers once the turn's idle update is sent, and answers the
// held prompts -32800.
func TestCloseDuringTurnV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pairV2(t, time.Second)
		sid := c.newSession()
		if _, err := c.prompt(context.Background(), sid, "one two three"); err != nil {
			t.Fatal(err)
		}
		held := async(func() error { _, err := c.prompt(context.Background(), sid, "four"); return err })
		time.Sleep(1500 * time.Millisecond) // one word echoed
		synctest.Wait()
		if _, err := acpv2.SessionClose.Call(context.Background(), c.conn, acpv2.CloseSessionParams{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		got := c.take(sid)
		if len(got) == 0 || got[len(got)-1] != "idle cancelled" {
			t.Errorf("updates before session/close answered: %q, want the last idle cancelled", got)
		}
		if err := <-held; !errors.Is(err, acp.ErrRequestCancelled) {
			t.Errorf("the held prompt: %v, want -32800", err)
		}
	})
}

// TestRefusalsV2 checks the requests the v2 agent refuses, and that
// session/list filters by cwd.
func TestRefusalsV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pairV2(t, 0)
		here, there := c.newSessionIn("/here"), c.newSessionIn("/there")
		_, err := acpv2.SessionPrompt.Call(context.Background(), c.conn, acpv2.PromptParams{SessionID: here, Prompt: acpv2.ContentBlocks{}})
		if !errors.Is(err, acp.ErrInvalidParams) {
			t.Errorf("an empty prompt: %v, want -32602", err)
		}
		if _, err := c.prompt(context.Background(), "nope", "hi"); !errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("a prompt to no session: %v, want -32002", err)
		}
		_, err = acpv2.SessionResume.Call(context.Background(), c.conn, acpv2.ResumeSessionParams{SessionID: "nope", Cwd: "/here"})
		if !errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("resuming no session: %v, want -32002", err)
		}
		for cwd, want := range map[string][]string{"": {here, there}, "/there": {there}, "/elsewhere": nil} {
			list, err := acpv2.SessionList.Call(context.Background(), c.conn, acpv2.ListSessionsParams{Cwd: cwd})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range list.Sessions {
				got = append(got, s.SessionID)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("session/list in %q (-want +got):\n%s", cwd, diff)
			}
		}
		if u := c.take(here); len(u) != 0 {
			t.Errorf("a refused prompt sent updates: %q", u)
		}
	})
}

// TestResumeAfterIdleV2 checks that the idle update is sent only once the
// turn has ended: a resume sent the moment the client sees idle reports
// idle, never running. The window it guards is short, so it is tried
// many times, in real time, without a synctest bubble to order the
// goroutines.
func TestResumeAfterIdleV2(t *testing.T) {
	c := pairV2(t, 0)
	sid := c.newSession()
	for i := range 200 {
		if _, err := c.prompt(context.Background(), sid, "hi"); err != nil {
			t.Fatal(err)
		}
		c.takeUntil(sid, "idle end_turn")
		if _, err := acpv2.SessionResume.Call(context.Background(), c.conn, acpv2.ResumeSessionParams{SessionID: sid, Cwd: "/w"}); err != nil {
			t.Fatal(err)
		}
		if got := c.take(sid); !slices.Equal(got, []string{"idle "}) {
			t.Fatalf("turn %d: a resume right after idle reported %q, want idle", i, got)
		}
	}
}
