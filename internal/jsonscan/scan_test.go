package jsonscan_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/google/go-cmp/cmp"
)

// nest returns a value nested n levels deep: arrays, or objects when obj is
// set, around 0.
func nest(n int, obj bool) string {
	if obj {
		return strings.Repeat(`{"a":`, n) + "0" + strings.Repeat("}", n)
	}
	return strings.Repeat("[", n) + "0" + strings.Repeat("]", n)
}

// mixed returns n levels alternating arrays and objects around 0, deep
// enough to use the scanner's overflow words past 64 levels.
func mixed(n int) string {
	var open, close strings.Builder
	for i := range n {
		if i%2 == 0 {
			open.WriteString(`[1,`)
			close.WriteString(`]`)
		} else {
			open.WriteString(`{"k":`)
			close.WriteString(`}`)
		}
	}
	c := []byte(close.String())
	for l, r := 0, len(c)-1; l < r; l, r = l+1, r-1 {
		c[l], c[r] = c[r], c[l]
	}
	return open.String() + "0" + string(c)
}

type result struct {
	Valid  bool
	Offset int // -1 when valid
	Reason string
}

func check(b []byte) result {
	err := jsonscan.Check(b)
	if err == nil {
		return result{Valid: jsonscan.Valid(b), Offset: -1}
	}
	var se *jsonscan.SyntaxError
	if !errors.As(err, &se) {
		return result{Valid: jsonscan.Valid(b), Offset: -2, Reason: err.Error()}
	}
	return result{Valid: jsonscan.Valid(b), Offset: se.Offset, Reason: se.Reason}
}

func ok() result { return result{Valid: true, Offset: -1} }

func bad(off int, reason string) result { return result{Offset: off, Reason: reason} }

func TestCheck(t *testing.T) {
	const (
		end     = "unexpected end of input"
		char    = "invalid character"
		lit     = "invalid literal"
		num     = "invalid number"
		esc     = "invalid escape"
		ctrl    = "control character in a string"
		utf     = "invalid UTF-8"
		name    = "expected a member name"
		colon   = "expected ':' after a member name"
		inObj   = "expected ',' or '}' in an object"
		inArr   = "expected ',' or ']' in an array"
		deep    = "nested too deeply"
		trailer = "unexpected data after the top-level value"
	)
	mid := strings.Repeat("[", jsonscan.MaxDepth) + `{"a":` + strings.Repeat("]", jsonscan.MaxDepth)
	tests := []struct {
		name string
		in   string
		want result
	}{
		// Valid values of every kind.
		{"object", `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, ok()},
		{"empty containers", `[{},[],""]`, ok()},
		{"surrounding space", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", ok()},
		{"numbers", `[0,-0,1.5,-2e10,3E+2,4e-2,123456789012345678901234567890]`, ok()},
		{"literals", `[true,false,null]`, ok()},
		{"escapes", `"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"`, ok()},
		{"escape runs", `["\t\t\"x\"\n","\\\\","\n\u00e9\t"]`, ok()},
		{"lone surrogate escapes", `["\ud800","\udfff","\udc00\ud800"]`, ok()},
		{"UTF-8", `"é 世界 😀 \u0000"`, ok()},
		{"DEL is not a control character", "\"\x7f\"", ok()},
		{"long string", `"` + strings.Repeat("abcdefgh", 100) + `"`, ok()},
		{"scalar", `42`, ok()},
		{"duplicate names", `{"a":1,"a":2}`, ok()},
		{"arrays at the limit", nest(jsonscan.MaxDepth, false), ok()},
		{"objects at the limit", nest(jsonscan.MaxDepth, true), ok()},
		{"mixed nesting", mixed(300), ok()},

		// Not JSON.
		{"empty", ``, bad(0, end)},
		{"only space", "  \n", bad(3, end)},
		{"byte-order mark", "\ufeff{}", bad(0, char)},
		{"word", `not json`, bad(1, lit)},
		{"bare word", `hello`, bad(0, char)},
		{"truncated literal", `[tr`, bad(3, end)},
		{"wrong literal", `{"a":tru}`, bad(8, lit)},
		{"capital literal", `True`, bad(0, char)},
		{"truncated object", `{"a":{"b`, bad(8, end)},
		{"trailing data", `{}{}`, bad(2, trailer)},
		{"trailing after space", `1 2`, bad(2, trailer)},
		{"leading zero", `{"a":01}`, bad(6, inObj)},
		{"leading zero in array", `[00]`, bad(2, inArr)},
		{"plus sign", `+1`, bad(0, char)},
		{"lone minus", `{"a":-}`, bad(6, num)},
		{"minus at end", `-`, bad(1, end)},
		{"no fraction digits", `{"a":1.}`, bad(7, num)},
		{"no exponent digits", `{"a":1e}`, bad(7, num)},
		{"exponent sign only", `1e+`, bad(3, end)},
		{"leading dot", `.5`, bad(0, char)},
		{"hex number", `0x10`, bad(1, trailer)},
		{"bad escape", `{"a":"\x"}`, bad(7, esc)},
		{"bad unicode escape", `{"a":"\u12g4"}`, bad(10, esc)},
		{"short unicode escape", `"\u12"`, bad(5, esc)},
		{"escape at end", `"\`, bad(2, end)},
		{"bad escape in a run", `"\t\t\q"`, bad(6, esc)},
		{"escape run at end", `"\t\t\u00`, bad(9, end)},
		{"unicode escape at end", `"\u00`, bad(5, end)},
		{"escaped control character", "\"\\\x01\"", bad(2, esc)},
		{"tab in string", "{\"a\":\"tab\there\"}", bad(9, ctrl)},
		{"newline in string", "\"a\nb\"", bad(2, ctrl)},
		{"NUL in string", "\"\x00\"", bad(1, ctrl)},
		{"control after eight plain bytes", "\"abcdefghij\x1f\"", bad(11, ctrl)},
		{"invalid UTF-8 in a string", "\"ab\xffcd\"", bad(3, utf)},
		{"invalid UTF-8 after eight bytes", "\"abcdefghij\xc3\x28\"", bad(11, utf)},
		{"truncated UTF-8", "\"\xe4\xb8\"", bad(1, utf)},
		{"UTF-8 surrogate", "\"\xed\xa0\x80\"", bad(1, utf)},
		{"overlong UTF-8", "\"\xc0\xaf\"", bad(1, utf)},
		{"invalid UTF-8 in a name", "{\"\xff\":1}", bad(2, utf)},
		{"invalid UTF-8 outside strings", "[\xff]", bad(1, char)},
		{"unclosed string", `"abc`, bad(4, end)},
		{"single quotes", `{'a':1}`, bad(1, name)},
		{"unquoted name", `{a:1}`, bad(1, name)},
		{"number as name", `{1:1}`, bad(1, name)},
		{"missing colon", `{"a" 1}`, bad(5, colon)},
		{"missing value", `{"a":}`, bad(5, char)},
		{"trailing comma in object", `{"a":1,}`, bad(7, name)},
		{"trailing comma in array", `[1,]`, bad(3, char)},
		{"missing comma", `{"a":[1 2]}`, bad(8, inArr)},
		{"mismatched close", `[1}`, bad(2, inArr)},
		{"mismatched empty close", `{]`, bad(1, name)},
		{"object left open", `{"a":1`, bad(6, end)},
		{"comment", `[1 /* no */]`, bad(3, inArr)},
		{"arrays over the limit", nest(jsonscan.MaxDepth+1, false), bad(jsonscan.MaxDepth, deep)},
		{"objects over the limit", nest(jsonscan.MaxDepth+1, true), bad(5*jsonscan.MaxDepth, deep)},
		{"object over the limit", mid, bad(jsonscan.MaxDepth, deep)},
		{"mixed mismatch", strings.Replace(mixed(300), "}", "]", 1), bad(strings.Index(mixed(300), "}"), inObj)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			if diff := cmp.Diff(tt.want, check(in)); diff != "" {
				t.Errorf("Check mismatch (-want +got):\n%s", diff)
			}
			// Agreement with encoding/json, which does not check UTF-8.
			if utf8.Valid(in) && json.Valid(in) != tt.want.Valid {
				t.Errorf("json.Valid = %v", json.Valid(in))
			}
		})
	}
}

// TestHostileNesting checks that ten million '[' are refused at the first
// level too deep, without crashing: gjson.ValidBytes recurses per level
// and overflows the stack on this line.
func TestHostileNesting(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("[", 10<<20),
		strings.Repeat("[", 10<<20) + strings.Repeat("]", 10<<20),
		strings.Repeat(`{"":`, 10<<18),
	} {
		got := check([]byte(in))
		open := strings.IndexAny(in[1:], "[{") + 1 // bytes per level
		want := bad(open*jsonscan.MaxDepth, "nested too deeply")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%.8q… mismatch (-want +got):\n%s", in, diff)
		}
	}
}

func TestSyntaxErrorHidesInput(t *testing.T) {
	secret := `"sk-ant-api03-SECRET` + "\x01"
	err := jsonscan.Check([]byte(secret))
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Check = %v, want an error without the input", err)
	}
}

func TestMember(t *testing.T) {
	type member struct {
		Key     string
		Escaped bool
		Val     string
	}
	tests := []struct {
		in   string
		want []member // nil: invalid
	}{
		{`{"a":1}`, []member{{"a", false, "1"}}},
		{`{ "a" : [1, {"b":2}] , "c\"d":"e" }`, []member{{"a", false, `[1, {"b":2}]`}, {`c\"d`, true, `"e"`}}},
		{`{"":null,"\u00e9":{}}`, []member{{"", false, "null"}, {`\u00e9`, true, "{}"}}},
		{`{"a":1 "b":2}`, nil},
		{`{"a":1]`, nil},
		{`{"a" 1}`, nil},
		{`{a:1}`, nil},
		{`{"a":tru}`, nil},
		{`{"a":[[[1]]]}`, nil}, // deeper than the two levels allowed below
		{`{"a":1`, nil},
		{`{"a`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			b := []byte(tt.in)
			var got []member
			i := jsonscan.SkipSpace(b, 1)
			for {
				key, escaped, val, next := jsonscan.Member(b, i, 2)
				if next < 0 {
					got = nil
					break
				}
				got = append(got, member{string(key), escaped, string(val)})
				if b[next] == '}' {
					break
				}
				i = jsonscan.SkipSpace(b, next+1)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("members mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckObject(t *testing.T) {
	type facts struct {
		Offset int
		Reason string
		OK     bool
	}
	tests := []struct {
		in   string
		want facts
	}{
		{`{"a":1}`, facts{0, "", true}},
		{`{}`, facts{0, "", true}},
		{`[1]`, facts{0, "not a JSON object", false}},
		{`"s"`, facts{0, "not a JSON object", false}},
		{``, facts{0, "unexpected end of input", false}},
		{`{"a":`, facts{5, "unexpected end of input", false}},
		{`{} x`, facts{3, "unexpected data after the top-level value", false}},
	}
	for _, tt := range tests {
		off, why, ok := jsonscan.CheckObject([]byte(tt.in))
		if diff := cmp.Diff(tt.want, facts{off, why, ok}); diff != "" {
			t.Errorf("CheckObject(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestElement(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil: invalid
	}{
		{`[1]`, []string{"1"}},
		{`[ "a" , {"b":[2]} ,null ]`, []string{`"a"`, `{"b":[2]}`, "null"}},
		{`[1 2]`, nil},
		{`[1}`, nil},
		{`[tru]`, nil},
		{`[[[[1]]]]`, nil}, // an element deeper than the two levels allowed below
		{`[1`, nil},
		{`[1,`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			b := []byte(tt.in)
			var got []string
			i := jsonscan.SkipSpace(b, 1)
			for {
				val, next := jsonscan.Element(b, i, 2)
				if next < 0 {
					got = nil
					break
				}
				got = append(got, string(val))
				if b[next] == ']' {
					break
				}
				i = jsonscan.SkipSpace(b, next+1)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("elements mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckIn checks that a value to be nested outer levels deep may
// itself nest only MaxDepth-outer levels.
func TestCheckIn(t *testing.T) {
	tests := []struct {
		in    string
		outer int
		valid bool
	}{
		{nest(jsonscan.MaxDepth-1, false), 1, true},
		{nest(jsonscan.MaxDepth, false), 1, false},
		{nest(jsonscan.MaxDepth-3, true), 3, true},
		{nest(jsonscan.MaxDepth-2, true), 3, false},
		{`"\xff"`, 1, false},
		{`[1]`, 0, true},
	}
	for _, tt := range tests {
		err := jsonscan.CheckIn([]byte(tt.in), tt.outer)
		if (err == nil) != tt.valid {
			t.Errorf("CheckIn(%d bytes, %d) = %v, want valid %v", len(tt.in), tt.outer, err, tt.valid)
		}
	}
}
