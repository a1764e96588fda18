package usage_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

var countString = cmp.Transformer("Count", usage.Count.String)

func TestParseCodexUsage(t *testing.T) {
	c := usage.CountOf
	tests := []struct {
		name string
		data string
		want usage.CodexUsage
	}{
		{"every figure", `{"input_tokens":18777,"cached_input_tokens":14016,"cache_write_input_tokens":0,"output_tokens":38,"reasoning_output_tokens":0}`,
			usage.CodexUsage{Input: c(18777), CacheRead: c(14016), CacheWrite: c(0), Output: c(38), Reasoning: c(0)}},
		{"an older CLI's three figures", `{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":345}`,
			usage.CodexUsage{Input: c(1200), CacheRead: c(200), Output: c(345)}},
		{"absent is not zero", `{"input_tokens":null,"cached_input_tokens":-1,"output_tokens":1.5,"reasoning_output_tokens":"3","cache_write_input_tokens":1e3}`,
			usage.CodexUsage{}},
		{"repeated: last wins", `{"output_tokens":1,"output_tokens":2}`, usage.CodexUsage{Output: c(2)}},
		{"largest", `{"input_tokens":18446744073709551615,"output_tokens":18446744073709551616}`,
			usage.CodexUsage{Input: c(18446744073709551615)}},
		{"empty", `{}`, usage.CodexUsage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := usage.ParseCodexUsage([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, countString); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"", "null", "[1]", `{"input_tokens":1`, "\"x\""} {
		if _, err := usage.ParseCodexUsage([]byte(bad)); !errors.Is(err, usage.ErrNotObject) {
			t.Errorf("ParseCodexUsage(%q) error = %v, want ErrNotObject", bad, err)
		}
	}
}

func TestCodexUsageSince(t *testing.T) {
	c := usage.CountOf
	prev := usage.CodexUsage{Input: c(100), CacheRead: c(50), CacheWrite: c(10), Output: c(20), Reasoning: c(5)}
	tests := []struct {
		name      string
		cur, prev usage.CodexUsage
		want      usage.CodexUsage
	}{
		{"difference", usage.CodexUsage{Input: c(250), CacheRead: c(150), CacheWrite: c(10), Output: c(45), Reasoning: c(5)}, prev,
			usage.CodexUsage{Input: c(150), CacheRead: c(100), CacheWrite: c(0), Output: c(25), Reasoning: c(0)}},
		{"no baseline kept", prev, usage.CodexUsage{}, usage.CodexUsage{}},
		{"absent now", usage.CodexUsage{Input: c(250)}, prev, usage.CodexUsage{Input: c(150)}},
		{"a figure went down", usage.CodexUsage{Input: c(99), Output: c(20)}, prev, usage.CodexUsage{Output: c(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.cur.Since(tt.prev), countString); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// turnUsage reads the usage of a Codex transcript's turn.completed line
// through the codex package, as a program would.
func turnUsage(t *testing.T, path string) usage.CodexUsage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	turn := &codex.Turn{}
	for range turn.Events(strings.NewReader(string(data))) {
	}
	final, ok := turn.Final()
	done, isDone := final.(codex.TurnCompleted)
	if !ok || !isDone {
		t.Fatalf("%s: final event %T, want TurnCompleted", path, final)
	}
	u, err := usage.ParseCodexUsage(done.Usage)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestCodexThread follows a real thread of two processes: the first turn's
// totals are its own, the resumed turn's are the thread's, and its own
// usage is the difference, or unknown without the first turn's totals.
func TestCodexThread(t *testing.T) {
	c := usage.CountOf
	first := turnUsage(t, "../codex/testdata/cli-0.169.0/plain-text.jsonl")
	second := turnUsage(t, "../codex/testdata/cli-0.169.0/resume.jsonl")

	var acc usage.Accumulator
	acc.Add(first.Report())
	acc.Add(second.Since(first).Report())
	got := []any{first.Report(), second.Since(first).Report(), second.Since(usage.CodexUsage{}).Report(), acc.Snapshot().Totals()}
	want := []any{
		usage.Report{Input: c(9160), CacheRead: c(6848), CacheWrite: c(0), Output: c(26)},
		usage.Report{Input: c(9251), CacheRead: c(6912), CacheWrite: c(0), Output: c(26)},
		usage.Report{},
		// The session's totals are the thread's: what the last turn reported.
		usage.Totals{Input: second.Input, CacheRead: second.CacheRead, CacheWrite: second.CacheWrite, Output: second.Output},
	}
	if diff := cmp.Diff(want, got, countString); diff != "" {
		t.Errorf("[first, second since first, second without a baseline, session] mismatch (-want +got):\n%s", diff)
	}
}
