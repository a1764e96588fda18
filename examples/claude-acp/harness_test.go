//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/acpkit/acpkit/internal/testwait"
)

// This file holds the editor the end-to-end tests play: claude-acp runs as
// a subprocess wired to fakeclaude, and an acp.Conn drives it with the
// typed calls, recording every line claude-acp writes.

// envMarker names the environment variable that marks the processes of
// one test: claude-acp and every CLI it starts inherit it, so the test
// can find any that outlive it.
const envMarker = "CLAUDE_ACP_E2E_TEST"

// agentProc is a running claude-acp, in a process group of its own.
type agentProc struct {
	home   string // the user's home folder
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr syncBuffer
	marker string

	exited  chan struct{}
	waitErr error // set before exited is closed
}

var markers struct {
	sync.Mutex
	n int
}

// startAgent starts claude-acp with the CLI at claudePath, fakeclaude
// replaying transcript, and the extra flags args, for a user whose home
// folder is a new temporary one, where the CLIs keep their sessions.
// When the test ends, it kills whatever is left of the agent's process
// group.
func startAgent(t testing.TB, claudePath, transcript string, args ...string) *agentProc {
	t.Helper()
	return startAgentIn(t, t.TempDir(), claudePath, transcript, args...)
}

// startAgentIn is startAgent for a user whose home folder is home.
func startAgentIn(t testing.TB, home, claudePath, transcript string, args ...string) *agentProc {
	t.Helper()
	transcript, err := filepath.Abs(transcript) // the CLI runs in the session's directory
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	markers.Lock()
	markers.n++
	marker := fmt.Sprintf("%d-%d", os.Getpid(), markers.n)
	markers.Unlock()

	p := &agentProc{
		home:   home,
		cmd:    exec.Command(agentBin, append([]string{"-claude", claudePath}, args...)...),
		stdin:  inW,
		stdout: outR,
		marker: marker,
		exited: make(chan struct{}),
	}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, &p.stderr
	p.cmd.Env = append(os.Environ(),
		claudetest.EnvTranscript+"="+transcript,
		codextest.EnvTranscript+"="+transcript,
		geminitest.EnvTranscript+"="+transcript,
		envMarker+"="+marker,
		"HOME="+home,
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"CODEX_HOME="+filepath.Join(home, ".codex"),
		"TZ=UTC",
		// A race-enabled binary sleeps a second at exit unless told
		// not to; a race it detects makes it exit with status 66.
		"GORACE=atexit_sleep_ms=0",
	)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		t.Fatal(err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		p.wait()
		p.stdout.Close()
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		killMarked(p.marker)
	})
	return p
}

// wait waits for the agent to exit, killing it after testwait.Limit, and
// returns how it exited: nil for status 0.
func (p *agentProc) wait() error {
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(testwait.Limit):
	}
	p.cmd.Process.Kill()
	<-p.exited
	return fmt.Errorf("claude-acp did not exit within %v: killed (%v)", testwait.Limit, p.waitErr)
}

// leftovers lists the processes of p's group, and those carrying its
// marker, that still run; it waits a little for processes on their way
// out.
func (p *agentProc) leftovers() []string {
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; {
		left = left[:0]
		if err := syscall.Kill(-p.cmd.Process.Pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			left = append(left, "process group "+strconv.Itoa(p.cmd.Process.Pid))
		}
		left = append(left, marked(p.marker)...)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitCLIsGone waits until no CLI that p started runs, as far as the
// test can see: on Linux, until p is the last process with its marker;
// elsewhere it waits a second.
func (p *agentProc) waitCLIsGone(t testing.TB) {
	t.Helper()
	self := "pid " + strconv.Itoa(p.cmd.Process.Pid)
	for deadline := time.Now().Add(testwait.Limit); ; time.Sleep(20 * time.Millisecond) {
		left := marked(p.marker)
		if len(left) == 0 { // no /proc: nothing to watch
			time.Sleep(time.Second)
			return
		}
		if len(left) == 1 && left[0] == self {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the CLIs still run after %v: %v", testwait.Limit, left)
		}
	}
}

// waitLog waits until claude-acp has logged a line holding text, failing
// the test after testwait.Limit.
func (p *agentProc) waitLog(t testing.TB, text string) {
	t.Helper()
	if err := p.logged(text); err != nil {
		t.Fatal(err)
	}
}

// logged waits until claude-acp has logged a line holding text, or
// testwait.Limit has passed: then it says so. Unlike waitLog, it may be
// called from any goroutine.
func (p *agentProc) logged(text string) error {
	for deadline := time.Now().Add(testwait.Limit); !strings.Contains(p.stderr.String(), text); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("claude-acp did not log %q within %v", text, testwait.Limit)
		}
	}
	return nil
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// Answers the editor gives to permission requests.
const (
	answerAllow  = "allow_once"
	answerReject = "reject_once"
	// answerCancelled leaves the request pending until the editor has
	// sent session/cancel, then answers "cancelled", as ACP asks of a
	// client that cancels a prompt.
	answerCancelled = "cancelled"
	// answerWithdrawn leaves the request pending until the agent
	// withdraws it ($/cancel_request), then answers "cancelled".
	answerWithdrawn = "withdrawn"
)

// editor is the ACP client side of a test.
type editor struct {
	t    testing.TB
	p    *agentProc
	conn *acp.Conn

	wire syncBuffer // every line claude-acp wrote, in order
	sent syncBuffer // every line the editor wrote

	chunks chan struct{} // one value per agent_message_chunk, best effort
	asked  chan struct{} // one value per permission request

	cancelled chan struct{} // closed once the editor has sent session/cancel

	mu         sync.Mutex
	onAsk      func()   // called before a permission request is answered; nil for none
	updates    int      // session/update notifications decoded
	answers    []string // answers to the next permission requests
	sessionIDs []string // from session/new, in order
	first      string   // the first session opened or resumed
	cwd        string
}

// startEditor starts claude-acp (see startAgent) and connects an editor
// to it. When the test ends, the editor closes the agent's stdin, and
// checks that the agent exits with status 0 and leaves no process behind.
func startEditor(t testing.TB, claudePath, transcript string, args ...string) *editor {
	t.Helper()
	return newEditor(t, false, claudePath, transcript, args...)
}

// startBareEditor is startEditor for benchmarks: the editor neither
// records what it receives nor decodes the session updates, so that the
// figures are claude-acp's rather than the editor's.
func startBareEditor(t testing.TB, claudePath, transcript string, args ...string) *editor {
	t.Helper()
	return newEditor(t, true, claudePath, transcript, args...)
}

// newEditorIn is startEditor for a user whose home folder is home, where
// the CLIs keep their sessions.
func newEditorIn(t testing.TB, home, claudePath, transcript string, args ...string) *editor {
	t.Helper()
	return newEditorAt(t, false, startAgentIn(t, home, claudePath, transcript, args...))
}

func newEditor(t testing.TB, bare bool, claudePath, transcript string, args ...string) *editor {
	t.Helper()
	return newEditorAt(t, bare, startAgent(t, claudePath, transcript, args...))
}

func newEditorAt(t testing.TB, bare bool, p *agentProc) *editor {
	t.Helper()
	return newEditorWith(t, bare, p, func(e *editor, m *acp.Methods) {
		acp.SessionRequestPermission.Handle(m, e.requestPermission)
		if bare {
			m.Notifications = map[string]acp.NotificationFunc{acp.SessionUpdate.Name: func(context.Context, *acp.Conn, json.RawMessage) {}}
		} else {
			acp.SessionUpdate.Handle(m, e.sessionUpdate)
		}
	})
}

// newEditorWith connects an editor whose handlers register adds to p,
// a claude-acp just started.
func newEditorWith(t testing.TB, bare bool, p *agentProc, register func(*editor, *acp.Methods)) *editor {
	t.Helper()
	e := &editor{
		t: t, p: p,
		chunks:    make(chan struct{}, 1000),
		asked:     make(chan struct{}, 10),
		cancelled: make(chan struct{}),
		cwd:       t.TempDir(),
	}
	var m acp.Methods
	register(e, &m)
	var r io.Reader = p.stdout
	var w io.Writer = p.stdin
	if !bare {
		r, w = io.TeeReader(r, &e.wire), io.MultiWriter(w, &e.sent)
	}
	e.conn = acp.NewConn(context.Background(), r, w, m, nil)
	t.Cleanup(func() {
		p.stdin.Close() // the end of input: the agent must exit, and stop its CLIs
		if err := p.wait(); err != nil {
			t.Errorf("claude-acp exit: %v; want status 0", err)
		}
		p.stdout.Close()
		var err error
		testwait.Do(t, "the editor's connection to end", func() { err = e.conn.Wait() })
		if err != nil && !errors.Is(err, os.ErrClosed) {
			t.Errorf("editor connection: %v", err)
		}
		if left := p.leftovers(); len(left) > 0 {
			t.Errorf("still running after claude-acp exited: %v", left)
		}
		if t.Failed() {
			t.Logf("claude-acp stderr:\n%s", p.stderr.String())
		}
	})
	return e
}

func (e *editor) sessionUpdate(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
	e.mu.Lock()
	e.updates++
	e.mu.Unlock()
	if _, ok := n.Update.(acp.UnknownUpdate); ok {
		e.t.Errorf("an update of a kind the editor does not know: %+v", n.Update)
	}
	if _, ok := n.Update.(acp.AgentMessageChunk); ok {
		select {
		case e.chunks <- struct{}{}:
		default:
		}
	}
}

func (e *editor) requestPermission(ctx context.Context, _ *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
	e.mu.Lock()
	answer := answerReject
	if len(e.answers) > 0 {
		answer, e.answers = e.answers[0], e.answers[1:]
	} else {
		e.t.Errorf("a permission request the test did not expect: %+v", p)
	}
	onAsk := e.onAsk
	e.mu.Unlock()
	e.asked <- struct{}{}
	if onAsk != nil {
		onAsk()
	}
	switch answer {
	case answerCancelled:
		select {
		case <-e.cancelled:
		case <-ctx.Done():
		}
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}, nil
	case answerWithdrawn:
		<-ctx.Done()
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}, nil
	}
	for _, o := range p.Options {
		if string(o.Kind) == answer {
			return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: o.OptionID}}, nil
		}
	}
	e.t.Errorf("no %s option in %+v", answer, p.Options)
	return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}, nil
}

// answer queues the answers to the next permission requests.
func (e *editor) answer(answers ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answers = append(e.answers, answers...)
}

// capabilities are the client capabilities an editor declares.
type capabilities struct {
	notices bool // clientCapabilities.session.notices
	goose   bool // _meta.goose.customNotifications
}

func (e *editor) initialize(c capabilities) acp.InitializeResult {
	e.t.Helper()
	var caps acp.ClientCapabilities
	if c.notices {
		caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
	}
	if c.goose {
		caps.Meta = json.RawMessage(`{"goose":{"customNotifications":true}}`)
	}
	ctx, cancel := bounded()
	defer cancel()
	res, err := acp.Initialize.Call(ctx, e.conn, acp.InitializeParams{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: caps,
		ClientInfo:         &acp.Implementation{Name: "e2e-editor", Version: "1.0.0"},
	})
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	return res
}

func (e *editor) newSession() string {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	res, err := acp.SessionNew.Call(ctx, e.conn, acp.NewSessionParams{Cwd: e.cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		e.t.Fatalf("session/new: %v", err)
	}
	e.mu.Lock()
	e.sessionIDs = append(e.sessionIDs, res.SessionID)
	if e.first == "" {
		e.first = res.SessionID
	}
	e.mu.Unlock()
	return res.SessionID
}

func (e *editor) resume(id string) {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	if _, err := acp.SessionResume.Call(ctx, e.conn, acp.ResumeSessionParams{SessionID: id, Cwd: e.cwd}); err != nil {
		e.t.Fatalf("session/resume: %v", err)
	}
	e.mu.Lock()
	if e.first == "" {
		e.first = id
	}
	e.mu.Unlock()
}

// copyStore copies the folder src into the user's home folder, at dst:
// a CLI's store, as the CLI wrote it.
func (e *editor) copyStore(src, dst string) {
	e.t.Helper()
	if err := os.CopyFS(filepath.Join(e.p.home, dst), os.DirFS(src)); err != nil {
		e.t.Fatal(err)
	}
}

// load calls session/load in the editor's directory; the golden file
// shows the answer.
func (e *editor) load(id string) { e.loadIn(id, e.cwd) }

// loadIn calls session/load in the directory cwd.
func (e *editor) loadIn(id, cwd string) {
	ctx, cancel := bounded()
	defer cancel()
	acp.SessionLoad.Call(ctx, e.conn, acp.LoadSessionParams{SessionID: id, Cwd: cwd, MCPServers: []acp.MCPServer{}})
	e.mu.Lock()
	if e.first == "" {
		e.first = id
	}
	e.mu.Unlock()
}

// known names a session another agent opened, as the golden files show
// it: <session-N>, in the order the editor learns of them.
func (e *editor) known(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sessionIDs = append(e.sessionIDs, id)
	if e.first == "" {
		e.first = id
	}
}

// waitFor waits until claude-acp has sent an update of the kind, failing
// the test after testwait.Limit.
func (e *editor) waitFor(kind string) { e.waitForSession("", kind) }

// waitForSession waits until claude-acp has sent an update of the kind
// for session sid ("" for any).
func (e *editor) waitForSession(sid, kind string) {
	e.t.Helper()
	want := `"sessionUpdate":"` + kind + `"`
	sent := func() bool {
		for line := range bytes.Lines(e.wire.Bytes()) {
			if bytes.Contains(line, []byte(want)) && bytes.Contains(line, []byte(`"sessionId":"`+sid)) {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(testwait.Limit); !sent(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("no %s within %v", kind, testwait.Limit)
		}
	}
}

// list calls session/list, failing the test when it fails.
func (e *editor) list(cwd, cursor string) acp.ListSessionsResult {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	res, err := acp.SessionList.Call(ctx, e.conn, acp.ListSessionsParams{Cwd: cwd, Cursor: cursor})
	if err != nil {
		e.t.Fatalf("session/list: %v", err)
	}
	return res
}

// quit ends the agent's input, as an editor that closes does, and waits
// for the agent to exit.
func (e *editor) quit() {
	e.t.Helper()
	e.p.stdin.Close()
	if err := e.p.wait(); err != nil {
		e.t.Errorf("claude-acp exit: %v; want status 0", err)
	}
}

// setMode calls session/set_mode; the golden file shows the answer.
func (e *editor) setMode(sid, mode string) {
	ctx, cancel := bounded()
	defer cancel()
	acp.SessionSetMode.Call(ctx, e.conn, acp.SetSessionModeParams{SessionID: sid, ModeID: mode})
}

// setOption calls session/set_config_option; the golden file shows the
// answer.
func (e *editor) setOption(sid, option, value string) {
	ctx, cancel := bounded()
	defer cancel()
	acp.SessionSetConfigOption.Call(ctx, e.conn, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: option, Value: value})
}

// closeSession calls session/close; the golden file shows the answer.
func (e *editor) closeSession(sid string) {
	ctx, cancel := bounded()
	defer cancel()
	acp.SessionClose.Call(ctx, e.conn, acp.CloseSessionParams{SessionID: sid})
}

// prompt sends a one-block prompt and returns the result, or the error
// the agent answered with; the golden file shows both.
func (e *editor) prompt(sid, text string) (acp.PromptResult, error) {
	return e.promptBlocks(sid, acp.TextContent{Text: text})
}

// promptBlocks is prompt for a prompt of any blocks.
func (e *editor) promptBlocks(sid string, blocks ...acp.ContentBlock) (acp.PromptResult, error) {
	ctx, cancel := bounded()
	defer cancel()
	return acp.SessionPrompt.Call(ctx, e.conn, acp.PromptParams{SessionID: sid, Prompt: blocks})
}

// promptAsync sends a prompt and returns a channel that delivers its
// answer.
func (e *editor) promptAsync(sid, text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := e.prompt(sid, text)
		done <- err
	}()
	return done
}

// cancel cancels the session's prompt: it sends session/cancel, then
// lets the permission requests waiting for it answer.
func (e *editor) cancel(sid string) {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	if err := acp.SessionCancel.Notify(ctx, e.conn, acp.CancelParams{SessionID: sid}); err != nil {
		e.t.Fatalf("session/cancel: %v", err)
	}
	e.mu.Lock()
	select {
	case <-e.cancelled:
	default:
		close(e.cancelled)
	}
	e.mu.Unlock()
}

// bounded returns a context for one call to claude-acp, which ends after
// testwait.Limit. Unlike testwait.Context's, its cancel frees it at once:
// a benchmark makes b.N calls.
func bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), testwait.Limit)
}

// within waits for a value from ch, failing the test after
// testwait.Limit.
func within[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return testwait.For(t, ch, what)
}

// entry is one line claude-acp wrote, as the golden files show it.
type entry struct {
	Session      string          `json:"session,omitempty"`      // a session/update's session, when not the first
	Update       json.RawMessage `json:"update,omitempty"`       // a session/update's params.update
	Notification string          `json:"notification,omitempty"` // another notification's method
	Request      string          `json:"request,omitempty"`      // a request's method
	Response     string          `json:"response,omitempty"`     // the method of the request answered
	Params       json.RawMessage `json:"params,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        json.RawMessage `json:"error,omitempty"`
}

// transcript renders what claude-acp wrote as the golden files hold it:
// one entry per line, in order (but no $/cancel_request, and no answer to
// the methods leftOut), with the values that change from run to run
// (session ids, the temporary directories) replaced by names.
func (e *editor) transcript(leftOut ...string) []byte {
	e.t.Helper()
	methods := map[string]string{} // the editor's request ids -> methods
	for line := range bytes.Lines(e.sent.Bytes()) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method != "" {
			methods[string(m.ID)] = m.Method
		}
	}
	e.mu.Lock()
	var replace []string
	for i, id := range e.sessionIDs {
		replace = append(replace, id, fmt.Sprintf("<session-%d>", i+1))
	}
	replace = append(replace, e.cwd, "<cwd>", filepath.Dir(agentBin), "<bin>")
	norm := strings.NewReplacer(replace...)
	first := norm.Replace(e.first)
	e.mu.Unlock()

	var entries []entry
	updates := 0
	for line := range bytes.Lines(e.wire.Bytes()) {
		line = []byte(norm.Replace(string(line)))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			e.t.Errorf("claude-acp wrote a line that is not JSON: %q", line)
			continue
		}
		switch {
		case m.Method == acp.SessionUpdate.Name && m.ID == nil:
			updates++
			var p struct {
				SessionID string          `json:"sessionId"`
				Update    json.RawMessage `json:"update"`
			}
			json.Unmarshal(m.Params, &p)
			ent := entry{Update: p.Update}
			if p.SessionID != first {
				ent.Session = p.SessionID
			}
			entries = append(entries, ent)
		case m.Method == acp.CancelRequest.Name:
			// The agent withdraws a permission request when the CLI does,
			// from a goroutine of its own, unless the editor answered
			// first: whether and where this line comes depends on
			// timing, so the golden files leave it out. A scenario whose
			// editor waits for the withdrawal ends only if it came.
			continue
		case m.Method != "" && m.ID == nil:
			entries = append(entries, entry{Notification: m.Method, Params: m.Params})
		case m.Method != "":
			entries = append(entries, entry{Request: m.Method, Params: m.Params})
		default:
			method := methods[string(m.ID)]
			if method == "" {
				method = "unknown id " + string(m.ID)
			}
			if slices.Contains(leftOut, method) {
				continue
			}
			entries = append(entries, entry{Response: method, Result: m.Result, Error: m.Error})
		}
	}
	e.mu.Lock()
	decoded := e.updates
	e.mu.Unlock()
	if decoded != updates {
		e.t.Errorf("the editor decoded %d of the %d session/update notifications", decoded, updates)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		e.t.Fatal(err)
	}
	return out.Bytes()
}
