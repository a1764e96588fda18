//go:build unix

package bridgeos_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/acpkit/acpkit/bridge/bridgeos"
)

// A Store reads and removes inside its folder only: a name with "..",
// an absolute name and a symbolic link out of the folder reach nothing
// outside it.
func TestStore(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "projects")
	outside := filepath.Join(root, "secret")
	must(t, os.MkdirAll(filepath.Join(dir, "-w", "s1", "subagents"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "-w", "s1.jsonl"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "-w", "s1", "subagents", "agent-a.jsonl"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(outside, []byte("keep"), 0o644))

	s := bridgeos.Store(dir)
	if err := fstest.TestFS(s, "-w/s1.jsonl", "-w/s1/subagents/agent-a.jsonl"); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(outside, filepath.Join(dir, "-w", "link.jsonl")))
	f, err := s.Open("-w/s1.jsonl")
	must(t, err)
	if _, ok := f.(io.ReaderAt); !ok {
		t.Error("a Store's file is not an io.ReaderAt")
	}
	f.Close()
	for _, name := range []string{"../secret", "/etc/passwd", "-w/link.jsonl"} {
		if f, err := s.Open(name); err == nil {
			f.Close()
			t.Errorf("Open(%q) reached outside the store", name)
		}
		if err := s.RemoveAll(name); name != "-w/link.jsonl" && err == nil {
			t.Errorf("RemoveAll(%q) = nil, want an error", name)
		}
	}
	if err := s.RemoveAll("."); err == nil {
		t.Error("RemoveAll removed the store itself")
	}
	must(t, s.RemoveAll("-w/s1"))
	must(t, s.RemoveAll("-w/s1.jsonl"))
	must(t, s.RemoveAll("-w/gone.jsonl"))
	if data, err := os.ReadFile(outside); err != nil || string(data) != "keep" {
		t.Errorf("the file outside the store: %q, %v", data, err)
	}
	entries, err := fs.ReadDir(s, "-w")
	must(t, err)
	if len(entries) != 0 {
		t.Errorf("the folder holds %v after the removals", entries)
	}

	// A store the CLI has not made yet is empty, not an error to remove
	// from.
	none := bridgeos.Store(filepath.Join(root, "none"))
	if _, err := fs.ReadDir(none, "."); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of a store not made yet: %v, want fs.ErrNotExist", err)
	}
	must(t, none.RemoveAll("x"))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
