package storefile

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r *strings.Reader
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

func TestHeadTail(t *testing.T) {
	long := strings.Repeat("x", 3*FirstRead)
	tests := []struct {
		name string
		data string
		want []string // every line, in file order
	}{
		{"empty", "", nil},
		{"one line", "a\n", []string{"a"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"crlf and blanks", "a\r\n\r\n \t\nb\r\n\n", []string{"a", "b"}},
		{"a line longer than a read", "a\n" + long + "\nb\n", []string{"a", long, "b"}},
		{"long first line", long + "\nb", []string{long, "b"}},
		{"long last line", "a\n" + long, []string{"a", long}},
		{"only a long line", long, []string{long}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var head, tail []string
			r := strings.NewReader(tt.data)
			more := func() bool { return true }
			if _, err := Head(r, r.Size(), 1<<30, func(l []byte) { head = append(head, string(l)) }, more); err != nil {
				t.Fatal(err)
			}
			if _, err := Tail(r, r.Size(), 1<<30, func(l []byte) { tail = append(tail, string(l)) }, more); err != nil {
				t.Fatal(err)
			}
			slices.Reverse(tail)
			if diff := cmp.Diff(tt.want, head); diff != "" {
				t.Errorf("Head (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tail); diff != "" {
				t.Errorf("Tail, reversed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeadTailStop checks that a reader stops once more reports false,
// having passed the lines of its last read, and that limit bounds what it
// reads.
func TestHeadTailStop(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		b.WriteString(strings.Repeat("y", i%50) + "\n")
	}
	data := b.String()
	r := &countingReaderAt{r: strings.NewReader(data)}
	n := 0
	read, err := Head(r, int64(len(data)), 1<<20, func([]byte) { n++ }, func() bool { return n < 10 })
	if err != nil || read != FirstRead || r.n != FirstRead || n < 10 {
		t.Errorf("Head read %d (counted %d), passed %d lines, error %v; want one read of %d", read, r.n, n, err, FirstRead)
	}
	r.n, n = 0, 0
	read, err = Tail(r, int64(len(data)), 1<<20, func([]byte) { n++ }, func() bool { return n < 10 })
	if err != nil || read != FirstRead || r.n != FirstRead || n < 10 {
		t.Errorf("Tail read %d (counted %d), passed %d lines, error %v; want one read of %d", read, r.n, n, err, FirstRead)
	}

	huge := strings.Repeat("z", 1<<20)
	r = &countingReaderAt{r: strings.NewReader("a\n" + huge + "\nb\n")}
	var got []string
	read, err = Head(r, r.r.Size(), 100<<10, func(l []byte) { got = append(got, string(l[:1])) }, func() bool { return true })
	if err != nil || read > 100<<10 || !slices.Equal(got, []string{"a"}) {
		t.Errorf("Head with limit: read %d, lines %q, error %v", read, got, err)
	}
	got = nil
	read, err = Tail(r, r.r.Size(), 100<<10, func(l []byte) { got = append(got, string(l[:1])) }, func() bool { return true })
	if err != nil || read > 100<<10 || !slices.Equal(got, []string{"b"}) {
		t.Errorf("Tail with limit: read %d, lines %q, error %v", read, got, err)
	}
}

func TestHeadTailShort(t *testing.T) {
	r := strings.NewReader("a\nb\n")
	for name, f := range map[string]func(io.ReaderAt, int64, int, func([]byte), func() bool) (int64, error){"Head": Head, "Tail": Tail} {
		if _, err := f(r, 100, 1<<20, func([]byte) {}, func() bool { return true }); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s of a file shorter than its size: %v, want io.ErrUnexpectedEOF", name, err)
		}
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  \n\t ", ""},
		{"Fix the bug.", "Fix the bug."},
		{"  Fix\n\tthe   bug.\r\n", "Fix the bug."},
		{"a\u00a0b\u2028c", "a b c"},
		{"bad \xff byte", "bad \ufffd byte"},
		{strings.Repeat("é", 250), strings.Repeat("é", 200) + "…"},
		{strings.Repeat("é", 200), strings.Repeat("é", 200)},
		{strings.Repeat("x", 199) + " y", strings.Repeat("x", 199) + "…"},
		{strings.Repeat("x", 199) + "   ", strings.Repeat("x", 199)},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidUUID(t *testing.T) {
	for _, s := range []string{"5474356c-702e-48b0-8ecb-5f54d4bff9a2", "01A23365-0657-7662-80B4-4726987395B1"} {
		if !ValidUUID(s) {
			t.Errorf("ValidUUID(%q) = false", s)
		}
	}
	for _, s := range []string{"", "../x", "5474356c-702e-48b0-8ecb-5f54d4bff9a", "5474356c-702e-48b0-8ecb-5f54d4bff9a2 ",
		"5474356c+702e-48b0-8ecb-5f54d4bff9a2", "5474356c-702e-48b0-8ecb-5f54d4bff9ag", "5474356c-702e-48b0-8ecb-5f54d4bff9\x00a"} {
		if ValidUUID(s) {
			t.Errorf("ValidUUID(%q) = true", s)
		}
	}
	if got := QuoteID(strings.Repeat("a", 100)); got != `"`+strings.Repeat("a", 64)+`"…` {
		t.Errorf("QuoteID of a long id = %s", got)
	}
}

func TestHeadTailOnce(t *testing.T) {
	long := strings.Repeat("m\n", 2*FirstRead)
	for _, tt := range []struct {
		data     string
		readTail bool
	}{{"a\nb\n", false}, {"a\n" + long + "b\n", true}} {
		var head, tail []string
		r := strings.NewReader(tt.data)
		got, err := HeadTail(r, r.Size(), 1<<20,
			func(l []byte) { head = append(head, string(l)) }, func() bool { return len(head) < 1 },
			func(l []byte) { tail = append(tail, string(l)) }, func() bool { return len(tail) < 1 })
		if err != nil || got != tt.readTail || head[0] != "a" || tt.readTail && tail[0] != "b" || !tt.readTail && tail != nil {
			t.Errorf("HeadTail(%d bytes) = %v, %v; head %q…, tail %q…", len(tt.data), got, err, head[:1], tail)
		}
	}
}
