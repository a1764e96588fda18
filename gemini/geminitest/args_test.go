package geminitest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want invocation
	}{
		{[]string{"-o", "stream-json", "-p", "-rf"}, invocation{outputFormat: "stream-json", prompt: "-rf", hasPrompt: true}},
		{[]string{"--output-format=stream-json", "--resume=-x", "q"}, invocation{outputFormat: "stream-json", resume: "-x", hasResume: true, query: []string{"q"}}},
		{[]string{"-y", "--skip-trust", "--", "--help", "-p"}, invocation{skipTrust: true, query: []string{"--help", "-p"}}},
		{[]string{"--yolo=true", "-z"}, invocation{unknown: []string{"--yolo", "-z"}}},
		{[]string{"-m"}, invocation{usageErr: "Not enough arguments following: m"}},
		{[]string{"-", "-i", "x"}, invocation{query: []string{"-"}, interactive: true}},
	}
	for _, tt := range tests {
		got := parseArgs(tt.args)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(invocation{})); diff != "" {
			t.Errorf("parseArgs(%q) mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	f.Add("-o\x00stream-json\x00-p\x00hi")
	f.Add("--resume=x\x00--\x00-p")
	f.Add("-m")
	f.Add("a\x00--transcript\x00f\x00-y=1")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		inv := parseArgs(args)
		if inv.usageErr != "" {
			return
		}
		// The query is made of the arguments, in order.
		rest := args
		for _, q := range inv.query {
			i := slices.Index(rest, q)
			if i < 0 {
				t.Fatalf("query %q is not among the arguments %q", q, args)
			}
			rest = rest[i+1:]
		}
		for _, u := range inv.unknown {
			// Only a switch given a value ("--yolo=true") is unknown.
			if valueFlags[u] || boolFlags[u] && !strings.Contains(joined, u+"=") {
				t.Fatalf("known flag %q reported as unknown in %q", u, args)
			}
		}
	})
}
