package acpcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/acpkit/acpkit/acp"
	"github.com/tidwall/gjson"
)

// The sources the JSON-RPC checks cite: ACP is JSON-RPC 2.0
// (protocol/v1/overview), whose specification they quote.
var (
	srcJSONRPCResponse = Source{"JSON-RPC 2.0 §5 (protocol/v1/overview: ACP follows JSON-RPC 2.0)", "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."}
	srcJSONRPCID       = Source{"JSON-RPC 2.0 §5", "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object. If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null."}
	srcJSONRPCErrors   = Source{"JSON-RPC 2.0 §5.1", "-32700 Parse error: Invalid JSON was received by the server. -32600 Invalid Request: The JSON sent is not a valid Request object. -32601 Method not found. -32602 Invalid params."}
	srcJSONRPCNotify   = Source{"JSON-RPC 2.0 §4.1; protocol/v1/extensibility#custom-notifications", "The Server MUST NOT reply to a Notification. / Unlike with custom requests, implementations SHOULD ignore unrecognized notifications."}
	srcStdout          = Source{"protocol/v1/transports#stdio", "The agent MUST NOT write anything to its stdout that is not a valid ACP message."}
	srcNewlines        = Source{"protocol/v1/transports#stdio", "Messages are delimited by newlines (\\n), and MUST NOT contain embedded newlines."}
	srcUTF8            = Source{"protocol/v1/transports", "ACP uses JSON-RPC to encode messages. JSON-RPC messages MUST be UTF-8 encoded."}
)

var wireChecks = []checkDef{
	{
		Check: Check{ID: "framing.ids", Level: Must, Source: srcJSONRPCID,
			Doc: "requests with a string id holding non-ASCII text, an integer beyond 2^53 and a negative one are answered with their ids unchanged"},
		conn: connFresh, stdioOnly: true, run: checkIDs,
	},
	{
		Check: Check{ID: "initialize.before", Level: Must, Source: srcJSONRPCResponse,
			Doc: "a session/new sent before initialize is answered (with a result or an error), and initialize then succeeds"},
		conn: connFresh, stdioOnly: true, run: checkBeforeInitialize,
	},
	{
		Check: Check{ID: "errors.method-not-found", Level: Must, Source: srcJSONRPCErrors,
			Doc: "a request for a method the agent lacks is answered -32601, and the connection goes on"},
		conn: connFresh, run: checkMethodNotFound,
	},
	{
		Check: Check{ID: "errors.invalid-params", Level: Must, Source: srcJSONRPCErrors,
			Doc: "session/new with a cwd that is a number is answered -32602, and the connection goes on"},
		conn: connFresh, run: checkInvalidParams,
	},
	{
		Check: Check{ID: "errors.invalid-params-member", Level: Should,
			Source: Source{"JSON-RPC 2.0 §5.1; the official TypeScript SDK", "data: A Primitive or Structured value that contains additional information about the error. (The SDK's -32602 names the invalid member's path.)"},
			Doc:    "the -32602 for an invalid cwd names the member, in its message or data"},
		conn: connFresh, run: checkInvalidParamsMember,
	},
	{
		Check: Check{ID: "errors.parse", Level: Must, Source: srcJSONRPCErrors,
			Doc: "a line that is not JSON is answered -32700 with a null id, and the connection goes on"},
		conn: connFresh, stdioOnly: true, run: checkParseError,
	},
	{
		Check: Check{ID: "errors.invalid-request", Level: Must, Source: srcJSONRPCErrors,
			Doc: "a request whose method is a number is answered -32600, and the connection goes on"},
		conn: connFresh, stdioOnly: true, run: checkInvalidRequest,
	},
	{
		Check: Check{ID: "errors.notification-unanswered", Level: Must, Source: srcJSONRPCNotify,
			Doc: "an unknown notification and a session/cancel of an unknown session get no reply, and the connection goes on"},
		conn: connFresh, run: checkNotificationUnanswered,
	},
}

// freshInit initializes the check's fresh connection in v1.
func freshInit(ctx context.Context, k *checker) error {
	init, err := initialize(ctx, k.p, 1)
	if err != nil {
		return verdictError{failf("initialize: %v", err)}
	}
	k.init = init
	return nil
}

func checkIDs(ctx context.Context, k *checker) verdict {
	if err := freshInit(ctx, k); err != nil {
		return errVerdict("", err)
	}
	// The string id is written with an escape, as a peer may: its value
	// is what must come back, in whatever spelling.
	ids := []string{`"acpcheck-\u00fc-\u263a"`, `9007199254740993`, `-7`}
	for _, id := range ids {
		before := len(k.p.log.snapshot())
		if err := k.p.writeRaw(`{"jsonrpc":"2.0","id":` + id + `,"method":"_acpcheck/unknown","params":{}}`); err != nil {
			return failf("writing a request: %v", err)
		}
		// One request is outstanding: the next response is its.
		got, err := nextResponse(ctx, k.p, before)
		if err != nil {
			return failf("request with id %s: %v", id, err)
		}
		if !sameID(got.msg.ID.Raw(), id) {
			return failf("the request with id %s was answered with id %s", id, got.msg.ID.Raw())
		}
	}
	return passf("")
}

// nextResponse waits for the agent's first response after the event at
// index since.
func nextResponse(ctx context.Context, p *peer, since int) (*event, error) {
	var got *event
	err := p.log.waitFor(ctx, "response", func(events []event) bool {
		for i := since; i < len(events); i++ {
			if e := &events[i]; e.from == fromAgent && (e.msg.Kind == acp.KindResponse || e.msg.Kind == acp.KindInvalid) {
				got = e
				return true
			}
		}
		return false
	})
	return got, err
}

func checkBeforeInitialize(ctx context.Context, k *checker) verdict {
	raw, err := k.p.request(ctx, acp.SessionNew.Name, newSessionParams(k.cwd()))
	var answer string
	if _, isRPC := errorCode(err); err != nil && !isRPC {
		return failf("session/new before initialize got no response: %v", err)
	}
	answer = describe(raw, err)
	if _, err := initialize(ctx, k.p, 1); err != nil {
		return failf("session/new before initialize was answered (%s), but initialize then failed: %v", answer, err)
	}
	return passf("session/new before initialize: %s", answer)
}

func checkMethodNotFound(ctx context.Context, k *checker) verdict {
	if err := freshInit(ctx, k); err != nil {
		return errVerdict("", err)
	}
	raw, err := k.p.request(ctx, "_acpcheck/unknown", map[string]any{})
	if code, ok := errorCode(err); !ok || code != acp.CodeMethodNotFound {
		return failf("_acpcheck/unknown: want error -32601, got %s", describe(raw, err))
	}
	if err := survives(ctx, k.p); err != nil {
		return failf("%v", err)
	}
	return passf("")
}

// invalidCwd asks for a session whose cwd is a number, and returns the
// agent's error.
func invalidCwd(ctx context.Context, k *checker) (*acp.Error, verdict) {
	if err := freshInit(ctx, k); err != nil {
		return nil, errVerdict("", err)
	}
	raw, err := k.p.request(ctx, acp.SessionNew.Name, map[string]any{"cwd": 42, "mcpServers": []any{}})
	var rpcErr *acp.Error
	if code, ok := errorCode(err); !ok || code != acp.CodeInvalidParams {
		return nil, failf(`session/new with "cwd": 42: want error -32602, got %s`, describe(raw, err))
	}
	rpcErr, _ = err.(*acp.Error)
	if err := survives(ctx, k.p); err != nil {
		return nil, failf("%v", err)
	}
	return rpcErr, verdict{}
}

func checkInvalidParams(ctx context.Context, k *checker) verdict {
	if _, v := invalidCwd(ctx, k); v.outcome != "" {
		return v
	}
	return passf("")
}

func checkInvalidParamsMember(ctx context.Context, k *checker) verdict {
	e, v := invalidCwd(ctx, k)
	if v.outcome != "" {
		return v
	}
	if e == nil || !strings.Contains(e.Message, "cwd") && !bytes.Contains(e.Data, []byte("cwd")) {
		return failf("the -32602 error does not name cwd: %v", e)
	}
	return passf("")
}

func checkParseError(ctx context.Context, k *checker) verdict {
	if err := freshInit(ctx, k); err != nil {
		return errVerdict("", err)
	}
	before := len(k.p.log.snapshot())
	if err := k.p.writeRaw(`{"jsonrpc":"2.0","id":"acpcheck-parse","method":"session/new","params":{`); err != nil {
		return failf("writing: %v", err)
	}
	got, err := nextResponse(ctx, k.p, before)
	if err != nil {
		return failf("a line that is not JSON: %v", err)
	}
	if got.msg.Err == nil || got.msg.Err.Code != acp.CodeParseError || !got.msg.ID.IsNull() {
		return failf("want error -32700 with id null, got %s", got.line)
	}
	if err := survives(ctx, k.p); err != nil {
		return failf("%v", err)
	}
	return passf("")
}

func checkInvalidRequest(ctx context.Context, k *checker) verdict {
	if err := freshInit(ctx, k); err != nil {
		return errVerdict("", err)
	}
	before := len(k.p.log.snapshot())
	if err := k.p.writeRaw(`{"jsonrpc":"2.0","id":"acpcheck-invalid","method":7,"params":{}}`); err != nil {
		return failf("writing: %v", err)
	}
	got, err := nextResponse(ctx, k.p, before)
	if err != nil {
		return failf(`{"method":7}: %v`, err)
	}
	if got.msg.Err == nil || got.msg.Err.Code != acp.CodeInvalidRequest {
		return failf(`{"method":7}: want error -32600, got %s`, got.line)
	}
	if err := survives(ctx, k.p); err != nil {
		return failf("%v", err)
	}
	return passf("")
}

func checkNotificationUnanswered(ctx context.Context, k *checker) verdict {
	if err := freshInit(ctx, k); err != nil {
		return errVerdict("", err)
	}
	before := len(k.p.log.snapshot())
	if err := k.p.notify(ctx, "_acpcheck/notice", map[string]any{"n": 1}); err != nil {
		return failf("sending a notification: %v", err)
	}
	if err := k.p.notify(ctx, acp.SessionCancel.Name, map[string]any{"sessionId": "acpcheck-no-such-session"}); err != nil {
		return failf("sending session/cancel: %v", err)
	}
	if err := survives(ctx, k.p); err != nil {
		return failf("%v", err)
	}
	events := k.p.log.snapshot()
	_, barrierResp := requestEvent(events, "_acpcheck/barrier", "")
	for i := before; i < barrierResp; i++ {
		if e := &events[i]; e.from == fromAgent && e.msg.Kind == acp.KindResponse || e.from == fromAgent && e.msg.Kind == acp.KindInvalid {
			return failf("the agent replied to a notification: %s", e.line)
		}
	}
	return passf("")
}

// The checks below judge every line the agent wrote over stdio, on every
// connection, once the others are done.

var framingChecks = []checkDef{
	{
		Check: Check{ID: "framing.json", Level: Must, Source: srcStdout,
			Doc: "every line the agent wrote to stdout, on every connection of the suite, is a JSON-RPC 2.0 message"},
		conn: connPassive, run: checkFramingJSON,
	},
	{
		Check: Check{ID: "framing.newlines", Level: Must, Source: srcNewlines,
			Doc: "no message the agent wrote spans lines, and its output ends with a newline"},
		conn: connPassive, run: checkFramingNewlines,
	},
	{
		Check: Check{ID: "framing.utf8", Level: Must, Source: srcUTF8,
			Doc: "every line the agent wrote is valid UTF-8"},
		conn: connPassive, run: checkFramingUTF8,
	},
}

// agentLines calls f with every line an agent wrote over stdio, until f
// returns a failure.
func (k *checker) agentLines(f func(p *peer, e *event) *verdict) verdict {
	if k.s.target.remote != nil {
		return skipf("%v", errNoRaw)
	}
	n := 0
	for _, p := range k.s.allPeers() {
		events := p.log.snapshot()
		for i := range events {
			if events[i].from != fromAgent {
				continue
			}
			n++
			if v := f(p, &events[i]); v != nil {
				return *v
			}
		}
	}
	if n == 0 {
		return skipf("the agent wrote nothing")
	}
	return passf("%d lines", n)
}

// quote shortens a line for a reason.
func quote(line []byte) string {
	if len(line) > 120 {
		return fmt.Sprintf("%q…", line[:120])
	}
	return fmt.Sprintf("%q", line)
}

func checkFramingJSON(_ context.Context, k *checker) verdict {
	return k.agentLines(func(p *peer, e *event) *verdict {
		if e.msg.Kind == acp.KindInvalid {
			v := failf("connection %d: line %d is not a JSON-RPC message (%v): %s", p.n, e.seq+1, e.msg.Err, quote(e.line))
			return &v
		}
		return nil
	})
}

func checkFramingNewlines(_ context.Context, k *checker) verdict {
	if k.s.target.remote != nil {
		return skipf("%v", errNoRaw)
	}
	for _, p := range k.s.allPeers() {
		events := p.log.snapshot()
		for i := range events {
			e := &events[i]
			if e.from != fromAgent || e.msg.Kind != acp.KindInvalid {
				continue
			}
			if e.partial {
				return failf("connection %d: the agent's output ended without a newline after %s", p.n, quote(e.line))
			}
			// A message spread over lines: this line and those after it
			// make one JSON value.
			var joined []byte
			for j := i; j < len(events) && j < i+200; j++ {
				if events[j].from != fromAgent {
					continue
				}
				joined = append(append(joined, events[j].line...), '\n')
				if len(joined) > len(e.line)+1 && json.Valid(joined) && gjson.GetBytes(joined, "jsonrpc").Exists() {
					return failf("connection %d: a message spans lines %d to %d", p.n, e.seq+1, events[j].seq+1)
				}
			}
		}
	}
	return passf("")
}

func validUTF8(b []byte) bool { return utf8.Valid(b) }

func checkFramingUTF8(_ context.Context, k *checker) verdict {
	return k.agentLines(func(p *peer, e *event) *verdict {
		if !validUTF8(e.line) {
			v := failf("connection %d: line %d is not valid UTF-8: %s", p.n, e.seq+1, quote(e.line))
			return &v
		}
		return nil
	})
}

// allPeers returns every connection the suite opened.
func (s *suite) allPeers() []*peer {
	s.peers.Lock()
	defer s.peers.Unlock()
	return append([]*peer(nil), s.peers.all...)
}
