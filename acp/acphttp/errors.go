package acphttp

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// ErrUnauthorized is matched, under [errors.Is], by a [*StatusError] for
// 401 Unauthorized: the server refused the client's credentials, or their
// absence (DialOptions.Header carries them). It is also the error
// [BearerToken]'s and [BearerTokens]' Authenticators refuse a request
// with, which the server answers 401.
var ErrUnauthorized = errors.New("acphttp: unauthorized")

// ErrForbidden is matched, under [errors.Is], by a [*StatusError] for 403
// Forbidden: the server refuses the client whatever its credentials, as a
// [Server] refuses a request from a web page of another origin (see
// ServerOptions.OriginPatterns), and a connection for which the function
// given to [NewServer] makes no handler.
var ErrForbidden = errors.New("acphttp: forbidden")

// A StatusError is an HTTP response a client did not expect: a WebSocket
// upgrade answered with another status than 101, initialize's POST with
// another than 200, a stream's GET with another than 200, or a POST
// refused with a body that is not a JSON-RPC error (which the request
// fails with instead, as over a WebSocket). Read it with [errors.As]; it
// matches [ErrUnauthorized] for 401 and [ErrForbidden] for 403.
type StatusError struct {
	// StatusCode is the response's status, such as 401.
	StatusCode int
	// Header is the response's header: WWW-Authenticate holds a 401's
	// challenge, Retry-After a 429's or 503's advice.
	Header http.Header
	// Body is the start of the response's body: at most 8 KiB, or 1 KiB
	// for a WebSocket upgrade, all the WebSocket library keeps. The error
	// owns it.
	Body []byte
}

// maxErrorText bounds, in bytes, how much of the body Error quotes.
const maxErrorText = 256

// Error implements the error interface: the status and the start of the
// body.
func (e *StatusError) Error() string {
	text := bytes.TrimSpace(e.Body)
	if len(text) > maxErrorText {
		cut := maxErrorText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = append(text[:cut:cut], "…"...)
	}
	if len(text) == 0 {
		return fmt.Sprintf("acphttp: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	return fmt.Sprintf("acphttp: %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), text)
}

// Is reports whether target is the sentinel of e's status:
// [ErrUnauthorized] for 401, [ErrForbidden] for 403.
func (e *StatusError) Is(target error) bool {
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return target == ErrUnauthorized
	case http.StatusForbidden:
		return target == ErrForbidden
	}
	return false
}
