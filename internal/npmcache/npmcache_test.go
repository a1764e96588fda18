package npmcache_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/internal/npmcache"
)

// TestDirUsesAnInstallation checks that a folder already holding every
// package is used as it is, without npm, and that one missing a package
// is not taken for an installation.
func TestDirUsesAnInstallation(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "node_modules", "x", "package.json")
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(marker, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NPMCACHE_TEST_DIR", dir)
	t.Setenv("PATH", "") // no npm: an attempt to install would fail
	set := &npmcache.Set{Folder: "unused", Env: "NPMCACHE_TEST_DIR", Packages: []string{"x@1.0.0"}, Installed: []string{"node_modules/x/package.json"}}
	if got, err := set.Dir(); err != nil || got != dir {
		t.Errorf("Dir() = %q, %v; want %q", got, err, dir)
	}
	missing := &npmcache.Set{Folder: "unused", Env: "NPMCACHE_TEST_DIR", Packages: []string{"y@1.0.0"}, Installed: []string{"node_modules/y/package.json"}}
	if _, err := missing.Dir(); err == nil {
		t.Error("a folder without the package was taken for an installation")
	}
}
