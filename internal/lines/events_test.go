package lines

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestEvents runs the loop with a feed that makes one event of each word
// of a line, and an error of a line "bad"; "end" makes the loop quiet.
func TestEvents(t *testing.T) {
	tests := []struct {
		name string
		in   io.Reader
		stop int // yields to take; 0 for all
		want []string
	}{
		{"words and positions", strings.NewReader("a b\n\nc\n"), 0, []string{"a@1:0", "b@1:0", "c@3:5"}},
		{"a bad line is yielded and reading goes on", strings.NewReader("bad\nc\n"), 0, []string{"error: bad line 1", "c@2:4"}},
		{"a line too long", strings.NewReader("0123456789\nc\n"), 0, []string{"error: too long 10 at line 1, byte 0", "c@2:11"}},
		{"quiet skips what is too long", strings.NewReader("end\n0123456789\nc\n"), 0, []string{"end@1:0", "c@3:15"}},
		{"the caller stops", strings.NewReader("a b c\n"), 2, []string{"a@1:0", "b@1:0"}},
		{"a read error is last", io.MultiReader(strings.NewReader("a\n"), iotest.ErrReader(errors.New("boom"))), 0, []string{"a@1:0", "error: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quiet := false
			feed := func(line []byte, events []string, n, offset int64) ([]string, error) {
				if string(line) == "bad" {
					return events, fmt.Errorf("bad line %d", n)
				}
				for _, w := range strings.Fields(string(line)) {
					quiet = quiet || w == "end"
					events = append(events, fmt.Sprintf("%s@%d:%d", w, n, offset))
				}
				return events, nil
			}
			tooLong := func(err *TooLongError, n, offset int64) error {
				return fmt.Errorf("too long %d at line %d, byte %d", err.Length, n, offset)
			}
			var got []string
			for e, err := range Events(tt.in, 8, feed, tooLong, func() bool { return quiet }) {
				if err != nil {
					e = "error: " + err.Error()
				}
				got = append(got, e)
				if len(got) == tt.stop {
					break
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
