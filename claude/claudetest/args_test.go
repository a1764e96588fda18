package claudetest

import (
	"strings"
	"testing"
)

func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"-p\x00--output-format\x00stream-json\x00--verbose\x00hi",
		"--resume=abc\x00--\x00-rf",
		"--model",
		"-r\x00x\x00--unknown=1\x00-",
		"--max-turns=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		inv := parseArgs(args)
		if inv.usageErr != "" {
			return
		}
		// Every argument is accounted for: a flag, a flag's value, or
		// part of the prompt.
		if len(inv.prompt) > len(args) || len(inv.unknown) > len(args) {
			t.Fatalf("parseArgs(%q) = %+v", args, inv)
		}
		for _, p := range inv.prompt {
			found := false
			for _, a := range args {
				if a == p {
					found = true
				}
			}
			if !found {
				t.Fatalf("prompt word %q not among the arguments", p)
			}
		}
	})
}
