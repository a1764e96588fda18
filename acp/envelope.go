package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/wire"
)

// The JSON-RPC 2.0 envelopes. Each Marshal function returns one compact line
// of JSON without a trailing newline, or an error and no line: what it
// returns, a peer can read. Values are encoded with encoding/json, which
// escapes newlines inside strings, and then checked as [FrameWriter] checks
// a frame, since a [json.RawMessage] or a MarshalJSON method can still
// produce JSON that is invalid, not UTF-8, or nested deeper than a reader
// accepts. A json.RawMessage is copied as it is, only compacted. The
// package's hot values (session/update's and session/prompt's params, the
// prompt's result) encode themselves instead, to the bytes encoding/json
// would write (see encode.go); of what they write, only the bytes taken
// from the caller, such as a _meta, need the check.
//
// The id is spliced in as its raw bytes rather than encoded: encoding/json
// would re-escape a string id ("<a>" as "\u003ca\u003e", and under
// GOEXPERIMENT=jsonv2 U+2028 as "\u2028"), and a reply must echo the id
// exactly as it came.

// ErrParamsNotStructured is matched by the error [MarshalRequest],
// [MarshalNotification], [Conn.Request] and [Conn.Notify] return for
// params that encode to a JSON string, number or boolean: JSON-RPC 2.0
// allows only an object or an array, and a peer would refuse the message.
// Nothing is sent. Params that encode to null are omitted, as nil ones are.
var ErrParamsNotStructured = errors.New("acp: params must be a JSON object or array")

// MarshalRequest returns a request line calling method with params (omitted
// when nil). The id must be present; an absent id is an error, since a
// request without one would be read as a notification. It fails, matching
// [ErrParamsNotStructured], for params that are not an object or an array,
// and matching [ErrNotJSON] for params whose encoding is not valid JSON.
func MarshalRequest(id ID, method string, params any) ([]byte, error) {
	if id.IsAbsent() {
		return nil, fmt.Errorf("acp: request %q has no id", echo(method))
	}
	return trimLine(encodeLine(id, method, "params", params))
}

// MarshalNotification returns a notification line for method with params
// (omitted when nil). It fails as [MarshalRequest] does.
func MarshalNotification(method string, params any) ([]byte, error) {
	return trimLine(encodeLine(ID{}, method, "params", params))
}

// MarshalResponse returns a success response echoing id byte-exact. A nil
// result is sent as null, which JSON-RPC requires to be present. An absent
// id is sent as null. It fails, matching [ErrNotJSON], when the result's
// encoding is not valid JSON in valid UTF-8.
func MarshalResponse(id ID, result any) ([]byte, error) {
	return trimLine(encodeLine(responseID(id), "", "result", result))
}

// MarshalErrorResponse returns an error response echoing id byte-exact (null
// when absent). A nil e is sent as [ErrInternal]. It fails only when e.Data
// is not valid JSON in valid UTF-8.
func MarshalErrorResponse(id ID, e *Error) ([]byte, error) {
	if e == nil {
		e = ErrInternal
	}
	return trimLine(encodeLine(responseID(id), "", "error", e))
}

// responseID is the id a response carries: null when absent.
func responseID(id ID) ID {
	if id.IsAbsent() {
		return NullID
	}
	return id
}

func trimLine(line []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return line[:len(line)-1], nil
}

// lineHead is the first member of every message.
const lineHead = `{"jsonrpc":"2.0"`

// encodeLine returns the message {"jsonrpc":"2.0","id":<id>,"method":<method>,
// <member>:<value>} and its terminating newline. An absent id is left out,
// and so is the method unless member is "params" (a request or a
// notification), and a nil or null value of "params", which must
// otherwise be an object or an array. The line is
// allocated once, at its final size, and a json.RawMessage is compacted
// straight into it, so a large value costs one copy beyond its encoding.
func encodeLine(id ID, method, member string, value any) ([]byte, error) {
	if a, ok := value.(jsonAppender); ok && !wire.IsNilPointer(value) {
		return appendLine(id, method, member, a)
	}
	if app, ok := wire.Appender(reflect.TypeOf(value)); ok {
		return appendLine(id, method, member, registered{value, app})
	}
	val, raw := value.(json.RawMessage)
	switch {
	case value == nil || raw && val == nil:
		val = nil
	case raw:
		if err := jsonscan.CheckIn(val, 1); err != nil {
			return nil, encodeError(method, member, err)
		}
	default:
		var err error
		if val, err = json.Marshal(value); err != nil {
			return nil, fmt.Errorf("acp: encoding %s%s: %w", member, of(method), err)
		}
		// encoding/json validates what MarshalJSON methods and raw
		// messages produce, but not their UTF-8 nor their depth.
		if err := jsonscan.CheckIn(val, 1); err != nil {
			return nil, encodeError(method, member, err)
		}
	}
	if member == "params" && val != nil {
		switch c := val[jsonscan.SkipSpace(val, 0)]; c {
		case '{', '[':
		case 'n': // null: no params
			val = nil
		default:
			return nil, fmt.Errorf("%w: %s%s encode to %s", ErrParamsNotStructured, member, of(method), kindOf(c))
		}
	}
	if val == nil && member != "params" {
		val = []byte("null")
	}

	line := make([]byte, 0, len(lineHead)+len(`,"id":`)+len(id.raw)+len(`,"method":""`)+len(method)+len(`,"":`)+len(member)+len(val)+len("}\n"))
	line = appendHead(line, id, method, member, val != nil)
	if raw {
		line = wire.AppendCompact(line, val)
	} else {
		line = append(line, val...) // encoding/json's output is compact
	}
	return append(line, "}\n"...), nil
}

// appendHead appends the line's members up to the value of member, or
// up to the method when it has no value.
func appendHead(line []byte, id ID, method, member string, hasValue bool) []byte {
	line = append(line, lineHead...)
	if !id.IsAbsent() {
		line = append(append(line, `,"id":`...), id.raw...)
	}
	if member == "params" { // a request or a notification, whose method may be ""
		line = wire.AppendString(append(line, `,"method":`...), method)
	}
	if hasValue {
		line = append(append(append(line, `,"`...), member...), `":`...)
	}
	return line
}

// appendLine is encodeLine for a value with an appendJSON, which is
// written with a pooled encoder into its buffer and copied once, at its
// final size, as encoding/json does. Only bytes the package did not
// encode itself are checked.
func appendLine(id ID, method, member string, a jsonAppender) ([]byte, error) {
	e := linePool.Get().(*wire.Encoder)
	defer func() {
		if cap(e.Bytes()) <= maxPooledLine {
			linePool.Put(e)
		}
	}()
	e.Reset(appendHead(e.Bytes()[:0], id, method, member, true))
	start := len(e.Bytes())
	a.appendJSON(e)
	b := e.Bytes()
	if err := e.Err(); err != nil {
		if errors.Is(err, ErrNotJSON) {
			return nil, encodeError(method, member, err)
		}
		return nil, fmt.Errorf("acp: encoding %s%s: %w", member, of(method), err)
	}
	if e.Unchecked() {
		if err := jsonscan.CheckIn(b[start:], 1); err != nil {
			return nil, encodeError(method, member, err)
		}
	}
	line := make([]byte, len(b), len(b)+2)
	copy(line, b)
	return append(line, "}\n"...), nil
}

// registered is a value of a type generated into another package of the
// module, written with the encoder it registered with internal/wire.
type registered struct {
	v   any
	app func(v any, e *wire.Encoder)
}

func (r registered) appendJSON(e *wire.Encoder) { r.app(r.v, e) }

// maxPooledLine bounds, in bytes, the buffers linePool keeps, so that one
// huge message does not pin its memory.
const maxPooledLine = 64 << 10

var linePool = sync.Pool{New: func() any { return new(wire.Encoder) }}

func encodeError(method, member string, err error) error {
	return fmt.Errorf("%w: %s%s: %w", ErrNotJSON, member, of(method), err)
}

// of names the method a member belongs to in an error message.
func of(method string) string {
	if method == "" {
		return ""
	}
	return " of " + echo(method)
}

// kindOf names the kind of the JSON value that starts with c.
func kindOf(c byte) string {
	switch c {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
