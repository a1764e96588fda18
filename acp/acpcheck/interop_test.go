//go:build unix

package acpcheck_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/npmcache"
)

// This file runs the suite against real agents that install from npm and
// run offline: the official SDK's example agent, which needs no model,
// and three that run a coding CLI against a mock of its model's API on
// loopback (the mocks of the CLI packages' testdata). Their results are in RESULTS.md; each test
// checks that the agent fails what RESULTS.md says, and no more.
//
// The SDK's example agent runs by default (about 15 s, mostly its own
// sleeps). The three CLIs take a minute or more of both cores each, more
// than the whole test run may: they run when ACPKIT_INTEROP_AGENTS=1 is
// set (.ci/run runs them in a step of their own), one at a time: each starts a dozen CLI
// processes, which time out when they share two cores with others.

// The packages, pinned. The SDK ships its example agent until 1.9.0.
var (
	sdkExample     = npmSet("acpcheck-sdk-1.9.0", "@agentclientprotocol/sdk@1.9.0")
	claudeAgentACP = npmSet("acpcheck-claude-agent-acp-0.101.0", "@agentclientprotocol/claude-agent-acp@0.101.0")
	codexACP       = npmSet("acpcheck-codex-acp-2.6.0", "@agentclientprotocol/codex-acp@2.6.0")
	geminiCLI      = npmSet("acpcheck-gemini-cli-0.61.0", "@google/gemini-cli@0.61.0")
)

func npmSet(folder, pkg string) *npmcache.Set {
	name := pkg[:strings.LastIndex(pkg, "@")]
	return &npmcache.Set{Folder: folder, Packages: []string{pkg}, Installed: []string{"node_modules/" + name + "/package.json"}}
}

// installed returns the folder of set's node_modules, installing it, or
// ends the test when it cannot (interop.Unavailable).
func installed(t *testing.T, set *npmcache.Set) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		interop.Unavailable(t, "node, to run the agent", err)
	}
	dir, err := set.Dir()
	if err != nil {
		interop.Unavailable(t, strings.Join(set.Packages, " "), err)
	}
	return dir
}

// realFailures are the checks each real agent fails, as RESULTS.md
// reports them.
var realFailures = map[string][]string{
	"sdk-example": {
		"framing.ids", "initialize.agent-info", "session.cwd-absolute",
		"capability.prompt-image-unadvertised", "capability.prompt-audio-unadvertised",
		"capability.prompt-embeddedContext-unadvertised",
		"capability.mcp-http-unadvertised", "capability.mcp-sse-unadvertised",
		"cancel.permission",
	},
	"claude-agent-acp": {"framing.ids"},
	"codex-acp":        {"framing.ids"},
	"gemini-cli": {
		"framing.ids", "errors.invalid-params", "errors.invalid-params-member", "errors.parse",
		"errors.invalid-request", "session.cwd-absolute", "session.mcp-servers-required", "load.replay",
	},
}

// heavy skips a test of a CLI agent unless ACPKIT_INTEROP_AGENTS=1 asks
// for it, as a step of .ci/run of its own does: it takes a minute or
// more, past the test command's budget.
func heavy(t *testing.T) {
	if os.Getenv("ACPKIT_INTEROP_AGENTS") != "1" {
		t.Skip("a CLI agent's suite takes a minute or more: set ACPKIT_INTEROP_AGENTS=1 to run it")
	}
}

// stderrTail collects the agents' stderr, for a failing test's log.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (s *stderrTail) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	if len(s.buf) > 64<<10 {
		s.buf = s.buf[len(s.buf)-32<<10:]
	}
	return len(p), nil
}

// checkReal compares the report with RESULTS.md's, logging every failure
// and the end of the agents' stderr.
func checkReal(t *testing.T, name string, r acpcheck.Report, stderr *stderrTail) {
	t.Helper()
	defer func() {
		if t.Failed() && stderr != nil {
			stderr.mu.Lock()
			t.Logf("the agents' stderr ends:\n%s", stderr.buf)
			stderr.mu.Unlock()
		}
	}()
	t.Logf("%s: %d passed, %d failed, %d skipped", r.Agent, r.Count(acpcheck.Pass), r.Count(acpcheck.Fail), r.Count(acpcheck.Skip))
	var got []string
	for _, res := range r.Failed("") {
		got = append(got, res.ID)
	}
	want := realFailures[name]
	if strings.Join(sorted(got), " ") != strings.Join(sorted(want), " ") {
		for _, res := range r.Results {
			if res.Outcome != acpcheck.Pass {
				t.Logf("%s %s %s: %s", res.ID, res.Level, res.Outcome, res.Reason)
			}
		}
		t.Errorf("failed checks %v, want those of RESULTS.md: %v", sorted(got), sorted(want))
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// realOptions are the options of a real agent's run: a generous timeout,
// and a long prompt that asks the mock, when there is one, for a slow
// answer.
func realOptions(t *testing.T, slowScenario string) *acpcheck.Options {
	long := acpcheck.DefaultLongPrompt
	if slowScenario != "" {
		long += " MOCK_SCENARIO=" + slowScenario
	}
	return &acpcheck.Options{Cwd: t.TempDir(), Timeout: 2 * time.Minute, LongPrompt: long}
}

// startMock runs the mock model API script, a path under the module's
// root, on a loopback port with env, and returns its base URL; it is
// stopped when the test ends. The mocks are those the CLI packages'
// tests use, copies of the ones the captures were made against.
func startMock(t *testing.T, script string, env ...string) string {
	t.Helper()
	portFile := filepath.Join(t.TempDir(), "port")
	cmd := exec.Command("node", filepath.Join("..", "..", script))
	cmd.Env = append(os.Environ(), append(env, "MOCK_PORT_FILE="+portFile)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(portFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return "http://127.0.0.1:" + string(bytes.TrimSpace(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mock %s wrote no port within 30s: %s", script, stderr.String())
		}
	}
}

func TestSDKExampleAgent(t *testing.T) {
	t.Parallel()
	dir := installed(t, sdkExample)
	cmd := &acpcheckos.Cmd{Path: "node", Args: []string{filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "dist", "examples", "agent.js")}}
	opts := realOptions(t, "")
	opts.Parallel = 16 // its turns mostly sleep
	r, err := acpcheck.Verify(t.Context(), cmd.Target(), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkReal(t, "sdk-example", r, nil)
}

// runCLI runs the suite against a CLI agent started as path with args and
// env, parallel checks at once (0 for the default), its long prompts
// asking the mock for the slow scenario, and checks its failures against
// RESULTS.md's.
func runCLI(t *testing.T, name, path string, args, env []string, parallel int, slowScenario string) {
	t.Helper()
	stderr := &stderrTail{}
	cmd := &acpcheckos.Cmd{Path: path, Args: args, Env: env, Grace: 30 * time.Second, Stderr: stderr}
	opts := realOptions(t, slowScenario)
	opts.Parallel = parallel
	r, err := acpcheck.Verify(t.Context(), cmd.Target(), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkReal(t, name, r, stderr)
}

func TestClaudeAgentACP(t *testing.T) {
	heavy(t)
	dir := installed(t, claudeAgentACP)
	url := startMock(t, "claude/testdata/capture/mock-anthropic.mjs", "MOCK_DELAY_MS=100")
	runCLI(t, "claude-agent-acp", "node", []string{filepath.Join(dir, "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")},
		[]string{"HOME=" + t.TempDir(), "ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-ant-acpcheck",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			// Claude Code refuses to skip its permission checks as root
			// unless it is told it runs in a sandbox, as it does here.
			"IS_SANDBOX=1"},
		0, "slow-text")
}

func TestCodexACP(t *testing.T) {
	heavy(t)
	dir := installed(t, codexACP)
	url := startMock(t, "codex/testdata/appserver/mock-openai.mjs", "MOCK_DELAY_MS=50")
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	config := "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"Mock OpenAI\"\nbase_url = \"" + url + "/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_OPENAI_API_KEY\"\n"
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	// Codex's app-server fails to open its state database in CODEX_HOME
	// ("failed to initialize sqlite state runtime") when several start
	// at once, as they do when the suite's checks run in parallel, even
	// on a CODEX_HOME already made: its checks run one at a time.
	index := filepath.Join(dir, "node_modules", "@agentclientprotocol", "codex-acp", "dist", "index.js")
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "MOCK_OPENAI_API_KEY=sk-acpcheck", "OPENAI_API_KEY=sk-acpcheck"}
	runCLI(t, "codex-acp", "node", []string{index}, env, 1, "slow-text")
}

func TestGeminiCLI(t *testing.T) {
	heavy(t)
	dir := installed(t, geminiCLI)
	url := startMock(t, "gemini/testdata/acp/mock-gemini.mjs", "MOCK_CHUNK_DELAY_MS=100")
	// The base URL alone selects the gateway, which needs no key; a fresh
	// folder is untrusted unless told otherwise.
	runCLI(t, "gemini-cli", filepath.Join(dir, "node_modules", ".bin", "gemini"), []string{"--acp"},
		[]string{"HOME=" + t.TempDir(), "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"},
		0, "slow-stream")
}
