package claude

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

// describe ranges over t.events(r, maxLine) and describes what it yields:
// an event as its type, an error as "too long: N", "syntax" or its text,
// a skipped line preceded by "line N@offset: ".
func describe(turn *Turn, r io.Reader, maxLine int) []string {
	var got []string
	for e, err := range turn.events(r, maxLine) {
		var tooLong *LineTooLongError
		var syntax *SyntaxError
		if le, ok := err.(*LineError); ok {
			got = append(got, fmt.Sprintf("line %d@%d", le.Line, le.Offset))
		}
		switch {
		case errors.As(err, &tooLong):
			if !errors.Is(err, ErrLineTooLong) || tooLong.Max != maxLine {
				got = append(got, fmt.Sprintf("bad too long: %v", err))
			}
			got = append(got, fmt.Sprintf("too long: %d", tooLong.Length))
		case errors.As(err, &syntax):
			got = append(got, "syntax")
		case err != nil:
			got = append(got, "error: "+err.Error())
		default:
			got = append(got, fmt.Sprintf("%T", e))
		}
	}
	return got
}

// TestTurnEventsLines checks how Events uses internal/lines, where the
// splitting itself is tested: blank lines, the line limit and its error
// type, and read errors.
func TestTurnEventsLines(t *testing.T) {
	const (
		system = `{"type":"system","subtype":"init","session_id":"s"}`
		result = `{"type":"result","subtype":"success","result":"done","session_id":"s"}`
	)
	long := strings.Repeat("x", 100)
	broken := errors.New("broken")
	tests := []struct {
		name  string
		input string
		err   error // what r fails with after input; nil for EOF
		want  []string
	}{
		{"blank and crlf lines", "\n \r\n" + system + "\r\n\t\n", nil, []string{"claude.Heartbeat"}},
		{"resync after a long line", system + "\n" + long + "\n" + result + "\n", nil, []string{"claude.Heartbeat", "line 2@52", "too long: 100", "claude.Result"}},
		{"length without crlf", "\n" + long + "\r\n", nil, []string{"line 2@1", "too long: 100"}},
		{"syntax error, then more", "[DEBUG] x\n" + result, nil, []string{"line 1@0", "syntax", "claude.Result"}},
		{"blank lines counted", "\r\n  \n[DEBUG] x\n", nil, []string{"line 3@5", "syntax"}},
		{"nothing after the final event", result + "\n" + long + "\nnot JSON\n" + system + "\n", nil, []string{"claude.Result"}},
		{"read error last, cut line not fed", system + "\n" + `{"type":"result"`, broken, []string{"claude.Heartbeat", "error: broken"}},
		{"read error after the final event", result + "\n", broken, []string{"claude.Result", "error: broken"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.input)
			if tt.err != nil {
				r = io.MultiReader(r, iotest.ErrReader(tt.err))
			}
			if diff := cmp.Diff(tt.want, describe(&Turn{}, r, 80)); diff != "" {
				t.Errorf("yielded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineErrorWithoutCause(t *testing.T) {
	if got, want := (&LineError{Line: 17, Offset: 4096}).Error(), "claude: skipped line 17 (byte 4096)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// FuzzTurnEvents checks that Events, with a limit of maxLine, yields what
// feeding the input's lines one by one, terminators included, returns, a
// line over the limit being reported in its place until the final event,
// and that both say where each skipped line is. An odd maxLine also asks
// both for Unknown events. The seed corpus is in
// testdata/fuzz/FuzzTurnEvents.
func FuzzTurnEvents(f *testing.F) {
	f.Fuzz(func(t *testing.T, input []byte, maxLine uint8) {
		var want []any
		byLine := &Turn{ReportUnknown: maxLine%2 == 1}
		offset := 0
		for n, line := range bytes.SplitAfter(input, []byte("\n")) {
			if len(line) == 0 {
				break // after a final "\n"
			}
			content := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if len(content) > int(maxLine) {
				if !byLine.Done() {
					want = append(want, &LineError{Line: int64(n + 1), Offset: int64(offset),
						Err: &LineTooLongError{Length: int64(len(content)), Max: int(maxLine)}})
				}
				byLine.lines.next(line) // as Feed counts
			} else {
				events, err := byLine.Feed(line, nil)
				if err != nil {
					want = append(want, err)
				}
				for _, e := range events {
					want = append(want, e)
				}
			}
			offset += len(line)
		}
		var got []any
		turn := &Turn{ReportUnknown: byLine.ReportUnknown}
		for e, err := range turn.events(iotest.HalfReader(bytes.NewReader(input)), int(maxLine)) {
			if err != nil {
				got = append(got, err)
			} else {
				got = append(got, e)
			}
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(sameError)); diff != "" {
			t.Errorf("yielded (-Feed +Events):\n%s", diff)
		}
		if diff := cmp.Diff(byLine.SessionID(), turn.SessionID()); diff != "" {
			t.Errorf("session id (-Feed +Events):\n%s", diff)
		}
	})
}

// sameError reports whether a and b are the same kind of error with the
// same text.
func sameError(a, b error) bool {
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
}
