package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// parseResult parses a Claude CLI result line as package claude does.
func parseResult(t *testing.T, line string) claude.Result {
	t.Helper()
	events, _, err := claude.ParseLine([]byte(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("%d events from %s", len(events), line)
	}
	r, ok := events[0].(claude.Result)
	if !ok {
		t.Fatalf("%T from %s", events[0], line)
	}
	return r
}

func TestFromClaudeResult(t *testing.T) {
	const sonnet = `{"inputTokens":8,"outputTokens":300,"cacheReadInputTokens":12000,"cacheCreationInputTokens":3000,"costUSD":0.0501,"contextWindow":200000}`
	sonnetUsage := ModelUsage{
		Model: "claude-sonnet-4-5", InputTokens: CountOf(8), OutputTokens: CountOf(300), CacheReadInputTokens: CountOf(12000),
		CacheCreationInputTokens: CountOf(3000), Cost: CountOf(50_100_000_000), ContextWindow: CountOf(200000),
	}
	zero := CountOf(0)
	tests := []struct {
		name string
		r    claude.Result
		want CLIResult
	}{
		{name: "nothing"},
		{name: "exact decimal", r: claude.Result{TotalCostUSD: "0.0512345"}, want: CLIResult{TotalCost: CountOf(51_234_500_000)}},
		{name: "rounded half up to the picodollar", r: claude.Result{TotalCostUSD: "0.0000000000005"}, want: CLIResult{TotalCost: CountOf(1)}},
		{name: "exponent", r: claude.Result{TotalCostUSD: "1.250E-2"}, want: CLIResult{TotalCost: CountOf(12_500_000_000)}},
		{name: "zero is present", r: claude.Result{TotalCostUSD: "0"}, want: CLIResult{TotalCost: CountOf(0)}},
		{name: "negative is absent", r: claude.Result{TotalCostUSD: "-0.5"}},
		{name: "quoted is absent", r: claude.Result{TotalCostUSD: `"0.5"`}},
		{name: "space around is absent", r: claude.Result{TotalCostUSD: " 0.5"}},
		{name: "trailing space is absent", r: claude.Result{TotalCostUSD: "0.5 "}},
		{name: "not JSON is absent", r: claude.Result{TotalCostUSD: "0x10"}},
		{name: "a fraction is absent", r: claude.Result{TotalCostUSD: "1/2"}},
		{name: "session models", r: claude.Result{TotalCostUSD: "0.06", ModelUsage: json.RawMessage(`{"claude-sonnet-4-5":` + sonnet + `,"bogus":7}`)},
			want: CLIResult{TotalCost: CountOf(60_000_000_000), Models: []ModelUsage{sonnetUsage}}},
		{name: "models sorted, repeated name keeps the last",
			r:    claude.Result{ModelUsage: json.RawMessage(`{"z":{"outputTokens":1},"a":{"outputTokens":2},"z":{"outputTokens":3}}`)},
			want: CLIResult{Models: []ModelUsage{{Model: "a", OutputTokens: CountOf(2)}, {Model: "z", OutputTokens: CountOf(3)}}}},
		{name: "empty session models", r: claude.Result{ModelUsage: json.RawMessage(`{}`)}, want: CLIResult{Models: []ModelUsage{}}},
		{name: "run models make the run's report",
			r: claude.Result{RunModelUsage: json.RawMessage(`{"claude-sonnet-4-5":` + sonnet + `}`), Usage: json.RawMessage(`{"input_tokens":1}`)},
			want: CLIResult{RunModels: []ModelUsage{sonnetUsage}, Run: Report{
				Input: CountOf(15008), Output: CountOf(300), CacheRead: CountOf(12000), CacheWrite: CountOf(3000),
				Cost: CountOf(50_100_000_000), Model: "claude-sonnet-4-5", ContextWindow: CountOf(200000),
			}}},
		{name: "two run models: sums, no model",
			r: claude.Result{RunModelUsage: json.RawMessage(`{"b":{"inputTokens":1,"outputTokens":2,"cacheReadInputTokens":3,"cacheCreationInputTokens":4,` +
				`"cacheCreationEphemeral5mInputTokens":4,"cacheCreationEphemeral1hInputTokens":0,"costUSD":0.5},` +
				`"a":{"inputTokens":10,"outputTokens":20,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.25,"contextWindow":9}}`)},
			want: CLIResult{
				RunModels: []ModelUsage{
					{Model: "a", InputTokens: CountOf(10), OutputTokens: CountOf(20), CacheReadInputTokens: zero, CacheCreationInputTokens: zero,
						Cost: CountOf(PicoUSDPerUSD / 4), ContextWindow: CountOf(9)},
					{Model: "b", InputTokens: CountOf(1), OutputTokens: CountOf(2), CacheReadInputTokens: CountOf(3), CacheCreationInputTokens: CountOf(4),
						CacheCreation5mInputTokens: CountOf(4), CacheCreation1hInputTokens: zero, Cost: CountOf(PicoUSDPerUSD / 2)},
				},
				Run: Report{Input: CountOf(18), Output: CountOf(22), CacheRead: CountOf(3), CacheWrite: CountOf(4), Cost: CountOf(PicoUSDPerUSD * 3 / 4)},
			}},
		{name: "a run that used nothing",
			r:    claude.Result{RunModelUsage: json.RawMessage(`{}`)},
			want: CLIResult{RunModels: []ModelUsage{}, Run: Report{Input: zero, Output: zero, CacheRead: zero, CacheWrite: zero, CacheWrite5m: zero, CacheWrite1h: zero, Cost: zero}}},
		{name: "no run models: the run's usage, no cost",
			r:    claude.Result{Usage: json.RawMessage(`{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":5,"output_tokens":7}`)},
			want: CLIResult{Run: Report{Input: CountOf(8), Output: CountOf(7), CacheRead: CountOf(5), CacheWrite: zero}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromClaudeResult(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Count{})); diff != "" {
				t.Errorf("FromClaudeResult (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromClaudeResultRejectsNonObjects(t *testing.T) {
	for _, in := range []string{`null`, `[]`, `3`, `{"a":1`, `{"a":1}}`, "{\"m\xff\":{}}"} {
		for _, r := range []claude.Result{{Usage: json.RawMessage(in)}, {ModelUsage: json.RawMessage(in)}, {RunModelUsage: json.RawMessage(in)}} {
			if _, err := FromClaudeResult(r); !errors.Is(err, ErrNotObject) {
				t.Errorf("FromClaudeResult(%+v) error = %v, want ErrNotObject", r, err)
			}
		}
	}
}

// TestFromClaudeResultResumed checks a resumed run of the real CLI: the
// session's figures count both runs, the run's only the second.
func TestFromClaudeResultResumed(t *testing.T) {
	data, err := os.ReadFile("../claude/testdata/cli-2.1.328/resume.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	got, err := FromClaudeResult(parseResult(t, string(lines[len(lines)-1])))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		got.Totals().Input.String(), got.TotalCost.String(), // the session: 8686 + 17396 + 17342 tokens, $0.0967893
		got.Run.Input.String(), got.Run.Output.String(), got.Run.Cost.String(), got.Run.Model, // the run: 4350 + 17396 tokens, $0.0185088
	}
	if diff := cmp.Diff([]any{"43424", "96789300000", "21746", "16", "18508800000", "claude-sonnet-4-5"}, want); diff != "" {
		t.Errorf("[session input, session cost, run input, run output, run cost, run model] (-want +got):\n%s", diff)
	}
}

// TestFromClaudeResultTranscripts checks, on every result line of the
// claude package's transcripts, what FromClaudeResult reads against
// encoding/json's reading of the line.
func TestFromClaudeResultTranscripts(t *testing.T) {
	paths, err := filepath.Glob("../claude/testdata/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../claude/testdata/*/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, more...)
	results, runs := 0, 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil || string(m["type"]) != `"result"` {
				continue
			}
			results++
			got, err := FromClaudeResult(parseResult(t, string(line)))
			if err != nil {
				t.Fatal(err)
			}
			checkMoney(t, m["total_cost_usd"], got.TotalCost)
			checkModels(t, m["modelUsage"], got.Models)
			checkModels(t, m["model_usage_since_last_result"], got.RunModels)
			if got.RunModels != nil {
				runs++
			}
		}
	}
	if results < 10 || runs < 3 {
		t.Fatalf("%d result lines, %d with run models: the transcripts under ../claude/testdata are missing", results, runs)
	}
}
