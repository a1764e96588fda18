package codex_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/acpkit/acpkit/codex"
	"github.com/google/go-cmp/cmp"
)

// outcome describes what a Turn knows after a whole run.
type outcome struct {
	Final    string // the final event's type; "" when none
	ThreadID string
	Failed   bool
	Why      string
	Resume   bool // ResumeFailed()
}

func outcomeOf(turn *codex.Turn) outcome {
	o := outcome{ThreadID: turn.ThreadID(), Resume: turn.ResumeFailed()}
	if e, ok := turn.Final(); ok {
		o.Final = fmt.Sprintf("%T", e)
	}
	o.Why, o.Failed = turn.Failed()
	return o
}

func TestTurnOutcomes(t *testing.T) {
	const (
		limit   = "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:00 PM."
		started = `{"type":"thread.started","thread_id":"t1"}` + "\n"
	)
	tests := []struct {
		name   string
		resume string
		path   string // a transcript, or
		output string // the output itself
		want   outcome
	}{
		{"completed", "", "testdata/cli-0.169.0/plain-text.jsonl", "",
			outcome{Final: "codex.TurnCompleted", ThreadID: "01a23170-f4e4-79a3-8053-87c2b8ccf99b"}},
		{"resumed", "01a23170-f4e4-79a3-8053-87c2b8ccf99b", "testdata/cli-0.169.0/resume.jsonl", "",
			outcome{Final: "codex.TurnCompleted", ThreadID: "01a23170-f4e4-79a3-8053-87c2b8ccf99b"}},
		{"usage limit", "", "testdata/cli-0.169.0/rate-limit-usage-limit.jsonl", "",
			outcome{Final: "codex.TurnFailed", ThreadID: "01a23172-bd92-7f82-a483-249833528bbc", Failed: true, Why: limit}},
		{"resume refused", "gone", "testdata/resume_failed.jsonl", "",
			outcome{Final: "codex.ResumeFailed", ThreadID: "gone", Failed: true, Why: "codex: the CLI did not resume thread gone", Resume: true}},
		{"resume started a new thread", "gone", "", started + `{"type":"turn.completed","usage":{}}`,
			outcome{Final: "codex.TurnCompleted", ThreadID: "t1"}},
		{"resume with an empty thread id", "kept", "", `{"type":"thread.started","thread_id":""}` + "\n",
			outcome{ThreadID: "kept", Failed: true, Why: "codex: the output ended before the turn did"}},
		{"ended after an error", "", "", started + `{"type":"error","message":"first"}` + "\n" + `{"type":"error","message":"last"}` + "\n",
			outcome{ThreadID: "t1", Failed: true, Why: "last"}},
		{"ended with nothing", "", "", "", outcome{Failed: true, Why: "codex: the output ended before the turn did"}},
		{"failed without a message", "", "", started + `{"type":"turn.failed","error":{}}`,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Failed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			output := tt.output
			if tt.path != "" {
				output = string(readFile(t, tt.path))
			}
			turn := codex.NewTurn(tt.resume)
			for _, err := range turn.Events(strings.NewReader(output)) {
				if err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, outcomeOf(turn)); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTurnBeforeTheEnd(t *testing.T) {
	turn := codex.NewTurn("r")
	if _, err := turn.Feed([]byte(`{"type":"turn.started"}`), nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{ThreadID: "r"}, outcomeOf(turn)); diff != "" {
		t.Errorf("outcome before End (-want +got):\n%s", diff)
	}
}

func TestTurnStopsAfterFinal(t *testing.T) {
	turn := &codex.Turn{}
	lines := []string{
		`{"type":"thread.started","thread_id":"a"}`,
		`not json`,
		`{"type":"turn.completed","usage":{"input_tokens":1}}`,
		`{"type":"thread.started","thread_id":"b"}`,
		`{"type":"turn.failed","error":{"message":"late"}}`,
		`also not json`,
	}
	var kinds []string
	errs := 0
	for _, l := range lines {
		events, err := turn.Feed([]byte(l), nil)
		if err != nil {
			errs++
		}
		for _, e := range events {
			kinds = append(kinds, fmt.Sprintf("%T", e))
		}
	}
	kinds = append(kinds, fmt.Sprint(len(turn.End(nil))))
	got := []any{kinds, errs, outcomeOf(turn)}
	want := []any{[]string{"codex.ThreadStarted", "codex.TurnCompleted", "0"}, 1, outcome{Final: "codex.TurnCompleted", ThreadID: "a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[events errors outcome] (-want +got):\n%s", diff)
	}
}

func TestTurnEndOnce(t *testing.T) {
	turn := codex.NewTurn("x")
	first, second := turn.End(nil), turn.End(nil)
	events, err := turn.Feed([]byte(`{"type":"thread.started","thread_id":"y"}`), nil)
	got := []any{len(first), len(second), len(events), err, turn.ThreadID()}
	if diff := cmp.Diff([]any{1, 0, 0, nil, "x"}, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("[first second fed err thread] (-want +got):\n%s", diff)
	}
}

// TestTurnEventsMatchesFeed checks that Events yields, for every
// transcript, what feeding its lines one by one and then End return.
func TestTurnEventsMatchesFeed(t *testing.T) {
	for _, path := range transcripts(t) {
		t.Run(path, func(t *testing.T) {
			data := readFile(t, path)
			for _, resume := range []string{"", "01a23170-f4e4-79a3-8053-87c2b8ccf99b"} {
				var want []any
				byLine := codex.NewTurn(resume)
				for line := range bytes.Lines(data) {
					events, err := byLine.Feed(line, nil)
					if err != nil {
						want = append(want, err.Error())
					}
					for _, e := range events {
						want = append(want, e)
					}
				}
				for _, e := range byLine.End(nil) {
					want = append(want, e)
				}
				var got []any
				turn := codex.NewTurn(resume)
				for e, err := range turn.Events(iotest.HalfReader(bytes.NewReader(data))) {
					if err != nil {
						got = append(got, err.Error())
					} else {
						got = append(got, e)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("resume %q: yielded (-Feed +Events):\n%s", resume, diff)
				}
				if diff := cmp.Diff(outcomeOf(byLine), outcomeOf(turn)); diff != "" {
					t.Errorf("resume %q: outcome (-Feed +Events):\n%s", resume, diff)
				}
			}
		})
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestTurnEvents(t *testing.T) {
	long := `{"type":"item.completed","item":{"id":"item_0","type":"command_execution","aggregated_output":"` +
		strings.Repeat("x", 1<<20) + `","exit_code":0,"status":"completed"}}`
	stdout := `{"type":"thread.started","thread_id":"t"}
[DEBUG] not JSON
` + long + `
{"type":"turn.completed","usage":{}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"after the end"}}
also not JSON, never reported
`
	r := &countingReader{r: strings.NewReader(stdout)}
	var kinds, errs []string
	turn := &codex.Turn{}
	for e, err := range turn.Events(io.MultiReader(r, iotest.ErrReader(errors.New("pipe closed")))) {
		var se *codex.SyntaxError
		switch {
		case errors.As(err, &se):
			errs = append(errs, "syntax")
		case err != nil:
			errs = append(errs, err.Error())
		default:
			kinds = append(kinds, fmt.Sprintf("%T", e))
		}
	}
	got := []any{kinds, errs, r.n, turn.Done()}
	want := []any{
		[]string{"codex.ThreadStarted", "codex.CommandExecution", "codex.TurnCompleted"},
		[]string{"syntax", "pipe closed"},
		len(stdout), // read to the end after the final event
		true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[kinds errors bytesRead done] mismatch (-want +got):\n%s", diff)
	}
}

func TestTurnEventsStopsWhenAsked(t *testing.T) {
	stdout := strings.Repeat(`{"type":"turn.started"}`+"\n", 5)
	n := 0
	for range codex.NewTurn("r").Events(strings.NewReader(stdout)) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("got %d events, want the loop to stop at 3", n)
	}
}
