// Package storefile holds what the readers of the CLIs' stored sessions
// (in claude, codex and gemini) share: reading the lines at a file's head
// and at its tail through an [io.ReaderAt], so that a session list reads
// a few kilobytes of each file rather than all of it ([Head], [Tail],
// [HeadTail]); the one-line title made of a prompt ([OneLine]); and the
// check of a session id before it becomes part of a path ([ValidUUID],
// [QuoteID]).
package storefile

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode"
)

// FirstRead is the size of the first read at either end of a file; each
// further read doubles the bytes held, so that a file whose facts sit in
// its first and last few kilobytes costs one small read at each end.
const FirstRead = 16 << 10

// Head calls line for each line of r's first size bytes, from the start,
// in order. It reads [FirstRead] bytes and passes every complete line they
// hold; then, while more reports true, the file goes on and fewer than
// limit bytes have been read in all, it reads on, as many bytes as the
// line it has begun holds and at least FirstRead, so that a long line
// takes a few doubling reads. A line is passed without its terminator
// ("\n" or "\r\n"); blank lines are skipped; the last line of the file
// counts even without a terminator. The slice passed is valid only
// during the call.
//
// Head returns the number of bytes it read and the first error from r,
// [io.ErrUnexpectedEOF] when r holds fewer than size bytes.
func Head(r io.ReaderAt, size int64, limit int, line func([]byte), more func() bool) (read int64, err error) {
	var buf []byte // the file's bytes [off, off+len(buf))
	off := int64(0)
	for {
		// Pass the complete lines held.
		for {
			i := bytes.IndexByte(buf, '\n')
			last := i < 0 && off+int64(len(buf)) == size && len(buf) > 0
			if i < 0 && !last {
				break
			}
			l := buf
			if i >= 0 {
				l, buf = buf[:i], buf[i+1:]
				off += int64(i + 1)
			} else {
				off, buf = size, nil
			}
			if l = trimCR(l); !blank(l) {
				line(l)
			}
		}
		end := off + int64(len(buf))
		if end >= size || read >= int64(limit) || !more() {
			return read, nil
		}
		n := int64(FirstRead)
		if int64(len(buf)) >= n {
			n = int64(len(buf))
		}
		n = min(n, size-end, int64(limit)-read)
		next := make([]byte, len(buf)+int(n))
		copy(next, buf)
		got, err := r.ReadAt(next[len(buf):], end)
		read += int64(got)
		if got < int(n) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the file was shorter than size
			}
			return read, err
		}
		buf = next
	}
}

// Tail calls line for each line of r's first size bytes, from the end
// backwards, as [Head] does from the start: it reads the last [FirstRead]
// bytes, passes every complete line they hold, the last first, and reads
// further back while more reports true, the file goes on, and limit bytes
// have not been read in all. Lines are passed as Head passes them; the
// first line of the file is complete only once the read reaches it.
//
// Tail returns what Head returns.
func Tail(r io.ReaderAt, size int64, limit int, line func([]byte), more func() bool) (read int64, err error) {
	var buf []byte // the file's bytes [start, start+len(buf)), lines not yet passed
	start := size
	for {
		// Pass the complete lines held, from the last. buf ends where the
		// last line passed began, after its predecessor's '\n', or at the
		// end of the file.
		for len(buf) > 0 {
			end := len(buf)
			if start+int64(end) < size || buf[end-1] == '\n' {
				end-- // the terminator of the line before the one passed
			}
			i := bytes.LastIndexByte(buf[:end], '\n')
			if i < 0 && start > 0 {
				break // the line may begin before buf
			}
			l := buf[i+1 : end]
			buf = buf[:i+1]
			if l = trimCR(l); !blank(l) {
				line(l)
			}
		}
		if start == 0 || read >= int64(limit) || !more() {
			return read, nil
		}
		n := int64(FirstRead)
		if int64(len(buf)) >= n {
			n = int64(len(buf))
		}
		n = min(n, start, int64(limit)-read)
		next := make([]byte, int(n)+len(buf))
		copy(next[n:], buf)
		got, err := r.ReadAt(next[:n], start-n)
		read += int64(got)
		if got < int(n) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return read, err
		}
		buf, start = next, start-n
	}
}

func trimCR(l []byte) []byte {
	if n := len(l); n > 0 && l[n-1] == '\r' {
		return l[:n-1]
	}
	return l
}

// blank reports whether l holds only JSON white space.
func blank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// TitleLength is the most characters (runes) [OneLine] keeps of a text,
// as the official Claude Agent SDK does for a first prompt.
const TitleLength = 200

// OneLine returns text as a title: on one line, each run of white space
// (newlines included) made one space, trimmed, and cut to [TitleLength]
// characters with "…" appended when longer. Invalid UTF-8 becomes the
// replacement character. It reads no more of text than the title needs.
func OneLine(text string) string {
	out := make([]rune, 0, min(len(text), TitleLength+1))
	space := false
	for _, r := range text {
		if unicode.IsSpace(r) {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) > TitleLength {
			out = out[:TitleLength]
			for len(out) > 0 && out[len(out)-1] == ' ' {
				out = out[:len(out)-1]
			}
			return string(out) + "…"
		}
	}
	return string(out)
}

// ValidUUID reports whether s is a UUID's text form, 32 hexadecimal
// digits in either case, in groups of 8-4-4-4-12 separated by hyphens:
// the form of the three CLIs' session ids, which holds no byte a path
// could read as a separator, a dot or anything else.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// QuoteID quotes an id for an error message, cut to its first 64 bytes,
// so that a hostile id neither floods a log nor hides in it.
func QuoteID(id string) string {
	if len(id) > 64 {
		return strconv.Quote(id[:64]) + "…"
	}
	return strconv.Quote(id)
}

// HeadTail is the read of a session list's facts: the lines of r's head,
// in order, to head while needHead reports true, and then, unless the
// head was the whole file, the lines of its tail, from the last, to tail
// while needTail reports true; each end reads at most limit bytes (see
// [Head] and [Tail]). It reports whether it read the tail, whose facts
// then replace the head's, and returns the first error from r.
func HeadTail(r io.ReaderAt, size int64, limit int, head func([]byte), needHead func() bool, tail func([]byte), needTail func() bool) (readTail bool, err error) {
	read, err := Head(r, size, limit, head, needHead)
	if err != nil || read >= size {
		return false, err
	}
	_, err = Tail(r, size, limit, tail, needTail)
	return err == nil, err
}
