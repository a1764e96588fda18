package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
)

// This file holds the harness of the tests of what issue 32 added for
// Claude Code (sign-in, effort, questions, forks, command output,
// subagents): an Agent whose CLI is claudetest's fake replaying a
// transcript recorded from the real CLI (../claude/testdata/capture), and
// an editor that records what it sees, joined in memory. Each test runs
// it inside a testing/synctest bubble.

// capture returns the path of a transcript recorded for issue 32.
func capture(name string) string {
	return filepath.Join("..", "claude", "testdata", "capture", name+".ndjson")
}

// featureEditor is the editor's side: it records every update and every
// question, and answers permission questions and elicitations with the
// functions it is given (allow, and accept with no content, when nil).
type featureEditor struct {
	mu    sync.Mutex
	lines []string

	permission  func(p acp.RequestPermissionParams) acp.RequestPermissionResult
	elicitation func(ctx context.Context, p acp.CreateElicitationParams) (acp.CreateElicitationResult, error)
}

func (f *featureEditor) add(kind string, v any) {
	b, _ := json.Marshal(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, kind+" "+string(b))
}

// seen returns what the editor saw, one line each.
func (f *featureEditor) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

// seenOf returns what the editor saw of the kinds named.
func (f *featureEditor) seenOf(prefixes ...string) []string {
	var out []string
	for _, l := range f.seen() {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

func (f *featureEditor) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(ctx context.Context, c *acp.Conn, n acp.SessionNotification) {
		f.add("update", n)
	})
	acp.SessionRequestPermission.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
		f.add("permission", p)
		if f.permission == nil {
			return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: "allow"}}, nil
		}
		return f.permission(p), nil
	})
	acp.ElicitationCreate.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.CreateElicitationParams) (acp.CreateElicitationResult, error) {
		f.add("elicitation", p)
		if f.elicitation == nil {
			return acp.CreateElicitationResult{Action: acp.ElicitationAccept}, nil
		}
		return f.elicitation(ctx, p)
	})
	return m
}

// featureEnv is an Agent whose CLI is Claude Code's fake, and an editor
// connected to it over v1.
type featureEnv struct {
	t      *testing.T
	a      *bridge.Agent
	ed     *featureEditor
	client *acp.Conn
	init   acp.InitializeResult
	args   [][]string
	closed func() error
}

// newFeatureEnv starts an Agent configured by cfg whose CLI replays
// transcript, and an editor ed that declares caps and initializes.
func newFeatureEnv(t *testing.T, transcript string, cfg bridge.Config, ed *featureEditor, caps acp.ClientCapabilities) *featureEnv {
	t.Helper()
	e := &featureEnv{t: t, ed: ed}
	if cfg.Start == nil {
		cfg.Start = fakeClaude.starter(transcript, &e.args)
	}
	cfg.Clock = bubbleClock{}
	if cfg.NewSessionID == nil {
		cfg.NewSessionID = func() string { return "11111111-2222-4333-8444-555555555555" }
	}
	a, err := bridge.NewAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.a = a
	client, _, closePair := acptest.NewPair(context.Background(), ed.methods(), a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
	e.client, e.closed = client, closePair
	e.init, err = acp.Initialize.Call(bg, client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// close closes the Agent and the connection.
func (e *featureEnv) close() {
	e.a.Close()
	if err := e.closed(); err != nil {
		e.t.Error(err)
	}
}

func (e *featureEnv) newSession() string {
	e.t.Helper()
	res, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.SessionID
}

func (e *featureEnv) prompt(sid, text string) (acp.PromptResult, error) {
	return acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextContent{Text: text}}})
}

// errorOf returns the *acp.Error of err and its data, failing the test
// when it is not one.
func errorOf(t *testing.T, err error) (*acp.Error, bridge.ErrorData) {
	t.Helper()
	var e *acp.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *acp.Error", err)
	}
	var data bridge.ErrorData
	json.Unmarshal(e.Data, &data)
	return e, data
}
