package acp

import (
	"encoding/json"
	"fmt"
)

// The JSON-RPC 2.0 envelopes. Each Marshal function returns one compact line
// of JSON without a trailing newline: encoding/json escapes newlines inside
// strings and compacts json.RawMessage values, so no raw newline can appear.

type requestEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	ID      ID     `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type notificationEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type resultEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	ID      ID     `json:"id"`
	Result  any    `json:"result"`
}

type errorEnvelope struct {
	JSONRPC string `json:"jsonrpc"`
	ID      ID     `json:"id"`
	Error   *Error `json:"error"`
}

// MarshalRequest returns a request line calling method with params (omitted
// when nil). The id must be present; an absent id is an error, since a
// request without one would be read as a notification.
func MarshalRequest(id ID, method string, params any) ([]byte, error) {
	if id.IsAbsent() {
		return nil, fmt.Errorf("acp: request %q has no id", method)
	}
	return marshalLine(requestEnvelope{JSONRPC: "2.0", ID: id, Method: method, Params: params})
}

// MarshalNotification returns a notification line for method with params
// (omitted when nil).
func MarshalNotification(method string, params any) ([]byte, error) {
	return marshalLine(notificationEnvelope{JSONRPC: "2.0", Method: method, Params: params})
}

// MarshalResponse returns a success response echoing id byte-exact. A nil
// result is sent as null, which JSON-RPC requires to be present. An absent
// id is sent as null.
func MarshalResponse(id ID, result any) ([]byte, error) {
	return marshalLine(resultEnvelope{JSONRPC: "2.0", ID: id, Result: result})
}

// MarshalErrorResponse returns an error response echoing id byte-exact (null
// when absent). A nil e is sent as [ErrInternal]. It fails only when e.Data
// is not valid JSON.
func MarshalErrorResponse(id ID, e *Error) ([]byte, error) {
	if e == nil {
		e = ErrInternal
	}
	return marshalLine(errorEnvelope{JSONRPC: "2.0", ID: id, Error: e})
}

func marshalLine(v any) ([]byte, error) {
	line, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("acp: encoding message: %w", err)
	}
	return line, nil
}
