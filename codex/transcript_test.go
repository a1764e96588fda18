package codex_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/parsetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestTranscripts parses each transcript and compares the events with its
// golden file. Run with -update to rewrite the golden files.
func TestTranscripts(t *testing.T) {
	for _, path := range parsetest.Transcripts(t, "testdata") {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(path), "testdata/"), ".jsonl"), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := codextest.Render(f)
			if err != nil {
				t.Fatal(err)
			}
			parsetest.Check(t, path, got, *update)
		})
	}
}
