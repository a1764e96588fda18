package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/internal/lines"
)

// This file holds the harness of the session tests: an Agent whose CLI
// processes are scripted by the test, and an editor, joined in memory,
// all inside a testing/synctest bubble, where time is the bubble's fake
// clock and synctest.Wait lets everything settle before the test looks.

// script is a scripted CLI process: the test reads what the bridge wrote
// to it and writes what the CLI answers.
type script struct {
	t    *testing.T
	args []string
	dir  string

	inR  *io.PipeReader
	inW  *io.PipeWriter
	outR *io.PipeReader
	outW *io.PipeWriter
	errR *io.PipeReader
	errW *io.PipeWriter

	mu        sync.Mutex
	input     []string        // lines the bridge wrote, in order
	eof       bool            // the bridge closed the input
	signals   []bridge.Signal // signals received, in order
	ignore    map[bridge.Signal]bool
	stayAtEOF bool // do not exit when the input ends

	once sync.Once
	code int
	done chan struct{} // closed when the process has exited
}

func newScript(t *testing.T, dir string, args []string, stayAtEOF bool) *script {
	s := &script{t: t, dir: dir, args: args, stayAtEOF: stayAtEOF, done: make(chan struct{}), ignore: map[bridge.Signal]bool{}}
	s.inR, s.inW = io.Pipe()
	s.outR, s.outW = io.Pipe()
	s.errR, s.errW = io.Pipe()
	go s.readInput()
	return s
}

func (s *script) Stdin() io.WriteCloser { return s.inW }
func (s *script) Stdout() io.Reader     { return s.outR }
func (s *script) Stderr() io.Reader     { return s.errR }

// Signal makes the process exit as a shell reports a signal's death,
// unless the script ignores the signal.
func (s *script) Signal(sig bridge.Signal) error {
	s.mu.Lock()
	s.signals = append(s.signals, sig)
	ignored := s.ignore[sig]
	s.mu.Unlock()
	if !ignored {
		s.exit(map[bridge.Signal]int{bridge.Interrupt: 130, bridge.Terminate: 143, bridge.Kill: 137}[sig])
	}
	return nil
}

func (s *script) Wait() error {
	<-s.done
	if s.code != 0 {
		return exitError{code: s.code}
	}
	return nil
}

// readInput collects what the bridge writes; the end of the input makes
// the process exit, as the CLIs do, unless stayAtEOF.
func (s *script) readInput() {
	lr := lines.NewReader(s.inR, 1<<20)
	for {
		line, err := lr.Next()
		if err != nil {
			s.mu.Lock()
			s.eof = err == io.EOF
			stay := s.stayAtEOF
			s.mu.Unlock()
			if err == io.EOF && !stay {
				s.exit(0)
			}
			return
		}
		s.mu.Lock()
		s.input = append(s.input, string(line))
		s.mu.Unlock()
	}
}

// exit ends the process with code: its output ends, and its input is
// read no more.
func (s *script) exit(code int) {
	s.once.Do(func() {
		s.code = code
		s.outW.Close()
		s.errW.Close()
		s.inR.Close()
		close(s.done)
	})
}

// write writes lines of output, each completed with a newline.
func (s *script) write(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.outW, l+"\n"); err != nil {
			s.t.Fatalf("writing the CLI's output: %v", err)
		}
	}
}

// stderr writes text to the process's standard error, in a goroutine of
// its own, as a CLI writes it while it runs.
func (s *script) stderr(text string) {
	go io.WriteString(s.errW, text)
}

// lines returns what the bridge wrote so far.
func (s *script) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.input)
}

// kinds returns the kind of each line the bridge wrote: "user", or the
// subtype of a control request, or "response <behavior>" for an answer.
func (s *script) kinds() []string {
	var out []string
	for _, l := range s.lines() {
		var m struct {
			Type     string `json:"type"`
			Request  struct{ Subtype string }
			Response struct {
				Response struct{ Behavior string }
			}
		}
		json.Unmarshal([]byte(l), &m)
		switch m.Type {
		case "control_request":
			out = append(out, m.Request.Subtype)
		case "control_response":
			out = append(out, "response "+m.Response.Response.Behavior)
		default:
			out = append(out, m.Type)
		}
	}
	return out
}

// requestID returns the id of the last control request of subtype the
// bridge wrote.
func (s *script) requestID(subtype string) string {
	s.t.Helper()
	ls := s.lines()
	for i := len(ls) - 1; i >= 0; i-- {
		var m struct {
			RequestID string `json:"request_id"`
			Request   struct{ Subtype string }
		}
		if json.Unmarshal([]byte(ls[i]), &m) == nil && m.Request.Subtype == subtype {
			return m.RequestID
		}
	}
	s.t.Fatalf("no %s request in %q", subtype, ls)
	return ""
}

func (s *script) gotSignals() []bridge.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.signals)
}

func (s *script) inputClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eof
}

func (s *script) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// env is an Agent with scripted CLIs and an editor connected to it.
type env struct {
	t       *testing.T
	a       *bridge.Agent
	client  *acp.Conn
	started chan *script // each process the Agent starts
	failing map[int]bool // the starts that fail, 1 for the first
	// stayAtEOF makes the processes run on after their input ends, as
	// the per-turn CLIs do.
	stayAtEOF bool

	mu      sync.Mutex
	updates []acp.Update
	asked   []acp.RequestPermissionParams
	answer  func(ctx context.Context, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error)
	closed  func() error
	starts  int
	log     []string // what the editor saw end, in order (see note)

	// What a v2 editor (see dialV2) got, and how it answers.
	updatesV2 []acpv2.Update
	askedV2   []acpv2.RequestPermissionParams
	answerV2  func(ctx context.Context, p acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error)
}

// note records that something the test watches ended.
func (e *env) note(what string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, what)
}

func (e *env) notes() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.log)
}

// newEnv starts an Agent configured by cfg, with Start, Clock and
// NewSessionID filled in, and an editor that declares caps.
func newEnv(t *testing.T, cfg bridge.Config, caps acp.ClientCapabilities) *env {
	e := newAgentEnv(t, cfg)
	client, _, closePair := acptest.NewPair(context.Background(), e.editorV1(), e.a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
	e.client, e.closed = client, closePair
	if _, err := acp.Initialize.Call(context.Background(), client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	return e
}

// newAgentEnv starts an Agent configured by cfg, with Start, Clock and
// NewSessionID (unless cfg has one) filled in, and no editor yet.
func newAgentEnv(t *testing.T, cfg bridge.Config) *env {
	e := &env{t: t, started: make(chan *script, 10)}
	cfg.Start = func(dir string, args []string) (bridge.Process, error) {
		e.mu.Lock()
		e.starts++
		fail := e.failing[e.starts]
		e.mu.Unlock()
		if fail {
			return nil, errors.New("no such program")
		}
		s := newScript(t, dir, args, e.stayAtEOF)
		e.started <- s
		return s, nil
	}
	cfg.Clock = bubbleClock{}
	if cfg.NewSessionID == nil {
		cfg.NewSessionID = func() string { return "11111111-2222-4333-8444-555555555555" }
	}
	a, err := bridge.NewAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.a = a
	return e
}

// editorV1 is the methods of a v1 editor that records what it gets in e.
func (e *env) editorV1() acp.Methods {
	var editor acp.Methods
	acp.SessionUpdate.Handle(&editor, func(ctx context.Context, c *acp.Conn, n acp.SessionNotification) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.updates = append(e.updates, n.Update)
	})
	goose.SessionUpdate.Handle(&editor, func(ctx context.Context, c *acp.Conn, n goose.SessionNotification) {
		e.note("goose " + fmt.Sprintf("%T", n.Update))
	})
	acp.SessionRequestPermission.Handle(&editor, func(ctx context.Context, c *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
		e.mu.Lock()
		e.asked = append(e.asked, p)
		answer := e.answer
		e.mu.Unlock()
		if answer == nil {
			return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: "allow"}}, nil
		}
		return answer(ctx, p)
	})
	return editor
}

// close closes the Agent and the connection, as a program does at its end.
func (e *env) close() {
	e.a.Close()
	if err := e.closed(); err != nil {
		e.t.Error(err)
	}
}

// bubbleClock is the real clock, which is fake inside a synctest bubble.
type bubbleClock struct{}

func (bubbleClock) Now() time.Time { return time.Now() }
func (bubbleClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

func (e *env) newSession() string {
	e.t.Helper()
	res, err := acp.SessionNew.Call(context.Background(), e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.SessionID
}

// begin opens a session and sends its first prompt, and returns the
// session, where the prompt's answer comes, and the CLI it started.
func (e *env) begin(text string) (sid string, answer <-chan answer, p *script) {
	e.t.Helper()
	sid = e.newSession()
	answer = e.promptAsync(bg, sid, text)
	return sid, answer, e.process()
}

// answer is a prompt's response as the editor got it.
type answer struct {
	res acp.PromptResult
	err error
}

// promptAsync sends a prompt and returns where its answer comes.
func (e *env) promptAsync(ctx context.Context, sid, text string) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		res, err := acp.SessionPrompt.Call(ctx, e.client, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextContent{Text: text}}})
		e.note("answer " + text)
		ch <- answer{res, err}
	}()
	return ch
}

// process returns the next process the Agent started, once everything
// has settled.
func (e *env) process() *script {
	e.t.Helper()
	synctest.Wait()
	select {
	case s := <-e.started:
		return s
	default:
		e.t.Fatal("no CLI was started")
		return nil
	}
}

// noProcess checks that the Agent started no process.
func (e *env) noProcess() {
	e.t.Helper()
	synctest.Wait()
	select {
	case s := <-e.started:
		e.t.Fatalf("a CLI was started: %q", s.args)
	default:
	}
}

func (e *env) cancel(sid string) {
	e.t.Helper()
	if err := acp.SessionCancel.Notify(context.Background(), e.client, acp.CancelParams{SessionID: sid}); err != nil {
		e.t.Fatal(err)
	}
}

// kinds returns the kind of each update the editor received so far.
func (e *env) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, u := range e.updates {
		b, _ := json.Marshal(u)
		var m struct{ SessionUpdate string }
		json.Unmarshal(b, &m)
		out = append(out, m.SessionUpdate)
	}
	return out
}

// got returns the answer on ch once everything has settled, failing the
// test when there is none yet.
func got(t *testing.T, ch <-chan answer) answer {
	t.Helper()
	synctest.Wait()
	select {
	case a := <-ch:
		return a
	default:
		t.Fatal("the prompt has no answer yet")
		return answer{}
	}
}

// pending checks that the prompt on ch has no answer yet.
func pending(t *testing.T, ch <-chan answer) {
	t.Helper()
	synctest.Wait()
	select {
	case a := <-ch:
		t.Fatalf("the prompt was answered %+v, %v", a.res, a.err)
	default:
	}
}

// stopReason checks that an answer is a stop reason.
func stopReason(t *testing.T, a answer, want acp.StopReason) {
	t.Helper()
	if a.err != nil || a.res.StopReason != want {
		t.Fatalf("prompt answered %+v, %v; want %s", a.res, a.err, want)
	}
}

// failure checks that an answer is an error of kind, and returns its
// message.
func failure(t *testing.T, a answer, kind string) string {
	t.Helper()
	var e *acp.Error
	if !errors.As(a.err, &e) {
		t.Fatalf("prompt answered %+v, %v; want a %s error", a.res, a.err, kind)
	}
	var data bridge.ErrorData
	json.Unmarshal(e.Data, &data)
	if data.Kind != kind {
		t.Fatalf("prompt failed with %v (data %s); want kind %s", e, e.Data, kind)
	}
	return e.Message
}

// Lines of Claude Code's output, in the shapes of
// ../claude/testdata/control.

func initAnswer(id string) string {
	return `{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":{"commands":[{"name":"init","description":"Set up CLAUDE.md","argumentHint":""}],"models":[{"value":"default","displayName":"Default"},{"value":"opus","displayName":"Opus"}]}}}`
}

// setMode sets the session's mode while its CLI p runs, p answering
// the control request the Agent sends it, and returns the answer's
// error.
func (e *env) setMode(p *script, sid, mode string) error {
	ch := make(chan error, 1)
	go func() {
		_, err := acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: sid, ModeID: mode})
		ch <- err
	}()
	synctest.Wait()
	p.write(controlAnswer(p.requestID("set_permission_mode")))
	return <-ch
}

func controlAnswer(id string) string {
	return `{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":{}}}`
}

func controlRefusal(id, msg string) string {
	return `{"type":"control_response","response":{"subtype":"error","request_id":"` + id + `","error":"` + msg + `"}}`
}

const (
	systemInit  = `{"type":"system","subtype":"init","session_id":"a3ff07eb","model":"claude-sonnet-4-5"}`
	textLine    = `{"type":"assistant","message":{"content":[{"type":"text","text":"Hello."}]},"session_id":"a3ff07eb"}`
	resultLine  = `{"type":"result","subtype":"success","is_error":false,"result":"Hello.","session_id":"a3ff07eb","terminal_reason":"completed","usage":{"input_tokens":10,"output_tokens":5}}`
	abortedLine = `{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"a3ff07eb","terminal_reason":"aborted_streaming"}`
	askBash     = `{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x"},"tool_use_id":"toolu_1"}}`
	withdrawn   = `{"type":"control_cancel_request","request_id":"perm-1"}`
)

// turn answers a Claude process's first turn: the initialize answer, and
// the turn's lines.
func (s *script) turn(lines ...string) {
	s.t.Helper()
	synctest.Wait()
	s.write(append([]string{initAnswer(s.requestID("initialize")), systemInit}, lines...)...)
}

func hasArg(args []string, arg string) bool { return slices.Contains(args, arg) }

func argWith(args []string, prefix string) string {
	for _, a := range args {
		if strings.HasPrefix(a, prefix) {
			return a
		}
	}
	return ""
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
