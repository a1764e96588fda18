package bridge_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
)

// TestSlashCommands plays a session of the real Claude Code 2.1.328 that
// runs /context and /cost, whose output the CLI prints as a synthetic
// assistant message: the editor gets it as agent text. The commands that
// work only in the CLI's own terminal (the init line's
// terminal_slash_commands) are not offered, and one typed anyway is
// refused saying so, where the CLI would hand it to the model.
func TestSlashCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ed := &featureEditor{}
		e := newFeatureEnv(t, capture("commands"), bridge.Config{Model: "sonnet"}, ed, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		synctest.Wait()

		var texts []string
		for _, cmd := range []string{"/context", "/cost"} {
			before := agentTexts(ed)
			res, err := e.prompt(sid, cmd)
			must(t, err)
			if res.StopReason != acp.StopReasonEndTurn {
				t.Errorf("%s: stop reason %s", cmd, res.StopReason)
			}
			texts = append(texts, strings.TrimPrefix(agentTexts(ed), before))
		}
		if !strings.HasPrefix(texts[0], "## Context Usage\n\n**Model:** claude-sonnet-5-5") || !strings.Contains(texts[0], "| System prompt |") {
			t.Errorf("/context showed %q", texts[0])
		}
		if !strings.HasPrefix(texts[1], "Estimated cost:        $0.0000\n") {
			t.Errorf("/cost showed %q", texts[1])
		}

		_, err := e.prompt(sid, "/doctor")
		if ae, _ := errorOf(t, err); ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, "/doctor works only in Claude Code's own terminal") {
			t.Errorf("/doctor: %v, want -32602 saying it works only in the terminal", err)
		}

		var last []string
		for _, l := range ed.seenOf("update") {
			var n acp.SessionNotification
			json.Unmarshal([]byte(strings.TrimPrefix(l, "update ")), &n)
			if u, ok := n.Update.(acp.AvailableCommandsUpdate); ok {
				last = nil
				for _, c := range u.AvailableCommands {
					last = append(last, c.Name)
				}
			}
		}
		if !slices.Contains(last, "context") {
			t.Errorf("commands offered %q, want context among them", last)
		}
		for _, terminal := range []string{"doctor", "color", "focus", "reload-plugins"} {
			if slices.Contains(last, terminal) {
				t.Errorf("the terminal-only command %s is offered", terminal)
			}
		}
	})
}
