package parsetest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// StoreFiles lists the stored session files under dir (the files whose
// slash-separated path holds part and ends in .jsonl), as paths that
// start with dir. It fails the test when there are none.
func StoreFiles(t testing.TB, dir, part string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && strings.Contains(filepath.ToSlash(p), part) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no stored sessions under %s", dir)
	}
	return paths
}

// CountingReaderAt counts the bytes read through it, so that a test can
// bound what a reader of a file's head and tail reads.
type CountingReaderAt struct {
	R io.ReaderAt
	n atomic.Int64
}

// ReadAt reads from R and counts the bytes.
func (c *CountingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.R.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// Read returns the number of bytes read so far.
func (c *CountingReaderAt) Read() int64 { return c.n.Load() }

// FileLine is a line of a file as the store readers number it.
type FileLine struct {
	N, Offset int64  // 1-based number, blank lines included; byte offset
	Text      []byte // without its terminator
}

// FileLines splits data into its lines as the store readers see them:
// blank ones left out unless longer than maxLine (a reader reports
// those), each with its number and offset.
func FileLines(data []byte, maxLine int) []FileLine {
	var out []FileLine
	off := int64(0)
	for n := int64(1); len(data) > 0; n++ {
		text, rest, found := bytes.Cut(data, []byte("\n"))
		next := off + int64(len(text))
		if found {
			next++
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		if len(text) > maxLine || len(bytes.Trim(text, " \t\r")) > 0 {
			out = append(out, FileLine{n, off, text})
		}
		data, off = rest, next
	}
	return out
}

// Open opens the file at path for the test, which closes it at its end.
func Open(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Size returns the size of the open file f.
func Size(t testing.TB, f *os.File) int64 {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
