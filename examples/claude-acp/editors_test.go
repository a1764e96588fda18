//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"golang.org/x/sync/errgroup"
)

// TestEditorsApart serves three editors at once from one claude-acp
// -listen, over each transport: one speaks v1 and declares notices and
// goose's custom notifications, one speaks v1 and declares neither, one
// speaks v2. Each opens two sessions and prompts two turns in each, all
// at the same time, against a Claude Code that warns of a rate limit in
// every turn. Each must get exactly what it declared, in its own
// version: the warning as a notice or as agent text, goose's usage
// updates or none, v2's state updates or none; and none may reach
// another's session. With one set of client capabilities for every
// editor, as before handlers were made per connection, the last editor
// to initialize decided for all.
func TestEditorsApart(t *testing.T) {
	// The CLI's side of a turn in which Claude Code warns of its limit,
	// played twice: a transcript of its output alone, which fakeclaude
	// plays one turn for each prompt, answering control requests itself.
	var turn []string
	for _, r := range readRecords(t, filepath.Join("testdata", "rate-limit-warning.ndjson")) {
		if r.Dir == claudetest.DirOut && !strings.HasPrefix(claudetest.Kind([]byte(r.Line)), "control_") {
			turn = append(turn, r.Line)
		}
	}
	transcript := filepath.Join(t.TempDir(), "warning-twice.jsonl")
	if err := os.WriteFile(transcript, []byte(strings.Repeat(strings.Join(turn, "\n")+"\n", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	l := listen(t, transcript)
	for transport, dial := range dials(t, l.url) {
		t.Run(transport, func(t *testing.T) {
			editors := []*apartEditor{
				{name: "v1 with notices and goose", notices: true, goose: true},
				{name: "v1 without", version: 1},
				{name: "v2", version: 2},
			}
			editors[0].version = 1
			for _, e := range editors {
				e.idle = map[string]chan struct{}{}
				e.conn = e.connect(t, dial)
			}
			var g errgroup.Group
			for _, e := range editors {
				g.Go(func() error { return e.play(t) })
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, e := range editors {
				e.check(t)
			}
			// No editor reaches another's session.
			for i, e := range editors {
				other := editors[(i+1)%len(editors)]
				_, err := acp.SessionPrompt.Call(testwait.Context(t), other.conn, acp.PromptParams{SessionID: e.sessions[0], Prompt: acp.ContentBlocks{acp.TextContent{Text: "hi"}}})
				if !errors.Is(err, acp.ErrResourceNotFound) && !errors.Is(err, acp.ErrInvalidRequest) {
					t.Errorf("the %s editor prompting the %s editor's session: %v, want it refused", other.name, e.name, err)
				}
			}
		})
	}
	l.stop(t)
}

// apartEditor is one editor of TestEditorsApart, and what it got.
type apartEditor struct {
	name           string
	version        int
	notices, goose bool
	conn           *acp.Conn
	sessions       []string

	mu                             sync.Mutex
	noticeUpdates, gooseUpdates    int
	warningTexts, states, unknowns int
	idle                           map[string]chan struct{} // a v2 session's idle states
}

func (e *apartEditor) connect(t *testing.T, dial func(acp.Handler, *acphttp.DialOptions) (*acp.Conn, error)) *acp.Conn {
	t.Helper()
	var m acp.Methods
	count := func(f func()) { e.mu.Lock(); f(); e.mu.Unlock() }
	if e.version == 2 {
		acpv2.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acpv2.SessionNotification) {
			count(func() {
				switch u := n.Update.(type) {
				case acpv2.SessionStateUpdate:
					e.states++
					if _, ok := u.State.(acpv2.IdleStateUpdate); ok && e.idle[n.SessionID] != nil {
						e.idle[n.SessionID] <- struct{}{}
					}
				case acpv2.UnknownUpdate:
					e.unknowns++
				case acpv2.AgentMessageChunk:
					if tc, ok := u.Content.(acpv2.TextContent); ok && strings.Contains(tc.Text, "% of your") {
						e.warningTexts++
					}
				case acpv2.Notice:
					e.noticeUpdates++
				}
			})
		})
	} else {
		acp.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
			count(func() {
				switch u := n.Update.(type) {
				case acp.Notice:
					e.noticeUpdates++
				case acp.UnknownUpdate:
					e.unknowns++
				case acp.AgentMessageChunk:
					if tc, ok := u.Content.(acp.TextContent); ok && strings.Contains(tc.Text, "% of your") {
						e.warningTexts++
					}
				}
			})
		})
	}
	goose.SessionUpdate.Handle(&m, func(context.Context, *acp.Conn, goose.SessionNotification) {
		count(func() { e.gooseUpdates++ })
	})
	conn, err := dial(m, withToken())
	if err != nil {
		t.Fatalf("the %s editor: %v", e.name, err)
	}
	t.Cleanup(func() {
		conn.Close()
		testwait.Do(t, "the connection to end", func() { conn.Wait() })
	})
	ctx := testwait.Context(t)
	if e.version == 2 {
		_, err = acpv2.Initialize.Call(ctx, conn, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: e.name, Version: "1"}})
	} else {
		caps := acp.ClientCapabilities{}
		if e.notices {
			caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
		}
		if e.goose {
			caps.Meta = json.RawMessage(`{"goose":{"customNotifications":true}}`)
		}
		_, err = acp.Initialize.Call(ctx, conn, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps})
	}
	if err != nil {
		t.Fatalf("the %s editor: initialize: %v", e.name, err)
	}
	return conn
}

// play opens two sessions and prompts two turns in each, the sessions at
// the same time.
func (e *apartEditor) play(t *testing.T) error {
	ctx := testwait.Context(t)
	var g errgroup.Group
	var mu sync.Mutex
	for range 2 {
		g.Go(func() error {
			var id string
			if e.version == 2 {
				s, err := acpv2.SessionNew.Call(ctx, e.conn, acpv2.NewSessionParams{Cwd: t.TempDir()})
				if err != nil {
					return fmt.Errorf("the %s editor: session/new: %w", e.name, err)
				}
				id = s.SessionID
				e.mu.Lock()
				e.idle[id] = make(chan struct{}, 4)
				e.mu.Unlock()
			} else {
				s, err := acp.SessionNew.Call(ctx, e.conn, acp.NewSessionParams{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
				if err != nil {
					return fmt.Errorf("the %s editor: session/new: %w", e.name, err)
				}
				id = s.SessionID
			}
			mu.Lock()
			e.sessions = append(e.sessions, id)
			mu.Unlock()
			for turn := range 2 {
				if err := e.prompt(ctx, id); err != nil {
					return fmt.Errorf("the %s editor: turn %d: %w", e.name, turn+1, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// prompt plays one turn, to its end: v1's response, or v2's idle state.
func (e *apartEditor) prompt(ctx context.Context, id string) error {
	if e.version == 1 {
		r, err := acp.SessionPrompt.Call(ctx, e.conn, acp.PromptParams{SessionID: id, Prompt: acp.ContentBlocks{acp.TextContent{Text: "Say hello."}}})
		if err == nil && r.StopReason != acp.StopReasonEndTurn {
			err = fmt.Errorf("stop reason %s", r.StopReason)
		}
		return err
	}
	e.mu.Lock()
	idle := e.idle[id]
	e.mu.Unlock()
	if _, err := acpv2.SessionPrompt.Call(ctx, e.conn, acpv2.PromptParams{SessionID: id, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: "Say hello."}}}); err != nil {
		return err
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the turn's idle state: %w", context.Cause(ctx))
	}
}

// check compares what the editor got with what it declared: four turns,
// each warning once.
func (e *apartEditor) check(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	wantNotices, wantTexts, wantGoose := 0, 4, 0
	if e.notices || e.version == 2 {
		wantNotices, wantTexts = 4, 0 // v2 editors take notices undeclared
	}
	if e.goose {
		wantGoose = 4
	}
	got := fmt.Sprintf("%d notices, %d warnings as text, %d goose updates, %d unknown updates", e.noticeUpdates, e.warningTexts, e.gooseUpdates, e.unknowns)
	want := fmt.Sprintf("%d notices, %d warnings as text, %d goose updates, 0 unknown updates", wantNotices, wantTexts, wantGoose)
	if got != want {
		t.Errorf("the %s editor got %s; want %s", e.name, got, want)
	}
	if (e.states > 0) != (e.version == 2) {
		t.Errorf("the %s editor got %d v2 state updates", e.name, e.states)
	}
}
