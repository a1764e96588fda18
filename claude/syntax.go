package claude

import "bytes"

// syntaxOffset finds where b stops being valid JSON (RFC 8259) and says
// why, without quoting any of it. It is only called on lines that gjson has
// already rejected, so it favours clarity over speed.
func syntaxOffset(b []byte) (offset int, reason string) {
	s := scanner{b: b}
	s.value(0)
	if s.err == "" {
		s.space()
		if s.i < len(b) {
			s.fail("unexpected data after the top-level value")
		}
	}
	if s.err == "" {
		// The two validators disagree; point past the end.
		return len(b), "invalid JSON"
	}
	return s.i, s.err
}

// maxDepth bounds nesting so that a hostile line cannot exhaust the stack.
const maxDepth = 10000

// tooDeep returns the offset of the first '[' or '{' that opens a level
// beyond maxDepth, or -1. Lines with few brackets, which is all real ones,
// are cleared by a fast count without a scan.
func tooDeep(b []byte) int {
	if bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) <= maxDepth {
		return -1
	}
	depth := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				return i
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}

type scanner struct {
	b   []byte
	i   int
	err string
}

func (s *scanner) fail(reason string) {
	if s.err == "" {
		s.err = reason
	}
}

func (s *scanner) eof() bool {
	if s.i >= len(s.b) {
		s.fail("unexpected end of line")
		return true
	}
	return false
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) {
	if depth > maxDepth {
		s.fail("nested too deeply")
		return
	}
	s.space()
	if s.eof() {
		return
	}
	switch c := s.b[s.i]; {
	case c == '{':
		s.object(depth)
	case c == '[':
		s.array(depth)
	case c == '"':
		s.string()
	case c == '-' || c >= '0' && c <= '9':
		s.number()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.fail("invalid character")
	}
}

func (s *scanner) object(depth int) {
	s.i++ // {
	s.space()
	if s.eof() {
		return
	}
	if s.b[s.i] == '}' {
		s.i++
		return
	}
	for {
		s.space()
		if s.eof() {
			return
		}
		if s.b[s.i] != '"' {
			s.fail("expected a member name")
			return
		}
		s.string()
		if s.err != "" {
			return
		}
		s.space()
		if s.eof() {
			return
		}
		if s.b[s.i] != ':' {
			s.fail("expected ':' after a member name")
			return
		}
		s.i++
		s.value(depth + 1)
		if s.err != "" {
			return
		}
		s.space()
		if s.eof() {
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.fail("expected ',' or '}' in an object")
			return
		}
	}
}

func (s *scanner) array(depth int) {
	s.i++ // [
	s.space()
	if s.eof() {
		return
	}
	if s.b[s.i] == ']' {
		s.i++
		return
	}
	for {
		s.value(depth + 1)
		if s.err != "" {
			return
		}
		s.space()
		if s.eof() {
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.fail("expected ',' or ']' in an array")
			return
		}
	}
}

func (s *scanner) string() {
	s.i++ // opening quote
	for {
		if s.eof() {
			return
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return
		case c < 0x20:
			s.fail("control character in a string")
			return
		case c == '\\':
			s.i++
			if s.eof() {
				return
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for range 4 {
					if s.eof() {
						return
					}
					if !isHex(s.b[s.i]) {
						s.fail("invalid \\u escape")
						return
					}
					s.i++
				}
			default:
				s.fail("invalid escape")
				return
			}
		default:
			s.i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *scanner) number() {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.eof() {
		return
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		s.fail("invalid number")
		return
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.eof() {
			return
		}
		if s.digits() == 0 {
			s.fail("invalid number")
			return
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.eof() {
			return
		}
		if s.digits() == 0 {
			s.fail("invalid number")
		}
	}
}

func (s *scanner) literal(word string) {
	for k := 0; k < len(word); k++ {
		if s.eof() {
			return
		}
		if s.b[s.i] != word[k] {
			s.fail("invalid literal")
			return
		}
		s.i++
	}
}
