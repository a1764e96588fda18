package acpcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/tidwall/gjson"
)

// Version is the suite's version, which it gives the agent as clientInfo.
const Version = "0.1.0"

// clientInfo is how the suite names itself to the agent.
var clientInfo = acp.Implementation{Name: "acpcheck", Title: "acpkit's ACP conformance checker", Version: Version}

// checker is what a check runs with: the suite, and the connection it
// asked for.
type checker struct {
	s    *suite
	p    *peer
	init initResult
}

// initResult is what initialize found on a connection.
type initResult struct {
	version int
	v1      acp.InitializeResult
	v2      acpv2.InitializeResult
	agent   string // "name version" from agentInfo or info
	// skip says why the v2 checks do not apply: the agent does not offer
	// v2.
	skip string
}

// initialize initializes p in version (1 or 2), as an editor that reads
// and writes files and runs no terminals.
func initialize(ctx context.Context, p *peer, version int) (initResult, error) {
	if version == 2 {
		raw, err := p.request(ctx, acpv2.Initialize.Name, acpv2.InitializeParams{
			ProtocolVersion: 2,
			Info:            acpv2.Implementation{Name: clientInfo.Name, Title: clientInfo.Title, Version: clientInfo.Version},
		})
		if err != nil {
			return initResult{}, err
		}
		answered := gjson.GetBytes(raw, "protocolVersion")
		if answered.Type == gjson.Number && answered.Int() == 1 {
			return initResult{version: 1, skip: "the agent answered initialize for version 2 with version 1: it does not offer ACP v2"}, nil
		}
		r, err := acp.DecodeResult[acpv2.InitializeResult](raw)
		if err != nil {
			return initResult{}, err
		}
		if r.ProtocolVersion != 2 {
			return initResult{}, fmt.Errorf("the agent answered initialize for version 2 with version %d", r.ProtocolVersion)
		}
		return initResult{version: 2, v2: r, agent: strings.TrimSpace(r.Info.Name + " " + r.Info.Version)}, nil
	}
	r, err := call(ctx, p, acp.Initialize, v1InitializeParams(1))
	if err != nil {
		return initResult{}, err
	}
	if r.ProtocolVersion != 1 {
		return initResult{}, fmt.Errorf("the agent answered initialize for version 1 with version %d", r.ProtocolVersion)
	}
	res := initResult{version: 1, v1: r}
	if r.AgentInfo != nil {
		res.agent = strings.TrimSpace(r.AgentInfo.Name + " " + r.AgentInfo.Version)
	}
	return res, nil
}

// v1InitializeParams are the suite's initialize params in v1 for version.
func v1InitializeParams(version int) acp.InitializeParams {
	info := clientInfo
	return acp.InitializeParams{
		ProtocolVersion:    version,
		ClientCapabilities: acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
		ClientInfo:         &info,
	}
}

// initialized opens and initializes a connection of the check's own in v1.
func (k *checker) initialized(ctx context.Context) (*peer, initResult, error) {
	p, err := k.s.open(k.s.ctx)
	if err != nil {
		return nil, initResult{}, err
	}
	init, err := initialize(ctx, p, 1)
	if err != nil {
		p.close()
		return nil, initResult{}, fmt.Errorf("initialize: %w", err)
	}
	return p, init, nil
}

// cwd returns the directory sessions work in.
func (k *checker) cwd() string { return k.s.opts.Cwd }

// newSessionParams are session/new's params for a session in cwd with no
// MCP server.
func newSessionParams(cwd string) map[string]any {
	return map[string]any{"cwd": cwd, "mcpServers": []any{}}
}

// newSession creates a session on p in cwd and returns its id.
func newSession(ctx context.Context, p *peer, cwd string) (string, error) {
	raw, err := p.request(ctx, acp.SessionNew.Name, newSessionParams(cwd))
	if err != nil {
		return "", fmt.Errorf("session/new: %w", err)
	}
	r, err := acp.DecodeResult[acp.NewSessionResult](raw)
	if err != nil {
		return "", fmt.Errorf("session/new: %w", err)
	}
	if r.SessionID == "" {
		return "", errors.New("session/new answered an empty sessionId")
	}
	return r.SessionID, nil
}

// text is a prompt of one text block.
func text(s string) []any {
	return []any{map[string]any{"type": "text", "text": s}}
}

// The prompts the suite sends by default ([Options].Prompt and
// LongPrompt). None depends on what the model answers.
const (
	DefaultPrompt     = "Reply with one short sentence."
	DefaultLongPrompt = "Count from 1 to 500, one number per line, with a short remark on each."
)

// prompt sends a prompt in session and returns its result.
func prompt(ctx context.Context, p *peer, session string, blocks []any) (acp.PromptResult, error) {
	p.ed.startTurn(session)
	raw, err := p.request(ctx, acp.SessionPrompt.Name, map[string]any{"sessionId": session, "prompt": blocks})
	if err != nil {
		return acp.PromptResult{}, err
	}
	return acp.DecodeResult[acp.PromptResult](raw)
}

// stopReasons are the stop reasons of v1's StopReason.
var stopReasons = []acp.StopReason{acp.StopReasonEndTurn, acp.StopReasonMaxTokens, acp.StopReasonMaxTurnRequests, acp.StopReasonRefusal, acp.StopReasonCancelled}

// validTurn checks a prompt's outcome: a result with one of the stop
// reasons.
func validTurn(r acp.PromptResult, err error) error {
	if err != nil {
		return err
	}
	if !slices.Contains(stopReasons, r.StopReason) {
		return fmt.Errorf("stop reason %q is none of v1's", r.StopReason)
	}
	return nil
}

// cancel cancels the session's turn, as an editor does: session/cancel,
// then every permission request of the turn answered "cancelled".
func cancel(ctx context.Context, p *peer, session string) error {
	err := p.notify(ctx, acp.SessionCancel.Name, map[string]any{"sessionId": session})
	p.ed.cancelTurn(session)
	return err
}

// barrier makes a round trip to the agent: once it returns, the log holds
// every message the agent wrote before answering it. It calls a method no
// agent has, which JSON-RPC has it answer with an error.
func barrier(ctx context.Context, p *peer) error {
	_, err := p.request(ctx, "_acpcheck/barrier", map[string]any{})
	var rpcErr *acp.Error
	if err != nil && !errors.As(err, &rpcErr) {
		return fmt.Errorf("waiting for the agent to answer a request: %w", err)
	}
	return nil
}

// turnStarted waits until the agent shows the session's turn running:
// a session/update for it of the turn's own kinds, or a request naming it,
// after the event at index since.
func turnStarted(ctx context.Context, p *peer, session string, since int) error {
	return p.log.waitFor(ctx, "session/update for the turn", func(events []event) bool {
		for _, e := range events[min(since, len(events)):] {
			if e.session == session && e.from == fromAgent && (e.msg.Kind == acp.KindRequest || e.isUpdate() && turnUpdates[e.updateKind()]) {
				return true
			}
		}
		return false
	})
}

// turnUpdates are the kinds of session/update that belong to a turn, as
// opposed to those about the session (commands, modes, usage, info),
// which an agent may send at any time.
var turnUpdates = map[string]bool{
	"user_message_chunk":  true,
	"agent_message_chunk": true,
	"agent_thought_chunk": true,
	"tool_call":           true,
	"tool_call_update":    true,
	"plan":                true,
}

// requestEvent returns the index of the client's last request for method
// in session, and the index of the agent's response to it (-1 when none
// came); -1, -1 when there is no such request.
func requestEvent(events []event, method, session string) (req, resp int) {
	req, resp = -1, -1
	for i := len(events) - 1; i >= 0; i-- {
		e := &events[i]
		if e.from == fromClient && e.msg.Kind == acp.KindRequest && e.msg.Method == method && e.session == session {
			req = i
			break
		}
	}
	if req < 0 {
		return req, resp
	}
	id := events[req].msg.ID
	for i := req + 1; i < len(events); i++ {
		e := &events[i]
		if e.from == fromAgent && e.msg.Kind == acp.KindResponse && e.msg.ID.Equal(id) {
			return req, i
		}
	}
	return req, resp
}

// updates returns the session/updates for session among events.
func updates(events []event, session string) []*event {
	var out []*event
	for i := range events {
		if events[i].isUpdate() && events[i].session == session {
			out = append(out, &events[i])
		}
	}
	return out
}

// chunkText concatenates the text of the session's updates of kind.
func chunkText(us []*event, kind string) string {
	var b strings.Builder
	for _, u := range us {
		if u.updateKind() == kind {
			b.WriteString(gjson.GetBytes(u.msg.Params, "update.content.text").String())
		}
	}
	return b.String()
}

// survives checks that the connection still works: the agent answers a
// request after what the check did.
func survives(ctx context.Context, p *peer) error {
	if err := barrier(ctx, p); err != nil {
		return fmt.Errorf("the connection did not survive: %w", err)
	}
	return nil
}

// errorCode returns the JSON-RPC error code of err, and whether it is one.
func errorCode(err error) (int, bool) {
	var e *acp.Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// describe says what a call returned, for a reason.
func describe(raw json.RawMessage, err error) string {
	if err != nil {
		return fmt.Sprintf("error %v", err)
	}
	if len(raw) > 200 {
		raw = append(raw[:200:200], "…"...)
	}
	return "result " + string(raw)
}

// otherCwd returns a directory besides the suite's cwd for sessions that
// must be in another: its parent.
func (k *checker) otherCwd() string {
	return filepath.Dir(k.cwd())
}

// sameID reports whether the id an agent sent is the value of the id
// the check sent (want, JSON text): strings are compared by value, since
// a peer may spell them with or without escapes, and numbers by their
// digits, since a number that loses precision is another id.
func sameID(got []byte, want string) bool {
	var g, w string
	if json.Unmarshal(got, &g) == nil && json.Unmarshal([]byte(want), &w) == nil {
		return g == w
	}
	return string(got) == want
}
