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
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// outcome describes what a Turn knows after a whole run.
type outcome struct {
	Final    string // the final event's type; "" when none
	ThreadID string
	Err      string // Err's text; "" when nil
	Reason   string // the sentinel Err matches
	Status   int    // the *RunError's Status
	Resume   bool   // ResumeFailed()
}

func outcomeOf(turn *codex.Turn) outcome {
	o := outcome{ThreadID: turn.ThreadID(), Resume: turn.ResumeFailed()}
	if e, ok := turn.Final(); ok {
		o.Final = fmt.Sprintf("%T", e)
	}
	err := turn.Err()
	if err != nil {
		o.Err = err.Error()
	}
	for _, r := range []error{codex.ErrResumeNotFound, codex.ErrAPI, codex.ErrNoResult, codex.ErrFailed} {
		if errors.Is(err, r) {
			o.Reason = r.Error()
		}
	}
	var re *codex.RunError
	if errors.As(err, &re) {
		o.Status = re.Status
	}
	return o
}

func TestTurnOutcomes(t *testing.T) {
	const (
		limit   = "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:00 PM."
		started = `{"type":"thread.started","thread_id":"t1"}` + "\n"
		// A server that answers 500: five retries, then the error and the
		// failed turn with the same text, in either of the CLI's wordings.
		retries500 = `{"type":"error","message":"Reconnecting... 1/5 (unexpected status 500 Internal Server Error: boom, url: http://127.0.0.1:1/v1/responses)"}
{"type":"error","message":"Reconnecting... 2/5 (unexpected status 500 Internal Server Error: boom, url: http://127.0.0.1:1/v1/responses)"}
{"type":"error","message":"Reconnecting... 3/5 (unexpected status 500 Internal Server Error: boom, url: http://127.0.0.1:1/v1/responses)"}
{"type":"error","message":"Reconnecting... 4/5 (unexpected status 500 Internal Server Error: boom, url: http://127.0.0.1:1/v1/responses)"}
{"type":"error","message":"Reconnecting... 5/5 (unexpected status 500 Internal Server Error: boom, url: http://127.0.0.1:1/v1/responses)"}
`
		gaveUp429 = "exceeded retry limit, last status: 429 Too Many Requests, request id: req_1"
		demand    = "We’re currently experiencing high demand, which may cause temporary errors."
	)
	tests := []struct {
		name   string
		resume string
		path   string // a transcript, or
		output string // the output itself
		code   int
		want   outcome
	}{
		{"completed", "", "testdata/cli-0.169.0/plain-text.jsonl", "", 0,
			outcome{Final: "codex.TurnCompleted", ThreadID: "01a23170-f4e4-79a3-8053-87c2b8ccf99b"}},
		{"resumed", "01a23170-f4e4-79a3-8053-87c2b8ccf99b", "testdata/cli-0.169.0/resume.jsonl", "", 0,
			outcome{Final: "codex.TurnCompleted", ThreadID: "01a23170-f4e4-79a3-8053-87c2b8ccf99b"}},
		{"completed, then failed", "", "testdata/cli-0.169.0/plain-text.jsonl", "", 1,
			outcome{Final: "codex.TurnCompleted", ThreadID: "01a23170-f4e4-79a3-8053-87c2b8ccf99b",
				Err: "codex: run failed (exit status 1 (failure))", Reason: codex.ErrFailed.Error()}},
		{"usage limit", "", "testdata/cli-0.169.0/rate-limit-usage-limit.jsonl", "", 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "01a23172-bd92-7f82-a483-249833528bbc",
				Err: "codex: API error: " + limit + " (exit status 1 (failure))", Reason: codex.ErrAPI.Error()}},
		{"401", "", "testdata/cli-0.169.0/api-error-401.jsonl", "", 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "01a23172-3b3d-72b3-9a38-5dbe4905a046", Reason: codex.ErrAPI.Error(), Status: 401}},
		{"rate limit after a retry", "", "testdata/cli-0.169.0/response-failed.jsonl", "", 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "01a23172-d02a-7010-9f3c-10514ef88b99", Reason: codex.ErrAPI.Error()}},
		{"500 after retries, then the retry limit", "", "", started + retries500 +
			`{"type":"error","message":"exceeded retry limit, last status: 500 Internal Server Error"}
{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 500 Internal Server Error"}}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Reason: codex.ErrAPI.Error(), Status: 500,
				Err: "codex: API error: exceeded retry limit, last status: 500 Internal Server Error (exit status 1 (failure))"}},
		{"500 after retries, then no status named", "", "", started + retries500 +
			`{"type":"error","message":"` + demand + `"}
{"type":"turn.failed","error":{"message":"` + demand + `"}}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Reason: codex.ErrAPI.Error(), Status: 500,
				Err: "codex: API error: " + demand + " (exit status 1 (failure))"}},
		{"429 retry limit in the failed turn only", "", "", started + `{"type":"turn.failed","error":{"message":"` + gaveUp429 + `"}}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Reason: codex.ErrAPI.Error(), Status: 429,
				Err: "codex: API error: " + gaveUp429 + " (exit status 1 (failure))"}},
		{"api error without a status, then the turn failed", "", "", started + `{"type":"error","message":"Selected model is at capacity. Please try a different model."}
{"type":"turn.failed","error":{"message":"Selected model is at capacity. Please try a different model."}}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Reason: codex.ErrAPI.Error(),
				Err: "codex: API error: Selected model is at capacity. Please try a different model. (exit status 1 (failure))"}},
		{"api error, then a failed turn without a message", "", "", started + `{"type":"error","message":"unexpected status 401 Unauthorized: bad key"}
{"type":"turn.failed"}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Reason: codex.ErrAPI.Error(), Status: 401,
				Err: "codex: API error: unexpected status 401 Unauthorized: bad key (exit status 1 (failure))"}},
		{"retries, then a failed turn of another kind", "", "", started + retries500 + `{"type":"turn.failed","error":{"message":"sandbox error"}}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Err: "codex: run failed: sandbox error (exit status 1 (failure))", Reason: codex.ErrFailed.Error()}},
		{"retries, then the process died", "", "", started + retries500, -1,
			outcome{Final: "codex.NoResult", ThreadID: "t1", Reason: codex.ErrNoResult.Error(), Status: 500,
				Err: "codex: run ended without the end of its turn (killed by a signal)"}},
		{"retries, then completed", "", "", started + retries500 + `{"type":"turn.completed","usage":{}}`, 0,
			outcome{Final: "codex.TurnCompleted", ThreadID: "t1"}},
		{"failed otherwise", "", "", started + `{"type":"turn.failed","error":{"message":"sandbox error"}}`, 1,
			outcome{Final: "codex.TurnFailed", ThreadID: "t1", Err: "codex: run failed: sandbox error (exit status 1 (failure))", Reason: codex.ErrFailed.Error()}},
		{"resume refused", "gone", "testdata/resume_failed.jsonl", "", 1,
			outcome{Final: "codex.ResumeFailed", ThreadID: "gone", Err: "codex: resumed thread not found (exit status 1 (failure))",
				Reason: codex.ErrResumeNotFound.Error(), Resume: true}},
		{"resume killed", "gone", "", "", -1,
			outcome{Final: "codex.NoResult", ThreadID: "gone", Err: "codex: run ended without the end of its turn (killed by a signal)", Reason: codex.ErrNoResult.Error()}},
		{"resume started a new thread", "gone", "", started + `{"type":"turn.completed","usage":{}}`, 0,
			outcome{Final: "codex.TurnCompleted", ThreadID: "t1"}},
		{"ended after an error", "", "", started + `{"type":"error","message":"first"}` + "\n" + `{"type":"error","message":"last"}` + "\n", 1,
			outcome{Final: "codex.NoResult", ThreadID: "t1", Err: "codex: run ended without the end of its turn: last (exit status 1 (failure))", Reason: codex.ErrNoResult.Error()}},
		{"ended with nothing", "", "", "", 2,
			outcome{Final: "codex.NoResult", Err: "codex: run ended without the end of its turn (exit status 2 (usage error))", Reason: codex.ErrNoResult.Error()}},
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
			turn.Finish(tt.code, nil)
			got := outcomeOf(turn)
			if tt.want.Err == "" && tt.want.Reason != "" {
				got.Err = "" // long messages: the reason is what is checked
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
			if s, ok := turn.Exit(); !ok || int(s) != tt.code {
				t.Errorf("Exit() = %v, %v; want %d", s, ok, tt.code)
			}
		})
	}
}

func TestTurnBeforeFinish(t *testing.T) {
	turn := codex.NewTurn("r")
	if _, err := turn.Feed([]byte(`{"type":"turn.started"}`), nil); err != nil {
		t.Fatal(err)
	}
	_, exited := turn.Exit()
	if diff := cmp.Diff([]any{outcome{ThreadID: "r"}, false}, []any{outcomeOf(turn), exited}); diff != "" {
		t.Errorf("[outcome exited] before Finish (-want +got):\n%s", diff)
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
	kinds = append(kinds, fmt.Sprint(len(turn.Finish(0, nil))))
	got := []any{kinds, errs, outcomeOf(turn)}
	want := []any{[]string{"codex.ThreadStarted", "codex.TurnCompleted", "0"}, 1, outcome{Final: "codex.TurnCompleted", ThreadID: "a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[events errors outcome] (-want +got):\n%s", diff)
	}
}

func TestTurnFinishOnce(t *testing.T) {
	turn := codex.NewTurn("x")
	first, second := turn.Finish(1, nil), turn.Finish(0, nil)
	events, err := turn.Feed([]byte(`{"type":"thread.started","thread_id":"y"}`), nil)
	exit, _ := turn.Exit()
	got := []any{first, len(second), len(events), err == nil, turn.ThreadID(), exit}
	want := []any{[]codex.Event{codex.ResumeFailed{ThreadID: "x", Exit: 1}}, 0, 0, true, "x", codex.ExitStatus(1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[first second fed ok thread exit] (-want +got):\n%s", diff)
	}
}

// TestTurnEventsMatchesFeed checks that Events yields, for every
// transcript, what feeding its lines one by one returns.
func TestTurnEventsMatchesFeed(t *testing.T) {
	for _, path := range parsetest.Transcripts(t, "testdata") {
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
