package usage

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// FuzzParseCodexUsage checks ParseCodexUsage against encoding/json: a figure
// is present exactly when its member (the last of its name) decodes into a
// uint64, and then holds that value; an error exactly when the input is not
// an object.
func FuzzParseCodexUsage(f *testing.F) {
	for _, s := range []string{
		`{"input_tokens":18777,"cached_input_tokens":14016,"cache_write_input_tokens":0,"output_tokens":38,"reasoning_output_tokens":0}`,
		`{"input_tokens":null,"output_tokens":-1,"cached_input_tokens":1.5,"reasoning_output_tokens":"2"}`,
		`{"output_tokens":1,"output_tokens":18446744073709551616}`,
		`{"\u0069nput_tokens":7}`,
		`[]`,
		`{"input_tokens":1`,
	} {
		f.Add([]byte(s))
	}
	names := []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens"}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := ParseCodexUsage(data)
		var top map[string]json.RawMessage
		isObject := jsonscan.Valid(data) && json.Unmarshal(data, &top) == nil && top != nil
		if (err != nil) == isObject {
			t.Fatalf("error %v for input that is an object: %v", err, isObject)
		}
		if err != nil {
			if u != (CodexUsage{}) {
				t.Fatal("figures with an error")
			}
			return
		}
		got := []Count{u.Input, u.CacheRead, u.CacheWrite, u.Output, u.Reasoning}
		for i, name := range names {
			var want Count
			var n uint64
			if raw, ok := top[name]; ok && string(raw) != "null" && json.Unmarshal(raw, &n) == nil {
				want = CountOf(n)
			}
			if got[i] != want {
				t.Fatalf("%s: %v, encoding/json reads %v", name, got[i], want)
			}
		}
	})
}
