package bridge

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/tidwall/gjson"
)

// This file passes a CLI's requests for the editor on ([Host.Relay]): a
// CLI that speaks ACP itself asks for the editor's files, terminals and
// elicitations as any ACP agent does, and the session asks the editor in
// its name, under its own session id.

// relayed is the editor's answer to a request relayed for the process p
// (nil for none), for the Conversation's done.
type relayed struct {
	p      *proc
	done   func(json.RawMessage, error)
	result json.RawMessage
	err    error
}

func (relayed) isEvent() {}

func (h *host) Relay(method string, params json.RawMessage, done func(result json.RawMessage, err error)) func() {
	return h.s.relay(h.p, h.editor(), method, params, done)
}

// relay asks ed, on a goroutine of its own, the request a Conversation
// relays for the process p, and posts the answer back; the returned
// function withdraws the request. The process's exit withdraws it too.
func (s *session) relay(p *proc, ed *editor, method string, params json.RawMessage, done func(json.RawMessage, error)) func() {
	parent := context.Background()
	if p != nil {
		parent = p.ctx
		p.relays++
	}
	ctx, cancel := context.WithCancel(parent)
	conn := ed.connection()
	params = withSessionID(params, s.id)
	var err error
	if conn == nil || !ed.takes(method) {
		err = acp.Errorf(acp.CodeMethodNotFound, "the editor takes no %s", method)
	}
	s.a.wg.Go(func() {
		defer cancel()
		var res json.RawMessage
		if err == nil {
			res, err = conn.Request(ctx, method, params)
			if ctx.Err() != nil {
				res, err = nil, acp.Errorf(acp.CodeRequestCancelled, "%s was withdrawn", method)
			}
		}
		s.post(relayed{p, done, res, err})
	})
	return cancel
}

// takeRelayed hands a relayed request's answer to the Conversation.
func (s *session) takeRelayed(ev relayed) {
	if ev.p != nil {
		ev.p.relays--
	}
	ev.done(ev.result, ev.err)
}

// takes reports whether the editor declared that it takes method, one of
// ACP's client side that a CLI may relay, or an extension's.
func (e *editor) takes(method string) bool {
	caps := e.capabilities()
	switch method {
	case acp.FSReadTextFile.Name:
		return caps.FS.ReadTextFile
	case acp.FSWriteTextFile.Name:
		return caps.FS.WriteTextFile
	case acp.TerminalCreate.Name, acp.TerminalOutput.Name, acp.TerminalWaitForExit.Name, acp.TerminalKill.Name, acp.TerminalRelease.Name:
		return caps.Terminal
	case acp.ElicitationCreate.Name:
		return caps.Elicitation != nil
	}
	return strings.HasPrefix(method, "_") && !e.isV2()
}

// withSessionID returns params with the value of its sessionId member,
// if it has one, replaced by id; params that are not an object become
// an empty one.
func withSessionID(params json.RawMessage, id string) json.RawMessage {
	root := gjson.ParseBytes(params)
	if !root.IsObject() {
		return json.RawMessage("{}")
	}
	// A decoder reads the last of members named alike, or spelled with
	// escapes, or (encoding/json's) in another case: the value is
	// replaced in place only where the member is there once, as is.
	var v gjson.Result
	n, plain := 0, false
	root.ForEach(func(k, val gjson.Result) bool {
		if strings.EqualFold(k.String(), "sessionId") {
			n++
			v, plain = val, k.Raw == `"sessionId"`
		}
		return true
	})
	if n == 0 {
		return params
	}
	quoted, _ := json.Marshal(id) // a string always marshals
	if n == 1 && plain && v.Index > 0 && string(params[v.Index:v.Index+len(v.Raw)]) == v.Raw {
		out := make([]byte, 0, len(params)+len(quoted))
		out = append(out, params[:v.Index]...)
		out = append(out, quoted...)
		return append(out, params[v.Index+len(v.Raw):]...)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return json.RawMessage("{}")
	}
	for k := range m {
		if strings.EqualFold(k, "sessionId") {
			delete(m, k)
		}
	}
	m["sessionId"] = quoted
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage("{}")
	}
	return out
}
