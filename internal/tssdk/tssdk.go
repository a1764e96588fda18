// Package tssdk gives the interop tests the official TypeScript SDK,
// @agentclientprotocol/sdk 2.4.0, the real peer of ACP v1 and v2: it
// installs it with npm at test time, once, into the user's cache
// directory (never into the repository), and runs a test's node scripts
// beside it. Only tests import it.
package tssdk

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Version is the SDK's version, whose schemas acp/schema and
// acp/acpv2/schema hold.
const Version = "2.4.0"

// packages are the SDK and what the scripts import beside it, pinned.
var packages = []string{"@agentclientprotocol/sdk@" + Version, "zod@3.25.76", "ws@8.23.0"}

var (
	once   sync.Once
	prefix string
	err    error
)

// Dir returns the npm prefix holding the SDK's node_modules, installing
// it the first time: into $ACPKIT_TS_SDK_DIR when set, else under the
// user's cache directory. It skips the test when node is not installed,
// that and only that; a failure to install fails it.
func Dir(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	once.Do(func() { prefix, err = install(sdkDir(), packages) })
	if err != nil {
		t.Fatalf("installing the TypeScript SDK: %v", err)
	}
	return prefix
}

// Package returns the directory of the SDK's own package, for a script
// that loads its files by path.
func Package(t testing.TB) string {
	return filepath.Join(Dir(t), "node_modules", "@agentclientprotocol", "sdk")
}

// Command returns a command that runs the node script at path (relative
// to the test's package directory) with args, killed when the test ends.
// The script runs from a temporary directory of the test's, beside a
// link to the SDK's node_modules, so that its imports resolve and scripts
// of the same name in other packages, run at the same time, do not
// collide.
func Command(t testing.TB, script string, args ...string) *exec.Cmd {
	t.Helper()
	sdk := Dir(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(sdk, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, filepath.Base(script))
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", append([]string{name}, args...)...)
	cmd.Dir = dir
	return cmd
}

// sdkDir is where the SDK goes: $ACPKIT_TS_SDK_DIR when set, else the
// user's cache directory ("" when there is none).
func sdkDir() string {
	if dir := os.Getenv("ACPKIT_TS_SDK_DIR"); dir != "" {
		return dir
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "acpkit", "ts-sdk-"+Version)
}

// install installs pkgs into dir unless they are, and returns dir. Test
// binaries of several packages may install at once: each installs into a
// directory of its own and renames it into place, and the first rename
// wins.
func install(dir string, pkgs []string) (string, error) {
	if dir == "" {
		return "", errors.New("no user cache directory to install into")
	}
	if installed(dir, pkgs) {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(dir, pkgs) {
		// dir exists but is not an installation: an older layout.
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", err
		}
	}
	if !installed(dir, pkgs) {
		return "", fmt.Errorf("npm installed no %v into %s", pkgs, dir)
	}
	return dir, nil
}

// installed reports whether dir holds every package of pkgs (each
// name@version).
func installed(dir string, pkgs []string) bool {
	for _, p := range pkgs {
		name := p
		if i := strings.LastIndex(p, "@"); i > 0 {
			name = p[:i]
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", name, "package.json")); err != nil {
			return false
		}
	}
	return true
}

// Packages are npm packages a test installs together, such as an agent
// and what runs it: into acpkit/Name under the user's cache directory,
// once per test binary.
type Packages struct {
	// Name names their directory; it should change with List.
	Name string
	// List holds each package as name@version.
	List []string

	once sync.Once
	dir  string
	err  error
}

// Dir returns the npm prefix holding the packages, installing them the
// first time. It skips the test, saying why, when node or npm is missing
// or the install fails, unless ACPKIT_REQUIRE_INTEROP=1, which fails it
// instead.
func (p *Packages) Dir(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			Unavailable(t, "%s is not installed", tool)
		}
	}
	p.once.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			p.err = err
			return
		}
		p.dir, p.err = install(filepath.Join(cache, "acpkit", p.Name), p.List)
	})
	if p.err != nil {
		Unavailable(t, "installing %v: %v", p.List, p.err)
	}
	return p.dir
}

// Unavailable skips the test because a real peer it needs cannot be had,
// or fails it when ACPKIT_REQUIRE_INTEROP=1.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("ACPKIT_REQUIRE_INTEROP") == "1" {
		t.Fatalf("ACPKIT_REQUIRE_INTEROP=1: "+format, args...)
	}
	t.Skipf(format, args...)
}
