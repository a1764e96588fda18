package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// ErrNotJSON is matched by the error of an Encoder given bytes that are
// not valid JSON ([Encoder.Raw]); package acp exports it as
// acp.ErrNotJSON.
var ErrNotJSON = errors.New("acp: message is not valid JSON")

// Encoder appends one JSON value to a buffer. Its first failure is kept
// and later writes still append, harmlessly: check [Encoder.Err] once at
// the end.
type Encoder struct {
	b []byte
	// unchecked is set once b holds bytes the Encoder did not write: a
	// raw message validates its JSON as Raw compacts it, but not its
	// UTF-8 nor its depth within the line.
	unchecked bool
	err       error
}

// Reset makes e append to b, with no failure and nothing unchecked.
func (e *Encoder) Reset(b []byte) { *e = Encoder{b: b} }

// Bytes returns the buffer.
func (e *Encoder) Bytes() []byte { return e.b }

// Err returns the first failure.
func (e *Encoder) Err() error { return e.err }

// Unchecked reports whether the value holds bytes from the caller, which
// must be validated (UTF-8, depth) before they are sent.
func (e *Encoder) Unchecked() bool { return e.unchecked }

// Result returns the buffer, or nil and the first failure.
func (e *Encoder) Result() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// Fail records err unless a failure is recorded already.
func (e *Encoder) Fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// Open starts an object; Close ends it.
func (e *Encoder) Open() { e.b = append(e.b, '{') }

// Close ends an object.
func (e *Encoder) Close() { e.b = append(e.b, '}') }

// OpenArray starts an array; CloseArray ends it.
func (e *Encoder) OpenArray() { e.b = append(e.b, '[') }

// CloseArray ends an array.
func (e *Encoder) CloseArray() { e.b = append(e.b, ']') }

// Elem separates an array's element from the one before it.
func (e *Encoder) Elem() {
	if e.b[len(e.b)-1] != '[' {
		e.b = append(e.b, ',')
	}
}

// Key appends the name of an object's member, after a comma unless it is
// the first; name needs no escaping, as the schema's member names do not.
func (e *Encoder) Key(name string) {
	if e.b[len(e.b)-1] != '{' {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

// String appends s as a JSON string.
func (e *Encoder) String(s string) { e.b = AppendString(e.b, s) }

// Bool appends true or false.
func (e *Encoder) Bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

// Null appends null.
func (e *Encoder) Null() { e.b = append(e.b, "null"...) }

// Int appends an integer.
func (e *Encoder) Int(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

// Uint appends a non-negative integer.
func (e *Encoder) Uint(n uint64) { e.b = strconv.AppendUint(e.b, n, 10) }

// Float appends a number as encoding/json writes it. NaN and the
// infinities have no JSON form: they fail the encoding.
func (e *Encoder) Float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.Fail(&json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)})
		e.b = append(e.b, '0')
		return
	}
	e.b = appendFloat(e.b, f)
}

// appendFloat appends f as encoding/json does: without an exponent but
// for very small and very large magnitudes, and then with a short one.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Raw appends raw, one JSON value from the caller, without the white
// space outside its strings.
func (e *Encoder) Raw(raw []byte) {
	e.unchecked = true
	if !bytes.ContainsAny(raw, " \t\r\n") {
		if len(raw) == 0 {
			e.Fail(ErrNotJSON)
			e.b = append(e.b, "null"...)
			return
		}
		e.b = append(e.b, raw...)
		return
	}
	if !jsonscan.Valid(raw) {
		e.Fail(ErrNotJSON)
		e.b = append(e.b, "null"...)
		return
	}
	e.b = AppendCompact(e.b, raw)
}

// Valid appends raw, JSON that needs no check, such as an id that
// ParseID accepted.
func (e *Encoder) Valid(raw []byte) { e.b = append(e.b, raw...) }

// Meta appends the _meta member, unless raw is empty.
func (e *Encoder) Meta(raw json.RawMessage) {
	if len(raw) > 0 {
		e.Key("_meta")
		e.Raw(raw)
	}
}

// AppendStrings appends an array of strings, [] when s is nil.
func AppendStrings[S ~[]E, E ~string](e *Encoder, s S) {
	e.OpenArray()
	for _, v := range s {
		e.Elem()
		e.String(string(v))
	}
	e.CloseArray()
}

// AppendInts appends an array of integers, [] when s is nil.
func AppendInts[S ~[]E, E ~int](e *Encoder, s S) {
	e.OpenArray()
	for _, v := range s {
		e.Elem()
		e.Int(int64(v))
	}
	e.CloseArray()
}

// AppendArray appends s as an array, [] when nil, writing each element
// with app.
func AppendArray[S ~[]T, T any](e *Encoder, s S, app func(T, *Encoder)) {
	e.OpenArray()
	for _, v := range s {
		e.Elem()
		app(v, e)
	}
	e.CloseArray()
}

// AppendMap appends m as an object, its members in the order of their
// names, as encoding/json writes a map, writing each value with app.
func AppendMap[T any](e *Encoder, m map[string]T, app func(T, *Encoder)) {
	e.Open()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if e.b[len(e.b)-1] != '{' {
			e.b = append(e.b, ',')
		}
		e.String(k)
		e.b = append(e.b, ':')
		app(m[k], e)
	}
	e.Close()
}

// IsNilPointer reports whether v is a nil pointer, whose value methods
// would panic: a union's variant is an interface, and a nil *TextContent
// is one.
func IsNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// Tagged appends the object app writes with member key first, holding
// tag, in place of any member key that object has: a variant of a union
// that is itself a union, such as ACP v2's state_update, whose members are
// those of a state tagged again.
func (e *Encoder) Tagged(key, tag string, app func(*Encoder)) {
	var inner Encoder
	app(&inner)
	e.unchecked = e.unchecked || inner.unchecked
	members := scanObject(make([]member, 0, 8), inner.b, false)
	if inner.err != nil || members == nil {
		e.Fail(inner.err)
		if inner.err == nil {
			e.Fail(ErrNotJSON)
		}
		e.b = append(e.b, "null"...)
		return
	}
	e.Open()
	e.Key(key)
	e.String(tag)
	for _, m := range members {
		if string(m.name) == key {
			continue
		}
		e.b = append(e.b, ',')
		e.b = AppendString(e.b, string(m.name))
		e.b = append(e.b, ':')
		e.b = append(e.b, m.val...)
	}
	e.Close()
}

// IsZero reports whether v is its type's zero value: a clearable
// member's zero value is sent as null.
func IsZero(v any) bool { return reflect.ValueOf(v).IsZero() }

// ErrNil is matched by the error of an Encoder asked to write a required
// union member that is nil.
var ErrNil = errors.New("acp: a required variant is nil")

// StringMap appends an object whose values are strings, its members in
// the order of their names, as encoding/json writes a map.
func (e *Encoder) StringMap(m map[string]string) { AppendMap(e, m, appendStringValue) }

func appendStringValue(s string, e *Encoder) { e.String(s) }

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it: '<', '>' and '&' as \u003c, \u003e and \u0026, U+2028 and
// U+2029 as \u2028 and \u2029, control characters with the short escapes
// where JSON has one. A string that is not valid UTF-8 goes through
// encoding/json itself, which replaces the invalid bytes (as "\ufffd", or
// under GOEXPERIMENT=jsonv2 as U+FFFD), so that the bytes always match
// its.
func AppendString(dst []byte, s string) []byte {
	start := len(dst)
	dst = append(dst, '"')
	i, run := 0, 0 // s[run:i] is plain, still to be copied
	for {
		// Eight bytes at a time while none needs a look, as
		// jsonscan.scanString does: the lowest flag is genuine.
		for len(s)-i >= 8 {
			x := load64(s, i)
			m := (x - 0x20*lsb) | ((x ^ '"'*lsb) - lsb) | ((x ^ '\\'*lsb) - lsb) |
				((x ^ '<'*lsb) - lsb) | ((x ^ '>'*lsb) - lsb) | ((x ^ '&'*lsb) - lsb) | x
			if m &= msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				q, _ := json.Marshal(s) // a string always marshals
				return append(dst[:start], q...)
			case r == '\u2028' || r == '\u2029':
				dst = append(dst, s[run:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
				i += size
				run = i
			default:
				i += size
			}
			continue
		}
		if !needsEscape[c] {
			i++
			continue
		}
		dst = append(dst, s[run:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		run = i
	}
	dst = append(dst, s[run:]...)
	return append(dst, '"')
}

// load64 reads s[i:i+8] as a little-endian word; the compiler makes one
// load of it.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

const hexDigits = "0123456789abcdef"

// needsEscape holds the ASCII bytes encoding/json escapes.
var needsEscape = func() (t [utf8.RuneSelf]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = true
	}
	return t
}()

// AppendCompact appends the valid JSON value src to dst without the white
// space outside its strings, copying runs rather than bytes.
func AppendCompact(dst, src []byte) []byte {
	start := 0 // src[start:i] is still to be copied
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src); i++ {
				if c := src[i]; c == '\\' {
					i++ // valid JSON: an escape is never last
				} else if c == '"' {
					break
				}
			}
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
