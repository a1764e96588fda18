// Package tssdk gives the interop tests the official TypeScript SDK,
// @agentclientprotocol/sdk 2.4.0, the real peer of ACP v1 and v2: it
// installs it with npm at test time, once, into the user's cache
// directory (never into the repository), and runs a test's node scripts
// beside it. Only tests import it.
//
// A machine without node, or whose npm cannot reach the registry, skips
// the interop tests, or fails them under ACPKIT_REQUIRE_INTEROP=1 (see
// package interop).
package tssdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/testwait"
)

// Version is the SDK's version, whose schemas acp/schema and
// acp/acpv2/schema hold.
const Version = "2.4.0"

// packages are the SDK and what the scripts import beside it, pinned.
var packages = []string{"@agentclientprotocol/sdk@" + Version, "zod@3.25.76", "ws@8.23.0"}

// installLimit bounds an npm install, which on a machine whose network
// drops packets would otherwise retry for many minutes.
const installLimit = 3 * time.Minute

var (
	once   sync.Once
	prefix string
	err    error
)

// Dir returns the npm prefix holding the SDK's node_modules, installing
// it the first time: into $ACPKIT_TS_SDK_DIR when set, else under the
// user's cache directory. When node is not installed or the install
// fails, it ends the test with [interop.Unavailable].
func Dir(t testing.TB) string {
	t.Helper()
	once.Do(func() { prefix, err = install() })
	if err != nil {
		interop.Unavailable(t, "the TypeScript SDK "+Version+" (it needs node, and the npm registry the first time)", err)
	}
	return prefix
}

// Package returns the directory of the SDK's own package, for a script
// that loads its files by path.
func Package(t testing.TB) string {
	return filepath.Join(Dir(t), "node_modules", "@agentclientprotocol", "sdk")
}

// Command returns a command that runs the node script at path (relative
// to the test's package directory) with args, killed when the test ends,
// or failing the test after testwait.Limit (see [testwait.Command]).
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
	cmd := testwait.Command(t, "node", append([]string{name}, args...)...)
	cmd.Dir = dir
	return cmd
}

// install installs the packages unless they are, and returns the prefix.
// Test binaries of several packages may install at once: each installs
// into a directory of its own and renames it into place, and the first
// rename wins.
func install() (string, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("node is not installed")
	}
	dir := os.Getenv("ACPKIT_TS_SDK_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "acpkit", "ts-sdk-"+Version)
	}
	if installed(dir) {
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
	ctx, cancel := context.WithTimeout(context.Background(), installLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--fetch-retries=1", "--prefix", tmp}, packages...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v\n%s", err, tail(out, 5))
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(dir) {
		// dir exists but is not an installation: an older layout.
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", err
		}
	}
	if !installed(dir) {
		return "", fmt.Errorf("npm installed no SDK %s into %s", Version, dir)
	}
	return dir, nil
}

// installed reports whether dir holds every package.
func installed(dir string) bool {
	for _, p := range []string{"@agentclientprotocol/sdk", "zod", "ws"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			return false
		}
	}
	return true
}

// tail returns the last n lines of out, where npm says what went wrong.
func tail(out []byte, n int) []byte {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return bytes.Join(lines[max(0, len(lines)-n):], []byte("\n"))
}
