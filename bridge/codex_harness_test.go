package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/tidwall/gjson"
)

// This file is the harness of the tests of Codex behind the bridge: an
// Agent whose every `codex app-server` is codextest's fake, replaying a
// transcript of the real one (../codex/testdata/appserver, copied from
// ../shared/captures/codex/app-server) in both directions, in-process,
// and an editor, all inside a testing/synctest bubble.
//
// The transcripts are the captured ones, edited where the bridge talks to
// the app-server otherwise than the capturing script did: it asks for
// model/list after initialize, and nothing after its last turn. Each edit
// is made here, in code, from the copies under codex/testdata.

// transcript is a two-way transcript of the app-server.
type transcript []codextest.AppServerRecord

// loadTranscript reads ../codex/testdata/appserver/NAME.ndjson.
func loadTranscript(t testing.TB, name string) transcript {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "codex", "testdata", "appserver", name+".ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := codextest.ReadAppServerTranscript(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// label names record i: "> thread/start" for a request of the client's,
// "> #0" for its answer to the server's request 0, "< #3" for the server's
// answer to request 3, "< turn/completed" for the server's notifications
// and requests, "< raw" for a line that is not JSON.
func (tr transcript) label(i int) string {
	r := tr[i]
	dir := "<"
	if r.Dir == codextest.DirClient {
		dir = ">"
	}
	m := gjson.ParseBytes(r.Msg)
	switch {
	case r.Dir == codextest.DirExit:
		return "exit"
	case r.Msg == nil:
		return "< raw"
	case m.Get("method").Exists():
		return dir + " " + m.Get("method").String()
	}
	return dir + " #" + m.Get("id").Raw
}

// index returns the index of the n-th record (from 1) labelled label,
// failing the test when there is none.
func (tr transcript) index(t testing.TB, label string, n int) int {
	t.Helper()
	for i := range tr {
		if tr.label(i) == label {
			if n--; n == 0 {
				return i
			}
		}
	}
	t.Fatalf("the transcript has no %s #%d", label, n)
	return -1
}

// cut returns the records up to and including the n-th labelled label.
func (tr transcript) cut(t testing.TB, label string, n int) transcript {
	t.Helper()
	return slices.Clone(tr[:tr.index(t, label, n)+1])
}

// without returns tr without the exchanges of the client's requests of
// method: each request and the server's answer to it.
func (tr transcript) without(method string) transcript {
	var ids []string
	var out transcript
	for i, r := range tr {
		id := gjson.GetBytes(r.Msg, "id").Raw
		switch {
		case tr.label(i) == "> "+method:
			ids = append(ids, id)
		case r.Dir == codextest.DirServer && !gjson.GetBytes(r.Msg, "method").Exists() && slices.Contains(ids, id):
		default:
			out = append(out, r)
		}
	}
	return out
}

// span returns the records from the n-th labelled from to the m-th
// labelled to, both included.
func (tr transcript) span(t testing.TB, from string, n int, to string, m int) transcript {
	t.Helper()
	return slices.Clone(tr[tr.index(t, from, n) : tr.index(t, to, m)+1])
}

// client is a line of the client's, as a record.
func client(line string) codextest.AppServerRecord {
	return codextest.AppServerRecord{Dir: codextest.DirClient, Msg: json.RawMessage(line)}
}

// insert returns tr with recs inserted after record i.
func (tr transcript) insert(i int, recs ...codextest.AppServerRecord) transcript {
	return slices.Insert(slices.Clone(tr), i+1, recs...)
}

// server is a line of the server's, as a record.
func server(line string) codextest.AppServerRecord {
	return codextest.AppServerRecord{Dir: codextest.DirServer, Msg: json.RawMessage(line)}
}

// modelList is the exchange of model/list the bridge asks for after
// initialize, with the real app-server's answer (misc.ndjson's).
func modelList(t testing.TB) transcript {
	misc := loadTranscript(t, "misc")
	req := misc[misc.index(t, "> model/list", 1)]
	req.Msg = json.RawMessage(strings.Replace(string(req.Msg), `"id":4`, `"id":"models"`, 1))
	answer := misc[misc.index(t, "< #4", 1)]
	answer.Msg = json.RawMessage(strings.Replace(string(answer.Msg), `"id":4`, `"id":"models"`, 1))
	return transcript{req, answer}
}

// asBridge returns the captured transcript name as the bridge plays it:
// model/list asked for after initialized, the client requests it never
// sends dropped, and nothing after the n-th turn/completed (0 for the
// whole transcript).
func asBridge(t testing.TB, name string, turns int) transcript {
	tr := loadTranscript(t, name).without("mcpServerStatus/list").without("account/rateLimits/read").without("thread/turns/list")
	if turns > 0 {
		tr = tr.cut(t, "< turn/completed", turns)
	}
	return tr.insert(tr.index(t, "> initialized", 1), modelList(t)...)
}

// appServer is a fake `codex app-server` running in a goroutine: the
// bridge.Process a codexEnv's Agent starts.
type appServer struct {
	args   []string
	stdin  *lineRecorder
	stdout *io.PipeReader
	stop   context.CancelFunc
	done   chan struct{}
	err    error // ServeAppServer's, once done
	code   int
}

func (p *appServer) Stdin() io.WriteCloser { return p.stdin }
func (p *appServer) Stdout() io.Reader     { return p.stdout }
func (p *appServer) Stderr() io.Reader     { return nil }

// Signal kills the fake, which exits with the status a shell reports.
func (p *appServer) Signal(s bridge.Signal) error {
	p.code = map[bridge.Signal]int{bridge.Interrupt: 130, bridge.Terminate: 143, bridge.Kill: 137}[s]
	p.stop()
	return nil
}

func (p *appServer) Wait() error {
	<-p.done
	if p.code != 0 {
		return exitError{code: p.code}
	}
	return nil
}

// lineRecorder is the fake's standard input, which keeps every line the
// bridge wrote.
type lineRecorder struct {
	w     *io.PipeWriter
	mu    sync.Mutex
	lines []string
}

func (l *lineRecorder) Write(b []byte) (int, error) {
	n, err := l.w.Write(b)
	if err == nil {
		l.mu.Lock()
		l.lines = append(l.lines, strings.TrimSuffix(string(b), "\n"))
		l.mu.Unlock()
	}
	return n, err
}

func (l *lineRecorder) Close() error { return l.w.Close() }

func (l *lineRecorder) written() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// codexEnv is an Agent serving Codex through fake app-servers, each
// replaying the next of its transcripts, and an editor that records what
// it sees.
type codexEnv struct {
	t      *testing.T
	a      *bridge.Agent
	client *acp.Conn
	closed func() error

	mu          sync.Mutex
	transcripts []transcript
	procs       []*appServer
	log         []string // what the editor saw, in order
	option      string   // how the editor answers permission questions
	chunks      int      // agent message chunks seen
	cancelAt    int      // cancel the turn of cancelSID at this many chunks
	cancelSID   string
}

// newCodexEnv starts an Agent configured by cfg, serving Codex with the
// transcripts, one per process, and an editor of ACP version v (1 or
// 2) that declares notices.
func newCodexEnv(t *testing.T, cfg bridge.Config, v int, transcripts ...transcript) *codexEnv {
	e := &codexEnv{t: t, transcripts: transcripts, option: "allow"}
	cfg.CLI = bridge.Codex
	cfg.Clock = bubbleClock{}
	cfg.Start = e.start
	if cfg.NewSessionID == nil {
		n := 0
		cfg.NewSessionID = func() string { n++; return fmt.Sprintf("11111111-2222-4333-8444-%012d", n) }
	}
	a, err := bridge.NewAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.a = a
	editor := e.editorV1()
	if v == 2 {
		editor = e.editorV2()
	}
	client, _, closePair := acptest.NewPair(bg, editor, a.Handler(bridge.Editor{}), nil)
	e.client, e.closed = client, closePair
	if v == 2 {
		_, err = acpv2.Initialize.Call(bg, client, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
	} else {
		notices := acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}}
		_, err = acp.Initialize.Call(bg, client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: notices})
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// start starts the next fake app-server.
func (e *codexEnv) start(dir string, args []string) (bridge.Process, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.transcripts) == 0 {
		return nil, fmt.Errorf("no transcript left for process %d", len(e.procs)+1)
	}
	recs := e.transcripts[0]
	e.transcripts = e.transcripts[1:]
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	p := &appServer{args: args, stdin: &lineRecorder{w: inW}, stdout: outR, stop: stop, done: make(chan struct{})}
	e.procs = append(e.procs, p)
	if len(recs) == 1 && recs[0].Dir == codextest.DirExit {
		// A process that exits at once, having read nothing.
		inR.Close()
		outW.Close()
		close(p.done)
		return p, nil
	}
	go func() {
		defer close(p.done)
		p.err = codextest.ServeAppServer(ctx, recs, inR, outW)
		outW.Close()
		inR.Close()
		stop()
	}()
	return p, nil
}

// record adds a line to what the editor saw.
func (e *codexEnv) record(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, fmt.Sprintf(format, args...))
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// chunk counts an agent message chunk, and cancels the turn at the
// count asked for.
func (e *codexEnv) chunk() {
	e.mu.Lock()
	e.chunks++
	cancel := e.cancelAt != 0 && e.chunks == e.cancelAt
	sid := e.cancelSID
	e.mu.Unlock()
	if cancel {
		go acp.SessionCancel.Notify(bg, e.client, acp.CancelParams{SessionID: sid})
	}
}

// editorV1 is a v1 editor that records every update and permission
// question, answering the questions with e.option.
func (e *codexEnv) editorV1() acp.Methods {
	var m acp.Methods
	acp.SessionUpdate.Handle(&m, func(ctx context.Context, c *acp.Conn, n acp.SessionNotification) {
		switch u := n.Update.(type) {
		case acp.ConfigOptionUpdate:
			e.record("update config_option_update %s", optionsOf(u.ConfigOptions))
		default:
			e.record("update %s", jsonOf(n.Update))
		}
		if _, ok := n.Update.(acp.AgentMessageChunk); ok {
			e.chunk()
		}
	})
	acp.SessionRequestPermission.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
		e.mu.Lock()
		option := e.option
		e.mu.Unlock()
		e.record("permission %s %s -> %s", jsonOf(p.ToolCall), optionIDs(p.Options), option)
		if option == "cancel" {
			// The person cancels the prompt instead of answering; the
			// question stays open until the bridge withdraws it.
			go acp.SessionCancel.Notify(bg, e.client, acp.CancelParams{SessionID: p.SessionID})
			<-ctx.Done()
			e.record("permission withdrawn")
			return acp.RequestPermissionResult{}, ctx.Err()
		}
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: option}}, nil
	})
	return m
}

func optionIDs(opts []acp.PermissionOption) string {
	var ids []string
	for _, o := range opts {
		ids = append(ids, o.OptionID+"/"+string(o.Kind))
	}
	return strings.Join(ids, ",")
}

// editorV2 is a v2 editor that records every update and permission
// question, answering the questions with e.option.
func (e *codexEnv) editorV2() acp.Methods {
	var m acp.Methods
	acpv2.SessionUpdate.Handle(&m, func(ctx context.Context, c *acp.Conn, n acpv2.SessionNotification) {
		e.record("update %s", jsonOf(n.Update))
		if _, ok := n.Update.(acpv2.AgentMessageChunk); ok {
			e.chunk()
		}
	})
	acpv2.SessionRequestPermission.Handle(&m, func(ctx context.Context, c *acp.Conn, p acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error) {
		e.mu.Lock()
		option := e.option
		e.mu.Unlock()
		e.record("permission %s %s -> %s", p.Title, jsonOf(p.Subject), option)
		return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: option}}, nil
	})
	return m
}

// newSession opens a session in /work with the MCP servers, and lets its
// app-server start.
func (e *codexEnv) newSession(servers ...acp.MCPServer) string {
	e.t.Helper()
	res, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: servers})
	if err != nil {
		e.t.Fatal(err)
	}
	synctest.Wait()
	return res.SessionID
}

// resume resumes the session id, and lets its app-server start.
func (e *codexEnv) resume(id string) {
	e.t.Helper()
	if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: id, Cwd: "/work"}); err != nil {
		e.t.Fatal(err)
	}
	synctest.Wait()
}

// prompt sends a prompt and records its answer, once everything has
// settled.
func (e *codexEnv) prompt(sid string, blocks ...acp.ContentBlock) (acp.PromptResult, error) {
	e.t.Helper()
	ch := make(chan answer, 1)
	go func() {
		res, err := acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: blocks})
		ch <- answer{res, err}
	}()
	var a answer
	if !settle(func() bool {
		select {
		case a = <-ch:
			return true
		default:
			return false
		}
	}) {
		e.t.Fatal("the prompt has no answer after five minutes")
	}
	if a.err != nil {
		e.record("prompt error %s", jsonOf(a.err))
	} else {
		e.record("prompt result %s", jsonOf(a.res))
	}
	return a.res, a.err
}

// settle lets everything settle, then time pass a second at a time while
// nothing else is left to happen (a turn may wait for a timer, the
// watchdog's), until done reports true, for at most five minutes of the
// bubble's time; it reports whether done did.
func settle(done func() bool) bool {
	for range 300 {
		synctest.Wait()
		if done() {
			return true
		}
		time.Sleep(time.Second)
	}
	return false
}

// newSessionV2 opens a session in /work over ACP v2, and lets its
// app-server start.
func (e *codexEnv) newSessionV2() string {
	e.t.Helper()
	res, err := acpv2.SessionNew.Call(bg, e.client, acpv2.NewSessionParams{Cwd: "/work"})
	if err != nil {
		e.t.Fatal(err)
	}
	synctest.Wait()
	return res.SessionID
}

// sayV2 sends a v2 prompt of text and waits for the turn's idle state.
// Where the prompt's acknowledgement lands among the turn's updates is a
// matter of timing: it is checked, not recorded.
func (e *codexEnv) sayV2(sid, text string) {
	e.t.Helper()
	idle := func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		n := 0
		for _, l := range e.log {
			if strings.Contains(l, `"state":"idle"`) {
				n++
			}
		}
		return n
	}
	before := idle()
	res, err := acpv2.SessionPrompt.Call(bg, e.client, acpv2.PromptParams{SessionID: sid, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: text}}})
	if err != nil {
		e.t.Fatal(err)
	}
	if res.MessageID == "" {
		e.t.Error("the v2 prompt was acknowledged without its user message's id")
	}
	if !settle(func() bool { return idle() > before }) {
		e.t.Fatal("the v2 turn did not end within five minutes")
	}
}

// say sends a prompt of text.
func (e *codexEnv) say(sid, text string) (acp.PromptResult, error) {
	e.t.Helper()
	return e.prompt(sid, acp.TextContent{Text: text})
}

// set sets a config option of the session.
func (e *codexEnv) set(sid, key, value string) {
	e.t.Helper()
	res, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: key, Value: value})
	if err != nil {
		e.t.Fatalf("setting %s to %s: %v", key, value, err)
	}
	e.record("set %s=%s: %s", key, value, optionsOf(res.ConfigOptions))
}

// close closes the Agent and the editor's connection, and checks that
// every fake app-server played its transcript to its end, or was
// stopped.
func (e *codexEnv) close() {
	e.t.Helper()
	e.a.Close()
	if err := e.closed(); err != nil {
		e.t.Error(err)
	}
	synctest.Wait()
	for i, p := range e.procs {
		if p.err != nil && p.code == 0 {
			e.t.Errorf("app-server %d: %v", i+1, p.err)
		}
	}
}

// transcriptOf is what the editor saw and then, for each app-server, what
// the bridge wrote to it and how it ended: the golden files' text.
func (e *codexEnv) transcriptOf() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, l := range e.log {
		b.WriteString(l + "\n")
	}
	for i, p := range e.procs {
		fmt.Fprintf(&b, "--- app-server %d: %s\n", i+1, strings.Join(p.args, " "))
		for _, l := range p.stdin.written() {
			b.WriteString("> " + l + "\n")
		}
		if p.code != 0 {
			fmt.Fprintf(&b, "killed: exit status %d\n", p.code)
		}
	}
	return b.String()
}

// playCodex runs a scenario of the Codex tests under synctest, and
// compares what the editor saw and the bridge wrote with
// testdata/codex/NAME.golden.
func playCodex(t *testing.T, name string, cfg bridge.Config, v int, transcripts []transcript, play func(e *codexEnv)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		e := newCodexEnv(t, cfg, v, transcripts...)
		play(e)
		e.close()
		checkGolden(t, filepath.Join("testdata", "codex", name+".golden"), e.transcriptOf())
	})
}

// keepTranscripts keeps the transcripts of a scenario as the bridge
// plays them in testdata/codex: NAME.ndjson, or NAME.N.ndjson for the N-th
// of several processes, for the tests of the programs over the bridge
// (examples/claude-acp runs fakecodex over them).
func keepTranscripts(t *testing.T, name string, transcripts []transcript) {
	t.Helper()
	for i, tr := range transcripts {
		file := name + ".ndjson"
		if len(transcripts) > 1 {
			file = fmt.Sprintf("%s.%d.ndjson", name, i+1)
		}
		var b strings.Builder
		if err := codextest.WriteAppServerTranscript(&b, tr); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, filepath.Join("testdata", "codex", file), b.String())
	}
}

// sleep lets time pass in the bubble, everything settled before and
// after.
func sleep(d time.Duration) {
	synctest.Wait()
	time.Sleep(d)
	synctest.Wait()
}
