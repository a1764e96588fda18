package codex

import (
	"strings"
	"testing"
)

// FuzzParseHunks checks that the hunks read from a diff are what its
// headers count, made of its own lines, each of a kind.
func FuzzParseHunks(f *testing.F) {
	for _, s := range []string{
		"@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n@@ -9,0 +10,2 @@ func f()\n+c\n+d\n",
		"@@ -0,0 +1 @@\n+new\n",
		"@@ -1,2 +1 @@\n-a\n",
		"@@ -a +1 @@\n",
		"not a diff",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		hunks := parseHunks(diff)
		if hunks == nil {
			return
		}
		if len(hunks) == 0 {
			t.Fatal("an empty list of hunks, not nil")
		}
		for _, h := range hunks {
			old, kept := 0, 0
			for _, l := range h.Lines {
				if l == "" || !strings.Contains(" -+\\", l[:1]) || !strings.Contains(diff, l) {
					t.Fatalf("line %q of no kind, or not the diff's", l)
				}
				switch l[0] {
				case ' ':
					old, kept = old+1, kept+1
				case '-':
					old++
				case '+':
					kept++
				}
			}
			if old != h.OldLines || kept != h.NewLines || h.OldStart < 0 || h.NewStart < 0 {
				t.Fatalf("hunk %+v counts %d old and %d new lines", h, old, kept)
			}
		}
	})
}
