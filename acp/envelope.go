package acp

import (
	"encoding/json"
	"fmt"
)

// The JSON-RPC 2.0 envelopes. Each Marshal function returns one compact line
// of JSON without a trailing newline: encoding/json escapes newlines inside
// strings and compacts json.RawMessage values, so no raw newline can appear.
//
// The id is spliced in as its raw bytes rather than encoded: encoding/json
// would re-escape a string id ("<a>" as "\u003ca\u003e", and under
// GOEXPERIMENT=jsonv2 U+2028 as "\u2028"), and a reply must echo the id
// exactly as it came.

type requestMembers struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

type notificationEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type resultMembers struct {
	Result any `json:"result"`
}

type errorMembers struct {
	Error *Error `json:"error"`
}

// MarshalRequest returns a request line calling method with params (omitted
// when nil). The id must be present; an absent id is an error, since a
// request without one would be read as a notification.
func MarshalRequest(id ID, method string, params any) ([]byte, error) {
	if id.IsAbsent() {
		return nil, fmt.Errorf("acp: request %q has no id", method)
	}
	if a, ok := params.(jsonAppender); ok {
		line := make([]byte, 0, 512)
		line = append(line, `{"jsonrpc":"2.0","id":`...)
		line = append(line, id.raw...)
		line = append(line, `,"method":`...)
		line, err := appendQuoted(line, method)
		if err == nil {
			line = append(line, `,"params":`...)
			line, err = a.appendJSON(line)
		}
		if err != nil {
			return nil, fmt.Errorf("acp: encoding message: %w", err)
		}
		return append(line, '}'), nil
	}
	return marshalWithID(id, requestMembers{Method: method, Params: params})
}

// jsonAppender is implemented by the params of the hot methods
// (session/update, session/prompt), which encode themselves straight into
// the line: encoding/json would validate and compact each nested
// encoding once more. The bytes are those encoding/json would produce.
type jsonAppender interface {
	appendJSON(dst []byte) ([]byte, error)
}

// MarshalNotification returns a notification line for method with params
// (omitted when nil).
func MarshalNotification(method string, params any) ([]byte, error) {
	if a, ok := params.(jsonAppender); ok {
		line := make([]byte, 0, 256)
		line = append(line, `{"jsonrpc":"2.0","method":`...)
		line, err := appendQuoted(line, method)
		if err == nil {
			line = append(line, `,"params":`...)
			line, err = a.appendJSON(line)
		}
		if err != nil {
			return nil, fmt.Errorf("acp: encoding message: %w", err)
		}
		return append(line, '}'), nil
	}
	line, err := json.Marshal(notificationEnvelope{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("acp: encoding message: %w", err)
	}
	return line, nil
}

// MarshalResponse returns a success response echoing id byte-exact. A nil
// result is sent as null, which JSON-RPC requires to be present. An absent
// id is sent as null.
func MarshalResponse(id ID, result any) ([]byte, error) {
	return marshalWithID(id, resultMembers{Result: result})
}

// MarshalErrorResponse returns an error response echoing id byte-exact (null
// when absent). A nil e is sent as [ErrInternal]. It fails only when e.Data
// is not valid JSON.
func MarshalErrorResponse(id ID, e *Error) ([]byte, error) {
	if e == nil {
		e = ErrInternal
	}
	return marshalWithID(id, errorMembers{Error: e})
}

// marshalWithID returns {"jsonrpc":"2.0","id":<id>, …} where … are the
// members of rest, a struct with at least one member that is never omitted.
func marshalWithID(id ID, rest any) ([]byte, error) {
	body, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("acp: encoding message: %w", err)
	}
	const head = `{"jsonrpc":"2.0","id":`
	raw := id.raw
	if len(raw) == 0 {
		raw = NullID.raw
	}
	line := make([]byte, 0, len(head)+len(raw)+len(body))
	line = append(append(append(line, head...), raw...), ',')
	return append(line, body[1:]...), nil // body is "{…}": drop its '{'
}
