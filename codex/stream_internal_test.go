package codex

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
// an event as its type, an error as "too long: N", "syntax" or its text.
func describe(turn *Turn, r io.Reader, maxLine int) []string {
	var got []string
	for e, err := range turn.events(r, maxLine) {
		var tooLong *LineTooLongError
		var syntax *SyntaxError
		switch {
		case errors.As(err, &tooLong):
			got = append(got, fmt.Sprintf("too long: %d of %d (%v)", tooLong.Length, tooLong.Max, errors.Is(err, ErrLineTooLong)))
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
		started = `{"type":"thread.started","thread_id":"t"}`
		done    = `{"type":"turn.completed","usage":{}}`
	)
	long := strings.Repeat("x", 100)
	broken := errors.New("broken")
	tests := []struct {
		name   string
		resume string
		input  string
		err    error // what r fails with after input; nil for EOF
		want   []string
	}{
		{"blank and crlf lines", "", "\n \r\n" + started + "\r\n\t\n", nil, []string{"codex.ThreadStarted"}},
		{"resync after a long line", "", started + "\n" + long + "\n" + done + "\n", nil,
			[]string{"codex.ThreadStarted", "too long: 100 of 80 (true)", "codex.TurnCompleted"}},
		{"length without crlf", "", long + "\r\n", nil, []string{"too long: 100 of 80 (true)"}},
		{"syntax error, then more", "", "[DEBUG] x\n" + done, nil, []string{"syntax", "codex.TurnCompleted"}},
		{"nothing after the final event", "", done + "\n" + long + "\nnot JSON\n" + started + "\n", nil, []string{"codex.TurnCompleted"}},
		{"read error last, cut line not fed", "", started + "\n" + `{"type":"turn.completed"`, broken, []string{"codex.ThreadStarted", "error: broken"}},
		{"nothing at the end of a resume", "r", "warning: not JSON\n", nil, []string{"syntax"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.input)
			if tt.err != nil {
				r = io.MultiReader(r, iotest.ErrReader(tt.err))
			}
			if diff := cmp.Diff(tt.want, describe(NewTurn(tt.resume), r, 80)); diff != "" {
				t.Errorf("yielded (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzTurnEvents checks that Events, with a limit of maxLine, yields what
// feeding the input's lines one by one returns, a line over the limit
// being reported in its place until the final event.
func FuzzTurnEvents(f *testing.F) {
	for _, s := range []string{
		"{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.completed\",\"usage\":{}}\n",
		"not json\r\n\n{\"type\":\"error\",\"message\":\"Reconnecting... 1/5 (x)\"}",
		"{\"type\":\"turn.failed\",\"error\":{\"message\":\"m\"}}\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
	} {
		f.Add([]byte(s), uint8(40), false)
	}
	f.Fuzz(func(t *testing.T, input []byte, maxLine uint8, resume bool) {
		id := ""
		if resume {
			id = "r"
		}
		var want []any
		byLine := NewTurn(id)
		if len(input) > 0 {
			for _, line := range bytes.Split(bytes.TrimSuffix(input, []byte("\n")), []byte("\n")) {
				line = bytes.TrimSuffix(line, []byte("\r"))
				if len(line) > int(maxLine) {
					if !byLine.Done() {
						want = append(want, &LineTooLongError{Length: int64(len(line)), Max: int(maxLine)})
					}
					continue
				}
				events, err := byLine.Feed(line, nil)
				if err != nil {
					want = append(want, err)
				}
				for _, e := range events {
					want = append(want, e)
				}
			}
		}
		var got []any
		turn := NewTurn(id)
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
		if byLine.ThreadID() != turn.ThreadID() || byLine.Done() != turn.Done() {
			t.Errorf("thread %q done %v by line, %q %v by Events", byLine.ThreadID(), byLine.Done(), turn.ThreadID(), turn.Done())
		}
	})
}

// sameError reports whether a and b are the same kind of error with the
// same text.
func sameError(a, b error) bool {
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
}
