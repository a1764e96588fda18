package wire

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// FuzzUnescape checks Unescape against encoding/json on every valid JSON
// string.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u4e2d"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
		`"\uDBFF\uDFFF"`, `"é中😀"`, `"\u0000"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, quoted []byte) {
		if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' || !jsonscan.Valid(quoted) {
			return
		}
		var want string
		if err := json.Unmarshal(quoted, &want); err != nil {
			t.Fatalf("%q: %v", quoted, err)
		}
		if got := Unescape(quoted[1 : len(quoted)-1]); got != want {
			t.Fatalf("Unescape(%q) = %q, want %q", quoted, got, want)
		}
	})
}
