package claude

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestLineReader(t *testing.T) {
	errBroken := errors.New("broken")
	tests := []struct {
		name  string
		input string
		err   error // what the reader fails with after input; nil for EOF
		want  []string
	}{
		{"empty", "", nil, nil},
		{"lines", "a\nbb\n\nccc\n", nil, []string{"a", "bb", "", "ccc"}},
		{"final line without newline", "a\nbb", nil, []string{"a", "bb"}},
		{"at the limit", "12345678\n", nil, []string{"12345678"}},
		{"CR kept for ParseLine to trim", "a\r\n", nil, []string{"a\r"}},
		{"over the limit, then more", "a\n123456789\nb\n", nil, []string{"a", "too long: 9", "b"}},
		{"far over the limit", strings.Repeat("x", 100) + "\nb\n", nil, []string{"too long: 100", "b"}},
		{"over the limit at the end", "a\n123456789", nil, []string{"a", "too long: 9"}},
		{"read error after a line", "a\n", errBroken, []string{"a", "error: broken"}},
		{"read error mid-line", "a\nbb", errBroken, []string{"a", "bb", "error: broken"}},
	}
	for _, tt := range tests {
		for _, wrap := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"one byte", iotest.OneByteReader},
			{"data with EOF", iotest.DataErrReader},
		} {
			t.Run(tt.name+"/"+wrap.name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.input)
				if tt.err != nil {
					r = io.MultiReader(r, iotest.ErrReader(tt.err))
				}
				// A small buffer makes lines span several reads of it.
				lr := lineReader{br: bufio.NewReaderSize(wrap.r(r), 16), max: 8}
				var got []string
				for range 20 {
					line, err := lr.next()
					var tooLong *LineTooLongError
					switch {
					case err == io.EOF:
					case errors.As(err, &tooLong):
						got = append(got, "too long: "+strconv.Itoa(tooLong.Len))
						continue
					case err != nil:
						got = append(got, "error: "+err.Error())
					default:
						got = append(got, string(line))
						continue
					}
					break
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("lines mismatch (-want +got):\n%s", diff)
				}
				// The end is sticky.
				if _, err := lr.next(); err == nil {
					t.Error("next after the end returned a line")
				}
			})
		}
	}
}

// FuzzLineReader checks that every line of the input comes out exactly, or,
// when longer than the limit, as a LineTooLongError with its length, and
// that nothing else comes out.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(2))
	f.Add([]byte(`{"type":"system"}`+"\n"+strings.Repeat("x", 40)+"\n{}\n"), uint8(17))
	f.Fuzz(func(t *testing.T, input []byte, max uint8) {
		var want []string
		if len(input) > 0 {
			for _, line := range bytes.Split(bytes.TrimSuffix(input, []byte("\n")), []byte("\n")) {
				if len(line) > int(max) {
					want = append(want, "too long: "+strconv.Itoa(len(line)))
				} else {
					want = append(want, string(line))
				}
			}
		}
		lr := lineReader{br: bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(input)), 16), max: int(max)}
		var got []string
		for len(got) <= len(input)+1 {
			line, err := lr.next()
			if tooLong, ok := err.(*LineTooLongError); ok {
				got = append(got, "too long: "+strconv.Itoa(tooLong.Len))
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			got = append(got, string(line))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("lines mismatch (-want +got):\n%s", diff)
		}
	})
}
