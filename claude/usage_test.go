package claude_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// TestResultFeedsUsage checks, on every result line of every transcript,
// that the Result event carries what the usage package reads from the whole
// line: usage.FromClaudeResult of its cost and modelUsage equals
// usage.ParseClaudeResult of the line, and usage.FromAnthropic of its Usage
// equals FromAnthropic of the line's usage member.
func TestResultFeedsUsage(t *testing.T) {
	counts := cmp.Transformer("Count", usage.Count.String)
	results := 0
	for _, path := range transcripts(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range bytes.Split(data, []byte("\n")) {
			var members map[string]json.RawMessage
			if json.Unmarshal(line, &members) != nil || string(members["type"]) != `"result"` {
				continue
			}
			results++
			turn := claude.NewTurn("")
			if _, err := turn.Feed(bytes.Clone(line), nil); err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			r, ok := turn.Result()
			if !ok {
				t.Fatalf("%s:%d: no result", path, n+1)
			}

			want, err := usage.ParseClaudeResult(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			got, err := usage.FromClaudeResult(r.TotalCostUSD.String(), r.ModelUsage)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			if diff := cmp.Diff(want, got, counts); diff != "" {
				t.Errorf("%s:%d: FromClaudeResult of the Result differs from ParseClaudeResult of the line (-line +Result):\n%s", path, n+1, diff)
			}
			if _, ok := want.TotalCost.Get(); !ok {
				t.Errorf("%s:%d: the transcript's result line has no cost", path, n+1)
			}

			wantRun, wantErr := usage.FromAnthropic(members["usage"])
			gotRun, gotErr := usage.FromAnthropic(r.Usage)
			if (wantErr == nil) != (gotErr == nil) {
				t.Errorf("%s:%d: FromAnthropic error %v for the Result, %v for the line", path, n+1, gotErr, wantErr)
			}
			if diff := cmp.Diff(wantRun, gotRun, counts); diff != "" {
				t.Errorf("%s:%d: FromAnthropic of the Result differs from the line's (-line +Result):\n%s", path, n+1, diff)
			}
		}
	}
	if results == 0 {
		t.Fatal("no result lines in the transcripts")
	}
}

// TestResultCostJSON checks that a Result marshalled as JSON, as the golden
// files are, states an absent cost by leaving it out rather than as 0, and
// writes a present one as the CLI's literal.
func TestResultCostJSON(t *testing.T) {
	for _, tt := range []struct {
		result claude.Result
		want   string
	}{
		{claude.Result{}, ""},
		{claude.Result{TotalCostUSD: "0"}, "0"},
		{claude.Result{TotalCostUSD: "1.250E-2"}, "1.250E-2"},
	} {
		data, err := json.Marshal(tt.result)
		if err != nil {
			t.Fatal(err)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(data, &members); err != nil {
			t.Fatal(err)
		}
		if got := string(members["TotalCostUSD"]); got != tt.want {
			t.Errorf("%q marshals as TotalCostUSD %q, want %q (%s)", tt.result.TotalCostUSD, got, tt.want, data)
		}
	}
}
