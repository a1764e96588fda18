package gemini_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/gemini/geminitest"
	"github.com/acpkit/acpkit/internal/parsetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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
	for _, path := range parsetest.Transcripts(t, "testdata") {
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
			parsetest.Check(t, path, got, *update)
		})
	}
}
