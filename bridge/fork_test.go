package bridge_test

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// TestFork plays a fork of a session of the real Claude Code 2.1.328:
// a turn in session A; session/fork of A, a new session B whose CLI
// resumes A as a copy named B (--resume A --fork-session
// --session-id B); a turn in B that holds A's prompt too (the mock counts
// the prompts of each request). A's CLI is left as it was, and
// session/list lists both.
func TestFork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const a, b = "5f0c3a4e-7d21-4c8b-9a61-2e4f8b0d1c11", "9b2d6e18-3c47-4f5a-8e90-1a7c5d3f2b22"
		ids := []string{a, b}
		ed := &featureEditor{}
		var args [][]string
		starts := map[bool]bridge.Starter{false: fakeClaude.starter(capture("fork"), &args), true: fakeClaude.starter(capture("fork-forked"), &args)}
		cfg := bridge.Config{
			Model: "sonnet",
			NewSessionID: func() string {
				id := ids[0]
				ids = ids[1:]
				return id
			},
			Start: func(dir string, arg []string) (bridge.Process, error) {
				return starts[slices.Contains(arg, "--fork-session")](dir, arg)
			},
		}
		e := newFeatureEnv(t, "", cfg, ed, acp.ClientCapabilities{})
		defer e.close()
		if e.init.AgentCapabilities.SessionCapabilities.Fork == nil {
			t.Error("initialize does not advertise session/fork")
		}
		if sid := e.newSession(); sid != a {
			t.Fatalf("session %s, want %s", sid, a)
		}
		_, err := e.prompt(a, "Remember this.")
		must(t, err)

		res, err := acp.SessionFork.Call(bg, e.client, acp.ForkSessionParams{SessionID: a, Cwd: "/work"})
		must(t, err)
		if res.SessionID != b || len(res.ConfigOptions) == 0 {
			t.Errorf("fork answered %+v, want session %s with its options", res, b)
		}
		_, err = e.prompt(b, "What do you hold?")
		must(t, err)

		want := "This conversation holds 1 prompt(s); effort medium." + "This conversation holds 2 prompt(s); effort medium."
		if got := agentTexts(ed); got != want {
			t.Errorf("agent text %q, want %q", got, want)
		}
		wantArgs := [][]string{
			{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-prompt-tool", "stdio", "--model=sonnet", "--include-partial-messages", "--session-id=" + a},
			{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-prompt-tool", "stdio", "--resume=" + a, "--fork-session", "--model=sonnet", "--include-partial-messages", "--session-id=" + b},
		}
		if diff := cmp.Diff(wantArgs, args); diff != "" {
			t.Errorf("the CLIs started (-want +got):\n%s", diff)
		}
		list, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{})
		must(t, err)
		var listed []string
		for _, s := range list.Sessions {
			listed = append(listed, s.SessionID)
		}
		slices.Sort(listed)
		if diff := cmp.Diff([]string{a, b}, listed); diff != "" {
			t.Errorf("session/list (-want +got):\n%s", diff)
		}
		_, err = acp.SessionFork.Call(bg, e.client, acp.ForkSessionParams{SessionID: a, Cwd: "relative"})
		if ae, _ := errorOf(t, err); ae.Code != acp.CodeInvalidParams {
			t.Errorf("a fork into a relative cwd: %v, want -32602", err)
		}
	})
}
