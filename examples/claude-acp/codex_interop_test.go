//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/realcodex"
	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// codexTurn is what testdata/codex-sdk-client.mjs saw of a turn.
type codexTurn struct {
	Label string
	Stop  string
	Error *struct {
		Code     int
		Kind     string
		ResetsAt bool
	}
	Text        string
	Tools       []string
	Asked       []string
	Usage       bool
	UsageUpdate bool
}

// TestCodexRealCLI drives `claude-acp -cli codex` in front of the real
// Codex CLI (its app-server, against the captures' mock of the OpenAI API
// on loopback) with the official TypeScript SDK's client: a plain turn, a
// command approved and one rejected, a file change approved, a turn
// interrupted then a normal one, a usage limit, an MCP server from
// session/new whose tool is called, and, in a new claude-acp, the first
// session found in session/list and resumed. It skips only when the CLI,
// node or the SDK cannot be had, unless ACPKIT_REQUIRE_INTEROP=1.
func TestCodexRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real CLI")
	}
	bin, home, appserver := realCodex(t)
	tssdk.Dir(t)
	cwd := t.TempDir()

	cmd := tssdk.Command(t, "testdata/codex-sdk-client.mjs", cwd, filepath.Join(appserver, "mcp-echo.mjs"), agentBin, "-cli", "codex", "-codex", bin)
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), realcodex.KeyEnv+"=sk-test", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	stdout, stderr := runScript(t, cmd)
	var got struct {
		Turns      []codexTurn
		Listed     int
		Error      string
		FirstExit  any
		SecondExit any
	}
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("codex-sdk-client.mjs printed %q: %v\n%s", stdout, err, stderr)
	}
	if got.Error != "" || got.FirstExit != 0.0 || got.SecondExit != 0.0 {
		t.Errorf("the client failed (%s), or claude-acp exited %v and %v; stderr:\n%s", got.Error, got.FirstExit, got.SecondExit, stderr)
	}
	const hello = "Hello from the mock server. 2 + 2 = 4."
	command := "touch cmd-ran.txt && echo ran"
	want := []codexTurn{
		{Label: "plain", Stop: "end_turn", Text: hello, Tools: []string{}, Asked: []string{}, Usage: true, UsageUpdate: true},
		{Label: "command approved", Stop: "end_turn", Text: "The command ran and printed: ran",
			Tools: []string{"completed " + command + ": ran"},
			Asked: []string{"execute " + command + " [Do you want me to create cmd-ran.txt in the workspace?\n$ /bin/bash -lc '" + command + "'\nin " + cwd + "] -> allow_once"},
			Usage: true, UsageUpdate: true},
		{Label: "command rejected", Stop: "end_turn", Text: "The command was not run: it was declined.",
			Tools: []string{"failed " + command},
			Asked: []string{"execute " + command + " [Do you want me to create cmd-ran.txt in the workspace?\n$ /bin/bash -lc '" + command + "'\nin " + cwd + "] -> reject_once"},
			Usage: true, UsageUpdate: true},
		{Label: "file change approved", Stop: "end_turn", Text: "Created approved.txt.",
			Tools: []string{"completed Edit " + filepath.Join(cwd, "approved.txt")},
			Asked: []string{`edit Edit ` + filepath.Join(cwd, "approved.txt") + ` [diff approved.txt: "approved by the client\n"] -> allow_once`},
			Usage: true, UsageUpdate: true},
		{Label: "interrupted", Stop: "cancelled", Tools: []string{}, Asked: []string{}},
		{Label: "after the interrupt", Stop: "end_turn", Text: hello, Tools: []string{}, Asked: []string{}, Usage: true, UsageUpdate: true},
		{Label: "usage limit", Error: &struct {
			Code     int
			Kind     string
			ResetsAt bool
		}{-32603, "rate_limit", true}, Tools: []string{}, Asked: []string{}, UsageUpdate: true},
		{Label: "mcp", Stop: "end_turn", Tools: []string{"completed echo: echo: echo: hello mcp"}, Asked: []string{}, Usage: true, UsageUpdate: true},
		{Label: "resumed", Stop: "end_turn", Text: hello, Tools: []string{}, Asked: []string{}, Usage: true, UsageUpdate: true},
	}
	// The MCP turn's answer quotes the tool's output with the CLI's
	// wall time, which changes from run to run.
	for i := range got.Turns {
		if got.Turns[i].Label == "mcp" {
			if !strings.Contains(got.Turns[i].Text, "echo: hello mcp") {
				t.Errorf("the MCP turn's answer %q does not quote the tool's output", got.Turns[i].Text)
			}
			got.Turns[i].Text = ""
		}
	}
	if diff := cmp.Diff(want, got.Turns); diff != "" {
		t.Errorf("what the SDK's client saw (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
	for name, want := range map[string]string{"cmd-ran.txt": "", "approved.txt": "approved by the client\n"} {
		if b, err := os.ReadFile(filepath.Join(cwd, name)); err != nil || string(b) != want {
			t.Errorf("%s holds %q, %v; want %q", name, b, err, want)
		}
	}
}

// realCodex installs the real Codex CLI, starts the captures' mock of the
// OpenAI API (appserver's mock-openai.mjs) for the test, and returns the
// CLI's path, a home folder whose configuration points the CLI at the
// mock (the key realcodex.KeyEnv, any value), and appserver, the folder of
// the mock and of the MCP server mcp-echo.mjs. It skips the test when the
// CLI cannot be had, unless ACPKIT_REQUIRE_INTEROP=1.
func realCodex(tb testing.TB) (bin, home, appserver string) {
	tb.Helper()
	bin = realcodex.Binary(tb, codex.AppServerVersion)
	appserver, err := filepath.Abs(filepath.Join("..", "..", "codex", "testdata", "appserver"))
	if err != nil {
		tb.Fatal(err)
	}
	port := realcodex.StartMock(tb, filepath.Join(appserver, "mock-openai.mjs"), "MOCK_DELAY_MS=20")
	return bin, realcodex.Home(tb, port), appserver
}
