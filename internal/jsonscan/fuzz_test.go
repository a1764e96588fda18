package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// FuzzValid checks Valid against encoding/json, Check against Valid, and
// that the module's gjson reads agree with what Valid accepts. The seed
// corpus is in testdata/fuzz/FuzzValid.
func FuzzValid(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := jsonscan.Valid(b)
		if want := json.Valid(b) && utf8.Valid(b) && depth(b) <= jsonscan.MaxDepth; valid != want {
			t.Fatalf("Valid = %v, want %v", valid, want)
		}
		if valid && len(b) <= jsonscan.MaxDepth && !gjson.ValidBytes(b) {
			t.Fatal("Valid accepts what gjson.ValidBytes rejects")
		}

		err := jsonscan.Check(b)
		if (err == nil) != valid {
			t.Fatalf("Check = %v, but Valid = %v", err, valid)
		}
		if err != nil {
			var se *jsonscan.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Check returned %T", err)
			}
			if se.Offset < 0 || se.Offset > len(b) || se.Reason == "" {
				t.Fatalf("SyntaxError{Offset: %d, Reason: %q} for %d bytes", se.Offset, se.Reason, len(b))
			}
			// Offset is where b stops being JSON: cut there, b is either
			// complete (the rest was extra data) or merely cut short.
			prefix := b[:se.Offset]
			if se.Reason == "unexpected data after the top-level value" {
				if !jsonscan.Valid(prefix) {
					t.Fatalf("data after offset %d, but what precedes it is not valid", se.Offset)
				}
			} else if !errors.As(jsonscan.Check(prefix), &se) || se.Offset != len(prefix) || se.Reason != "unexpected end of input" {
				t.Fatalf("offset %d, but the bytes before it are not a valid beginning: %v", len(prefix), se)
			}
			return
		}

		// Walking a valid array element by element, or a valid object
		// member by member, reaches its end.
		i := jsonscan.SkipSpace(b, 0)
		if b[i] == '[' {
			if i = jsonscan.SkipSpace(b, i+1); b[i] == ']' {
				return
			}
			for {
				val, next := jsonscan.Element(b, i, jsonscan.MaxDepth-1)
				if next < 0 || !jsonscan.Valid(val) {
					t.Fatalf("Element at %d of a valid array failed", i)
				}
				if b[next] == ']' {
					return
				}
				i = jsonscan.SkipSpace(b, next+1)
			}
		}
		if b[i] != '{' {
			return
		}
		if i = jsonscan.SkipSpace(b, i+1); b[i] == '}' {
			return
		}
		for {
			_, _, val, next := jsonscan.Member(b, i, jsonscan.MaxDepth-1)
			if next < 0 || !jsonscan.Valid(val) {
				t.Fatalf("Member at %d of a valid object failed", i)
			}
			if b[next] == '}' {
				break
			}
			i = jsonscan.SkipSpace(b, next+1)
		}
	})
}

// depth returns how deep arrays and objects nest in b, which should be
// valid JSON.
func depth(b []byte) int {
	level, deepest := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			level++
			deepest = max(deepest, level)
		case c == ']' || c == '}':
			level--
		}
	}
	return deepest
}

// FuzzSkip checks that Skip finds the end of every valid value, as
// Valid's scan does, and that on any other bytes it neither panics nor
// reads past them.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{
		`0`, `-1.5e3 `, `true`, `null`, `"a\"b\\"`, `"\\\\"`, `[]`, ` [1, "]", {"a": [true]}] `,
		`{"k":"v\\","n":{}}`, `{"a":1}}`, `"unterminated`, `[1,2`, `]`, `{"a":"\\\""}`, nest(70, true),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := jsonscan.SkipSpace(b, 0)
		end := jsonscan.Skip(b, i)
		if end > len(b) || end < -1 || (end >= 0 && end <= i) {
			t.Fatalf("Skip(%q, %d) = %d", b, i, end)
		}
		if !jsonscan.Valid(b) {
			return
		}
		if want := len(bytes.TrimRight(b, " \t\r\n")); end != want {
			t.Fatalf("Skip(%q, %d) = %d, want %d", b, i, end, want)
		}
	})
}
