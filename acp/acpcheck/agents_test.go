package acpcheck_test

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
	"github.com/google/go-cmp/cmp"
)

// knownFailures are the checks acpkit's own agents fail today, each where
// the agent's documentation says it falls short: empty an entry when the
// gap is closed, and the test fails until then if the check starts
// passing. Behind `gemini -p` (-cli gemini-headless), claude-acp refuses
// the editor's stdio MCP servers, which ACP requires every agent to take
// (package bridge's doc).
var knownFailures = map[string][]string{
	"claude-acp gemini-headless": {"capability.mcp-stdio"},
}

// shouldGaps are the SHOULD checks acpkit's agents fail by design, by
// agent or by agent and transport: none today.
var shouldGaps = map[string][]string{}

// racyFailures are checks an agent may fail now and then, and need not.
//
// On a machine loaded far past its cores (a load average of 20 on 2),
// claude-acp with Claude Code once answered session/load with nothing
// replayed before the response, and once sent a turn's update after the
// response to its prompt. Neither comes from a session's updates
// overtaking the response that announces the session, and neither has
// been seen in the 60 runs of the suite on it since that was fixed.
var racyFailures = map[string][]string{
	"claude-acp claude": {"load.replay", "prompt.no-late-updates"},
}

// checkReport compares the checks the report failed with those expected
// of the agent.
func checkReport(t *testing.T, agent, transport string, r acpcheck.Report) {
	t.Helper()
	var got []string
	for _, res := range r.Failed("") {
		got = append(got, res.ID)
	}
	want := slices.Concat(knownFailures[agent], shouldGaps[agent], shouldGaps[agent+"/"+transport])
	for _, id := range racyFailures[agent] {
		if slices.Contains(got, id) {
			t.Logf("%s failed, as it does now and then: %s", id, reasonOf(r, id))
			want = append(want, id)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		for _, res := range r.Failed("") {
			t.Logf("%s: %s", res.ID, res.Reason)
		}
		t.Errorf("failed checks (-want +got):\n%s", diff)
	}
}

// agent is one of acpkit's agents, as the suite runs it.
type agent struct {
	name string   // its key in knownFailures and shouldGaps
	bin  string   // the program
	args []string // its flags
	// env is its environment, besides this process's; it may name
	// files in home, a temporary home folder of its own.
	env  func(home string) []string
	skip []string // checks the test setup cannot give what they need
}

// agents are acpkit's agents: echo-agent, and claude-acp with each of the
// fake CLIs, each replaying a transcript for every session, slowed down
// so that a turn goes on long enough after its first update to be
// cancelled: a one-turn run for Gemini CLI (an answer in a dozen parts),
// which starts a process per turn, two turns for Claude Code, whose
// process a session on a second connection may resume, and for Codex a
// turn that asks to run a command, then answers, played by fakecodex's
// lenient app-server (one per session) for every turn/start.
func agents() []agent {
	claudeEnv := func(home string) []string {
		transcript, _ := filepath.Abs(filepath.Join("..", "..", "examples", "claude-acp", "testdata", "two-turns.ndjson"))
		return []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "FAKECLAUDE_TRANSCRIPT=" + transcript, "FAKECLAUDE_DELAY=150ms"}
	}
	codexEnv := func(home string) []string {
		transcript, _ := filepath.Abs(filepath.Join("..", "..", "bridge", "testdata", "codex", "command-approval-accept.ndjson"))
		return []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "FAKECODEX_TRANSCRIPT=" + transcript, "FAKECODEX_LENIENT=1", "FAKECODEX_DELAY=50ms"}
	}
	geminiEnv := func(home string) []string {
		transcript, _ := filepath.Abs(filepath.Join("..", "..", "gemini", "testdata", "multi-part.jsonl"))
		return []string{"HOME=" + home, "FAKEGEMINI_TRANSCRIPT=" + transcript, "FAKEGEMINI_DELAY=50ms"}
	}
	// Gemini CLI's ACP mode answers every session leniently from a
	// capture whose turn asks permission to run a command.
	geminiACPEnv := func(home string) []string {
		transcript, _ := filepath.Abs(filepath.Join("..", "..", "gemini", "testdata", "acp", "permission-allow.ndjson"))
		return []string{"HOME=" + home, "FAKEGEMINI_TRANSCRIPT=" + transcript, "FAKEGEMINI_LENIENT=1", "FAKEGEMINI_DELAY=50ms"}
	}
	// fakecodex and fakegemini keep no store of sessions, as the real
	// CLIs do, so claude-acp cannot find the session it ran to load it.
	noStore := []string{"load.replay"}
	return []agent{
		{name: "echo-agent", bin: echoAgent, args: []string{"-delay", "20ms"}, env: func(string) []string { return nil }},
		{name: "claude-acp claude", bin: claudeACP, args: []string{"-claude", fakeclaude}, env: claudeEnv},
		{name: "claude-acp codex", bin: claudeACP, args: []string{"-cli", "codex", "-codex", fakecodex}, env: codexEnv, skip: noStore},
		{name: "claude-acp gemini-headless", bin: claudeACP, args: []string{"-cli", "gemini-headless", "-gemini", fakegemini}, env: geminiEnv, skip: noStore},
		{name: "claude-acp gemini", bin: claudeACP, args: []string{"-cli", "gemini", "-gemini", fakegemini}, env: geminiACPEnv, skip: noStore},
		// echo-agent behind the bridge as any ACP agent. The bridge
		// keeps no store of an ACP agent's sessions, and resumes only
		// those its process holds: over stdio the suite's new connection
		// is a new claude-acp, which refuses the earlier one's session
		// -32002, as package bridge documents. resume.no-replay passes
		// over the remote transports, one process for every connection,
		// but a skip is the agent's on every transport.
		{name: "claude-acp acp", bin: claudeACP, args: []string{"-cli", "acp", "-agent", echoAgent + " -delay 20ms"}, env: func(home string) []string { return []string{"HOME=" + home} }, skip: []string{"resume.no-replay"}},
	}
}

// TestAgents runs the suite against acpkit's agents over stdio and both
// remote transports; every check passes, but for knownFailures and
// shouldGaps. Each agent serves v1 and v2 (-protocol auto), so one pass
// checks both.
// reasonOf returns the reason of check id in r.
func reasonOf(r acpcheck.Report, id string) string {
	for _, res := range r.Results {
		if res.ID == id {
			return res.Reason
		}
	}
	return ""
}

func TestAgents(t *testing.T) {
	for _, a := range agents() {
		for _, transport := range []string{"stdio", string(acpcheck.WebSocket), string(acpcheck.StreamableHTTP)} {
			t.Run(a.name+"/"+transport, func(t *testing.T) {
				t.Parallel()
				home := t.TempDir()
				var target acpcheck.Target
				if transport == "stdio" {
					target = (&acpcheckos.Cmd{Path: a.bin, Args: a.args, Env: a.env(home)}).Target()
				} else {
					url := listen(t, a.bin, a.args, a.env(home), "s3cret")
					target = acpcheck.Remote(url, acpcheck.RemoteOptions{
						Transport:  acpcheck.Transport(transport),
						HTTPClient: &http.Client{Transport: http.DefaultTransport},
						Header:     http.Header{"Authorization": {"Bearer s3cret"}},
						Clock:      acpcheckos.Clock{},
					})
				}
				r, err := acpcheck.Verify(t.Context(), target, &acpcheck.Options{Cwd: t.TempDir(), Skip: a.skip, Parallel: 8})
				if err != nil {
					t.Fatal(err)
				}
				checkReport(t, a.name, transport, r)
			})
		}
	}
}

// listen starts the agent serving remotely on a loopback port with token,
// and returns its URL; the agent is stopped when the test ends.
func listen(t *testing.T, bin string, args, env []string, token string) string {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(slices.Clone(args), "-listen", "127.0.0.1:0", "-token-file", tokenFile)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the CLIs it left
	})
	urls := make(chan string, 1)
	go func() {
		defer close(exited)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := servingURL.FindStringSubmatch(lines.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		cmd.Wait()
	}()
	select {
	case url := <-urls:
		return url
	case <-exited:
		t.Fatalf("%s exited without saying where it serves", bin)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it serves within 30s", bin)
	}
	return ""
}

// servingURL finds the URL in the log line of internal/serveacp.
var servingURL = regexp.MustCompile(`url=(\S+)`)
