package codex_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// transcripts lists every transcript under testdata, real and hand-written.
func transcripts(t testing.TB) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "fuzz" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".jsonl") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	return paths
}

// TestTranscripts parses each transcript and compares the events with its
// golden file. Run with -update to rewrite the golden files.
func TestTranscripts(t *testing.T) {
	for _, path := range transcripts(t) {
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
			golden := strings.TrimSuffix(path, ".jsonl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("events of %s differ from %s (-want +got):\n%s", path, golden, diff)
			}
		})
	}
}
