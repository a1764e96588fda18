package bridge_test

import (
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
