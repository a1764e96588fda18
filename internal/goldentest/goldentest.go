// Package goldentest is the test support shared by the parsers' golden
// tests (claude, codex and gemini) and the fake CLIs' tests: it lists the
// recorded transcripts and compares output with a golden file. Only tests
// import it.
package goldentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Transcripts lists every .jsonl transcript under dir, at any depth but
// outside fuzz corpora, as paths that start with dir. It fails the test
// when there are none.
func Transcripts(t testing.TB, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
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
		t.Fatalf("no transcripts in %s", dir)
	}
	return paths
}

// Golden is the golden file of the transcript at path: .golden in place
// of its extension (.jsonl, .ndjson).
func Golden(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".golden"
}

// Check compares got with the golden file of the transcript at path, or,
// when update is set (the tests' -update flag), rewrites the file with
// got.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	golden := Golden(path)
	if update {
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
}
