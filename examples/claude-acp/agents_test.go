//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/npmcache"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// These end-to-end tests put real ACP agents from npm behind claude-acp,
// driven by the official TypeScript SDK's client (testdata/sdk-agent.mjs):
// Gemini CLI 0.61.0 in its ACP mode, offline against the stand-in model
// API of its captures (gemini/testdata/acp/mock-gemini.mjs), and, to show
// that the bridge is not Gemini-shaped, the SDK's own example agent. They
// skip when a peer cannot be installed, unless ACPKIT_REQUIRE_INTEROP=1.

// The agents' packages, installed once into the user's cache.
var (
	geminiCLI = npmcache.Set{
		Folder:    "gemini-cli-" + gemini.TestedVersion,
		Env:       "ACPKIT_GEMINI_CLI_DIR",
		Packages:  []string{"@google/gemini-cli@" + gemini.TestedVersion},
		Installed: []string{"node_modules/@google/gemini-cli/package.json"},
	}
	// exampleAgent is the SDK release that still ships its example agent
	// (dist/examples/agent.js), which needs nothing but the SDK.
	exampleAgent = npmcache.Set{
		Folder:    "ts-sdk-example-agent-1.9.0",
		Env:       "ACPKIT_EXAMPLE_AGENT_DIR",
		Packages:  []string{"@agentclientprotocol/sdk@1.9.0"},
		Installed: []string{"node_modules/@agentclientprotocol/sdk/dist/examples/agent.js"},
	}
)

// installed returns the folder of set's node_modules, installing it the
// first time, or ends the test when it cannot be had.
func installed(t *testing.T, set *npmcache.Set, what string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		interop.Unavailable(t, what, err)
	}
	dir, err := set.Dir()
	if err != nil {
		interop.Unavailable(t, what, err)
	}
	return filepath.Join(dir, "node_modules")
}

// mockGemini starts the stand-in Gemini API on loopback for the test's
// life, and returns its base URL.
func mockGemini(t *testing.T) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join("..", "..", "gemini", "testdata", "acp", "mock-gemini.mjs"))
	cmd.Env = append(os.Environ(), "MOCK_PORT=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// It says "mock-gemini listening on 127.0.0.1:PORT …" on its standard
	// error once it listens.
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stderr).ReadString('\n')
		_, rest, _ := strings.Cut(line, " listening on ")
		host, _, _ := strings.Cut(rest, " ")
		addr <- host
		io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatal("the mock Gemini API did not say where it listens")
		}
		return "http://" + a
	case <-time.After(testwait.Limit):
		t.Fatalf("the mock Gemini API did not listen within %v", testwait.Limit)
		return ""
	}
}

// geminiHome returns a home folder for Gemini CLI: its settings make a
// failed request fail at once, and turn off updates and statistics.
func geminiHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	settings := `{"general":{"maxAttempts":1,"enableAutoUpdate":false,"enableAutoUpdateNotification":false},"privacy":{"usageStatisticsEnabled":false}}`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// agentRun is what testdata/sdk-agent.mjs saw.
type agentRun struct {
	Agent                                                     string
	Image                                                     bool
	Error                                                     string
	Exit                                                      int
	SessionID                                                 string
	Turn, Allowed, Rejected, Written, Cancelled, Quota, Again *turnSeen
	FS                                                        *struct {
		Read    []string
		Written map[string]string
	}
	Mode *struct{ Told, Option string }
	// Listed is what session/list showed of the session.
	Listed []struct{ Cwd, Title string }
	// Of a load: the text of the replay before its answer, its updates,
	// and whether any came after.
	Replayed      string
	ReplayUpdates int
	LateReplay    bool
}

// turnSeen is what the client saw of a turn.
type turnSeen struct {
	Text        string
	Tools       map[string][]string // each tool call's statuses, in order
	Asked       []string
	Announced   *bool // each tool call asked about was announced first
	StopReason  string
	Usage       *bool // the answer carried token counts
	UsageUpdate bool  // a usage_update came
	Error       *struct {
		Code          int
		Message, Kind string
		Status        int
		ResetsAtMs    int64
	}
}

// playSDK runs testdata/sdk-agent.mjs, playing play against claude-acp
// started with args, for a user whose home folder is home, in cwd, with
// env added; it returns what the script saw.
func playSDK(t *testing.T, play, home, cwd string, env []string, args ...string) agentRun {
	t.Helper()
	cmd := tssdk.Command(t, "testdata/sdk-agent.mjs", append([]string{play, cwd, agentBin}, args...)...)
	// The user's own credentials and endpoints for Gemini stay out.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GEMINI_") || strings.HasPrefix(kv, "GOOGLE_")
	})
	cmd.Env = append(cmd.Env, append(env, "HOME="+home, "GORACE=atexit_sleep_ms=0")...)
	stdout, stderr := runScript(t, cmd)
	var run agentRun
	if err := json.Unmarshal(stdout, &run); err != nil {
		t.Fatalf("sdk-agent.mjs %s printed %q: %v\n%s", play, stdout, err, stderr)
	}
	if run.Error != "" || run.Exit != 0 {
		t.Fatalf("sdk-agent.mjs %s: %s, claude-acp exit %d\n%s", play, run.Error, run.Exit, stderr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sdk-agent.mjs %s: stderr:\n%s", play, stderr)
		}
	})
	return run
}

// TestGeminiCLI puts the real Gemini CLI 0.61.0, in its ACP mode, behind
// claude-acp -cli gemini, against the stand-in model API, and plays with
// the SDK's client each flow that the bridge passes on or mends: a turn
// with its usage; a command allowed, and one rejected (announced before
// its question, ended failed); a new file written through the editor's
// file system (whose missing file the CLI must read as empty); a turn
// cancelled; a mode change; a quota error with its time to retry at;
// session/list; then session/load in a new claude-acp, the replay whole
// before the answer and without the CLI's preamble, and the session
// going on. Without credentials, a turn is answered
// authentication-required.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(installed(t, &geminiCLI, "Gemini CLI "+gemini.TestedVersion+" (npm)"), ".bin", "gemini")
	tssdk.Dir(t)
	args := []string{"-cli", "gemini", "-gemini", bin}

	t.Run("no credentials", func(t *testing.T) {
		t.Parallel()
		run := playSDK(t, "auth", t.TempDir(), t.TempDir(), nil, args...)
		if e := run.Turn.Error; e == nil || e.Code != -32000 {
			t.Errorf("a turn without credentials: %+v, want -32000, authentication required", run.Turn)
		}
	})

	t.Run("session", func(t *testing.T) {
		t.Parallel()
		api := mockGemini(t)
		home, cwd := geminiHome(t), t.TempDir()
		t.Cleanup(func() {
			if t.Failed() {
				filepath.WalkDir(filepath.Join(home, ".gemini", "tmp"), func(p string, d os.DirEntry, err error) error {
					if strings.HasSuffix(p, ".jsonl") {
						b, _ := os.ReadFile(p)
						t.Logf("%s:\n%.3000s", p, b)
					}
					return nil
				})
			}
		})
		env := []string{"GEMINI_API_KEY=not-a-key", "GOOGLE_GEMINI_BASE_URL=" + api}
		before := time.Now()
		run := playSDK(t, "gemini", home, cwd, env, args...)

		yes := true
		want := agentRun{
			Agent: "claude-acp", Image: true, SessionID: run.SessionID,
			Turn: &turnSeen{Text: "Hello from the mock server. 2 + 2 = 4.", Tools: map[string][]string{}, StopReason: "end_turn", Usage: &yes, UsageUpdate: true},
			Mode: &struct{ Told, Option string }{"autoEdit", "autoEdit"},
			FS: &struct {
				Read    []string
				Written map[string]string
			}{Read: []string{filepath.Join(cwd, "out.txt"), filepath.Join(cwd, "out.txt")}, Written: map[string]string{filepath.Join(cwd, "out.txt"): run.FS.Written[filepath.Join(cwd, "out.txt")]}},
		}
		opts := []cmp.Option{
			cmpopts.IgnoreFields(agentRun{}, "Allowed", "Rejected", "Written", "Cancelled", "Quota", "Listed"),
			cmpopts.EquateEmpty(),
		}
		if diff := cmp.Diff(want, run, opts...); diff != "" {
			t.Errorf("what the SDK's client saw (-want +got):\n%s", diff)
		}
		if run.FS.Written[filepath.Join(cwd, "out.txt")] == "" {
			t.Errorf("out.txt was not written through the editor: %+v", run.FS)
		}
		for name, tt := range map[string]struct {
			turn   *turnSeen
			status string
		}{"allowed": {run.Allowed, "completed"}, "rejected": {run.Rejected, "failed"}, "written": {run.Written, "completed"}} {
			if tt.turn == nil || tt.turn.StopReason != "end_turn" || len(tt.turn.Asked) != 1 || tt.turn.Announced == nil || !*tt.turn.Announced {
				t.Errorf("%s: %+v, want a turn that asked once about a tool call announced first", name, tt.turn)
				continue
			}
			for id, statuses := range tt.turn.Tools {
				if statuses[0] != "pending" || statuses[len(statuses)-1] != tt.status {
					t.Errorf("%s: tool call %s went %q, want pending first and %s last", name, id, statuses, tt.status)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(cwd, "made-by-shell.txt")); err != nil {
			t.Errorf("the command allowed did not run: %v", err)
		}
		if c := run.Cancelled; c == nil || c.StopReason != "cancelled" {
			t.Errorf("the turn cancelled: %+v, want stop reason cancelled", c)
		}
		q := run.Quota
		if q == nil || q.Error == nil || q.Error.Code != -32603 || q.Error.Kind != "rate_limit" || q.Error.Status != 429 {
			t.Errorf("the quota error: %+v, want -32603, kind rate_limit, status 429", q)
		} else if at := time.UnixMilli(q.Error.ResetsAtMs); at.Before(before.Add(3*time.Second)) || at.After(time.Now().Add(4*time.Second)) {
			t.Errorf("the quota resets at %v, want about 3.1s after it was reported", at)
		}
		if len(run.Listed) != 1 || run.Listed[0].Cwd != cwd || run.Listed[0].Title == "" {
			t.Errorf("session/list showed %+v of the session, want it in %s with a title", run.Listed, cwd)
		}

		// The session again, loaded in a new claude-acp. Gemini CLI names a
		// session's file for the minute it starts, and session/load starts
		// a file for the loaded session: in the same minute, the same file,
		// whose messages it then finds gone ("No previous sessions found
		// for this project"). The files are dated an hour back, as if the
		// session were an hour old.
		backdate(t, home)
		load := playSDK(t, "load", home, cwd, env, args...)
		if len(load.Listed) != 1 || load.Listed[0].Title != run.Listed[0].Title {
			t.Errorf("session/list in a new claude-acp showed %+v, want the session, titled as before", load.Listed)
		}
		if !strings.Contains(load.Replayed, "[user] Say hello. MOCK_SCENARIO=plain-text") || !strings.Contains(load.Replayed, "Hello from the mock server.") {
			t.Errorf("the replay before session/load answered:\n%s\nwant the session's turns", load.Replayed)
		}
		for _, leak := range []string{"<session_context>", "[Function Response"} {
			if strings.Contains(load.Replayed, leak) {
				t.Errorf("the replay shows the CLI's %s:\n%s", leak, load.Replayed)
			}
		}
		if load.LateReplay || load.Again == nil || load.Again.StopReason != "end_turn" || load.Again.Text != "Hello from the mock server. 2 + 2 = 4." {
			t.Errorf("the turn after the load: %+v (replay after the answer: %v), want the mock's answer alone", load.Again, load.LateReplay)
		}
	})
}

// TestExampleAgent puts the official SDK's example agent (from
// @agentclientprotocol/sdk 1.9.0, which runs offline and knows nothing
// of Gemini CLI) behind claude-acp -cli acp, in three sessions at once,
// each served by an agent process of its own: its edit allowed, its edit
// rejected (which it never ends, and the bridge ends failed), and a turn
// cancelled.
func TestExampleAgent(t *testing.T) {
	t.Parallel()
	modules := installed(t, &exampleAgent, "the SDK's example agent (npm)")
	tssdk.Dir(t)
	script := filepath.Join(modules, "@agentclientprotocol", "sdk", "dist", "examples", "agent.js")
	run := playSDK(t, "example", t.TempDir(), t.TempDir(), nil,
		"-cli", "acp", "-agent", "node "+script, "-agent-name", "Example agent")
	yes := true
	want := agentRun{
		Agent:   "claude-acp",
		Allowed: &turnSeen{Tools: map[string][]string{"call_1": {"pending", "completed"}, "call_2": {"pending", "completed"}}, Asked: []string{"call_2 allow_once"}, Announced: &yes, StopReason: "end_turn"},
		// The agent sends no final update for a rejected call.
		Rejected:  &turnSeen{Tools: map[string][]string{"call_1": {"pending", "completed"}, "call_2": {"pending", "failed"}}, Asked: []string{"call_2 reject_once"}, Announced: &yes, StopReason: "end_turn"},
		Cancelled: &turnSeen{Tools: map[string][]string{}, StopReason: "cancelled"},
	}
	if diff := cmp.Diff(want, run, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("what the SDK's client saw (-want +got):\n%s", diff)
	}
}

// backdate renames the files of the sessions Gemini CLI stored, which
// it names session-YYYY-MM-DDTHH-MM-ID8.jsonl for the minute each
// started, for the hour before.
func backdate(t *testing.T, home string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session file in %s: %v", home, err)
	}
	const minute = "2006-01-02T15-04"
	for _, f := range files {
		name := strings.TrimPrefix(filepath.Base(f), "session-")
		at, err := time.Parse(minute, name[:min(len(name), len(minute))])
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		older := "session-" + at.Add(-time.Hour).Format(minute) + name[len(minute):]
		if err := os.Rename(f, filepath.Join(filepath.Dir(f), older)); err != nil {
			t.Fatal(err)
		}
	}
}
