package gemini_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/google/go-cmp/cmp"
)

func TestACPCommandLine(t *testing.T) {
	got := gemini.ACPCommandLine(gemini.Options{Resume: "latest", Model: "gemini-2.5-pro", SkipTrust: true, IncludeDirectories: []string{"/lib", "", "/docs"}})
	want := []string{"--acp", "--model=gemini-2.5-pro", "--skip-trust", "--include-directories=/lib,/docs"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ACPCommandLine (-want +got):\n%s", diff)
	}
}

// TestParseQuota reads the quota of every answer to session/prompt in
// the captures of the CLI's ACP mode, and the shapes it does not take.
func TestParseQuota(t *testing.T) {
	tests := []struct {
		name string
		meta string
		want gemini.Quota
		err  error
	}{
		{"one call", `{"quota":{"token_count":{"input_tokens":11522,"output_tokens":10},"model_usage":[{"model":"gemini-3.8-flash","token_count":{"input_tokens":11522,"output_tokens":10}}]}}`,
			gemini.Quota{Input: 11522, Output: 10, Models: []gemini.ModelQuota{{"gemini-3.8-flash", 11522, 10}}}, nil},
		{"a tool round trip", `{"quota":{"token_count":{"input_tokens":23199,"output_tokens":36},"model_usage":[{"model":"gemini-3.8-flash","token_count":{"input_tokens":11536,"output_tokens":29}},{"model":"auto","token_count":{"input_tokens":11663,"output_tokens":7}}]}}`,
			gemini.Quota{Input: 23199, Output: 36, Models: []gemini.ModelQuota{{"gemini-3.8-flash", 11536, 29}, {"auto", 11663, 7}}}, nil},
		{"a slash command", `{"quota":{"token_count":{"input_tokens":0,"output_tokens":0},"model_usage":[]}}`, gemini.Quota{}, nil},
		{"odd counts", `{"quota":{"token_count":{"input_tokens":-1,"output_tokens":"7"},"model_usage":[{"token_count":{}},{"model":"m"}]}}`,
			gemini.Quota{Models: []gemini.ModelQuota{{Model: "m"}}}, nil},
		{"no quota", `{"other":1}`, gemini.Quota{}, gemini.ErrNoQuota},
		{"no counts", `{"quota":{}}`, gemini.Quota{}, gemini.ErrNoQuota},
		{"not JSON", `{"quota":`, gemini.Quota{}, gemini.ErrNoQuota},
		{"absent", ``, gemini.Quota{}, gemini.ErrNoQuota},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gemini.ParseQuota([]byte(tt.meta))
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b []gemini.ModelQuota) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Every answer of the captures has one.
	files, _ := filepath.Glob(filepath.Join("testdata", "acp", "*.ndjson"))
	n := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := geminitest.ReadACP(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			var m struct {
				Result struct {
					StopReason string          `json:"stopReason"`
					Meta       json.RawMessage `json:"_meta"`
				} `json:"result"`
			}
			if json.Unmarshal(e.Msg, &m) != nil || m.Result.StopReason == "" || m.Result.StopReason == "cancelled" {
				continue
			}
			n++
			if _, err := gemini.ParseQuota(m.Result.Meta); err != nil {
				t.Errorf("%s: %s: %v", name, m.Result.Meta, err)
			}
		}
	}
	if n == 0 {
		t.Error("no answer to session/prompt in the captures")
	}
}

func TestACPAPIError(t *testing.T) {
	tests := []struct {
		code    int
		message string
		want    gemini.APIError
		ok      bool
	}{
		{500, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`, gemini.APIError{Status: 500, Message: "An internal error has occurred."}, true},
		{429, "You exceeded your current quota.\nPlease retry in 3.1s.", gemini.APIError{Status: 429, Message: "You exceeded your current quota.\nPlease retry in 3.1s."}, true},
		{401, `{"error":{"code":401}}`, gemini.APIError{Status: 401, Message: `{"error":{"code":401}}`}, true},
		{-32603, "Internal error", gemini.APIError{}, false},
		{-32000, "Gemini API key is missing or not configured.", gemini.APIError{}, false},
		{600, "x", gemini.APIError{}, false},
	}
	for _, tt := range tests {
		got, ok := gemini.ACPAPIError(tt.code, tt.message)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ACPAPIError(%d, %q) = %+v, %v; want %+v, %v", tt.code, tt.message, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseQuota checks that any _meta is read or refused, never
// panicking, and that a quota read has its models named.
func FuzzParseQuota(f *testing.F) {
	f.Add([]byte(`{"quota":{"token_count":{"input_tokens":23199,"output_tokens":36},"model_usage":[{"model":"auto","token_count":{"input_tokens":1,"output_tokens":7}}]}}`))
	f.Add([]byte(`{"quota":{"token_count":{}}}`))
	f.Fuzz(func(t *testing.T, meta []byte) {
		q, err := gemini.ParseQuota(meta)
		if err != nil {
			return
		}
		for _, m := range q.Models {
			if m.Model == "" {
				t.Fatalf("a model without a name in %s", meta)
			}
		}
	})
}

// FuzzACPAPIError checks that any error is read or refused, never
// panicking, and keeps its status.
func FuzzACPAPIError(f *testing.F) {
	f.Add(500, `{"error":{"code":500,"message":"An internal error has occurred."}}`)
	f.Add(-32603, "Internal error")
	f.Fuzz(func(t *testing.T, code int, message string) {
		e, ok := gemini.ACPAPIError(code, message)
		if ok && e.Status != code {
			t.Fatalf("status %d for code %d", e.Status, code)
		}
	})
}

func ExampleParseQuota() {
	meta := []byte(`{"quota":{"token_count":{"input_tokens":23199,"output_tokens":36},"model_usage":[{"model":"gemini-3.8-flash","token_count":{"input_tokens":11536,"output_tokens":29}},{"model":"auto","token_count":{"input_tokens":11663,"output_tokens":7}}]}}`)
	q, err := gemini.ParseQuota(meta)
	if err != nil {
		panic(err)
	}
	fmt.Println("turn:", q.Input, "in,", q.Output, "out")
	last := q.Models[len(q.Models)-1]
	fmt.Println("last call:", last.Model, last.Input+last.Output, "tokens in context")
	// Output:
	// turn: 23199 in, 36 out
	// last call: auto 11670 tokens in context
}

func ExampleACPAPIError() {
	e, ok := gemini.ACPAPIError(500, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`)
	fmt.Println(ok, e.Status, e.Message)
	// Output:
	// true 500 An internal error has occurred.
}
