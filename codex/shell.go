package codex

import "strings"

// shellJoin joins args into one command line for a POSIX shell, quoting
// each as the shlex crate's try_join does, which is how Codex prints a
// command it ran ("/bin/bash -lc 'echo hi'"): an argument made only of
// safe characters stays bare, others are put in single quotes, or, in the
// chunks that hold a single quote, in double quotes. Like Codex, it joins
// the arguments unquoted with spaces when one holds a NUL byte, which no
// quoting can carry.
func shellJoin(args []string) string {
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return strings.Join(args, " ")
		}
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		quote(&b, a)
	}
	return b.String()
}

// The quoting strategies a chunk of an argument may take.
const (
	unquotedOK     = 1
	singleQuotedOK = 2
	doubleQuotedOK = 4
)

// quote writes one argument, quoted as shlex quotes it.
func quote(b *strings.Builder, a string) {
	if a == "" {
		b.WriteString("''")
		return
	}
	for a != "" {
		n, strategy := quoting(a)
		chunk := a[:n]
		a = a[n:]
		switch strategy {
		case unquotedOK:
			b.WriteString(chunk)
		case singleQuotedOK:
			b.WriteByte('\'')
			b.WriteString(chunk)
			b.WriteByte('\'')
		default:
			b.WriteByte('"')
			for i := 0; i < len(chunk); i++ {
				if c := chunk[i]; c == '$' || c == '`' || c == '"' || c == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(chunk[i])
			}
			b.WriteByte('"')
		}
	}
}

// quoting returns the longest prefix of a (never empty) that one strategy
// can quote, and the best such strategy: bare, then single quotes, then
// double quotes.
func quoting(a string) (int, int) {
	ok := unquotedOK | singleQuotedOK | doubleQuotedOK
	i := 0
	if a[0] == '^' { // shlex allows '^' only right after an opening single quote
		ok, i = singleQuotedOK, 1
	}
	for ; i < len(a); i++ {
		c := a[i]
		cur := ok
		if c >= 0x80 || !bare(c) {
			cur &^= unquotedOK
		}
		if c < 0x80 {
			switch c {
			case '\'', '^', '\\':
				cur &^= singleQuotedOK
			}
			switch c {
			case '`', '$', '!', '^':
				cur &^= doubleQuotedOK
			}
		}
		if cur == 0 {
			break
		}
		ok = cur
	}
	switch {
	case ok&unquotedOK != 0:
		return i, unquotedOK
	case ok&singleQuotedOK != 0:
		return i, singleQuotedOK
	}
	return i, doubleQuotedOK
}

// bare reports whether an ASCII byte may appear unquoted.
func bare(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '+', '-', '.', '/', ':', '@', ']', '_':
		return true
	}
	return false
}
