package acpcheck_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
	"github.com/tidwall/gjson"
)

// This file is a reference agent that passes every v1 check over stdio,
// run in-process, and a table of defects, each of which one check must
// catch: no check passes vacuously.

// refAgent is the reference agent: its sessions outlive its connections,
// as a CLI's store does, so that a second connection loads them.
type refAgent struct {
	defect string

	mu       sync.Mutex
	n        int
	sessions map[string]*refSession
	order    []string
}

type refSession struct {
	id, cwd string
	history [][2]string // user text, agent text
	cancel  context.CancelFunc
}

func newRefAgent(defect string) *refAgent {
	return &refAgent{defect: defect, sessions: map[string]*refSession{}}
}

// target returns the agent as a stdio Target: each connection runs it
// over pipes in this process.
func (a *refAgent) target() acpcheck.Target {
	return acpcheck.Stdio("reference agent ("+a.defect+")", a.start, acpcheckos.Clock{})
}

// proc is one connection's run of the reference agent.
type proc struct {
	in  *io.PipeWriter // the agent's stdin, as the suite writes it
	out *io.PipeReader // the agent's stdout
	c   *acp.Conn
}

func (p *proc) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *proc) Write(b []byte) (int, error) { return p.in.Write(b) }
func (p *proc) Close() error {
	p.in.Close()
	p.c.Close()
	p.c.Wait()
	p.out.Close()
	return nil
}

func (a *refAgent) start(ctx context.Context) (acpcheck.Process, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &defectWriter{a: a, w: outW}
	var r io.Reader = inR
	if a.defect == "drop-parse-error" || a.defect == "drop-invalid-request" {
		r = dropLines(inR, a.defect)
	}
	if a.defect == "junk-stdout" {
		go outW.Write([]byte("starting up\n"))
	}
	c := acp.NewConn(context.WithoutCancel(ctx), r, w, &refConn{a: a, w: w}, nil)
	return &proc{in: inW, out: outR, c: c}, nil
}

// dropLines passes on only the lines that are JSON-RPC of another kind
// than the defect drops.
func dropLines(r io.Reader, defect string) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		s := bufio.NewScanner(r)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			line := s.Bytes()
			m := acp.Classify(line)
			if m.Kind == acp.KindInvalid && (m.Err.Code == acp.CodeParseError) == (defect == "drop-parse-error") {
				continue
			}
			pw.Write(append(line, '\n'))
		}
		pw.CloseWithError(s.Err())
	}()
	return pr
}

// defectWriter writes the agent's lines, spoiling them as the defect says.
type defectWriter struct {
	a  *refAgent
	mu sync.Mutex
	w  io.Writer
}

func (w *defectWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	line := b
	switch w.a.defect {
	case "pretty":
		if bytes.Contains(b, []byte(`"protocolVersion"`)) {
			var buf bytes.Buffer
			json.Indent(&buf, bytes.TrimSpace(b), "", "  ")
			line = append(buf.Bytes(), '\n')
		}
	case "latin1":
		line = bytes.ReplaceAll(b, []byte("Hello"), []byte("H\xe9llo"))
	case "round-ids":
		line = bytes.ReplaceAll(b, []byte("9007199254740993"), []byte("9007199254740992"))
	}
	if _, err := w.w.Write(line); err != nil {
		return 0, err
	}
	if w.a.defect == "late-updates" && gjson.GetBytes(b, "result.stopReason").Exists() {
		w.w.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + w.a.last() + `","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}` + "\n"))
	}
	return len(b), nil
}

// raw writes a line of the agent's own.
func (w *defectWriter) raw(line string) {
	w.Write([]byte(line + "\n"))
}

func (a *refAgent) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.order) == 0 {
		return ""
	}
	return a.order[len(a.order)-1]
}

// refConn serves one connection.
type refConn struct {
	a    *refAgent
	w    *defectWriter
	mu   sync.Mutex
	init bool
	v2   bool // initialized in v2
}

func (c *refConn) HandleNotification(_ context.Context, _ *acp.Conn, method string, params json.RawMessage) {
	a := c.a
	switch method {
	case acp.SessionCancel.Name:
		if a.defect == "cancel-ignored" || a.defect == "v2-cancel-ignored" {
			return
		}
		a.mu.Lock()
		if s := a.sessions[gjson.GetBytes(params, "sessionId").String()]; s != nil && s.cancel != nil {
			s.cancel()
		}
		a.mu.Unlock()
	case "_acpcheck/notice":
		if a.defect == "notification-reply" {
			c.w.raw(`{"jsonrpc":"2.0","id":null,"result":{}}`)
		}
	}
}

func errParams(format string, args ...any) error {
	return acp.Errorf(acp.CodeInvalidParams, "Invalid params: "+format, args...)
}

func (c *refConn) HandleRequest(ctx context.Context, conn *acp.Conn, method string, params json.RawMessage) (any, error) {
	res, err := c.handle(ctx, conn, method, params)
	var e *acp.Error
	if c.a.defect == "invalid-params-internal" && asError(err, &e) && e.Code == acp.CodeInvalidParams {
		return nil, acp.Errorf(acp.CodeInternalError, "Internal error")
	}
	if c.a.defect == "invalid-params-vague" && asError(err, &e) && e.Code == acp.CodeInvalidParams {
		return nil, acp.Errorf(acp.CodeInvalidParams, "Invalid params")
	}
	return res, err
}

func asError(err error, e **acp.Error) bool {
	x, ok := err.(*acp.Error)
	*e = x
	return ok
}

func (c *refConn) handle(ctx context.Context, conn *acp.Conn, method string, params json.RawMessage) (any, error) {
	a := c.a
	p := gjson.ParseBytes(params)
	c.mu.Lock()
	init := c.init
	c.mu.Unlock()
	if method != acp.Initialize.Name && !init && a.defect == "silent-before-initialize" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	c.mu.Lock()
	v2 := c.v2
	c.mu.Unlock()
	if method == acp.Initialize.Name && p.Get("protocolVersion").Int() == 2 && a.defect != "v1-only" {
		c.mu.Lock()
		c.init, c.v2 = true, true
		c.mu.Unlock()
		return a.initializeV2()
	}
	if v2 {
		return a.handleV2(conn, method, p)
	}
	switch method {
	case acp.Initialize.Name:
		c.mu.Lock()
		c.init = true
		c.mu.Unlock()
		return a.initialize(p)
	case acp.SessionNew.Name:
		res, err := a.newSession(p)
		if a.defect == "commands-before-new" && err == nil {
			sid := res.(map[string]any)["sessionId"].(string)
			update(ctx, conn, sid, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []any{}})
		}
		if a.defect == "speaks-after-new" && err == nil {
			// No defect: a burst of updates right behind the response,
			// as claude-acp's sessions speak once it is queued.
			sid := res.(map[string]any)["sessionId"].(string)
			acp.AfterResponse(ctx, func() {
				for range 20 {
					update(context.WithoutCancel(ctx), conn, sid, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []any{}})
				}
			})
		}
		return res, err
	case acp.SessionPrompt.Name:
		return a.prompt(ctx, conn, p)
	case acp.SessionLoad.Name:
		return a.load(ctx, conn, p, false)
	case acp.SessionResume.Name:
		return a.load(ctx, conn, p, true)
	case acp.SessionList.Name:
		return a.list(p)
	case acp.SessionClose.Name:
		a.mu.Lock()
		defer a.mu.Unlock()
		if s := a.sessions[p.Get("sessionId").String()]; s != nil && s.cancel != nil && a.defect != "close-no-cancel" {
			s.cancel()
		}
		return struct{}{}, nil
	case acp.SessionDelete.Name:
		if a.defect == "advertise-no-delete" {
			return struct{}{}, nil
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		sid := p.Get("sessionId").String()
		if a.sessions[sid] == nil && a.defect == "delete-unknown-error" {
			return nil, acp.Errorf(acp.CodeResourceNotFound, "no session %s", sid)
		}
		if a.defect != "delete-keeps" {
			delete(a.sessions, sid)
			a.order = slices.DeleteFunc(a.order, func(id string) bool { return id == sid })
		}
		return struct{}{}, nil
	}
	if a.defect == "method-not-found-internal" {
		return nil, acp.Errorf(acp.CodeInternalError, "Internal error")
	}
	return nil, acp.ErrMethodNotFound
}

func (a *refAgent) initialize(p gjson.Result) (any, error) {
	version := 1
	switch a.defect {
	case "version-2":
		version = 2
	case "echo-version":
		version = int(p.Get("protocolVersion").Int())
	}
	prompts := map[string]bool{"image": true, "audio": false, "embeddedContext": true}
	mcp := map[string]bool{"http": true, "sse": false}
	switch a.defect {
	case "hide-image":
		prompts["image"] = false
	case "hide-embedded":
		prompts["embeddedContext"] = false
	case "advertise-audio":
		prompts["audio"] = true
	case "hide-http":
		mcp["http"] = false
	case "advertise-sse":
		mcp["sse"] = true
	}
	sessions := map[string]any{"list": map[string]any{}, "resume": map[string]any{}, "close": map[string]any{}, "delete": map[string]any{}}
	if a.defect == "advertise-no-delete" {
		delete(sessions, "delete")
	}
	res := map[string]any{
		"protocolVersion": version,
		"agentCapabilities": map[string]any{
			"loadSession": true, "promptCapabilities": prompts, "mcpCapabilities": mcp, "sessionCapabilities": sessions,
		},
		"authMethods": []any{},
		"agentInfo":   map[string]any{"name": "reference", "version": "1.0.0"},
	}
	switch a.defect {
	case "no-agent-info":
		delete(res, "agentInfo")
	case "bad-capabilities":
		res["protocolVersion"] = "1"
	}
	return res, nil
}

func (a *refAgent) newSession(p gjson.Result) (any, error) {
	cwd := p.Get("cwd")
	if a.defect == "refuse-sessions" {
		return nil, acp.Errorf(acp.CodeInternalError, "no sessions today")
	}
	if cwd.Type != gjson.String {
		return nil, acp.Errorf(acp.CodeInvalidParams, "Invalid params: cwd must be a string").WithData(map[string]string{"field": "cwd"})
	}
	if !filepath.IsAbs(cwd.String()) && a.defect != "relative-cwd" {
		return nil, errParams("cwd must be absolute")
	}
	servers := p.Get("mcpServers")
	if !servers.IsArray() && a.defect != "mcp-servers-optional" {
		return nil, errParams("mcpServers is required")
	}
	for _, s := range servers.Array() {
		typ := s.Get("type").String()
		switch {
		case typ == "" && a.defect == "refuse-stdio",
			typ == "http" && a.defect == "refuse-http",
			typ == "sse" && a.defect != "accept-sse":
			return nil, errParams("MCP servers of type %q are not supported", typ)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	id := "s-" + strconv.Itoa(a.n)
	if a.defect == "same-session-id" {
		id = "s-1"
	}
	a.sessions[id] = &refSession{id: id, cwd: cwd.String()}
	a.order = append(a.order, id)
	return map[string]any{"sessionId": id}, nil
}

// update sends a session/update.
func update(ctx context.Context, conn *acp.Conn, sid string, u map[string]any) error {
	return conn.Notify(ctx, acp.SessionUpdate.Name, map[string]any{"sessionId": sid, "update": u})
}

func chunk(kind, text string) map[string]any {
	return map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": text}}
}

func (a *refAgent) prompt(ctx context.Context, conn *acp.Conn, p gjson.Result) (any, error) {
	sid := p.Get("sessionId").String()
	a.mu.Lock()
	s := a.sessions[sid]
	a.mu.Unlock()
	if s == nil {
		if a.defect == "unknown-session-ok" {
			return map[string]any{"stopReason": "end_turn"}, nil
		}
		return nil, acp.Errorf(acp.CodeResourceNotFound, "Resource not found: %s", sid)
	}
	var text strings.Builder
	for _, b := range p.Get("prompt").Array() {
		typ := b.Get("type").String()
		switch {
		case typ == "audio" && a.defect != "accept-audio" && a.defect != "advertise-audio",
			typ == "audio" && a.defect == "advertise-audio" && false,
			typ == "image" && a.defect == "refuse-image",
			typ == "resource" && a.defect == "refuse-embedded",
			typ == "resource_link" && a.defect == "refuse-resource-link":
			return nil, errParams("prompt content of type %s is not supported", typ)
		case typ == "audio" && a.defect == "advertise-audio":
			return nil, errParams("prompt content of type %s is not supported", typ)
		case typ == "text":
			text.WriteString(b.Get("text").String())
		}
	}
	turn, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	s.cancel = cancel
	a.order = append(slices.DeleteFunc(a.order, func(id string) bool { return id == sid }), sid)
	a.mu.Unlock()

	reply := "Hello."
	stop := "end_turn"
	switch {
	case strings.HasPrefix(text.String(), "Count"):
		// A long turn: a chunk every few milliseconds until cancelled.
		update(ctx, conn, sid, chunk("agent_message_chunk", "1"))
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for i := 2; ; i++ {
			select {
			case <-turn.Done():
			case <-t.C:
				if i < 50 {
					update(ctx, conn, sid, chunk("agent_message_chunk", " "+strconv.Itoa(i)))
					continue
				}
			}
			break
		}
		stop = "cancelled"
		if turn.Err() == nil {
			stop = "end_turn"
		}
		reply = ""
	case strings.HasPrefix(text.String(), "Create"):
		update(ctx, conn, sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Write acpcheck.txt", "kind": "edit", "status": "pending"})
		raw, err := conn.Request(turn, acp.SessionRequestPermission.Name, map[string]any{
			"sessionId": sid, "toolCall": map[string]any{"toolCallId": "t1"},
			"options": []any{map[string]any{"optionId": "yes", "name": "Allow", "kind": "allow_once"}, map[string]any{"optionId": "no", "name": "Reject", "kind": "reject_once"}},
		})
		if err != nil || gjson.GetBytes(raw, "outcome.outcome").String() == "cancelled" {
			stop = "cancelled"
			if a.defect == "permission-cancel-ignored" {
				stop = "end_turn"
			}
		}
		reply = ""
	}
	if reply != "" {
		update(ctx, conn, sid, chunk("agent_message_chunk", reply))
	}
	switch a.defect {
	case "foreign-update":
		update(ctx, conn, sid+"-other", chunk("agent_message_chunk", "not yours"))
	case "bad-update":
		update(ctx, conn, sid, map[string]any{"sessionUpdate": "agent_message_chunk"})
	case "terminal":
		conn.Request(ctx, "terminal/create", map[string]any{"sessionId": sid, "command": "true"})
	case "bad-stop-reason":
		stop = "done"
	}
	a.mu.Lock()
	s.history = append(s.history, [2]string{text.String(), reply})
	s.cancel = nil
	a.mu.Unlock()
	return map[string]any{"stopReason": stop}, nil
}

func (a *refAgent) load(ctx context.Context, conn *acp.Conn, p gjson.Result, resume bool) (any, error) {
	sid := p.Get("sessionId").String()
	a.mu.Lock()
	s := a.sessions[sid]
	var history [][2]string
	if s != nil {
		history = slices.Clone(s.history)
	}
	a.mu.Unlock()
	if s == nil {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "Resource not found: %s", sid)
	}
	replay := !resume && a.defect != "load-no-replay" || resume && a.defect == "resume-replays"
	if replay {
		for _, h := range history {
			update(ctx, conn, sid, chunk("user_message_chunk", h[0]))
			update(ctx, conn, sid, chunk("agent_message_chunk", h[1]))
		}
	}
	return struct{}{}, nil
}

func (a *refAgent) list(p gjson.Result) (any, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cwd := p.Get("cwd").String()
	var ids []string
	for _, id := range a.order {
		if s := a.sessions[id]; s != nil && (cwd == "" || s.cwd == cwd) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	start := 0
	if c := p.Get("cursor"); c.Exists() {
		n, err := strconv.Atoi(c.String())
		if err != nil && a.defect != "any-cursor" {
			return nil, errParams("invalid cursor")
		}
		start = n
	}
	// One session a page.
	var page []any
	if start < len(ids) {
		s := a.sessions[ids[start]]
		page = append(page, map[string]any{"sessionId": s.id, "cwd": s.cwd})
	}
	res := map[string]any{"sessions": page}
	if start+1 < len(ids) {
		next := start + 1
		if a.defect == "list-repeats" {
			next = start
			if start > 0 {
				next = start - 1
			}
		}
		res["nextCursor"] = strconv.Itoa(next)
	}
	if a.defect == "list-repeats" && start == 0 && len(ids) > 1 {
		res["nextCursor"] = "0"
	}
	return res, nil
}

// initializeV2 answers initialize for version 2.
func (a *refAgent) initializeV2() (any, error) {
	info := map[string]any{"name": "reference", "version": "1.0.0"}
	if a.defect == "v2-no-info" {
		info = map[string]any{"name": "reference"}
	}
	version := 2
	if a.defect == "v2-version-3" {
		version = 3
	}
	return map[string]any{"protocolVersion": version, "info": info, "capabilities": map[string]any{"session": map[string]any{}}}, nil
}

// handleV2 serves a v2 connection: sessions and prompts, whose turns run
// on after their response.
func (a *refAgent) handleV2(conn *acp.Conn, method string, p gjson.Result) (any, error) {
	switch method {
	case acp.SessionNew.Name:
		// v2 makes mcpServers optional.
		return a.newSession(gjson.Parse(`{"cwd":` + p.Get("cwd").Raw + `,"mcpServers":[]}`))
	case acp.SessionPrompt.Name:
		sid := p.Get("sessionId").String()
		a.mu.Lock()
		s := a.sessions[sid]
		a.n++
		n := a.n
		a.mu.Unlock()
		if s == nil {
			return nil, acp.Errorf(acp.CodeResourceNotFound, "Resource not found: %s", sid)
		}
		userID, agentID := "u-"+strconv.Itoa(n), "a-"+strconv.Itoa(n)
		turn, cancel := context.WithCancel(context.Background())
		a.mu.Lock()
		s.cancel = cancel
		a.mu.Unlock()
		long := strings.HasPrefix(p.Get("prompt.0.text").String(), "Count")
		go a.turnV2(turn, cancel, conn, sid, userID, agentID, json.RawMessage(p.Get("prompt").Raw), long)
		if a.defect == "v2-no-ack-id" {
			return map[string]any{"messageId": "not-the-user-message"}, nil
		}
		return map[string]any{"messageId": userID}, nil
	}
	return nil, acp.ErrMethodNotFound
}

// turnV2 reports a v2 turn: the user message, running, the answer, idle.
func (a *refAgent) turnV2(ctx context.Context, cancel context.CancelFunc, conn *acp.Conn, sid, userID, agentID string, prompt json.RawMessage, long bool) {
	defer cancel()
	send := func(u map[string]any) { update(context.Background(), conn, sid, u) }
	send(map[string]any{"sessionUpdate": "user_message", "messageId": userID, "content": prompt})
	if a.defect != "v2-no-running" {
		send(map[string]any{"sessionUpdate": "state_update", "state": "running"})
	}
	chunk := func(text string) {
		u := map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": agentID, "content": map[string]any{"type": "text", "text": text}}
		if a.defect == "v2-chunk-no-id" {
			delete(u, "messageId")
		}
		send(u)
	}
	stop := "end_turn"
	if long {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for i := 1; i <= 50 && stop == "end_turn"; i++ {
			select {
			case <-ctx.Done():
				stop = "cancelled"
			case <-t.C:
				chunk(strconv.Itoa(i) + " ")
			case <-conn.Done():
				return
			}
		}
	} else {
		chunk("Hello.")
	}
	send(map[string]any{"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})
}

// TestReference runs the suite against the reference agent: every check
// passes that applies over stdio, so a check that fails below fails for
// its defect. (Of each pair of capability checks, one is skipped: the
// reference advertises one side, a defect the other.)
func TestReference(t *testing.T) {
	t.Parallel()
	r, err := acpcheck.Verify(t.Context(), newRefAgent("none").target(), &acpcheck.Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Results {
		if res.Outcome == acpcheck.Fail {
			t.Errorf("%s: %s", res.ID, res.Reason)
		}
		if res.Outcome == acpcheck.Skip && !strings.HasPrefix(res.ID, "remote.") && !strings.Contains(res.Reason, "advertise") {
			t.Errorf("%s skipped: %s", res.ID, res.Reason)
		}
	}
}

// TestDefects runs the suite against the reference agent with one defect
// at a time, and checks that the check for it fails.
func TestDefects(t *testing.T) {
	defects := map[string]string{
		"junk-stdout":               "framing.json",
		"pretty":                    "framing.newlines",
		"latin1":                    "framing.utf8",
		"round-ids":                 "framing.ids",
		"silent-before-initialize":  "initialize.before",
		"method-not-found-internal": "errors.method-not-found",
		"invalid-params-internal":   "errors.invalid-params",
		"invalid-params-vague":      "errors.invalid-params-member",
		"drop-parse-error":          "errors.parse",
		"drop-invalid-request":      "errors.invalid-request",
		"notification-reply":        "errors.notification-unanswered",
		"version-2":                 "initialize.version",
		"echo-version":              "initialize.future-version",
		"bad-capabilities":          "initialize.result",
		"no-agent-info":             "initialize.agent-info",
		"refuse-sessions":           "session.new",
		"same-session-id":           "session.unique-ids",
		"relative-cwd":              "session.cwd-absolute",
		"mcp-servers-optional":      "session.mcp-servers-required",
		"unknown-session-ok":        "session.unknown-id",
		"bad-stop-reason":           "prompt.stop-reason",
		"refuse-resource-link":      "capability.prompt-resource-link",
		"refuse-image":              "capability.prompt-image",
		"hide-image":                "capability.prompt-image-unadvertised",
		"advertise-audio":           "capability.prompt-audio",
		"accept-audio":              "capability.prompt-audio-unadvertised",
		"refuse-embedded":           "capability.prompt-embeddedContext",
		"hide-embedded":             "capability.prompt-embeddedContext-unadvertised",
		"refuse-stdio":              "capability.mcp-stdio",
		"refuse-http":               "capability.mcp-http",
		"hide-http":                 "capability.mcp-http-unadvertised",
		"advertise-sse":             "capability.mcp-sse",
		"accept-sse":                "capability.mcp-sse-unadvertised",
		"advertise-no-delete":       "capability.methods-unadvertised",
		"cancel-ignored":            "cancel.stop-reason",
		"permission-cancel-ignored": "cancel.permission",
		"load-no-replay":            "load.replay",
		"list-repeats":              "list.paging",
		"any-cursor":                "list.invalid-cursor",
		"resume-replays":            "resume.no-replay",
		"close-no-cancel":           "close.cancels",
		"delete-keeps":              "delete.unlisted",
		"delete-unknown-error":      "delete.idempotent",
		"late-updates":              "prompt.no-late-updates",
		"foreign-update":            "session.updates-held",
		"commands-before-new":       "session.updates-after-new",
		"bad-update":                "schema.updates",
		"terminal":                  "client.no-terminal",
		"v2-version-3":              "v2.negotiate",
		"v2-no-info":                "v2.info",
		"v2-no-ack-id":              "v2.prompt-ack",
		"v2-no-running":             "v2.turn-state",
		"v2-chunk-no-id":            "v2.message-ids",
		"v2-cancel-ignored":         "v2.cancel",
	}
	covered := map[string]bool{}
	for _, check := range remoteDefects {
		covered[check] = true
	}
	for defect, check := range defects {
		covered[check] = true
		t.Run(defect, func(t *testing.T) {
			t.Parallel()
			r, err := acpcheck.Verify(t.Context(), newRefAgent(defect).target(), &acpcheck.Options{Cwd: t.TempDir(), Timeout: 2 * time.Second, Parallel: 16})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range r.Results {
				if res.ID == check {
					if res.Outcome != acpcheck.Fail {
						t.Errorf("%s: %s (%s), want a failure", check, res.Outcome, res.Reason)
					}
					return
				}
			}
			t.Errorf("no check %s", check)
		})
	}
	t.Run("coverage", func(t *testing.T) {
		var missing []string
		for _, c := range acpcheck.Checks() {
			if !covered[c.ID] {
				missing = append(missing, c.ID)
			}
		}
		if len(missing) > 0 {
			t.Errorf("no defect makes these checks fail: %v", missing)
		}
	})
}

// TestRun runs the suite as an agent's test does: one subtest per check,
// none failing for the reference agent; and Progress counts every check.
func TestRun(t *testing.T) {
	t.Parallel()
	var calls, total int
	r := acpcheck.Run(t, newRefAgent("none").target(), &acpcheck.Options{
		Progress: func(_ acpcheck.Result, done, n int) { calls, total = done, n },
	})
	if n := len(acpcheck.Checks()); len(r.Results) != n || calls != n || total != n {
		t.Errorf("Run reported %d results and Progress counted %d of %d, want %d", len(r.Results), calls, total, n)
	}
}
