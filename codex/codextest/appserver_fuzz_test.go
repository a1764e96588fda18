package codextest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/lines"
)

// FuzzReadAppServerTranscript checks that reading a transcript never
// panics, that a refused one is refused with ErrAppServerTranscript, and
// that every record of an accepted one has the line its direction needs.
func FuzzReadAppServerTranscript(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "appserver", "interrupt.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	f.Add(first + "\n" + `{"dir":"server","t_ms":3,"raw":"oops"}` + "\n" + `{"dir":"exit"}`)
	f.Add(`{"dir":"client","t_ms":1,"msg":{"id":1}}` + "\n\n" + `{"dir":"server","msg":"x"}`)
	f.Add(`{"dir":"client","msg":{},"msg":null}`)
	f.Fuzz(func(t *testing.T, text string) {
		recs, err := codextest.ReadAppServerTranscript(strings.NewReader(text))
		if err != nil {
			var tooLong *lines.TooLongError
			if !errors.Is(err, codextest.ErrAppServerTranscript) && !errors.As(err, &tooLong) {
				t.Fatalf("error %v is not ErrAppServerTranscript", err)
			}
			return
		}
		for i, r := range recs {
			switch r.Dir {
			case codextest.DirClient, codextest.DirServer:
				if r.Msg == nil && (r.Dir == codextest.DirClient || r.Raw == "") {
					t.Fatalf("record %d: a %s record without its line", i+1, r.Dir)
				}
			case codextest.DirExit:
			default:
				t.Fatalf("record %d: direction %q accepted", i+1, r.Dir)
			}
		}
	})
}
