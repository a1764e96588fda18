//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/npmcache"
	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// codexCLI is the real Codex CLI of the release the bridge speaks to,
// installed as codex's own interop tests install it (the same folder of
// the user's cache).
var codexCLI = npmcache.Set{
	Folder:    "codex-" + codex.AppServerVersion,
	Env:       "ACPKIT_CODEX_DIR",
	Packages:  []string{"@openai/codex@" + codex.AppServerVersion},
	Installed: []string{"node_modules/@openai/codex/package.json", "node_modules/.bin/codex"},
}

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
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cwd := t.TempDir()

	cmd := tssdk.Command(t, "testdata/codex-sdk-client.mjs", cwd, filepath.Join(appserver, "mcp-echo.mjs"), agentBin, "-cli", "codex", "-codex", bin)
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "MOCK_OPENAI_API_KEY=sk-test", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("codex-sdk-client.mjs: %v\n%s", err, stderr.String())
		}
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("codex-sdk-client.mjs did not end within two minutes\n%s", stderr.String())
	}
	var got struct {
		Turns      []codexTurn
		Listed     int
		Error      string
		FirstExit  any
		SecondExit any
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("codex-sdk-client.mjs printed %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	if got.Error != "" || got.FirstExit != 0.0 || got.SecondExit != 0.0 {
		t.Errorf("the client failed (%s), or claude-acp exited %v and %v; stderr:\n%s", got.Error, got.FirstExit, got.SecondExit, stderr.String())
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
		t.Errorf("what the SDK's client saw (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
	}
	for name, want := range map[string]string{"cmd-ran.txt": "", "approved.txt": "approved by the client\n"} {
		if b, err := os.ReadFile(filepath.Join(cwd, name)); err != nil || string(b) != want {
			t.Errorf("%s holds %q, %v; want %q", name, b, err, want)
		}
	}
}

// realCodex installs the real Codex CLI, starts the captures' mock of the
// OpenAI API (with appserver's mock-openai.mjs) for the test, and returns
// the CLI's path, a home folder whose .codex/config.toml points the CLI at
// the mock (whose key is MOCK_OPENAI_API_KEY, any value), and appserver,
// the folder of the mock and of the MCP server mcp-echo.mjs. It skips the
// test when the CLI cannot be had, unless ACPKIT_REQUIRE_INTEROP=1.
func realCodex(tb testing.TB) (bin, home, appserver string) {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		interop.Unavailable(tb, "the Codex CLI (its launcher needs node)", err)
	}
	dir, err := codexCLI.Dir()
	if err != nil {
		interop.Unavailable(tb, "the Codex CLI "+codex.AppServerVersion, err)
	}
	appserver, err = filepath.Abs(filepath.Join("..", "..", "codex", "testdata", "appserver"))
	if err != nil {
		tb.Fatal(err)
	}
	port := startMockOpenAI(tb, filepath.Join(appserver, "mock-openai.mjs"))
	home = tb.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		tb.Fatal(err)
	}
	config := `model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "Mock OpenAI"
base_url = "http://127.0.0.1:` + port + `/v1"
wire_api = "responses"
env_key = "MOCK_OPENAI_API_KEY"
`
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(dir, "node_modules", ".bin", "codex"), home, appserver
}

// startMockOpenAI starts the captures' mock of the OpenAI API on loopback
// and returns its port; it is stopped when the test ends.
func startMockOpenAI(t testing.TB, script string) string {
	t.Helper()
	mock := exec.Command("node", script)
	mock.Env = append(os.Environ(), "MOCK_PORT=0", "MOCK_DELAY_MS=20")
	out, err := mock.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := mock.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mock.Process.Kill()
		mock.Wait()
	})
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("the mock said nothing: %v", lines.Err())
	}
	_, addr, ok := strings.Cut(lines.Text(), "listening on 127.0.0.1:")
	if !ok {
		t.Fatalf("the mock said %q", lines.Text())
	}
	port, _, _ := strings.Cut(addr, " ")
	go io.Copy(io.Discard, out) // the mock must never block on a full pipe
	return port
}
