package gemini_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// TestParseJSONOutputCapture reads the capture of `--output-format json`
// (testdata/json-plain-text.json, from
// ../shared/captures/gemini/json-plain-text.jsonl).
func TestParseJSONOutputCapture(t *testing.T) {
	data, err := os.ReadFile("testdata/json-plain-text.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gemini.ParseJSONOutput(data)
	if err != nil {
		t.Fatal(err)
	}
	var stats struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(out.Stats, &stats); err != nil {
		t.Fatal(err)
	}
	got := []any{out.SessionID, out.Response, out.ErrorType, len(stats.Models)}
	want := []any{"e91235e0-d97a-462e-8d32-8a51da555ea2", "Hello from the mock server. 2 + 2 = 4.", "", 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[session response error models] mismatch (-want +got):\n%s", diff)
	}
}

func TestParseJSONOutput(t *testing.T) {
	tests := []struct {
		in   string
		want gemini.JSONOutput
	}{
		{`{"session_id":"s","error":{"type":"FatalTurnLimitedError","message":"m","code":53}}`,
			gemini.JSONOutput{SessionID: "s", ErrorType: "FatalTurnLimitedError", ErrorMessage: "m", ErrorCode: "53"}},
		{`{"error":{"type":"Error","message":"m","code":"ENOENT"},"response":7,"stats":[]}`,
			gemini.JSONOutput{ErrorType: "Error", ErrorMessage: "m", ErrorCode: "ENOENT"}},
		{"\n{\"response\":\"a\",\"response\":\"b\",\"stats\":{}}\n", gemini.JSONOutput{Response: "b", Stats: json.RawMessage(`{}`)}},
	}
	for _, tt := range tests {
		got, err := gemini.ParseJSONOutput([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseJSONOutput(%s) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{"", "[1]", `{"a":`, "Error: boom"} {
		var se *gemini.SyntaxError
		if _, err := gemini.ParseJSONOutput([]byte(bad)); !errors.As(err, &se) {
			t.Errorf("ParseJSONOutput(%q) error = %v, want a *SyntaxError", bad, err)
		}
	}
}
