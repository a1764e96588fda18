package acp

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape returns the content of a JSON string, without its quotes,
// unescaped as encoding/json unescapes it: a lone or malformed surrogate
// escape becomes U+FFFD. content must come from a line that jsonscan
// validated (escapes well formed, no control character, valid UTF-8), as
// every member the decoders read does. It replaces a call to
// json.Unmarshal, whose cost dominated decoding a prompt with code in it.
func unescape(content []byte) string {
	if bytes.IndexByte(content, '\\') < 0 {
		return string(content)
	}
	out := make([]byte, 0, len(content))
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch content[i] {
		case '"', '\\', '/':
			out = append(out, content[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(content[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				// A pair only if a low surrogate escape follows at once.
				if i+6 < len(content) && content[i+1] == '\\' && content[i+2] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(content[i+3:i+7])); pair != utf8.RuneError {
						r = pair
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		}
	}
	return string(out)
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
