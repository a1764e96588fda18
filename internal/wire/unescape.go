package wire

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Unescape returns the content of a JSON string, without its quotes,
// unescaped as encoding/json unescapes it: a lone or malformed surrogate
// escape becomes U+FFFD. content must come from a line that jsonscan
// validated (escapes well formed, no control character, valid UTF-8), as
// every member the decoders read does. It replaces a call to
// json.Unmarshal, whose cost dominated decoding a prompt with code in it.
func Unescape(content []byte) string {
	k := bytes.IndexByte(content, '\\')
	if k < 0 {
		return string(content)
	}
	var out strings.Builder // its String does not copy
	out.Grow(len(content))
	for ; k >= 0; k = bytes.IndexByte(content, '\\') {
		out.Write(content[:k]) // the run before the escape, at once
		switch c := content[k+1]; c {
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := hex4(content[k+2 : k+6])
			k += 4
			if utf16.IsSurrogate(r) {
				// A pair only if a low surrogate escape follows at once.
				if k+7 < len(content) && content[k+2] == '\\' && content[k+3] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(content[k+4:k+8])); pair != utf8.RuneError {
						r = pair
						k += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out.WriteRune(r)
		}
		content = content[k+2:]
	}
	out.Write(content)
	return out.String()
}

// hex4 reads four hexadecimal digits, which jsonscan has checked.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
