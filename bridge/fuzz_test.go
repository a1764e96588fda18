package bridge_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude"
)

// FuzzTranslate feeds a ClaudeTranslator the events of arbitrary CLI output,
// two turns of it: whatever the lines hold, it must not panic, every
// update must encode as valid JSON, and every turn must end with either
// a stop reason or an *acp.Error.
func FuzzTranslate(f *testing.F) {
	for _, name := range []string{"partial.jsonl", "partial_tool.jsonl", "tool_roundtrip.jsonl", "rate_warning.jsonl", "api_error.jsonl", "max_turns.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "claude", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, true)
	}
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[{"content":1}]}}]}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, notices bool) {
		tr := &bridge.ClaudeTranslator{Notices: notices}
		for range 2 {
			var updates []acp.Update
			for line := range bytes.SplitSeq(data, []byte("\n")) {
				events, _, err := claude.ParseLine(line, nil)
				if err != nil {
					continue
				}
				for _, ev := range events {
					updates = tr.Translate(updates, ev, now)
				}
			}
			for _, u := range updates {
				b, err := json.Marshal(u)
				if err != nil || !json.Valid(b) {
					t.Fatalf("update %#v encodes as %q, %v", u, b, err)
				}
			}
			res, err := tr.End(false, "", nil, now)
			if err == nil && res.StopReason == "" {
				t.Fatal("a turn ended with neither a stop reason nor an error")
			}
			if _, err := json.Marshal(res); err != nil {
				t.Fatalf("response %#v: %v", res, err)
			}
		}
	})
}
