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

// TestResultKeepsUsage checks, on every result line of every transcript,
// that the Result event keeps the line's accounting as the line has it:
// the three usage objects equal to the line's members as encoding/json
// reads them, the cost's literal unchanged, and all of it readable by
// usage.FromClaudeResult.
func TestResultKeepsUsage(t *testing.T) {
	results, runs := 0, 0
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
			for _, m := range []struct {
				name string
				got  json.RawMessage
			}{{"usage", r.Usage}, {"modelUsage", r.ModelUsage}, {"model_usage_since_last_result", r.RunModelUsage}} {
				if diff := cmp.Diff(decodeObject(t, members[m.name]), decodeObject(t, m.got)); diff != "" {
					t.Errorf("%s:%d: %s (-line +Result):\n%s", path, n+1, m.name, diff)
				}
			}
			if r.RunModelUsage != nil {
				runs++
			}
			if cost := string(members["total_cost_usd"]); cost != r.TotalCostUSD.String() {
				t.Errorf("%s:%d: TotalCostUSD %q, the line has %q", path, n+1, r.TotalCostUSD, cost)
			}
			if _, err := usage.FromClaudeResult(r); err != nil {
				t.Errorf("%s:%d: usage.FromClaudeResult: %v", path, n+1, err)
			}
		}
	}
	if results == 0 || runs == 0 {
		t.Fatalf("%d result lines, %d with run usage", results, runs)
	}
}

// decodeObject is raw decoded by encoding/json when it is an object, nil
// otherwise (absent or null), as the Result keeps it.
func decodeObject(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var v map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
	}
	return v
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
