package codex_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/realcodex"
)

// TestAppServerRealCLI drives the real `codex app-server` of
// AppServerVersion, installed with npm, through a Session: a plain turn,
// then a command it asks to run, approved, against the captures' mock of
// the OpenAI API on loopback. It skips when the CLI cannot be installed,
// unless ACPKIT_REQUIRE_INTEROP=1.
func TestAppServerRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real CLI")
	}
	bin := realcodex.Binary(t, codex.AppServerVersion)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	home := realcodex.Home(t, realcodex.StartMock(t, filepath.Join("testdata", "appserver", "mock-openai.mjs")))
	cwd := t.TempDir()
	codexHome := filepath.Join(home, ".codex")

	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Dir = cwd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + codexHome, "SHELL=/bin/bash",
		"TERM=dumb", "LANG=C.UTF-8", "TZ=UTC", "MOCK_OPENAI_API_KEY=sk-test"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := codex.NewSession(stdin)
	events := make(chan codex.Event, 1024)
	var readErrs []error // the reading loop's, read once it has ended
	go func() {
		defer close(events)
		for e, err := range s.Events(stdout) {
			if err != nil {
				readErrs = append(readErrs, err)
				continue
			}
			events <- e
		}
	}()
	// next waits for the event that match accepts, answering approvals.
	next := func(what string, match func(codex.Event) bool) codex.Event {
		t.Helper()
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("waited for %s, but the app-server's output ended; stderr:\n%s", what, stderr.String())
				}
				if match(e) {
					return e
				}
			case <-ctx.Done():
				t.Fatalf("waited for %s for a minute; stderr:\n%s", what, stderr.String())
			}
		}
	}
	isTurnEnd := func(e codex.Event) bool { _, ok := e.(codex.TurnEnd); return ok }

	server, err := s.Initialize(ctx, codex.ClientInfo{Name: "acpkit_test", Version: "1.0.0"}, codex.InitializeOptions{})
	if err != nil {
		t.Fatalf("Initialize: %v; stderr:\n%s", err, stderr.String())
	}
	if server.Version != codex.AppServerVersion {
		t.Errorf("server version %q, want %q", server.Version, codex.AppServerVersion)
	}
	th, err := s.StartThread(ctx, codex.ThreadOptions{CWD: cwd, ApprovalPolicy: codex.ApprovalUntrusted, Sandbox: codex.SandboxWorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := s.StartTurn(ctx, th.Thread.ID, []codex.Input{codex.TextInput("Say hello. MOCK_SCENARIO=plain-text")}, codex.TurnOptions{}); err != nil {
		t.Fatal(err)
	}
	text := next("the answer", func(e codex.Event) bool { _, ok := e.(codex.Text); return ok }).(codex.Text)
	if text.Text != "Hello from the mock server. 2 + 2 = 4." {
		t.Errorf("answer %q", text.Text)
	}
	if end := next("the end of the first turn", isTurnEnd).(codex.TurnEnd); end.Turn.Status != codex.TurnStatusCompleted {
		t.Errorf("first turn ended %q: %v", end.Turn.Status, end.Err())
	}

	if _, err := s.StartTurn(ctx, th.Thread.ID, []codex.Input{codex.TextInput("Create cmd-ran.txt. MOCK_SCENARIO=cmd-approval")}, codex.TurnOptions{}); err != nil {
		t.Fatal(err)
	}
	ask := next("the approval request", func(e codex.Event) bool { _, ok := e.(codex.CommandApproval); return ok }).(codex.CommandApproval)
	if !strings.Contains(ask.Command, "touch cmd-ran.txt") {
		t.Errorf("asked to run %q", ask.Command)
	}
	if err := s.Decide(ask, codex.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	ran := next("the command's end", func(e codex.Event) bool {
		c, ok := e.(codex.CommandExecution)
		return ok && c.Phase == codex.PhaseCompleted
	}).(codex.CommandExecution)
	if ran.Status != codex.StatusCompleted || strings.TrimSpace(ran.Output) != "ran" {
		t.Errorf("command ended %q with output %q", ran.Status, ran.Output)
	}
	if end := next("the end of the second turn", isTurnEnd).(codex.TurnEnd); end.Turn.Status != codex.TurnStatusCompleted {
		t.Errorf("second turn ended %q: %v", end.Turn.Status, end.Err())
	}
	if _, err := os.Stat(filepath.Join(cwd, "cmd-ran.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}

	stdin.Close()
	for range events { // to the end of the output
	}
	if len(readErrs) != 0 {
		t.Errorf("reading the app-server: %v", readErrs)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("app-server: %v; stderr:\n%s", err, stderr.String())
	}
}
