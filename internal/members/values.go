package members

import (
	"encoding/json"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// View returns b as a string without copying it, so that gjson can read it
// without allocating (gjson.ParseBytes copies every result). The caller
// must not change b while it reads the string, and must copy whatever it
// keeps: [String], [Raw] and [Object] do.
func View(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// String returns a string value as a string the caller owns, "" for any
// other kind of value. known, when it gives one, returns a well-known
// value from a table instead of a copy.
func String(r gjson.Result, known func(string) (string, bool)) string {
	if r.Type != gjson.String {
		return ""
	}
	if strings.IndexByte(r.Raw, '\\') >= 0 {
		return r.Str // gjson unescaped it into a fresh string
	}
	if s, ok := known(r.Str); ok {
		return s
	}
	return strings.Clone(r.Str)
}

// Raw returns a copy of a value's JSON text; nil when absent.
func Raw(r gjson.Result) json.RawMessage {
	if !r.Exists() {
		return nil
	}
	return json.RawMessage(r.Raw) // converting a string copies it
}

// Object returns a copy of an object value's JSON text; nil for anything
// else (absent, null).
func Object(r gjson.Result) json.RawMessage {
	if !r.IsObject() {
		return nil
	}
	return Raw(r)
}

// Int reads a JSON number as an int64, truncating a fraction; 0 for
// anything else. gjson saturates values beyond the int64 range.
func Int(r gjson.Result) int64 {
	if r.Type != gjson.Number {
		return 0
	}
	return r.Int()
}

// Millis converts a count of milliseconds to a Duration, saturating
// instead of overflowing; negative counts give 0.
func Millis(ms int64) time.Duration {
	switch {
	case ms <= 0:
		return 0
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}
