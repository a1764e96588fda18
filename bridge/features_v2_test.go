package bridge_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
)

// v2Editor is a v2 editor that takes forms: it records the updates and
// the forms it gets, and accepts each form with answer.
type v2Editor struct {
	mu     sync.Mutex
	texts  strings.Builder
	idle   int
	forms  []acpv2.CreateElicitationParams
	answer json.RawMessage
}

func (v *v2Editor) methods() acp.Methods {
	var m acp.Methods
	acpv2.SessionUpdate.Handle(&m, func(ctx context.Context, c *acp.Conn, n acpv2.SessionNotification) {
		v.mu.Lock()
		defer v.mu.Unlock()
		switch u := n.Update.(type) {
		case acpv2.AgentMessageChunk:
			if t, ok := u.Content.(acpv2.TextContent); ok {
				v.texts.WriteString(t.Text)
			}
		case acpv2.SessionStateUpdate:
			if _, ok := u.State.(acpv2.IdleStateUpdate); ok {
				v.idle++
			}
		}
	})
	acpv2.ElicitationCreate.Handle(&m, func(ctx context.Context, c *acp.Conn, p acpv2.CreateElicitationParams) (acpv2.CreateElicitationResult, error) {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.forms = append(v.forms, p)
		return acpv2.CreateElicitationResult{Action: acpv2.ElicitationAccept, Content: v.answer}, nil
	})
	return m
}

// TestFeaturesV2 checks issue 32's features over ACP v2, against
// sessions of the real Claude Code 2.1.328: a question asked as a form
// (v2's elicitation/create, to an editor that declared forms) whose
// answer reaches the model, and a fork (v2's session/fork) whose turn
// holds the source's prompt.
func TestFeaturesV2(t *testing.T) {
	tests := []struct {
		name       string
		transcript func(args []string) string
		fork       bool
		want       string
	}{
		{"form", func([]string) string { return capture("ask-user-accept") }, false,
			`The answer came back: Your questions have been answered: "Which language should the script use?"="Go". You can now continue with these answers in mind.`},
		{"fork", func(args []string) string {
			if slices.Contains(args, "--fork-session") {
				return capture("fork-forked")
			}
			return capture("fork")
		}, true, "This conversation holds 1 prompt(s); effort medium." + "This conversation holds 2 prompt(s); effort medium."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ids := []string{"5f0c3a4e-7d21-4c8b-9a61-2e4f8b0d1c11", "9b2d6e18-3c47-4f5a-8e90-1a7c5d3f2b22"}
				var args [][]string
				a, err := bridge.NewAgent(bridge.Config{
					Model: "sonnet", Clock: bubbleClock{},
					NewSessionID: func() string { // sessions' ids, then the v2 renderer's nonces
						if len(ids) == 0 {
							return "0c0ffee0-0000-4000-8000-000000000000"
						}
						id := ids[0]
						ids = ids[1:]
						return id
					},
					Start: func(dir string, arg []string) (bridge.Process, error) {
						return fakeClaude.starter(tt.transcript(arg), &args)(dir, arg)
					},
				})
				must(t, err)
				ed := &v2Editor{answer: json.RawMessage(`{"question_0":"Go"}`)}
				client, _, closePair := acptest.NewPair(bg, ed.methods(), a.Handler(bridge.Editor{}), nil)
				defer func() {
					a.Close()
					must(t, closePair())
				}()
				init, err := acpv2.Initialize.Call(bg, client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"},
					Capabilities: &acpv2.ClientCapabilities{Elicitation: &acpv2.ElicitationCapabilities{Form: &acpv2.ElicitationFormCapabilities{}}}})
				must(t, err)
				if init.Capabilities.Session.Fork == nil {
					t.Error("v2 initialize does not advertise session/fork")
				}
				s, err := acpv2.SessionNew.Call(bg, client, acpv2.NewSessionParams{Cwd: "/work"})
				must(t, err)
				prompt := func(sid, text string) {
					t.Helper()
					_, err := acpv2.SessionPrompt.Call(bg, client, acpv2.PromptParams{SessionID: sid, Prompt: []acpv2.ContentBlock{acpv2.TextContent{Text: text}}})
					must(t, err)
					synctest.Wait() // the turn runs to its idle state
				}
				prompt(s.SessionID, "Go on.")
				if tt.fork {
					f, err := acpv2.SessionFork.Call(bg, client, acpv2.ForkSessionParams{SessionID: s.SessionID, Cwd: "/work"})
					must(t, err)
					prompt(f.SessionID, "What do you hold?")
				}
				ed.mu.Lock()
				defer ed.mu.Unlock()
				if got := ed.texts.String(); got != tt.want {
					t.Errorf("agent text %q, want %q", got, tt.want)
				}
				if !tt.fork && (len(ed.forms) != 1 || ed.forms[0].Mode != "form" || ed.forms[0].SessionID != s.SessionID) {
					t.Errorf("forms %+v, want one tied to the session", ed.forms)
				}
			})
		})
	}
}
