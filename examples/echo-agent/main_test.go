package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// These tests build the echo agent and drive it as a subprocess, over its
// stdin and stdout, as an editor would.

// agentBin is the echo-agent binary TestMain builds.
var agentBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "echo-agent-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	agentBin = filepath.Join(dir, "echo-agent")
	args := []string{"build", "-o", agentBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building echo-agent: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// agentProc is a running echo-agent.
type agentProc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr bytes.Buffer // read only once exited is closed

	exited  chan struct{}
	waitErr error // set before exited is closed
}

// startAgent starts echo-agent with args. When the test ends it closes the
// agent's stdin, kills it if it has not exited, and logs its stderr if the
// test failed.
func startAgent(t *testing.T, args ...string) *agentProc {
	t.Helper()
	// os.Pipe rather than cmd.StdoutPipe: Wait would close that pipe,
	// possibly before everything in it has been read.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &agentProc{cmd: exec.Command(agentBin, args...), stdin: inW, stdout: outR, exited: make(chan struct{})}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, &p.stderr
	// A race-enabled binary sleeps a second at exit unless told not to; a
	// race it detects makes it exit with status 66, failing the test.
	p.cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
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
		if t.Failed() {
			t.Logf("echo-agent %q stderr:\n%s", args, p.stderr.String())
		}
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
	return fmt.Errorf("echo-agent did not exit within %v: killed (%v)", testwait.Limit, p.waitErr)
}

// startClient starts echo-agent with args and connects an acp.Conn client to
// it. When the test ends, the client closes the agent's stdin and checks
// that the agent exits with status 0 having written only JSON objects, one
// per line, to stdout.
func startClient(t *testing.T, args ...string) *client {
	t.Helper()
	p := startAgent(t, args...)
	var stdout syncBuffer // a copy of everything the agent wrote
	rec := newRecorder(t)
	conn := acp.NewConn(context.Background(), io.TeeReader(p.stdout, &stdout), p.stdin, rec.methods(), nil)
	t.Cleanup(func() {
		p.stdin.Close() // end of input: the agent should exit cleanly
		if err := p.wait(); err != nil {
			t.Errorf("echo-agent exit: %v; want status 0", err)
		}
		p.stdout.Close() // in case the agent did not exit and the client still reads
		var err error
		testwait.Do(t, "the client connection to end", func() { err = conn.Wait() })
		if err != nil && !errors.Is(err, os.ErrClosed) {
			t.Errorf("client connection: %v", err)
		}
		checkJSONLines(t, stdout.Bytes())
	})
	return &client{t: t, conn: conn, rec: rec, bounded: true}
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

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// checkJSONLines reports any line of out that is not one JSON object.
func checkJSONLines(t *testing.T, out []byte) {
	t.Helper()
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		t.Errorf("stdout does not end with a newline: %q", out)
	}
	for line := range bytes.Lines(out) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if !json.Valid(line) || !bytes.HasPrefix(line, []byte("{")) {
			t.Errorf("stdout line is not a JSON object: %q", line)
		}
	}
}

// within waits for a value from ch, failing the test after
// testwait.Limit.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	return testwait.For(t, ch, what)
}

func TestEndToEnd(t *testing.T) {
	c := startClient(t)
	init := c.initialize(true)
	if init.ProtocolVersion != 1 || init.AgentInfo == nil || init.AgentInfo.Name != "echo-agent" {
		t.Errorf("initialize: %+v", init)
	}
	s1, s2 := c.newSession(), c.newSession()
	if s1 == s2 {
		t.Fatalf("two sessions with id %q", s1)
	}

	// Two prompts at once, one per session.
	texts := map[string]string{s1: "the quick brown fox", s2: "jumps over the lazy dog"}
	answers := map[string]<-chan acp.StopReason{}
	for sid, text := range texts {
		answers[sid] = c.promptAsync(sid, text)
	}
	for sid, res := range answers {
		if got := within(t, res, "prompt response"); got != acp.StopReasonEndTurn {
			t.Errorf("%s: stop reason %q, want end_turn", sid, got)
		}
	}
	for sid, text := range texts {
		evs := c.rec.take(sid)
		if diff := cmp.Diff(turn(runOf(evs), strings.Fields(text), defaultModel, true), lines(evs)); diff != "" {
			t.Errorf("%s: updates (-want +got):\n%s", sid, diff)
		}
	}

	// session/set_model changes the model the usage updates name.
	call[acp.SetSessionModelResult](c, acp.SessionSetModel.Name, acp.SetSessionModelParams{SessionID: s1, ModelID: "echo-2"})
	c.prompt(s1, "hi")
	evs := c.rec.take(s1)
	if diff := cmp.Diff([]string{"goose used=10 in=5 out=5 echo-2", "usage used=2 size=128000"}, lines(evs[len(evs)-2:])); diff != "" {
		t.Errorf("usage after set_model (-want +got):\n%s", diff)
	}

	wantError(t, callErr(c, acp.SessionPrompt.Name, promptParams("nope", "hi")), acp.CodeResourceNotFound, `{"sessionId":"nope"}`)
	wantError(t, callErr(c, "session/unknown", nil), acp.CodeMethodNotFound, "")
}

func TestNoGooseUsageUnlessDeclared(t *testing.T) {
	c := startClient(t)
	c.initialize(false)
	sid := c.newSession()
	c.prompt(sid, "a b")
	evs := c.rec.take(sid)
	if diff := cmp.Diff(turn(runOf(evs), []string{"a", "b"}, "", false), lines(evs)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

func TestCancelMidPrompt(t *testing.T) {
	c := startClient(t, "-delay", "50ms")
	c.initialize(true)
	sid := c.newSession()
	words := strings.Fields(strings.Repeat("word ", 1000))
	res := c.promptAsync(sid, strings.Join(words, " "))
	within(t, c.rec.chunked, "chunk")
	c.cancel(sid)
	if got := within(t, res, "prompt response"); got != acp.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", got)
	}
	evs := c.rec.take(sid)
	echoed := 0
	for _, ev := range evs {
		if strings.HasPrefix(ev.Line, "chunk") {
			echoed++
		}
	}
	if echoed == 0 || echoed == len(words) {
		t.Errorf("%d of %d words echoed before the cancellation took effect", echoed, len(words))
	}
	// The usage updates come last, before the response, and count only
	// the words echoed.
	want := []string{"run null",
		fmt.Sprintf("goose used=%d in=%d out=%d echo-1", len(words)+echoed, len(words), echoed),
		fmt.Sprintf("usage used=%d size=128000", len(words)+echoed)}
	if diff := cmp.Diff(want, lines(evs[len(evs)-3:])); diff != "" {
		t.Errorf("end of the cancelled turn (-want +got):\n%s", diff)
	}
}

// TestRunningPrompt checks what is refused while a prompt runs. The delay
// is long enough that the prompt echoes nothing before it is cancelled:
// the agent waits before the first word too.
func TestRunningPrompt(t *testing.T) {
	c := startClient(t, "-delay", "1h")
	c.initialize(false)
	sid, other := c.newSession(), c.newSession()
	res := c.promptAsync(sid, "never echoed")
	runID := within(t, c.rec.runs, "run announcement")

	for _, tc := range []struct {
		name   string
		method string
		params any
		code   int
		data   string
	}{
		{"second prompt", acp.SessionPrompt.Name, promptParams(sid, "again"), acp.CodeInvalidParams, `{"sessionId":"` + sid + `","activeRunId":"` + runID + `"}`},
		{"prompt, unknown session", acp.SessionPrompt.Name, promptParams("nope", "hi"), acp.CodeResourceNotFound, `{"sessionId":"nope"}`},
		{"steer, stale run", goose.SessionSteer.Name, steerParams(sid, "run-0", "hi"), acp.CodeInvalidParams, `{"expectedRunId":"run-0","actualRunId":"` + runID + `"}`},
		{"steer, missing run", goose.SessionSteer.Name, json.RawMessage(`{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hi"}]}`), acp.CodeInvalidParams, `{"actualRunId":"` + runID + `"}`},
		{"steer, empty prompt", goose.SessionSteer.Name, steerParams(sid, runID, ""), acp.CodeInvalidParams, `{"expectedRunId":"` + runID + `","actualRunId":"` + runID + `"}`},
		{"steer, no run in session", goose.SessionSteer.Name, steerParams(other, runID, "hi"), acp.CodeInvalidParams, `{"expectedRunId":"` + runID + `"}`},
		{"steer, unknown session", goose.SessionSteer.Name, steerParams("nope", runID, "hi"), acp.CodeResourceNotFound, `{"sessionId":"nope"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, callErr(c, tc.method, tc.params), tc.code, tc.data)
		})
	}
	// The other session is independent: it still serves prompts.
	if got := c.prompt(other, ""); got != acp.StopReasonEndTurn {
		t.Errorf("other session: stop reason %q, want end_turn", got)
	}

	c.cancel(sid)
	if got := within(t, res, "prompt response"); got != acp.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", got)
	}
	evs := c.rec.take(sid)
	want := []string{"run " + runID, "run null", "usage used=2 size=128000"}
	if diff := cmp.Diff(want, lines(evs)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

func TestSteerEndToEnd(t *testing.T) {
	c := startClient(t, "-delay", "300ms")
	c.initialize(true)
	sid := c.newSession()
	res := c.promptAsync(sid, "one two three four")
	runID := within(t, c.rec.runs, "run announcement")
	got := call[goose.SteerResult](c, goose.SessionSteer.Name, steerParams(sid, runID, "left right"))
	if got.RunID != runID || got.MessageID == "" {
		t.Errorf("steer result %+v, want run %s and a message id", got, runID)
	}
	if r := within(t, res, "prompt response"); r != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", r)
	}
	queued, _ := json.Marshal(got)
	var chunks, steered []string
	sawQueued := false
	for _, ev := range c.rec.take(sid) {
		switch {
		case strings.HasPrefix(ev.Line, "chunk"):
			chunks = append(chunks, ev.Line)
			if ev.MessageID == got.MessageID {
				steered = append(steered, ev.Line)
			}
		case ev.Line == "queued "+string(queued):
			sawQueued = true
		}
	}
	want := []string{`chunk "one"`, `chunk " two"`, `chunk " three"`, `chunk " four"`, `chunk "left"`, `chunk " right"`}
	if diff := cmp.Diff(want, chunks); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[4:], steered); diff != "" {
		t.Errorf("chunks with the steer's message id (-want +got):\n%s", diff)
	}
	if !sawQueued {
		t.Errorf("no session_info_update with queuedSteer %s", queued)
	}
}

// rawAgent drives echo-agent line by line, without an ACP connection, to
// send what a well-behaved client never would.
type rawAgent struct {
	t   *testing.T
	p   *agentProc
	out *bufio.Reader
}

// startRaw starts echo-agent with args and initializes it in v1, as a
// client does first.
func startRaw(t *testing.T, args ...string) *rawAgent {
	p := startAgent(t, args...)
	r := &rawAgent{t: t, p: p, out: bufio.NewReader(p.stdout)}
	// A client initializes first: the agent answers nothing else before.
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1}}`)
	if got := r.recv(); got != (reply{`"init"`, 0}) {
		t.Fatalf("initialize: %+v", got)
	}
	return r
}

func (r *rawAgent) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.p.stdin, line+"\n"); err != nil {
		r.t.Fatalf("writing %.80q: %v", line, err)
	}
}

// reply is the parts of a response the tests compare.
type reply struct {
	ID   string // raw, as sent
	Code int    // 0 for a success
}

// readLine reads the agent's next line, failing the test after
// testwait.Limit.
func (r *rawAgent) readLine(what string) ([]byte, error) {
	r.t.Helper()
	var line []byte
	var err error
	testwait.Do(r.t, what, func() { line, err = r.out.ReadBytes('\n') })
	return line, err
}

// readRest reads the agent's output to its end, failing the test after
// testwait.Limit.
func (r *rawAgent) readRest(what string) ([]byte, error) {
	r.t.Helper()
	var rest []byte
	var err error
	testwait.Do(r.t, what, func() { rest, err = io.ReadAll(r.out) })
	return rest, err
}

// recv reads the next response, skipping notifications.
func (r *rawAgent) recv() reply {
	r.t.Helper()
	for {
		line, err := r.readLine("a response from echo-agent")
		if err != nil {
			r.t.Fatalf("reading stdout: %v", err)
		}
		checkJSONLines(r.t, line)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *acp.Error      `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			r.t.Fatalf("stdout line %q: %v", line, err)
		}
		if msg.Method != "" {
			continue
		}
		rep := reply{ID: string(msg.ID)}
		if msg.Error != nil {
			rep.Code = msg.Error.Code
		}
		return rep
	}
}

const probe = `{"jsonrpc":"2.0","id":"probe","method":"session/new","params":{"cwd":"/","mcpServers":[]}}`

func TestMalformedLines(t *testing.T) {
	r := startRaw(t, "-max-line", "4096")
	long := `{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":"/` + strings.Repeat("a", 5000) + `","mcpServers":[]}}`
	for _, tc := range []struct {
		name string
		line string
		want *reply // nil: no reply is due
	}{
		{"not JSON", `hello`, &reply{"null", acp.CodeParseError}},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"initialize"`, &reply{"null", acp.CodeParseError}},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\"}", &reply{"null", acp.CodeParseError}},
		{"not an object", `42`, &reply{"null", acp.CodeInvalidRequest}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`, &reply{"null", acp.CodeInvalidRequest}},
		{"missing jsonrpc", `{"id":2,"method":"initialize","params":{"protocolVersion":1}}`, &reply{"2", acp.CodeInvalidRequest}},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":"v","method":"initialize"}`, &reply{`"v"`, acp.CodeInvalidRequest}},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"initialize"}`, &reply{"null", acp.CodeInvalidRequest}},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"initialize"}`, &reply{"null", acp.CodeInvalidRequest}},
		{"array id", `{"jsonrpc":"2.0","id":[3],"method":"initialize"}`, &reply{"null", acp.CodeInvalidRequest}},
		{"method not a string", `{"jsonrpc":"2.0","id":4,"method":4}`, &reply{"4", acp.CodeInvalidRequest}},
		{"params not structured", `{"jsonrpc":"2.0","id":5,"method":"session/new","params":"/"}`, &reply{"5", acp.CodeInvalidRequest}},
		{"params missing a member", `{"jsonrpc":"2.0","id":6,"method":"session/new","params":{}}`, &reply{"6", acp.CodeInvalidParams}},
		{"params member of the wrong type", `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":1,"prompt":[]}}`, &reply{"7", acp.CodeInvalidParams}},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"session/unknown"}`, &reply{`"u"`, acp.CodeMethodNotFound}},
		{"oversized line", long, &reply{"8", acp.CodeInvalidRequest}},
		{"oversized line, id last", `{"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/` + strings.Repeat("a", 5000) + `","mcpServers":[]},"id":9}`, &reply{"null", acp.CodeInvalidRequest}},
		{"neither method nor id", `{"jsonrpc":"2.0"}`, &reply{"null", acp.CodeInvalidRequest}},
		{"unknown notification", `{"jsonrpc":"2.0","method":"something/else"}`, nil},
		{"stray response", `{"jsonrpc":"2.0","id":99,"result":{}}`, nil},
		{"blank line", ``, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.t = t
			r.send(tc.line)
			if tc.want != nil {
				if diff := cmp.Diff(*tc.want, r.recv()); diff != "" {
					t.Errorf("reply (-want +got):\n%s", diff)
				}
			}
			// The agent keeps serving.
			r.send(probe)
			if diff := cmp.Diff(reply{`"probe"`, 0}, r.recv()); diff != "" {
				t.Errorf("after the line: reply (-want +got):\n%s", diff)
			}
		})
	}
	r.t = t
	r.p.stdin.Close()
	if err := r.p.wait(); err != nil {
		t.Errorf("echo-agent exit: %v; want status 0", err)
	}
	if rest, err := io.ReadAll(r.out); err != nil || len(rest) > 0 {
		t.Errorf("after the last reply, stdout had %q (%v)", rest, err)
	}
	// The malformed lines were logged, to stderr.
	if r.p.stderr.Len() == 0 {
		t.Errorf("nothing logged on stderr")
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	r := startRaw(t)
	for _, id := range []string{`0`, `-1`, `"0"`, `1.50`, `1e3`, `123456789012345678901234567890`, `"\u00e9"`, `null`} {
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":1}}`)
		if diff := cmp.Diff(reply{id, 0}, r.recv()); diff != "" {
			t.Errorf("reply (-want +got):\n%s", diff)
		}
	}
}

func TestStdinEOFMidPrompt(t *testing.T) {
	r := startRaw(t, "-delay", "1h")
	r.send(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	r.recv()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"wait"}]}}`)
	line, err := r.readLine("the run's announcement") // the run starts
	if err != nil || !bytes.Contains(line, []byte("activeRunId")) {
		t.Fatalf("read %q, %v; want the run's announcement", line, err)
	}
	r.p.stdin.Close()
	if err := r.p.wait(); err != nil {
		t.Errorf("echo-agent exit: %v; want status 0", err)
	}
	// The prompt was cancelled, and still answered.
	rest, _ := io.ReadAll(r.out)
	checkJSONLines(t, rest)
	var resp struct {
		ID     json.RawMessage
		Result acp.PromptResult
	}
	for line := range bytes.Lines(rest) {
		if json.Unmarshal(line, &resp) == nil && string(resp.ID) == "1" {
			break
		}
	}
	if string(resp.ID) != "1" || resp.Result.StopReason != acp.StopReasonCancelled {
		t.Errorf("after stdin closed, stdout had %q; want the prompt answered cancelled", rest)
	}
}

// TestSignal signals the agent while stdin is open and idle, or while a
// prompt runs: it must stop at once, with the shell's status for the
// signal, after its connection has ended (it logs that only once Wait has
// returned, so it left no read of stdin behind), and answer the running
// prompt "cancelled" first, as when stdin ends.
func TestSignal(t *testing.T) {
	for _, tc := range []struct {
		sig      syscall.Signal
		prompt   bool
		wantCode int
	}{
		{syscall.SIGTERM, false, 143},
		{syscall.SIGINT, false, 130},
		{syscall.SIGTERM, true, 143},
	} {
		t.Run(fmt.Sprintf("%v prompt=%v", tc.sig, tc.prompt), func(t *testing.T) {
			r := startRaw(t, "-delay", "1h")
			r.send(probe)
			r.recv() // the agent is serving
			if tc.prompt {
				r.send(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"wait"}]}}`)
				line, err := r.readLine("the run's announcement")
				if err != nil || !bytes.Contains(line, []byte("activeRunId")) {
					t.Fatalf("read %q, %v; want the run's announcement", line, err)
				}
			}
			if err := r.p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			rest, err := r.readRest("echo-agent's output to end after " + tc.sig.String())
			if err != nil {
				t.Fatal(err)
			}
			var exit *exec.ExitError
			if err := r.p.wait(); !errors.As(err, &exit) || exit.ExitCode() != tc.wantCode {
				t.Errorf("echo-agent exit after %v: %v; want status %d", tc.sig, err, tc.wantCode)
			}
			if tc.prompt && !bytes.Contains(rest, []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"`)) {
				t.Errorf("after %v, stdout had %q; want the prompt answered cancelled", tc.sig, rest)
			}
			want := `msg="echo-agent stopped" signal=` + tc.sig.String()
			if !strings.Contains(r.p.stderr.String(), want) {
				t.Errorf("stderr lacks %s:\n%s", want, r.p.stderr.String())
			}
		})
	}
}

func TestCancelRequest(t *testing.T) {
	r := startRaw(t, "-delay", "1h")
	r.send(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	r.recv()
	r.send(`{"jsonrpc":"2.0","id":"p","method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"wait"}]}}`)
	r.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p"}}`)
	if diff := cmp.Diff(reply{`"p"`, acp.CodeRequestCancelled}, r.recv()); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
}
