package lines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll drains lr, describing each result: a line as its text, an
// oversized line as "too long: N", the end as "EOF" or "error: …".
func readAll(t *testing.T, lr *Reader) []string {
	t.Helper()
	var got []string
	for range 1000 {
		line, err := lr.Next()
		var tooLong *TooLongError
		switch {
		case err == nil:
			got = append(got, string(line))
		case errors.As(err, &tooLong):
			if tooLong.Max != lr.max {
				t.Errorf("TooLongError.Max = %d, want %d", tooLong.Max, lr.max)
			}
			got = append(got, fmt.Sprintf("too long: %d", tooLong.Length))
		case err == io.EOF:
			return append(got, "EOF")
		default:
			return append(got, "error: "+err.Error())
		}
	}
	t.Fatal("reader did not stop")
	return nil
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 17)
	tests := []struct {
		name  string
		input string
		max   int
		want  []string
	}{
		{"empty input", "", 16, []string{"EOF"}},
		{"one line", "{}\n", 16, []string{"{}", "EOF"}},
		{"crlf", "{\"a\":1}\r\n{}\r\n", 16, []string{`{"a":1}`, "{}", "EOF"}},
		{"no final newline", "{}\n[1]", 16, []string{"{}", "[1]", "EOF"}},
		{"final cr dropped", "{}\r", 16, []string{"{}", "EOF"}},
		{"only cr is kept inside", "a\rb\n", 16, []string{"a\rb", "EOF"}},
		{"blank lines skipped", "\n\n{}\n\r\n \t \n\r\r\n{}\n\n", 16, []string{"{}", "{}", "EOF"}},
		{"blank last line", "{}\n  ", 16, []string{"{}", "EOF"}},
		{"spaces inside kept", " {} \n", 16, []string{" {} ", "EOF"}},
		{"exactly max", strings.Repeat("y", 16) + "\n", 16, []string{strings.Repeat("y", 16), "EOF"}},
		{"exactly max with crlf", strings.Repeat("y", 16) + "\r\n", 16, []string{strings.Repeat("y", 16), "EOF"}},
		{"exactly max at eof", strings.Repeat("y", 16), 16, []string{strings.Repeat("y", 16), "EOF"}},
		{"exactly max with cr at eof", strings.Repeat("y", 16) + "\r", 16, []string{strings.Repeat("y", 16), "EOF"}},
		{"max plus one", long + "\n{}\n", 16, []string{"too long: 17", "{}", "EOF"}},
		{"max plus one crlf", long + "\r\n{}\n", 16, []string{"too long: 17", "{}", "EOF"}},
		{"max plus cr cr", strings.Repeat("y", 16) + "\r\r\n{}\n", 16, []string{"too long: 17", "{}", "EOF"}},
		{"oversized at eof", long, 16, []string{"too long: 17", "EOF"}},
		{"oversized with cr at eof", long + "\r", 16, []string{"too long: 17", "EOF"}},
		{"very long line", strings.Repeat("z", 1000) + "\r\n{}\n", 16, []string{"too long: 1000", "{}", "EOF"}},
		{"very long line ending in cr", strings.Repeat("z", 999) + "\r\r\n{}\n", 16, []string{"too long: 1000", "{}", "EOF"}},
		{"two oversized in a row", long + "\n" + long + long + "\n{}", 16, []string{"too long: 17", "too long: 34", "{}", "EOF"}},
		{"oversized between lines", "[1]\n" + long + "\n[2]\n", 16, []string{"[1]", "too long: 17", "[2]", "EOF"}},
		{"oversized blank line", strings.Repeat(" ", 17) + "\n{}\n", 16, []string{"too long: 17", "{}", "EOF"}},
		{"max 0 keeps only blank lines", "\n\r\n{}\n", 0, []string{"too long: 2", "EOF"}},
		{"negative max is 0", "a\n", -5, []string{"too long: 1", "EOF"}},
		{"longer than the first buffer", strings.Repeat("w", 100000) + "\n", 1 << 20, []string{strings.Repeat("w", 100000), "EOF"}},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data with eof", iotest.DataErrReader},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				lr := NewReader(rd.wrap(strings.NewReader(tt.input)), tt.max)
				if diff := cmp.Diff(tt.want, readAll(t, lr)); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		r    io.Reader
		want []string
	}{
		{
			name: "complete lines before the error are returned, the partial one is not",
			r:    io.MultiReader(strings.NewReader("{}\n[1]\n[2"), iotest.ErrReader(boom)),
			want: []string{"{}", "[1]", "error: boom"},
		},
		{
			name: "error while skipping an oversized line",
			r:    io.MultiReader(strings.NewReader(strings.Repeat("x", 40)), iotest.ErrReader(boom)),
			want: []string{"error: boom"},
		},
		{
			name: "a reader that makes no progress",
			r:    emptyReader{},
			want: []string{"error: " + io.ErrNoProgress.Error()},
		},
		{
			name: "a reader that claims more than it was given",
			r:    overReader{},
			want: []string{"error: " + errBadCount.Error()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := NewReader(tt.r, 16)
			if diff := cmp.Diff(tt.want, readAll(t, lr)); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			// The error is sticky.
			if _, err := lr.Next(); err == nil || err == io.EOF {
				t.Errorf("Next after the error = %v, want the error again", err)
			}
		})
	}
}

// TestReaderPos checks the position of each line Next returns or reports,
// blank lines and an oversized line counted, over reads of one byte.
func TestReaderPos(t *testing.T) {
	input := "\n{}\r\n" + strings.Repeat("x", 20) + "\r\n \t\n\n[1]\n\n{\"a\":1}"
	lr := NewReader(iotest.OneByteReader(strings.NewReader(input)), 16)
	if line, off := lr.Pos(); line != 0 || off != 0 {
		t.Errorf("Pos before the first line = %d, %d, want 0, 0", line, off)
	}
	var got []string
	for {
		_, err := lr.Next()
		if err == io.EOF {
			break
		}
		line, off := lr.Pos()
		got = append(got, fmt.Sprintf("%d@%d", line, off))
	}
	want := []string{"2@1", "3@5", "6@31", "8@36"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

type overReader struct{}

func (overReader) Read(p []byte) (int, error) { return len(p) + 1, nil }

// TestReaderMemory checks that an endless line does not grow the buffer
// past the maximum.
func TestReaderMemory(t *testing.T) {
	const maxLine = 1000
	input := io.MultiReader(io.LimitReader(repeatReader('x'), 10<<20), strings.NewReader("\n{}\n"))
	lr := NewReader(input, maxLine)
	_, err := lr.Next()
	var tooLong *TooLongError
	if !errors.As(err, &tooLong) || tooLong.Length != 10<<20 || tooLong.Max != maxLine {
		t.Fatalf("Next = %v, want a TooLongError of %d bytes", err, 10<<20)
	}
	if cap(lr.buf) > maxLine+2 {
		t.Errorf("buffer grew to %d bytes, want at most %d", cap(lr.buf), maxLine+2)
	}
	line, err := lr.Next()
	if err != nil || string(line) != "{}" {
		t.Errorf("Next after the long line = %q, %v; want {}", line, err)
	}
}

// TestReaderGivesMemoryBack checks that the buffer a long line needed is
// given back once the line is returned or skipped, so that one long line
// does not hold memory for the life of the reader.
func TestReaderGivesMemoryBack(t *testing.T) {
	const maxLine = 32 << 20
	for _, tt := range []struct {
		name string
		long int // bytes of the long line
	}{
		{"returned", 8 << 20},
		{"skipped", maxLine + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			input := io.MultiReader(io.LimitReader(repeatReader('x'), int64(tt.long)), strings.NewReader("\n{}\n[]\n"))
			lr := NewReader(input, maxLine)
			if _, err := lr.Next(); err != nil && !errors.As(err, new(*TooLongError)) {
				t.Fatal(err)
			}
			if cap(lr.buf) <= keepBuffer {
				t.Fatalf("buffer of %d bytes after a line of %d: the test needs a grown one", cap(lr.buf), tt.long)
			}
			for _, want := range []string{"{}", "[]"} {
				if line, err := lr.Next(); err != nil || string(line) != want {
					t.Fatalf("Next = %q, %v; want %s", line, err, want)
				}
				if cap(lr.buf) > keepBuffer {
					t.Errorf("buffer still %d bytes after the long line passed, want at most %d", cap(lr.buf), keepBuffer)
				}
			}
		})
	}
}

// TestTooLongHead checks that a line too long to read reports its first
// bytes, however it was read.
func TestTooLongHead(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":7,"result":"` + strings.Repeat("é", 1000) + `"}`
	for _, tt := range []struct {
		name  string
		input io.Reader
		max   int
	}{
		{"in one read", strings.NewReader(line + "\n"), 500},
		{"at the end of input", strings.NewReader(line), 500},
		{"byte by byte", iotest.OneByteReader(strings.NewReader(line + "\n")), 500},
		{"skipped in pieces", iotest.HalfReader(strings.NewReader(line + "\r\n{}")), 300},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(tt.input, tt.max).Next()
			var tooLong *TooLongError
			if !errors.As(err, &tooLong) {
				t.Fatalf("Next = %v, want a TooLongError", err)
			}
			if diff := cmp.Diff(line[:HeadLength], string(tooLong.Head)); diff != "" {
				t.Errorf("Head (-want +got):\n%s", diff)
			}
		})
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// FuzzReader reads its input through short reads of the sizes that sizes
// gives, with a maximum of maxLine, and accounts for every byte: each is
// in a line returned whole, a terminator, a blank line, or an oversized
// line reported with its length. The seed corpus is in
// testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, input, sizes []byte, maxLine uint8) {
		lr := NewReader(&chunkReader{data: input, sizes: sizes}, int(maxLine))
		var lines, terminators, blanks, oversized int
		pos := 0
		// line returns the line at pos: its content and terminator lengths.
		line := func() (content, term int) {
			rest := input[pos:]
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				if len(rest) > 0 && rest[len(rest)-1] == '\r' {
					return len(rest) - 1, 1
				}
				return len(rest), 0
			}
			if i > 0 && rest[i-1] == '\r' {
				return i - 1, 2
			}
			return i, 1
		}
		skipBlanks := func() {
			for pos < len(input) {
				n, term := line()
				// A line over the maximum is oversized even if blank: the
				// reader does not keep it to look.
				if n > int(maxLine) || !isBlank(input[pos:pos+n]) {
					return
				}
				blanks += n + term
				pos += n + term
			}
		}
		// checkPos checks Pos against the line at pos.
		checkPos := func() {
			line, off := lr.Pos()
			if want := int64(bytes.Count(input[:pos], []byte("\n")) + 1); line != want || off != int64(pos) {
				t.Fatalf("Pos() = %d, %d, want %d, %d", line, off, want, pos)
			}
		}
		for range len(input) + 2 {
			got, err := lr.Next()
			skipBlanks()
			var tooLong *TooLongError
			switch {
			case err == nil:
				if len(got) == 0 || len(got) > int(maxLine) {
					t.Fatalf("line of %d bytes, want 1 to %d", len(got), maxLine)
				}
				n, term := line()
				if !bytes.Equal(got, input[pos:pos+n]) {
					t.Fatalf("line %q at %d, want %q", got, pos, input[pos:pos+n])
				}
				checkPos()
				lines += n
				terminators += term
				pos += n + term
			case errors.As(err, &tooLong):
				n, term := line()
				if tooLong.Length != int64(n) || n <= int(maxLine) || tooLong.Max != int(maxLine) {
					t.Fatalf("%v at %d, want a line of %d bytes (> %d)", err, pos, n, maxLine)
				}
				checkPos()
				oversized += n
				terminators += term
				pos += n + term
			case err == io.EOF:
				if sum := lines + terminators + blanks + oversized; sum != len(input) {
					t.Fatalf("accounted for %d bytes (lines %d, terminators %d, blank %d, oversized %d) of %d",
						sum, lines, terminators, blanks, oversized, len(input))
				}
				return
			default:
				t.Fatalf("Next: %v", err)
			}
		}
		t.Fatal("reader did not reach EOF")
	})
}

// chunkReader returns data in reads of the sizes listed in sizes, cycling,
// with 0 meaning an empty read (never twice in a row).
type chunkReader struct {
	data      []byte
	sizes     []byte
	i         int
	lastEmpty bool
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if len(r.sizes) > 0 {
		n = min(n, int(r.sizes[r.i%len(r.sizes)]))
		r.i++
		if n == 0 && r.lastEmpty {
			n = 1
		}
		r.lastEmpty = n == 0
	}
	n = copy(p[:n], r.data)
	r.data = r.data[n:]
	return n, nil
}
