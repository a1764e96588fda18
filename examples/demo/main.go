// Command demo shows, offline and without an API key, what an editor sees
// when it drives Claude Code through claude-acp: it builds
// examples/claude-acp and examples/fakeclaude, starts claude-acp with
// fakeclaude replaying a recorded two-turn coding session (session.ndjson),
// plays the editor over ACP, and prints the conversation as a person would
// follow it.
//
//	go run ./examples/demo [-protocol auto|v1|v2]
//
// -protocol says which version of ACP the editor speaks: v1, v2 (the
// draft; see package acpv2), or auto (the default), which asks for v2 and
// speaks v1 with an agent that answers 1; v2 stops with an error at an
// agent that answers 1. claude-acp serves both, so auto and v2 speak v2
// with it, and the session reads the same in either version.
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
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
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
	protocol := flag.String("protocol", "auto", "the ACP version the editor speaks: `auto` (v2 with an agent that serves it, v1 otherwise), v1 or v2")
	flag.Parse()
	if *protocol != "auto" && *protocol != "v1" && *protocol != "v2" {
		fmt.Fprintf(os.Stderr, "demo: -protocol %q: want auto, v1 or v2\n", *protocol)
		os.Exit(2) // as for any bad flag
	}
	if err := run(os.Stdout, *protocol); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, protocol string) error {
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
	// The v1 editor serves what the agent sends with the view's v1
	// handlers; the others learn at initialize which to use.
	var h acp.Handler = v.methods()
	var client *acpv2.Client
	if protocol != "v1" {
		client = acpv2.NewClient(v.methods(), v.methodsV2())
		h = client
	}
	conn := acp.NewConn(ctx, stdout, stdin, h, nil)
	errPlay := play(ctx, conn, client, v, project, protocol)
	// Closing claude-acp's input ends it, and it stops the CLI it started.
	stdin.Close()
	errWait := agent.Wait()
	errConn := conn.Wait()
	if errors.Is(errConn, io.EOF) || errors.Is(errConn, os.ErrClosed) {
		errConn = nil
	}
	return errors.Join(errPlay, errWait, errConn)
}

// play is the editor: it initializes the connection in the version
// protocol says (with client, unless it is v1), opens a session and
// sends the prompts.
func play(ctx context.Context, conn *acp.Conn, client *acpv2.Client, v *view, project, protocol string) error {
	v1Params := acp.InitializeParams{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}},
		ClientInfo:         &acp.Implementation{Name: "acpkit-demo", Version: "1.0.0"},
	}
	var e editor = &editorV1{conn: conn}
	if client != nil {
		agent, err := client.Initialize(ctx, conn, acpv2.InitializeParams{Info: acpv2.Implementation{Name: "acpkit-demo", Version: "1.0.0"}}, v1Params)
		switch {
		case err != nil:
			return fmt.Errorf("initialize: %w", err)
		case agent.Version == acpv2.ProtocolVersion:
			e = &editorV2{conn: conn, v: v}
		case protocol == "v2":
			return errors.New("claude-acp speaks ACP v1 only (-protocol v1): it answered protocol version 1 to an editor asking for 2")
		}
	} else if _, err := acp.Initialize.Call(ctx, conn, v1Params); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	mode, err := e.newSession(ctx, project)
	if err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	v.println("claude-acp is up, replaying a recorded Claude Code session (mode %q)", mode)
	for _, text := range prompts {
		v.println("\n> %s\n", text)
		reason, err := e.prompt(ctx, text)
		if err != nil {
			return fmt.Errorf("session/prompt: %w", err)
		}
		v.endTurn(reason)
	}
	return nil
}

// An editor is the editor's side of a session in one version of ACP.
type editor interface {
	// newSession opens the session, and returns its mode.
	newSession(ctx context.Context, cwd string) (mode string, err error)
	// prompt sends a prompt and returns once its turn has ended, with
	// the stop reason.
	prompt(ctx context.Context, text string) (stopReason string, err error)
}

// editorV1 is the editor in ACP v1.
type editorV1 struct {
	conn      *acp.Conn
	sessionID string
}

func (e *editorV1) newSession(ctx context.Context, cwd string) (string, error) {
	s, err := acp.SessionNew.Call(ctx, e.conn, acp.NewSessionParams{Cwd: cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		return "", err
	}
	e.sessionID = s.SessionID
	if s.Modes == nil {
		return "", nil
	}
	return s.Modes.CurrentModeID, nil
}

// prompt returns with the prompt's response, which ends the turn in v1.
func (e *editorV1) prompt(ctx context.Context, text string) (string, error) {
	res, err := acp.SessionPrompt.Call(ctx, e.conn, acp.PromptParams{SessionID: e.sessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: text}}})
	return string(res.StopReason), err
}

// view prints what the editor receives, as a person would read it, in
// either version: the v1 handlers are here, the v2 ones in v2.go, and
// both print with the same methods.
type view struct {
	out io.Writer

	mu      sync.Mutex
	inText  bool             // the last thing printed is agent text, still open
	calls   map[string]*call // tool calls, by id
	costUSD float64
	used    uint64
	size    uint64
	idle    chan string // in v2, the stop reason of the turn awaited (v2.go)
}

// call is what the view knows of a tool call.
type call struct {
	title, kind string
	shown       bool     // its title has been printed
	output      []string // in v2, its text output so far
}

// callLocked returns the tool call named id, adding it.
func (v *view) callLocked(id string) *call {
	if v.calls == nil {
		v.calls = map[string]*call{}
	}
	c, ok := v.calls[id]
	if !ok {
		c = &call{}
		v.calls[id] = c
	}
	return c
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

// textLocked prints agent text, continuing the text printed last.
func (v *view) textLocked(text string) {
	if !v.inText {
		fmt.Fprint(v.out, "Claude: ")
		v.inText = true
	}
	fmt.Fprint(v.out, text)
}

// toolCallLocked prints the tool call's title once it has one, the
// first time.
func (v *view) toolCallLocked(c *call) {
	if c.title != "" && !c.shown {
		c.shown = true
		v.printlnLocked("  ⏺ %s (%s)", c.title, c.kind)
	}
}

// toolEndLocked prints how a tool call ended, if it did: with the first
// line of its output for a command, or for a failure.
func (v *view) toolEndLocked(c *call, status string, output []string) {
	if status != string(acp.ToolCallStatusCompleted) && status != string(acp.ToolCallStatusFailed) {
		return
	}
	out := ""
	if c.kind == string(acp.ToolKindExecute) || status == string(acp.ToolCallStatusFailed) {
		out = firstLine(output)
	}
	v.printlnLocked("    ⎿ %s%s", status, out)
}

func (v *view) update(u acp.Update) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch u := u.(type) {
	case acp.AgentMessageChunk:
		if t, ok := u.Content.(acp.TextContent); ok {
			v.textLocked(t.Text)
		}
	case acp.AgentThoughtChunk:
		if t, ok := u.Content.(acp.TextContent); ok {
			v.printlnLocked("  (thinking) %s", t.Text)
		}
	case acp.ToolCall:
		c := v.callLocked(u.ToolCallID)
		c.title, c.kind = u.Title, string(u.Kind)
		c.shown = false // a tool call is shown whenever it is announced
		v.toolCallLocked(c)
	case acp.ToolCallUpdate:
		v.toolEndLocked(v.callLocked(u.ToolCallID), string(u.Status), texts(u.Content))
	case acp.Plan:
		for _, e := range u.Entries {
			v.printlnLocked("  ☐ %s (%s)", e.Content, e.Status)
		}
	case acp.Notice:
		v.noticeLocked(string(u.Severity), u.Title, u.Description)
	case acp.UsageUpdate:
		v.used, v.size = u.Used, u.Size
		if u.Cost != nil {
			v.costUSD = u.Cost.Amount
		}
	}
}

func (v *view) noticeLocked(severity, title, description string) {
	v.printlnLocked("  ! %s: %s", severity, title)
	if description != "" {
		v.printlnLocked("    %s", description)
	}
}

// texts returns the texts of a tool call's content blocks.
func texts(content []acp.ToolCallContent) []string {
	var out []string
	for _, c := range content {
		if b, ok := c.(acp.ToolCallContentBlock); ok {
			if t, ok := b.Content.(acp.TextContent); ok {
				out = append(out, t.Text)
			}
		}
	}
	return out
}

// firstLine is the first line of the first of texts that is not blank,
// after ": ", or "" when there is none.
func firstLine(texts []string) string {
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			line, _, _ := strings.Cut(t, "\n")
			return ": " + line
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
		title = v.callLocked(p.ToolCall.ToolCallID).title
	}
	choice := v.askLocked(title, len(p.Options), func(i int) (string, bool) {
		return p.Options[i].Name, p.Options[i].Kind == acp.PermissionAllowOnce
	})
	if choice < 0 {
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}
	}
	return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: p.Options[choice].OptionID}}
}

// askLocked prints a permission question with its n options, which
// option says the name of option i and whether it allows once, and the
// answer: the first option that allows once, whose index it returns, or
// -1 when there is none.
func (v *view) askLocked(title string, n int, option func(i int) (name string, allowOnce bool)) int {
	names := make([]string, n)
	choice := -1
	for i := range n {
		name, once := option(i)
		names[i] = name
		if once && choice < 0 {
			choice = i
		}
	}
	v.printlnLocked("    ? Allow %s? [%s]", title, strings.Join(names, " / "))
	if choice < 0 {
		v.printlnLocked("    → no option to allow once: cancelled")
	} else {
		v.printlnLocked("    → %s", names[choice])
	}
	return choice
}

// endTurn prints how the turn ended, with the usage so far.
func (v *view) endTurn(stopReason string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.printlnLocked("  ── %s · %d of %d tokens in context · $%.4f so far", stopReason, v.used, v.size, v.costUSD)
}
