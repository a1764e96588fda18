package acp

import (
	"context"
	"encoding/json"
	"reflect"
)

// Method binds the name of a JSON-RPC request to its params type P and its
// result type R, so that a wrong pairing does not compile. The package
// declares one for every ACP request ([SessionPrompt], [FSReadTextFile], …);
// an extension declares its own in one line:
//
//	var Steer = acp.Method[SteerParams, SteerResult]{Name: "_vendor/session/steer"}
//
// Serve it with [Method.Handle] and call it with [Method.Call]. The zero
// Method has no name and must not be used.
type Method[P, R any] struct {
	// Name is the method's name on the wire, such as "session/prompt".
	Name string
}

// Handle registers f in ms to answer requests for m, creating the table's
// map when it is nil. f never sees raw JSON: the params are decoded with
// [DecodeParams] first, and a missing or mistyped member is answered with
// [CodeInvalidParams] naming it, without calling f. f's result is encoded
// with encoding/json; its error is replied as [Handler.HandleRequest]
// describes. A later Handle for the same name replaces the earlier one.
func (m Method[P, R]) Handle(ms *Methods, f func(ctx context.Context, conn *Conn, params P) (R, error)) {
	if ms.Requests == nil {
		ms.Requests = make(map[string]RequestFunc)
	}
	ms.Requests[m.Name] = func(ctx context.Context, conn *Conn, raw json.RawMessage) (any, error) {
		p, err := DecodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		r, err := f(ctx, conn, p)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// Call sends the request m with params over conn and waits for the result,
// decoded with [DecodeResult]: a result missing a required member or
// holding one of the wrong type is an error matching [ErrInvalidResponse]
// that names the member ([InvalidField] reads it). Other errors are those
// of [Conn.Request]: the peer's [*Error], the context's, or [ErrClosed].
func (m Method[P, R]) Call(ctx context.Context, conn *Conn, params P) (R, error) {
	raw, err := conn.Request(ctx, m.Name, params)
	if err != nil {
		var zero R
		return zero, err
	}
	return DecodeResult[R](raw)
}

// Notification binds the name of a JSON-RPC notification to its params
// type P. The package declares one for every ACP notification
// ([SessionUpdate], [SessionCancel], …); an extension declares its own in
// one line, as with [Method].
type Notification[P any] struct {
	// Name is the notification's name on the wire, such as "session/update".
	Name string
}

// Handle registers f in ms to receive notifications n, creating the table's
// map when it is nil. The params are decoded with [DecodeParams] first; a
// notification whose params do not decode is dropped, and logged at Warn
// on the [ConnOptions] Logger, since a notification has no reply (a client
// skips a malformed session/update, as the official TypeScript client
// does). A later Handle for the same name replaces the earlier one.
func (n Notification[P]) Handle(ms *Methods, f func(ctx context.Context, conn *Conn, params P)) {
	if ms.Notifications == nil {
		ms.Notifications = make(map[string]NotificationFunc)
	}
	ms.Notifications[n.Name] = func(ctx context.Context, conn *Conn, raw json.RawMessage) {
		p, err := DecodeParams[P](raw)
		if err != nil {
			conn.log.Warn("acp: notification dropped: invalid params", "method", n.Name, "error", err)
			return
		}
		f(ctx, conn, p)
	}
}

// Notify sends the notification n with params over conn, as
// [Conn.Notify] does. Params the package can tell are incomplete, such as
// a [SessionNotification] without its update, are refused unsent.
func (n Notification[P]) Notify(ctx context.Context, conn *Conn, params P) error {
	return conn.Notify(ctx, n.Name, params)
}

// method is a [Method] or a [Notification] of any types, for tables.
type method interface {
	name() string
	// types returns the params type and the result type, nil for a
	// notification.
	types() (params, result reflect.Type)
}

func (m Method[P, R]) name() string { return m.Name }

func (m Method[P, R]) types() (params, result reflect.Type) {
	return reflect.TypeFor[P](), reflect.TypeFor[R]()
}

func (n Notification[P]) name() string { return n.Name }

func (n Notification[P]) types() (params, result reflect.Type) {
	return reflect.TypeFor[P](), nil
}
