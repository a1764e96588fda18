package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects accepted: a value
// at the top level is at depth one. It is the limit encoding/json enforces.
const MaxDepth = 10000

// Valid reports whether b holds one JSON value, optionally surrounded by
// white space, in valid UTF-8 and nested at most [MaxDepth] levels deep.
func Valid(b []byte) bool {
	end, _ := scan(b, SkipSpace(b, 0), MaxDepth)
	return end >= 0 && SkipSpace(b, end) == len(b)
}

// Check is [Valid] that says why: it returns nil when b is valid, else a
// [*SyntaxError] giving the offset at which b stops being JSON.
func Check(b []byte) error { return CheckIn(b, 0) }

// CheckIn is [Check] for a value that will be nested outer levels deep in
// another, as the params of a message are one level deep in it: the value
// itself may nest at most MaxDepth-outer levels, so that the whole stays
// within [MaxDepth].
func CheckIn(b []byte, outer int) error {
	end, why := scan(b, SkipSpace(b, 0), MaxDepth-outer)
	if end >= 0 {
		if end = SkipSpace(b, end); end == len(b) {
			return nil
		}
		return &SyntaxError{Offset: end, Reason: "unexpected data after the top-level value"}
	}
	off := ^end
	if off >= len(b) {
		return &SyntaxError{Offset: len(b), Reason: "unexpected end of input"}
	}
	return &SyntaxError{Offset: off, Reason: why.String()}
}

// CheckObject reports whether b, which has no surrounding white space, is
// one JSON object; when it is not, it says where b stops being valid JSON
// and why, as [Check] does, or, for valid JSON of another kind, offset 0
// and "not a JSON object". The parsers' SyntaxError types carry these
// facts under each package's name.
func CheckObject(b []byte) (offset int, reason string, ok bool) {
	if err := Check(b); err != nil {
		se := err.(*SyntaxError) // Check returns no other type
		return se.Offset, se.Reason, false
	}
	if b[0] != '{' {
		return 0, "not a JSON object", false
	}
	return 0, "", true
}

// SyntaxError reports bytes that are not valid JSON. It holds no part of
// them, which may be secret or huge.
type SyntaxError struct {
	// Offset is the offset in bytes of the first byte that cannot continue
	// valid JSON, or the length of the input when it ends too soon.
	Offset int
	// Reason says what is wrong, in a few words, such as "invalid escape"
	// or "nested too deeply".
	Reason string
}

// Error returns the reason and the offset, never any of the input.
func (e *SyntaxError) Error() string {
	return "jsonscan: " + e.Reason + " at offset " + strconv.Itoa(e.Offset)
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (space, tab, newline, carriage return), or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Member reads one object member starting at b[i], which should be the
// opening quote of its name, and validates its value, which may nest depth
// levels of arrays and objects (itself included): MaxDepth-1 for a member of
// a top-level object. It returns the name's raw content (between the
// quotes, escapes not decoded), whether that holds an escape, the raw value,
// and the index of the ',' or '}' that follows the value; next is -1 when
// the bytes are not a valid member followed by ',' or '}'. key and val are
// slices of b.
func Member(b []byte, i, depth int) (key []byte, escaped bool, val []byte, next int) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, nil, -1
	}
	end, escaped := scanString(b, i)
	if end < 0 {
		return nil, false, nil, -1
	}
	key = b[i+1 : end-1]
	i = SkipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, false, nil, -1
	}
	i = SkipSpace(b, i+1)
	end, _ = scan(b, i, depth)
	if end < 0 {
		return nil, false, nil, -1
	}
	val = b[i:end]
	i = SkipSpace(b, end)
	if i >= len(b) || (b[i] != ',' && b[i] != '}') {
		return nil, false, nil, -1
	}
	return key, escaped, val, i
}

// Element reads one array element starting at b[i], its first byte, and
// validates it, nesting at most depth levels of arrays and objects (itself
// included). It returns the raw value and the index of the ',' or ']' that
// follows it; next is -1 when the bytes are not a valid value followed by
// ',' or ']'. val is a slice of b.
func Element(b []byte, i, depth int) (val []byte, next int) {
	end, _ := scan(b, i, depth)
	if end < 0 {
		return nil, -1
	}
	val = b[i:end]
	i = SkipSpace(b, end)
	if i >= len(b) || (b[i] != ',' && b[i] != ']') {
		return nil, -1
	}
	return val, i
}

// The grammar. Each function below validates what it skips and returns the
// index just past it; on failure it returns ^off (always negative), off
// being the offset of the offending byte, or len(b) when the input ends too
// soon. Only [Check] reads off and the reason: the fast paths test the sign.

// reason says why scanning failed.
type reason uint8

const (
	badChar reason = iota
	badLiteral
	badNumber
	badEscape
	badControl
	badUTF8
	badName
	badColon
	badObject
	badArray
	badDepth
)

var reasons = [...]string{
	badChar:    "invalid character",
	badLiteral: "invalid literal",
	badNumber:  "invalid number",
	badEscape:  "invalid escape",
	badControl: "control character in a string",
	badUTF8:    "invalid UTF-8",
	badName:    "expected a member name",
	badColon:   "expected ':' after a member name",
	badObject:  "expected ',' or '}' in an object",
	badArray:   "expected ',' or ']' in an array",
	badDepth:   "nested too deeply",
}

func (r reason) String() string { return reasons[r] }

// scan validates the JSON value starting at b[i] and returns the index just
// past it, or ^off and the reason when it is not valid or nests deeper than
// depth. It loops rather than recursing, so hostile nesting cannot grow the
// stack.
func scan(b []byte, i, depth int) (int, reason) {
	// Which open containers are objects, one bit per level: the first 64
	// levels in a word, deeper ones (rare) in a slice.
	var inObj uint64
	var deep []uint64
	level := 0
	isObj := func() bool {
		l := level - 1
		if l < 64 {
			return inObj&(1<<l) != 0
		}
		return deep[l/64-1]&(1<<(l%64)) != 0
	}
	push := func(obj bool) bool {
		if level >= depth {
			return false
		}
		l := level
		level++
		if l < 64 {
			if obj {
				inObj |= 1 << l
			} else {
				inObj &^= 1 << l
			}
			return true
		}
		w := l/64 - 1
		if w == len(deep) {
			deep = append(deep, 0)
		}
		if obj {
			deep[w] |= 1 << (l % 64)
		} else {
			deep[w] &^= 1 << (l % 64)
		}
		return true
	}

	for {
		// A value starts at b[i].
		if i >= len(b) {
			return ^i, badChar
		}
		var why reason
		switch c := b[i]; c {
		case '"':
			var inEscape bool
			if i, inEscape = scanString(b, i); i < 0 {
				return i, stringReason(b, ^i, inEscape)
			}
		case '{', '[':
			if !push(c == '{') {
				return ^i, badDepth
			}
			i = SkipSpace(b, i+1)
			if i >= len(b) {
				return ^i, badChar
			}
			if b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				level--
				break
			}
			if c == '{' {
				if i, why = objectKey(b, i); i < 0 {
					return i, why
				}
			}
			continue
		case 't':
			i, why = literal(b, i, "true"), badLiteral
		case 'f':
			i, why = literal(b, i, "false"), badLiteral
		case 'n':
			i, why = literal(b, i, "null"), badLiteral
		default:
			start := i
			if i = scanNumber(b, i); i == ^start && c != '-' {
				why = badChar // not the start of any value
			} else {
				why = badNumber
			}
		}
		if i < 0 {
			return i, why
		}
		// After a value: close containers or move to the next element.
		for {
			if level == 0 {
				return i, 0
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return ^i, badChar
			}
			obj := isObj()
			c := b[i]
			if c == ',' {
				i = SkipSpace(b, i+1)
				if obj {
					if i, why = objectKey(b, i); i < 0 {
						return i, why
					}
				}
				break
			}
			if (obj && c == '}') || (!obj && c == ']') {
				i++
				level--
				continue
			}
			if obj {
				return ^i, badObject
			}
			return ^i, badArray
		}
	}
}

// objectKey validates `"name" :` at b[i] and returns the index of the value
// that follows.
func objectKey(b []byte, i int) (int, reason) {
	if i >= len(b) || b[i] != '"' {
		return ^i, badName
	}
	i, inEscape := scanString(b, i)
	if i < 0 {
		return i, stringReason(b, ^i, inEscape)
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return ^i, badColon
	}
	return SkipSpace(b, i+1), 0
}

// literal validates the literal lit (true, false or null) at b[i].
func literal(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return ^mismatch(b, i, lit)
}

// mismatch returns the offset of the first byte from b[i] on that differs
// from lit, which b does not hold in full there.
func mismatch(b []byte, i int, lit string) int {
	for k := 0; k < len(lit) && i < len(b) && b[i] == lit[k]; k++ {
		i++
	}
	return i
}

// scanNumber validates the JSON number at b[i].
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return ^i
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(b, i+1)
	default:
		return ^i
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return ^j
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return ^j
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// scanString validates the JSON string of valid UTF-8 whose opening quote
// is b[i]. It returns the index just past its closing quote and whether it
// holds an escape; on failure, it returns ^off and whether the offending
// byte is part of an escape.
func scanString(b []byte, i int) (end int, escaped bool) {
	i++
	for {
		// Eight bytes at a time while none needs a look: a quote, a
		// backslash, a control character or a non-ASCII byte. A flagged
		// byte can be spurious only after a genuine one (a borrow travels
		// upward, to later bytes), so the lowest flag is genuine.
		for len(b)-i >= 8 {
			x := binary.LittleEndian.Uint64(b[i:])
			m := (x - 0x20*lsb) | ((x ^ '"'*lsb) - lsb) | ((x ^ '\\'*lsb) - lsb) | x
			if m &= msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return ^i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			// Escapes often come in runs (\t\t\"): take a run at once.
			escaped = true
			for {
				if i+1 >= len(b) {
					return ^(i + 1), true
				}
				switch e := b[i+1]; {
				case shortEscape[e]:
					i += 2
				case e == 'u':
					for j := i + 2; j < i+6; j++ {
						if j >= len(b) || !isHex(b[j]) {
							return ^j, true
						}
					}
					i += 6
				default:
					return ^(i + 1), true
				}
				if i >= len(b) || b[i] != '\\' {
					break
				}
			}
		case c < 0x20:
			return ^i, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return ^i, false
			}
			i += size
		}
	}
}

// stringReason says why scanString failed at b[off].
func stringReason(b []byte, off int, inEscape bool) reason {
	switch {
	case inEscape:
		return badEscape
	case off < len(b) && b[off] < 0x20:
		return badControl
	}
	return badUTF8
}

// shortEscape holds the bytes that may follow a backslash, but for 'u'.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Skip returns the index just past the JSON value that starts at b[i],
// without validating it: it is for bytes already validated, such as the
// members of an object that [Member] returned, which a reader walks again
// to read what is nested in them. It stops at the first byte that cannot
// continue the value's structure and returns -1 when the value does not
// end within b; it never panics and never reads past b, but on bytes that
// are not valid JSON it may return an index rather than -1.
func Skip(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			if i = skipString(b, i); i < 0 || depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth <= 0 {
				if depth < 0 {
					return -1
				}
				return i + 1
			}
		case ' ', '\t', '\n', '\r', ',', ':':
			if depth == 0 {
				return -1
			}
		default: // a number or a literal
			if depth == 0 {
				j := i + 1
				for j < len(b) && !endsScalar[b[j]] {
					j++
				}
				return j
			}
		}
		i++
	}
	return -1
}

// endsScalar holds the bytes that end a number or a literal.
var endsScalar = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, ',': true, ':': true, ']': true, '}': true, '"': true, '[': true, '{': true}

// skipString returns the index just past the string whose opening quote is
// b[i], or -1 when it does not end within b.
func skipString(b []byte, i int) int {
	for i++; ; {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return -1
		}
		i += k
		// The quote is escaped if an odd number of backslashes precede it.
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}
