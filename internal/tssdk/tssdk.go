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
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/npmcache"
	"github.com/acpkit/acpkit/internal/testwait"
)

// Version is the SDK's version, whose schemas acp/schema and
// acp/acpv2/schema hold.
const Version = "2.4.0"

// sdk is the SDK and what the scripts import beside it, pinned.
var sdk = npmcache.Set{
	Folder:    "ts-sdk-" + Version,
	Env:       "ACPKIT_TS_SDK_DIR",
	Packages:  []string{"@agentclientprotocol/sdk@" + Version, "zod@3.25.76", "ws@8.23.0"},
	Installed: []string{"node_modules/@agentclientprotocol/sdk/package.json", "node_modules/zod/package.json", "node_modules/ws/package.json"},
}

// Dir returns the npm prefix holding the SDK's node_modules, installing
// it the first time: into $ACPKIT_TS_SDK_DIR when set, else under the
// user's cache directory. When node is not installed or the install
// fails, it ends the test with [interop.Unavailable].
func Dir(t testing.TB) string {
	t.Helper()
	const what = "the TypeScript SDK " + Version + " (it needs node, and the npm registry the first time)"
	if _, err := exec.LookPath("node"); err != nil {
		interop.Unavailable(t, what, err)
	}
	prefix, err := sdk.Dir()
	if err != nil {
		interop.Unavailable(t, what, err)
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
