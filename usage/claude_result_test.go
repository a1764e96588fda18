package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestFromClaudeResult(t *testing.T) {
	const sonnet = `{"inputTokens":8,"outputTokens":300,"cacheReadInputTokens":12000,"cacheCreationInputTokens":3000,"costUSD":0.0501,"contextWindow":200000}`
	sonnetUsage := ModelUsage{
		Model: "claude-sonnet-4-5", InputTokens: CountOf(8), OutputTokens: CountOf(300), CacheReadInputTokens: CountOf(12000),
		CacheCreationInputTokens: CountOf(3000), Cost: CountOf(50_100_000_000), ContextWindow: CountOf(200000),
	}
	tests := []struct {
		name       string
		cost       string
		modelUsage string
		want       CLIResult
		wantErr    bool
	}{
		{name: "both absent"},
		{name: "exact decimal", cost: "0.0512345", want: CLIResult{TotalCost: CountOf(51_234_500_000)}},
		{name: "rounded half up to the picodollar", cost: "0.0000000000005", want: CLIResult{TotalCost: CountOf(1)}},
		{name: "exponent", cost: "1.250E-2", want: CLIResult{TotalCost: CountOf(12_500_000_000)}},
		{name: "zero is present", cost: "0", want: CLIResult{TotalCost: CountOf(0)}},
		{name: "negative is absent", cost: "-0.5"},
		{name: "quoted is absent", cost: `"0.5"`},
		{name: "space around is absent", cost: " 0.5"},
		{name: "trailing space is absent", cost: "0.5 "},
		{name: "not JSON is absent", cost: "0x10"},
		{name: "a fraction is absent", cost: "1/2"},
		{name: "models", cost: "0.06", modelUsage: `{"claude-sonnet-4-5":` + sonnet + `,"bogus":7}`,
			want: CLIResult{TotalCost: CountOf(60_000_000_000), Models: []ModelUsage{sonnetUsage}}},
		{name: "models sorted, repeated name keeps the last",
			modelUsage: `{"z":{"outputTokens":1},"a":{"outputTokens":2},"z":{"outputTokens":3}}`,
			want:       CLIResult{Models: []ModelUsage{{Model: "a", OutputTokens: CountOf(2)}, {Model: "z", OutputTokens: CountOf(3)}}}},
		{name: "empty object", modelUsage: `{}`},
		{name: "null", modelUsage: `null`},
		{name: "not an object", cost: "1", modelUsage: `[{"m":{}}]`, want: CLIResult{TotalCost: CountOf(PicoUSDPerUSD)}},
		{name: "invalid JSON", cost: "1", modelUsage: `{"m":`, wantErr: true},
		{name: "invalid UTF-8", modelUsage: "{\"m\xff\":{}}", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu []byte
			if tt.modelUsage != "" {
				mu = []byte(tt.modelUsage)
			}
			got, err := FromClaudeResult(tt.cost, mu)
			if tt.wantErr {
				if !errors.Is(err, ErrNotObject) {
					t.Fatalf("error = %v, want ErrNotObject", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Count{})); diff != "" {
				t.Errorf("FromClaudeResult(%q, %q) (-want +got):\n%s", tt.cost, tt.modelUsage, diff)
			}
		})
	}
}

// claudeMembers is the reference extraction, with encoding/json, of the two
// members FromClaudeResult takes from a result line: the cost's literal when
// it is a number, and modelUsage's raw JSON, nil when absent.
func claudeMembers(m map[string]json.RawMessage) (cost string, modelUsage []byte) {
	if raw := m["total_cost_usd"]; len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		cost = string(raw)
	}
	if raw, ok := m["modelUsage"]; ok {
		modelUsage = raw
	}
	return cost, modelUsage
}

// TestParseClaudeResultAgreesWithMembers checks, on every result line of the
// claude package's transcripts, that reading the whole line and reading its
// two members give the same CLIResult.
func TestParseClaudeResultAgreesWithMembers(t *testing.T) {
	paths, err := filepath.Glob("../claude/testdata/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../claude/testdata/*/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, more...)
	results, models := 0, 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range bytes.Split(data, []byte("\n")) {
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil || string(m["type"]) != `"result"` {
				continue
			}
			results++
			want, err := ParseClaudeResult(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			cost, mu := claudeMembers(m)
			got, err := FromClaudeResult(cost, mu)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Count{})); diff != "" {
				t.Errorf("%s:%d: FromClaudeResult differs from ParseClaudeResult (-line +members):\n%s", path, n+1, diff)
			}
			if _, ok := want.TotalCost.Get(); ok && len(want.Models) > 0 {
				models++
			}
		}
	}
	if results < 10 || models == 0 {
		t.Fatalf("%d result lines, %d with a cost and models: the transcripts under ../claude/testdata are missing", results, models)
	}
}

func FuzzFromClaudeResult(f *testing.F) {
	f.Add("0.0512345", []byte(`{"claude-sonnet-4-5":{"inputTokens":8,"outputTokens":300,"costUSD":0.0501}}`))
	f.Add("", []byte(nil))
	f.Fuzz(func(t *testing.T, cost string, modelUsage []byte) {
		got, err := FromClaudeResult(cost, modelUsage)
		var parts []string
		if isNum := len(cost) > 0 && (cost[0] == '-' || cost[0] >= '0' && cost[0] <= '9') &&
			json.Valid([]byte(cost)) && strings.TrimSpace(cost) == cost; isNum {
			parts = append(parts, `"total_cost_usd":`+cost)
		} else if _, ok := got.TotalCost.Get(); ok {
			t.Fatalf("cost %q is not a number literal, read as %v", cost, got.TotalCost)
		}
		if len(modelUsage) > 0 {
			if valid := json.Valid(modelUsage) && utf8.Valid(modelUsage); valid != (err == nil) {
				t.Fatalf("modelUsage %q: error %v, valid JSON = %v", modelUsage, err, valid)
			}
			parts = append(parts, `"modelUsage":`+string(modelUsage))
		}
		if err != nil {
			return
		}
		want, err := ParseClaudeResult([]byte("{" + strings.Join(parts, ",") + "}"))
		if err != nil {
			t.Fatalf("the line of the members: %v", err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Count{})); diff != "" {
			t.Fatalf("FromClaudeResult(%q, %q) differs from ParseClaudeResult of its line (-line +members):\n%s", cost, modelUsage, diff)
		}
	})
}
