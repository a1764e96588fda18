package bridge_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
)

// TestSubagent plays a turn of the real Claude Code 2.1.328 that runs a
// subagent (an Agent call), and compares what the editor saw with
// testdata/features/subagent.golden: the subagent's thinking and text
// inside its Agent call's content, in order, as they come; its Bash call
// and result as calls of their own whose _meta names the Agent call
// (claudeCode.parentToolUseId); the Agent call's result after its
// subagent's words; then the main agent's text.
func TestSubagent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ed := &featureEditor{}
		e := newFeatureEnv(t, capture("subagent"), bridge.Config{Model: "sonnet"}, ed, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		synctest.Wait()
		_, err := e.prompt(sid, "Ask a subagent.")
		must(t, err)
		var turn []string
		for _, l := range ed.seenOf("update") {
			if strings.Contains(l, `"sessionUpdate":"tool_call`) || strings.Contains(l, `"sessionUpdate":"agent_message_chunk"`) {
				turn = append(turn, l)
			}
		}
		checkGolden(t, filepath.Join("testdata", "features", "subagent.golden"), strings.Join(turn, "\n")+"\n")
	})
}

// TestSubagentChildren shows Claude Code's subagents to an editor that
// declared clientCapabilities.subagents, live and on session/load, and
// compares what it saw with the golden files: each Task call's subagent
// in a child session of its own, announced on the parent by a
// subagent_update before anything of the child's; the child's prompt,
// text, thinking and tool calls on the child, in order; the Task call on
// the parent, naming the child, with its result alone; the child idle at
// the Task's end. An editor without the capability sees what it saw
// before (TestSubagent, TestLoad's goldens).
func TestSubagentChildren(t *testing.T) {
	tests := []struct {
		name     string
		scenario string // the captured store, for a load; "" for a live turn
		id, cwd  string
	}{
		{name: "live"},
		{name: "load", scenario: "subagent", id: "6d0706c6-94f5-4004-a4aa-42746a618990", cwd: "/tmp/cc-store/subagent/work"},
		{name: "load-background", scenario: "background-agent", id: "b7e2a9c4-5d1f-4e6a-8b3c-2f9d0e1a7c65", cwd: "/tmp/cc-store/background-agent/work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ed := &featureEditor{}
				cfg := bridge.Config{Model: "sonnet"}
				if tt.scenario != "" {
					cfg.Store = capturedStore(t, bridge.Claude, tt.scenario)
				}
				caps := acp.ClientCapabilities{Subagents: &acp.SubagentCapabilities{}}
				e := newFeatureEnv(t, capture("subagent"), cfg, ed, caps)
				defer e.close()
				sid := tt.id
				if tt.scenario == "" {
					sid = e.newSession()
					synctest.Wait()
					_, err := e.prompt(sid, "Ask a subagent.")
					must(t, err)
				} else {
					_, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: sid, Cwd: tt.cwd, MCPServers: []acp.MCPServer{}})
					must(t, err)
					synctest.Wait()
				}
				var seen []string
				for _, l := range ed.seenOf("update") {
					if !strings.Contains(l, `"sessionUpdate":"available_commands_update"`) && !strings.Contains(l, `"sessionUpdate":"config_option_update"`) &&
						!strings.Contains(l, `"sessionUpdate":"usage_update"`) {
						seen = append(seen, l)
					}
				}
				children := checkAnnounced(t, sid, seen)
				if len(children) == 0 {
					t.Errorf("no child session in %q", seen)
				}
				checkGolden(t, filepath.Join("testdata", "features", "subagent-children-"+tt.name+".golden"), strings.Join(seen, "\n")+"\n")
				for _, child := range children {
					checkRestricted(t, e, child)
				}
			})
		})
	}
}

// checkAnnounced checks that each update on a session other than parent
// came after a subagent_update on parent announced it, and returns the
// children announced.
func checkAnnounced(t *testing.T, parent string, lines []string) []string {
	t.Helper()
	announced := map[string]bool{}
	var children []string
	for _, l := range lines {
		var n acp.SessionNotification
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "update ")), &n); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if su, ok := n.Update.(acp.SubagentUpdate); ok {
			if n.SessionID != parent {
				t.Errorf("subagent_update on %s, want the parent %s", n.SessionID, parent)
			}
			if !announced[su.SessionID] {
				announced[su.SessionID] = true
				children = append(children, su.SessionID)
			}
			continue
		}
		if n.SessionID != parent && !announced[n.SessionID] {
			t.Errorf("update on %s before its announcement: %s", n.SessionID, l)
		}
	}
	return children
}

// checkRestricted checks that an editor cannot use a child session as a
// session of its own.
func checkRestricted(t *testing.T, e *featureEnv, child string) {
	t.Helper()
	calls := map[string]error{}
	_, calls["session/prompt"] = acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: child, Prompt: []acp.ContentBlock{acp.TextContent{Text: "hi"}}})
	_, calls["session/load"] = acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: child, Cwd: "/work", MCPServers: []acp.MCPServer{}})
	_, calls["session/resume"] = acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: child, Cwd: "/work"})
	_, calls["session/set_mode"] = acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: child, ModeID: "default"})
	_, calls["session/close"] = acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: child})
	for method, err := range calls {
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams && ae.Code != acp.CodeResourceNotFound {
			t.Errorf("%s on the child session %s: %v, want -32602 or -32002", method, child, err)
		}
	}
	list, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{})
	must(t, err)
	for _, s := range list.Sessions {
		if s.SessionID == child {
			t.Errorf("session/list lists the child session %s", child)
		}
	}
}
