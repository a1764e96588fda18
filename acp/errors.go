package acp

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/acpkit/acpkit/internal/wire"
)

// Error codes defined by JSON-RPC 2.0 and by ACP.
const (
	CodeParseError       = -32700 // the line is not valid JSON or not valid UTF-8
	CodeInvalidRequest   = -32600 // valid JSON, but not a JSON-RPC 2.0 message
	CodeMethodNotFound   = -32601 // the receiver does not implement the method
	CodeInvalidParams    = -32602 // params missing, of the wrong type, or out of range
	CodeInternalError    = -32603 // the receiver failed while handling the request
	CodeRequestCancelled = -32800 // the request was cancelled with $/cancel_request
	CodeAuthRequired     = -32000 // the agent needs authenticate before this method
	CodeResourceNotFound = -32002 // a named resource (a session, a file) does not exist
)

// Error is a JSON-RPC error object: the error member of a response, and the
// error a handler returns to choose the reply sent to the peer.
//
// Two Errors match under [errors.Is] when their codes are equal, whatever
// their messages and data, so an error decoded from the wire can be tested
// against the sentinels:
//
//	if errors.Is(err, acp.ErrMethodNotFound) { … }
type Error struct {
	// Code is one of the Code constants, or an application-defined code.
	Code int `json:"code"`
	// Message is a short human-readable description.
	Message string `json:"message"`
	// Data is optional structured detail, kept as raw JSON; nil means absent.
	Data json.RawMessage `json:"data,omitempty"`
}

// Sentinel errors for each standard code, for use as [errors.Is] targets.
// Do not modify them; build a new Error (with [Errorf]) to reply with detail.
var (
	ErrParse            = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest   = &Error{Code: CodeInvalidRequest, Message: "Invalid request"}
	ErrMethodNotFound   = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams    = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal         = &Error{Code: CodeInternalError, Message: "Internal error"}
	ErrRequestCancelled = &Error{Code: CodeRequestCancelled, Message: "Request cancelled"}
	ErrAuthRequired     = &Error{Code: CodeAuthRequired, Message: "Authentication required"}
	ErrResourceNotFound = &Error{Code: CodeResourceNotFound, Message: "Resource not found"}
)

// Errorf returns an Error with the given code and a message formatted as with
// [fmt.Sprintf], and no data.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e whose Data is v encoded as JSON, so that a
// reply with detail is one expression:
//
//	return acp.Errorf(acp.CodeResourceNotFound, "Session not found: %s", id).
//		WithData(map[string]string{"sessionId": id})
//
// A v that encoding/json cannot encode is a programming error, not the
// peer's: the copy then has no Data and its Message ends with the encoding
// error, so the reply still goes out and the mistake shows.
func (e *Error) WithData(v any) *Error {
	c := *e
	data, err := json.Marshal(v)
	if err != nil {
		c.Data = nil
		c.Message += fmt.Sprintf(" (data not encoded: %v)", err)
		return &c
	}
	c.Data = data
	return &c
}

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("acp: error %d: %s (data: %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("acp: error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// decodeFields reads the error object of the schema's Error, where an
// error is a member (an idle state's failure); Conn reads responses
// itself.
func (x *Error) decodeFields(f *wire.Fields) {
	f.Int("code", &x.Code, wire.Required, math.MinInt32, math.MaxInt32)
	f.String("message", &x.Message, wire.Required)
	f.Raw("data", &x.Data, wire.Lenient|wire.KeepNull)
}

func (x Error) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Key("code")
	e.Int(int64(x.Code))
	e.Key("message")
	e.String(x.Message)
	if len(x.Data) > 0 {
		e.Key("data")
		e.Raw(x.Data)
	}
	e.Close()
}
