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

	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// drain returns what fr.Next returns up to the end of input: each frame as
// a string, each error as it is.
func drain(fr *FrameReader) []any {
	var got []any
	for range 1000 {
		frame, err := fr.Next()
		switch {
		case err == nil:
			got = append(got, string(frame))
		case errors.Is(err, ErrLineTooLong):
			got = append(got, err)
		default:
			return append(got, err)
		}
	}
	return append(got, "reader did not stop")
}

// TestFrameReader checks what FrameReader adds to internal/lines, where
// the splitting itself is tested: the default maximum, the error type, and
// that blank lines are skipped and oversized ones survived.
func TestFrameReader(t *testing.T) {
	boom := errors.New("boom")
	endless := &loopReader{data: bytes.Repeat([]byte("w"), 64<<10)}
	tests := []struct {
		name string
		r    io.Reader
		max  int
		want []any
	}{
		{"blank lines skipped", strings.NewReader("\n{}\r\n \t\r\n[1]\n\n"), 16, []any{"{}", "[1]", io.EOF}},
		{"oversized between frames", strings.NewReader("[1]\n" + strings.Repeat("x", 17) + "\r\n[2]"), 16,
			[]any{"[1]", &LineTooLongError{Length: 17, Max: 16}, "[2]", io.EOF}},
		{"default max", io.MultiReader(io.LimitReader(endless, DefaultMaxLineLength+1), strings.NewReader("\n{}")), 0,
			[]any{&LineTooLongError{Length: DefaultMaxLineLength + 1, Max: DefaultMaxLineLength}, "{}", io.EOF}},
		{"negative max is the default", strings.NewReader(strings.Repeat("w", 100000)), -1, []any{strings.Repeat("w", 100000), io.EOF}},
		{"read error after the complete lines", io.MultiReader(strings.NewReader("{}\n[2"), iotest.ErrReader(boom)), 16, []any{"{}", boom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := drain(NewFrameReader(tt.r, tt.max))
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(sameError)); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineTooLongError(t *testing.T) {
	err := error(&LineTooLongError{Length: 169, Max: 64})
	got := []any{err.Error(), errors.Is(err, ErrLineTooLong), errors.Is(err, io.EOF)}
	want := []any{"acp: line of 169 bytes exceeds the maximum of 64", true, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[Error Is(ErrLineTooLong) Is(EOF)] (-want +got):\n%s", diff)
	}
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
	testwait.Do(t, "the writers", wg.Wait)

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

// FuzzFrameReader checks FrameReader, fed in small chunks, against a model
// of the stream built by splitting the input at each "\n": it never panics,
// no frame exceeds the maximum, and every input byte is accounted for
// exactly once, as part of a frame, a terminator ("\n", "\r\n", or a last
// "\r"), a skipped blank line, or a line reported as too long with its
// length. The seed corpus is in testdata/fuzz/FuzzFrameReader.
func FuzzFrameReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, input []byte) {
		const maxLine = 16
		fr := NewFrameReader(iotest.HalfReader(bytes.NewReader(input)), maxLine)
		var frames, terminators, blanks, oversized int
		rest := input
		for range len(input) + 2 {
			// The model's next event: skip blank lines, then take one line.
			var content []byte
			term := 0
			for {
				if len(rest) == 0 {
					content = nil
					break
				}
				i := bytes.IndexByte(rest, '\n')
				switch {
				case i >= 0 && i > 0 && rest[i-1] == '\r':
					content, term = rest[:i-1], 2
				case i >= 0:
					content, term = rest[:i], 1
				case rest[len(rest)-1] == '\r':
					content, term = rest[:len(rest)-1], 1
				default:
					content, term = rest, 0
				}
				if len(content) > maxLine || len(bytes.Trim(content, " \t\r")) > 0 {
					break
				}
				blanks += len(content) + term
				rest = rest[len(content)+term:]
			}

			frame, err := fr.Next()
			var tooLong *LineTooLongError
			switch {
			case len(rest) == 0:
				if err != io.EOF {
					t.Fatalf("Next = %q, %v at the end of input, want io.EOF", frame, err)
				}
				if sum := frames + terminators + blanks + oversized; sum != len(input) {
					t.Fatalf("accounted for %d bytes (frames %d, terminators %d, blank %d, oversized %d) of %d",
						sum, frames, terminators, blanks, oversized, len(input))
				}
				return
			case len(content) > maxLine:
				if !errors.As(err, &tooLong) || !errors.Is(err, ErrLineTooLong) ||
					tooLong.Length != int64(len(content)) || tooLong.Max != maxLine {
					t.Fatalf("Next = %q, %v, want a LineTooLongError for a line of %d bytes", frame, err, len(content))
				}
				oversized += len(content)
			default:
				if err != nil || len(frame) > maxLine || !bytes.Equal(frame, content) {
					t.Fatalf("Next = %q, %v, want frame %q", frame, err, content)
				}
				frames += len(frame)
			}
			terminators += term
			rest = rest[len(content)+term:]
		}
		t.Fatal("reader did not reach EOF")
	})
}

// sameError reports whether a and b are the same error or equal
// LineTooLongErrors.
func sameError(a, b error) bool {
	var ta, tb *LineTooLongError
	if errors.As(a, &ta) && errors.As(b, &tb) {
		return *ta == *tb
	}
	return a == b
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
	sc.Buffer(make([]byte, 0, 64<<10), DefaultMaxLineLength) // lines.Reader's first buffer
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
