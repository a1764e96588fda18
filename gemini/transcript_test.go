package gemini_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// transcripts lists every transcript under testdata.
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

// exitCode reads a transcript's companion .exit file: the status the CLI
// exited with.
func exitCode(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".exit")
	if err != nil {
		t.Fatal(err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// resumeID is the --resume a transcript was recorded with: the captures
// of a resumed run passed "--resume latest".
func resumeID(path string) string {
	if filepath.Base(path) == "resume.jsonl" {
		return "latest"
	}
	return ""
}

// TestTranscripts reads each transcript line by line and as a Turn, and
// compares what it read with its golden file. Run with -update to rewrite
// the golden files.
func TestTranscripts(t *testing.T) {
	for _, path := range transcripts(t) {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(path), "testdata/"), ".jsonl")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := geminitest.Render(f, resumeID(path), exitCode(t, path))
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
