package acphttp_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// ping is a notification that names no session, as an extension's may.
var ping = acp.Notification[struct {
	N int `json:"n"`
}]{Name: "_test/ping"}

// subagentAgent is an agent whose prompts expose subagents: a prompt
// "spawn CHILD N" announces child session CHILD on the prompt's session
// and sends N updates on it; "flood N" announces N distinct children and
// sends one update on each; "ghost N" sends N updates naming a session
// nobody holds and N pings naming none; "announce CHILD" announces CHILD,
// which may be cancelled, and sends one update on it.
type subagentAgent struct {
	mu       sync.Mutex
	cancels  chan string // the sessions of the session/cancels received
	sessions int
}

func newSubagentAgent() *subagentAgent { return &subagentAgent{cancels: make(chan string, 100)} }

func (a *subagentAgent) methods() acp.Methods {
	var m acp.Methods
	acp.Initialize.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	acp.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.sessions++
		return acp.NewSessionResult{SessionID: fmt.Sprintf("parent-%d", a.sessions)}, nil
	})
	acp.SessionClose.Handle(&m, func(context.Context, *acp.Conn, acp.CloseSessionParams) (acp.CloseSessionResult, error) {
		return acp.CloseSessionResult{}, nil
	})
	acp.SessionCancel.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.CancelParams) {
		a.cancels <- p.SessionID
	})
	acp.SessionPrompt.Handle(&m, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		var text string
		for _, b := range p.Prompt {
			if t, ok := b.(acp.TextContent); ok {
				text += t.Text
			}
		}
		update := func(session string, u acp.Update) error {
			return acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: session, Update: u})
		}
		chunk := func(text string) acp.Update { return acp.AgentMessageChunk{Content: acp.TextContent{Text: text}} }
		var err error
		switch f := strings.Fields(text); f[0] {
		case "spawn":
			var n int
			fmt.Sscan(f[2], &n)
			err = update(p.SessionID, acp.SubagentUpdate{SessionID: f[1], Title: "helper"})
			for i := 0; i < n && err == nil; i++ {
				err = update(f[1], chunk(fmt.Sprint(i)))
			}
		case "flood":
			var n int
			fmt.Sscan(f[1], &n)
			for i := 0; i < n && err == nil; i++ {
				child := fmt.Sprintf("child-%d", i)
				if err = update(p.SessionID, acp.SubagentUpdate{SessionID: child}); err == nil {
					err = update(child, chunk(fmt.Sprint(i)))
				}
			}
		case "ghost":
			var n int
			fmt.Sscan(f[1], &n)
			for i := 0; i < n && err == nil; i++ {
				if err = update("ghost", chunk(fmt.Sprint(i))); err == nil {
					err = ping.Notify(ctx, conn, struct {
						N int `json:"n"`
					}{i})
				}
			}
		case "announce":
			if err = update(p.SessionID, acp.SubagentUpdate{SessionID: f[1], Capabilities: &acp.SubagentSessionCapabilities{Cancel: &acp.SessionCancelCapabilities{}}}); err == nil {
				err = update(f[1], chunk("working"))
			}
		}
		if err != nil {
			return acp.PromptResult{}, err
		}
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	return m
}

// recorder records, in the order they arrive, the updates and pings a
// client receives, as "session: what".
type recorder struct {
	mu   sync.Mutex
	got  []string
	more chan struct{} // signalled at each event
}

func newRecorder() *recorder { return &recorder{more: make(chan struct{}, 1)} }

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// wait waits for n events: those of the connection's stream may come
// after a prompt's response, which came on its session's.
func (r *recorder) wait(t *testing.T, n int) []string {
	t.Helper()
	for {
		if got := r.events(); len(got) >= n {
			return got
		}
		testwait.For(t, r.more, fmt.Sprintf("%d messages (have %d)", n, len(r.events())))
	}
}

func (r *recorder) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func (r *recorder) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		switch u := n.Update.(type) {
		case acp.SubagentUpdate:
			r.add(n.SessionID + ": announces " + u.SessionID)
		case acp.AgentMessageChunk:
			t, _ := u.Content.(acp.TextContent)
			r.add(n.SessionID + ": " + t.Text)
		default:
			r.add(fmt.Sprintf("%s: %T", n.SessionID, u))
		}
	})
	ping.Handle(&m, func(_ context.Context, _ *acp.Conn, p struct {
		N int `json:"n"`
	}) {
		r.add(fmt.Sprintf("ping %d", p.N))
	})
	return m
}

// newParent opens a session on conn and returns its id.
func newParent(t *testing.T, conn *acp.Conn) string {
	t.Helper()
	s, err := acp.SessionNew.Call(testwait.Context(t), conn, acp.NewSessionParams{Cwd: "/", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return s.SessionID
}

// runPrompt serves a subagentAgent with opts, dials it with profile p,
// and prompts a new session with text; it returns the session and what
// the client received.
func runPrompt(t *testing.T, p int, opts *acphttp.ServerOptions, text string) (string, *recorder) {
	t.Helper()
	_, url := serve(t, newSubagentAgent().methods(), opts)
	rec := newRecorder()
	conn := dial(t, p, url, rec.methods(), nil)
	parent := newParent(t, conn)
	if _, err := prompt(testwait.Context(t), conn, parent, text); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	return parent, rec
}

// A subagent's updates, which the agent sends naming the child session,
// reach the client over both profiles, in order after the subagent_update
// that announced the child on its parent. Over Streamable HTTP the client
// opens no stream for the child: its updates come on the parent's stream,
// and none is left buffered, which a MaxBufferedBytes far below what the
// child sends would show by stalling the prompt.
func TestSubagentUpdatesReachClient(t *testing.T) {
	const n = 200
	for p := range profiles {
		t.Run(profiles[p].name, func(t *testing.T) {
			parent, rec := runPrompt(t, p, &acphttp.ServerOptions{MaxBufferedBytes: 4 << 10}, fmt.Sprintf("spawn kid %d", n))
			want := []string{parent + ": announces kid"}
			for i := range n {
				want = append(want, fmt.Sprintf("kid: %d", i))
			}
			if diff := cmp.Diff(want, rec.events()); diff != "" {
				t.Errorf("updates received (-want +got):\n%s", diff)
			}
		})
	}
}

// A message naming a session the connection neither holds nor learned as
// a child, and one naming none, reach the client on the connection's
// stream rather than wait in a stream nobody reads.
func TestUnknownSessionReachesClient(t *testing.T) {
	const n = 100
	for p := range profiles {
		t.Run(profiles[p].name, func(t *testing.T) {
			_, rec := runPrompt(t, p, &acphttp.ServerOptions{MaxBufferedBytes: 4 << 10}, fmt.Sprintf("ghost %d", n))
			var want []string
			for i := range n {
				want = append(want, fmt.Sprintf("ghost: %d", i), fmt.Sprintf("ping %d", i))
			}
			if diff := cmp.Diff(want, rec.wait(t, len(want))); diff != "" {
				t.Errorf("messages received (-want +got):\n%s", diff)
			}
		})
	}
}

// An agent that announces many more children than a connection may hold
// sessions still has every update delivered: the server learns a bounded
// number of children, and the updates of those it did not learn come on
// the connection's stream, as any unknown session's do.
func TestSubagentFlood(t *testing.T) {
	const n = 3000
	for p := range profiles {
		t.Run(profiles[p].name, func(t *testing.T) {
			parent, rec := runPrompt(t, p, &acphttp.ServerOptions{MaxBufferedBytes: 4 << 10, MaxSessions: 4}, fmt.Sprintf("flood %d", n))
			got := rec.wait(t, 2*n)
			var children []string
			for _, e := range got {
				if !strings.HasPrefix(e, parent+":") {
					children = append(children, e)
				}
			}
			slices.Sort(children)
			var want []string
			for i := range n {
				want = append(want, fmt.Sprintf("child-%d: %d", i, i))
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, children); diff != "" {
				t.Errorf("children's updates (-want +got):\n%s", diff)
			}
		})
	}
}

// The client may cancel a child the agent announced on one of its
// sessions, over either profile, and not once the parent is closed, which
// forgets its children.
func TestSubagentCancel(t *testing.T) {
	for p := range profiles {
		t.Run(profiles[p].name, func(t *testing.T) {
			agent := newSubagentAgent()
			_, url := serve(t, agent.methods(), nil)
			rec := newRecorder()
			conn := dial(t, p, url, rec.methods(), nil)
			parent := newParent(t, conn)
			if _, err := prompt(testwait.Context(t), conn, parent, "announce kid"); err != nil {
				t.Fatalf("prompt: %v", err)
			}
			if err := acp.SessionCancel.Notify(testwait.Context(t), conn, acp.CancelParams{SessionID: "kid"}); err != nil {
				t.Fatalf("session/cancel of the child: %v", err)
			}
			if got := testwait.For(t, agent.cancels, "the agent to receive the child's session/cancel"); got != "kid" {
				t.Errorf("the agent received session/cancel of %q, want kid", got)
			}
			if _, err := acp.SessionClose.Call(testwait.Context(t), conn, acp.CloseSessionParams{SessionID: parent}); err != nil {
				t.Fatalf("session/close: %v", err)
			}
			// A request naming the forgotten child is refused.
			_, err := prompt(testwait.Context(t), conn, "kid", "spawn x 0")
			if e := (*acp.Error)(nil); !errors.As(err, &e) || e.Code != acp.CodeResourceNotFound {
				t.Errorf("prompt of a closed parent's child: %v, want a %d error", err, acp.CodeResourceNotFound)
			}
		})
	}
}
