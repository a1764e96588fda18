// Package transport is what a transport of this module (acphttp) may
// tell an acp.Conn besides messages. Its acp.MessageReader may return a
// [*RequestError], which fails one request the Conn sent, or a
// *lines.TooLongError, which reports a message too long to read, as the
// Conn's own line reader does. Being internal, neither can come from a
// caller's reader, whose errors end the connection.
package transport

import "fmt"

// A RequestError fails the Conn's pending request whose id is ID with
// Err, and the connection goes on: the transport could not deliver the
// request, or its answer (an HTTP status, say). A RequestError whose id
// is not pending is dropped.
type RequestError struct {
	// ID is the request's raw id, as the Conn wrote it.
	ID []byte
	// Err is what the request returns.
	Err error
}

func (e *RequestError) Error() string { return fmt.Sprintf("request %s: %v", e.ID, e.Err) }

func (e *RequestError) Unwrap() error { return e.Err }
