// Command demo shows, offline and without an API key, what an editor sees
// when it drives Claude Code through claude-acp: it builds
// examples/claude-acp and examples/fakeclaude, starts claude-acp with
// fakeclaude replaying a recorded two-turn coding session (session.ndjson),
// plays the editor over ACP, and prints the conversation as a person would
// follow it.
//
//	go run ./examples/demo
//
// It needs the go command, to build the two programs, and removes
// everything it wrote when it ends. The recording's lines have the shapes,
// key order and ids of real Claude Code 2.1.328 output (see
// examples/claude-acp/testdata/README.md); its texts are made up.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude/claudetest"
)

// session is the recorded session fakeclaude replays: every line the CLI
// wrote and every line claude-acp must write to it.
//
//go:embed session.ndjson
var session []byte

// The editor's two prompts, those of the recording.
var prompts = []string{
	"Add a table-driven test for Sum and run it.",
	"Does Sum overflow?",
}

// limit bounds the whole demo, so that nothing can make it hang.
const limit = time.Minute

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	dir, err := os.MkdirTemp("", "acpkit-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	agentBin, fakeBin := filepath.Join(dir, "claude-acp"), filepath.Join(dir, "fakeclaude")
	for bin, pkg := range map[string]string{agentBin: "claude-acp", fakeBin: "fakeclaude"} {
		build := exec.Command("go", "build", "-o", bin, "github.com/acpkit/acpkit/examples/"+pkg)
		if msg, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s (run the demo from a clone of acpkit): %v\n%s", pkg, err, msg)
		}
	}
	transcript := filepath.Join(dir, "session.ndjson")
	project := filepath.Join(dir, "project")
	if err := os.WriteFile(transcript, session, 0o644); err != nil {
		return err
	}
	if err := os.Mkdir(project, 0o755); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	agent := exec.CommandContext(ctx, agentBin, "-claude", fakeBin)
	agent.Env = append(os.Environ(), claudetest.EnvTranscript+"="+transcript, claudetest.EnvDelay+"=10ms")
	agent.Stderr = io.Discard // claude-acp logs there; the demo shows the editor's side
	stdin, err := agent.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := agent.StdoutPipe()
	if err != nil {
		return err
	}
	if err := agent.Start(); err != nil {
		return err
	}

	v := &view{out: out}
	conn := acp.NewConn(ctx, stdout, stdin, v.methods(), nil)
	errPlay := play(ctx, conn, v, project)
	// Closing claude-acp's input ends it, and it stops the CLI it started.
	stdin.Close()
	errWait := agent.Wait()
	errConn := conn.Wait()
	if errors.Is(errConn, io.EOF) || errors.Is(errConn, os.ErrClosed) {
		errConn = nil
	}
	return errors.Join(errPlay, errWait, errConn)
}

// play is the editor: it opens a session and sends the prompts.
func play(ctx context.Context, conn *acp.Conn, v *view, project string) error {
	caps := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
	if _, err := acp.Initialize.Call(ctx, conn, acp.InitializeParams{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: caps,
		ClientInfo:         &acp.Implementation{Name: "acpkit-demo", Version: "1.0.0"},
	}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: project, MCPServers: []acp.MCPServer{}})
	if err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	mode := ""
	if s.Modes != nil {
		mode = s.Modes.CurrentModeID
	}
	v.println("claude-acp is up, replaying a recorded Claude Code session (mode %q)", mode)
	for _, text := range prompts {
		v.println("\n> %s\n", text)
		res, err := acp.SessionPrompt.Call(ctx, conn, acp.PromptParams{SessionID: s.SessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: text}}})
		if err != nil {
			return fmt.Errorf("session/prompt: %w", err)
		}
		v.endTurn(res)
	}
	return nil
}

// view prints what the editor receives, as a person would read it.
type view struct {
	out io.Writer

	mu      sync.Mutex
	inText  bool                    // the last thing printed is agent text, still open
	calls   map[string]acp.ToolCall // tool calls, by id
	costUSD float64
	used    uint64
	size    uint64
}

func (v *view) methods() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) { v.update(n.Update) })
	acp.SessionRequestPermission.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
		return v.permission(p), nil
	})
	return m
}

// println ends any open agent text and prints a line.
func (v *view) println(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.printlnLocked(format, args...)
}

func (v *view) printlnLocked(format string, args ...any) {
	if v.inText {
		fmt.Fprintln(v.out)
		v.inText = false
	}
	fmt.Fprintf(v.out, format+"\n", args...)
}

func (v *view) update(u acp.Update) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch u := u.(type) {
	case acp.AgentMessageChunk:
		if t, ok := u.Content.(acp.TextContent); ok {
			if !v.inText {
				fmt.Fprint(v.out, "Claude: ")
				v.inText = true
			}
			fmt.Fprint(v.out, t.Text)
		}
	case acp.AgentThoughtChunk:
		if t, ok := u.Content.(acp.TextContent); ok {
			v.printlnLocked("  (thinking) %s", t.Text)
		}
	case acp.ToolCall:
		if v.calls == nil {
			v.calls = map[string]acp.ToolCall{}
		}
		v.calls[u.ToolCallID] = u
		v.printlnLocked("  ⏺ %s (%s)", u.Title, u.Kind)
	case acp.ToolCallUpdate:
		if u.Status != acp.ToolCallStatusCompleted && u.Status != acp.ToolCallStatusFailed {
			return
		}
		// Show the output of commands, and of whatever failed.
		out := ""
		if v.calls[u.ToolCallID].Kind == acp.ToolKindExecute || u.Status == acp.ToolCallStatusFailed {
			out = firstLine(u.Content)
		}
		v.printlnLocked("    ⎿ %s%s", u.Status, out)
	case acp.Plan:
		for _, e := range u.Entries {
			v.printlnLocked("  ☐ %s (%s)", e.Content, e.Status)
		}
	case acp.Notice:
		v.printlnLocked("  ! %s: %s", u.Severity, u.Title)
		if u.Description != "" {
			v.printlnLocked("    %s", u.Description)
		}
	case acp.UsageUpdate:
		v.used, v.size = u.Used, u.Size
		if u.Cost != nil {
			v.costUSD = u.Cost.Amount
		}
	}
}

// firstLine is the first line of a tool call's text output, after ": ",
// or "" when it has none.
func firstLine(content []acp.ToolCallContent) string {
	for _, c := range content {
		if b, ok := c.(acp.ToolCallContentBlock); ok {
			if t, ok := b.Content.(acp.TextContent); ok && strings.TrimSpace(t.Text) != "" {
				line, _, _ := strings.Cut(strings.TrimSpace(t.Text), "\n")
				return ": " + line
			}
		}
	}
	return ""
}

// permission shows the question and answers it as a person might: allow
// once.
func (v *view) permission(p acp.RequestPermissionParams) acp.RequestPermissionResult {
	v.mu.Lock()
	defer v.mu.Unlock()
	title := p.ToolCall.Title
	if title == "" {
		title = v.calls[p.ToolCall.ToolCallID].Title
	}
	names := make([]string, len(p.Options))
	choice := -1
	for i, o := range p.Options {
		names[i] = o.Name
		if o.Kind == acp.PermissionAllowOnce && choice < 0 {
			choice = i
		}
	}
	v.printlnLocked("    ? Allow %s? [%s]", title, strings.Join(names, " / "))
	if choice < 0 {
		v.printlnLocked("    → no option to allow once: cancelled")
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}
	}
	v.printlnLocked("    → %s", p.Options[choice].Name)
	return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: p.Options[choice].OptionID}}
}

// endTurn prints how the turn ended, with the usage so far.
func (v *view) endTurn(res acp.PromptResult) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.printlnLocked("  ── %s · %d of %d tokens in context · $%.4f so far", res.StopReason, v.used, v.size, v.costUSD)
}
