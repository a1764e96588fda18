package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// readAll drains fr, describing each result: a frame as its text, an
// oversized line as "too long: N", the end as "EOF" or "error: …".
func readAll(t *testing.T, fr *FrameReader) []string {
	t.Helper()
	var got []string
	for range 1000 {
		frame, err := fr.Next()
		var tooLong *LineTooLongError
		switch {
		case err == nil:
			got = append(got, string(frame))
		case errors.As(err, &tooLong):
			if !errors.Is(err, ErrLineTooLong) {
				t.Errorf("%v does not match ErrLineTooLong", err)
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

func TestFrameReader(t *testing.T) {
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
		{"oversized between frames", "[1]\n" + long + "\n[2]\n", 16, []string{"[1]", "too long: 17", "[2]", "EOF"}},
		{"default max", strings.Repeat("w", 100000) + "\n", 0, []string{strings.Repeat("w", 100000), "EOF"}},
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
				fr := NewFrameReader(rd.wrap(strings.NewReader(tt.input)), tt.max)
				if diff := cmp.Diff(tt.want, readAll(t, fr)); diff != "" {
					t.Errorf("frames (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestFrameReaderErrors(t *testing.T) {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := NewFrameReader(tt.r, 16)
			if diff := cmp.Diff(tt.want, readAll(t, fr)); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
			// The error is sticky.
			if _, err := fr.Next(); err == nil || err == io.EOF {
				t.Errorf("Next after the error = %v, want the error again", err)
			}
		})
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestFrameReaderMemory checks that an endless line does not grow the
// buffer past the maximum.
func TestFrameReaderMemory(t *testing.T) {
	const maxLine = 1000
	input := io.MultiReader(io.LimitReader(repeatReader('x'), 10<<20), strings.NewReader("\n{}\n"))
	fr := NewFrameReader(input, maxLine)
	_, err := fr.Next()
	var tooLong *LineTooLongError
	if !errors.As(err, &tooLong) || tooLong.Length != 10<<20 || tooLong.Max != maxLine {
		t.Fatalf("Next = %v, want a LineTooLongError of %d bytes", err, 10<<20)
	}
	if cap(fr.buf) > maxLine+2 {
		t.Errorf("buffer grew to %d bytes, want at most %d", cap(fr.buf), maxLine+2)
	}
	frame, err := fr.Next()
	if err != nil || string(frame) != "{}" {
		t.Errorf("Next after the long line = %q, %v; want {}", frame, err)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestFrameReaderAllocs checks the steady state allocates nothing.
func TestFrameReaderAllocs(t *testing.T) {
	fr := NewFrameReader(&loopReader{data: frameBenchLines(64)}, 0)
	fr.Next() // allocates the buffer
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := fr.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Next allocates %v times per frame, want 0", allocs)
	}
}

func TestFrameWriter(t *testing.T) {
	tests := []struct {
		name    string
		msg     string
		want    string
		wantErr error
	}{
		{"compact", `{"a":1}`, "{\"a\":1}\n", nil},
		{"pretty", "{\n  \"a\": [1, 2],\r\n\t\"b\": {}\n}", "{\"a\":[1,2],\"b\":{}}\n", nil},
		{"spaces in strings kept", `{ "a b" : "c \" d\\" }`, "{\"a b\":\"c \\\" d\\\\\"}\n", nil},
		{"surrounding space", "  [1]\n", "[1]\n", nil},
		{"scalar", `"x"`, "\"x\"\n", nil},
		{"empty", "", "", ErrNotJSON},
		{"blank", " \n", "", ErrNotJSON},
		{"truncated", `{"a":`, "", ErrNotJSON},
		{"two values", `{} {}`, "", ErrNotJSON},
		{"raw newline in string", "{\"a\":\"x\ny\"}", "", ErrNotJSON},
		{"trailing garbage", `{"a":1}x`, "", ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out writeRecorder
			err := NewFrameWriter(&out).WriteFrame([]byte(tt.msg))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("WriteFrame(%q) = %v, want %v", tt.msg, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, out.buf.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			wantWrites := 1
			if tt.wantErr != nil {
				wantWrites = 0
			}
			if out.writes != wantWrites {
				t.Errorf("%d Write calls, want %d", out.writes, wantWrites)
			}
		})
	}
}

// writeRecorder counts Write calls.
type writeRecorder struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

func TestFrameWriterConcurrent(t *testing.T) {
	const writers, each = 8, 200
	var out writeRecorder
	fw := NewFrameWriter(&out)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				msg := fmt.Sprintf("{\n \"w\": %d,\n \"i\": %d, \"pad\": %q}", w, i, strings.Repeat("p", i))
				if err := fw.WriteFrame([]byte(msg)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()

	next := make([]int, writers)
	sc := bufio.NewScanner(&out.buf)
	for sc.Scan() {
		var m struct{ W, I int }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Bytes(), err)
		}
		if m.I != next[m.W] {
			t.Fatalf("writer %d: got message %d, want %d", m.W, m.I, next[m.W])
		}
		next[m.W]++
	}
	for w, n := range next {
		if n != each {
			t.Errorf("writer %d: %d messages, want %d", w, n, each)
		}
	}
	if out.writes != writers*each {
		t.Errorf("%d Write calls, want %d", out.writes, writers*each)
	}
}

func TestFrameWriterError(t *testing.T) {
	boom := errors.New("boom")
	fw := NewFrameWriter(errWriter{boom})
	if err := fw.WriteFrame([]byte(`{}`)); !errors.Is(err, boom) {
		t.Errorf("WriteFrame = %v, want %v", err, boom)
	}
	fw = NewFrameWriter(shortWriter{})
	if err := fw.WriteFrame([]byte(`{}`)); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("WriteFrame = %v, want %v", err, io.ErrShortWrite)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

// FuzzFrameReader reads its input through short reads of the sizes that
// sizes gives, with a maximum of 16, and accounts for every byte.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("{}\n[1]\r\n\n  \n"+strings.Repeat("x", 40)+"\r\n{}"), []byte{1, 3, 7})
	f.Add([]byte(strings.Repeat("y", 16)+"\r\n"+strings.Repeat("y", 17)+"\r"), []byte{17})
	f.Fuzz(func(t *testing.T, input, sizes []byte) {
		const maxLine = 16
		fr := NewFrameReader(&chunkReader{data: input, sizes: sizes}, maxLine)
		var frames, terminators, blanks, oversized int
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
				if n > maxLine || !isBlank(input[pos:pos+n]) {
					return
				}
				blanks += n + term
				pos += n + term
			}
		}
		for range len(input) + 2 {
			frame, err := fr.Next()
			skipBlanks()
			var tooLong *LineTooLongError
			switch {
			case err == nil:
				if len(frame) == 0 || len(frame) > maxLine {
					t.Fatalf("frame of %d bytes, want 1 to %d", len(frame), maxLine)
				}
				n, term := line()
				if !bytes.Equal(frame, input[pos:pos+n]) {
					t.Fatalf("frame %q at %d, want %q", frame, pos, input[pos:pos+n])
				}
				frames += n
				terminators += term
				pos += n + term
			case errors.As(err, &tooLong):
				n, term := line()
				if tooLong.Length != int64(n) || n <= maxLine {
					t.Fatalf("oversized line of %d bytes at %d, want %d (> %d)", tooLong.Length, pos, n, maxLine)
				}
				oversized += n
				terminators += term
				pos += n + term
			case err == io.EOF:
				if sum := frames + terminators + blanks + oversized; sum != len(input) {
					t.Fatalf("accounted for %d bytes (frames %d, terminators %d, blank %d, oversized %d) of %d",
						sum, frames, terminators, blanks, oversized, len(input))
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

// FuzzFrameWriter checks that WriteFrame accepts exactly what encoding/json
// calls valid, less invalid UTF-8 (which encoding/json lets through but ACP
// forbids), and writes it as json.Compact would, on one line.
func FuzzFrameWriter(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, "x y"]}`, "{\n}", `"\u2028"`, `01`, `1.`, `[1,]`, `{"a":1}}`, "\"\x01\"", "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var out bytes.Buffer
		err := NewFrameWriter(&out).WriteFrame(msg)
		if valid := json.Valid(msg) && utf8.Valid(msg); valid != (err == nil) {
			t.Fatalf("WriteFrame(%q) = %v, but json.Valid && utf8.Valid = %v", msg, err, valid)
		}
		if err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, msg); err != nil {
			t.Fatal(err)
		}
		want.WriteByte('\n')
		if diff := cmp.Diff(want.String(), out.String()); diff != "" {
			t.Errorf("WriteFrame(%q) (-want +got):\n%s", msg, diff)
		}
	})
}

// loopReader serves data over and over, never ending.
type loopReader struct {
	data []byte
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := copy(p, r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

// frameBenchLines returns n lines of JSON of 1 KiB each, "\n" included.
func frameBenchLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s%d","text":"`, i)
		b.WriteString(line)
		b.WriteString(strings.Repeat("a", 1024-len(line)-4))
		b.WriteString("\"}}\n")
	}
	return b.Bytes()
}

func BenchmarkFrameReader(b *testing.B) {
	fr := NewFrameReader(&loopReader{data: frameBenchLines(64)}, DefaultMaxLineLength)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fr.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrameReaderScanner is BenchmarkFrameReader's baseline:
// bufio.Scanner with the same maximum.
func BenchmarkFrameReaderScanner(b *testing.B) {
	sc := bufio.NewScanner(&loopReader{data: frameBenchLines(64)})
	sc.Buffer(make([]byte, 0, initialFrameBuffer), DefaultMaxLineLength)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		if !sc.Scan() {
			b.Fatal(sc.Err())
		}
	}
}

func BenchmarkFrameWriter(b *testing.B) {
	fw := NewFrameWriter(io.Discard)
	msg := frameBenchLines(1)
	msg = msg[:len(msg)-1]
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := fw.WriteFrame(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// A hostile message nested ten million levels deep is refused, not a stack
// overflow (gjson's validator, used here before, recursed once per level).
func TestFrameWriterDeepNesting(t *testing.T) {
	var out bytes.Buffer
	fw := NewFrameWriter(&out)
	if err := fw.WriteFrame(bytes.Repeat([]byte("["), 10_000_000)); !errors.Is(err, ErrNotJSON) {
		t.Fatalf("WriteFrame(deep) = %v, want ErrNotJSON", err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %d bytes for a refused message", out.Len())
	}
}
