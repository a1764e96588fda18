// Package parsetest is the test support shared by the tests of the
// parsers (claude, codex and gemini) and of the fake CLIs: it lists the
// recorded transcripts, compares output with a golden file, and runs the
// parsers' benchmarks. Only tests import it.
package parsetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// Transcripts lists every .jsonl transcript under dir, at any depth but
// outside fuzz corpora and stored sessions (folders named "fuzz" and
// "store"), as paths that start with dir. It fails the test when there
// are none.
func Transcripts(t testing.TB, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "fuzz" || d.Name() == "store") {
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

// Lines reads the files at paths and returns their lines, without the
// blank ones at their ends, and their total size in bytes.
func Lines(tb testing.TB, paths ...string) (lines [][]byte, size int64) {
	tb.Helper()
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		size += int64(len(data))
		lines = append(lines, bytes.Split(bytes.TrimSpace(data), []byte("\n"))...)
	}
	return lines, size
}

// BenchParse is the loop of the parsers' ParseLine benchmarks, the same
// for a parser and for its encoding/json baseline: each iteration parses
// every line with parse, which fails the benchmark with an error, and
// keeps the session id a line returns when it differs from the last, as
// a reader of the output does. size is the lines' size in bytes.
func BenchParse[E any, S []byte | string](b *testing.B, lines [][]byte, size int64, parse func(line []byte, events []E) ([]E, S, error)) {
	b.SetBytes(size)
	b.ReportAllocs()
	events := make([]E, 0, 16)
	session := ""
	for b.Loop() {
		for _, line := range lines {
			var sid S
			var err error
			if events, sid, err = parse(line, events[:0]); err != nil {
				b.Fatal(err)
			}
			if len(sid) > 0 && string(sid) != session {
				session = string(sid)
			}
		}
	}
}

// CheckInput holds the properties of a fuzzed line that every ParseLine
// shares: the parser left line as orig, a copy taken before, and gjson,
// which reads what jsonscan validated, agrees with it on whether the line
// is JSON (gjson checks neither UTF-8 nor depth, which short input cannot
// exceed). It returns line without its surrounding white space.
func CheckInput(t testing.TB, orig, line []byte) (trimmed []byte) {
	t.Helper()
	if !bytes.Equal(orig, line) {
		t.Fatal("ParseLine modified its input")
	}
	trimmed = bytes.TrimSpace(line)
	if len(trimmed) > 0 && len(trimmed) <= jsonscan.MaxDepth && utf8.Valid(trimmed) &&
		gjson.ValidBytes(trimmed) != jsonscan.Valid(trimmed) {
		t.Fatalf("gjson.ValidBytes = %v, but jsonscan disagrees", gjson.ValidBytes(trimmed))
	}
	return trimmed
}

// CheckSyntaxError holds the properties of a package's SyntaxError, err
// with its Length and Offset, for the line trimmed: they fit the line,
// and the error's text does not echo it.
func CheckSyntaxError(t testing.TB, err error, length, offset int, trimmed []byte) {
	t.Helper()
	if length != len(trimmed) || offset < 0 || offset > length {
		t.Fatalf("SyntaxError{Length:%d Offset:%d} for a %d-byte line", length, offset, len(trimmed))
	}
	if len(trimmed) >= 16 && strings.Contains(err.Error(), string(trimmed)) {
		t.Fatal("error text echoes the line")
	}
}
