//go:build unix

package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// cliArgs are claude-acp's flags that serve the sessions with cli, one
// of -cli's, run from bin.
func cliArgs(cli, bin string) []string {
	path := cli
	if cli == "gemini-headless" {
		path = "gemini"
	}
	return []string{"-cli", cli, "-" + path, bin}
}

// TestACPAgents runs claude-acp with -cli gemini, Gemini CLI's ACP mode,
// and with -cli acp, any ACP agent, against fakegemini --acp replaying a
// capture of the real CLI (gemini/testdata/acp) in which a command asks
// permission: the tool call is announced before its question, and the
// answer reaches the agent. The golden files hold every line the editor
// got.
func TestACPAgents(t *testing.T) {
	transcript := filepath.Join("..", "..", "gemini", "testdata", "acp", "permission-allow.ndjson")
	tests := []struct {
		name string
		args []string
	}{
		{"gemini-acp-permission", cliArgs("gemini", fakegeminiBin)},
		{"acp-agent-permission", []string{"-cli", "acp", "-agent", fakegeminiBin + " --acp", "-agent-name", "Some agent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEditor(t, fakeclaudeBin, transcript, tt.args...)
			e.initialize(capabilities{notices: true})
			e.answer(answerAllow)
			e.prompt(e.newSession(), "Create made-by-shell.txt with touch.")
			e.p.stdin.Close()
			if err := e.p.wait(); err != nil {
				t.Errorf("claude-acp exit: %v; want status 0", err)
			}
			checkGolden(t, filepath.Join("testdata", tt.name+".golden"), e.transcript())
		})
	}
}

// TestAgentFlags checks that -cli acp without -agent, or with what
// -agent-takes does not know, is refused with status 2.
func TestAgentFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-cli", "acp"},
		{"-cli", "acp", "-agent", "x", "-agent-takes", "image,video"},
	} {
		p := startAgent(t, fakeclaudeBin, "none", args...)
		var exit *exec.ExitError
		if err := p.wait(); !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("claude-acp %q: %v, want status 2", args, err)
		}
	}
}
