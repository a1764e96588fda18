// Package realcodex gives the interop tests the real OpenAI Codex CLI: it
// installs @openai/codex of a release with npm, once, into the user's cache
// directory (never into the repository), and runs the mock of the OpenAI
// API the captures were made against (codex/testdata/appserver/
// mock-openai.mjs) on loopback, with a home folder whose configuration
// points the CLI at it. Only tests import it.
//
// A machine without node, or whose npm cannot reach the registry, skips
// the interop tests, or fails them under ACPKIT_REQUIRE_INTEROP=1 (see
// package interop).
package realcodex

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/npmcache"
)

// KeyEnv names the environment variable the CLI reads the mock's API key
// from, as Home configures it; any value does.
const KeyEnv = "MOCK_OPENAI_API_KEY"

var (
	mu   sync.Mutex
	sets = map[string]*npmcache.Set{} // by release
)

// Binary returns the path of the Codex CLI of release version ("0.171.0"),
// installing it the first time: into $ACPKIT_CODEX_DIR when set, else
// under the user's cache directory. When node is not installed or the
// install fails, it ends the test with [interop.Unavailable].
func Binary(tb testing.TB, version string) string {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		interop.Unavailable(tb, "the Codex CLI (its launcher needs node)", err)
	}
	mu.Lock()
	set := sets[version]
	if set == nil {
		set = &npmcache.Set{
			Folder:    "codex-" + version,
			Env:       "ACPKIT_CODEX_DIR",
			Packages:  []string{"@openai/codex@" + version},
			Installed: []string{"node_modules/@openai/codex/package.json", "node_modules/.bin/codex"},
		}
		sets[version] = set
	}
	mu.Unlock()
	dir, err := set.Dir()
	if err != nil {
		interop.Unavailable(tb, "the Codex CLI "+version, err)
	}
	return filepath.Join(dir, "node_modules", ".bin", "codex")
}

// StartMock starts the mock of the OpenAI API, the node script at script,
// on a free port of loopback, with env added to its environment
// ("MOCK_DELAY_MS=20"), and returns the port; it is stopped when the test
// ends.
func StartMock(tb testing.TB, script string, env ...string) string {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		interop.Unavailable(tb, "the mock OpenAI API (it needs node)", err)
	}
	mock := exec.Command("node", script)
	mock.Env = append(append(os.Environ(), "MOCK_PORT=0"), env...)
	out, err := mock.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := mock.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		mock.Process.Kill()
		mock.Wait()
	})
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		tb.Fatalf("the mock said nothing: %v", lines.Err())
	}
	_, addr, ok := strings.Cut(lines.Text(), "listening on 127.0.0.1:")
	if !ok {
		tb.Fatalf("the mock said %q", lines.Text())
	}
	port, _, _ := strings.Cut(addr, " ")
	go io.Copy(io.Discard, out) // the mock must never block on a full pipe
	return port
}

// Home returns a new home folder whose .codex/config.toml points the CLI
// at the mock on port, with the model the captures used; the CLI then
// needs CODEX_HOME set to that .codex folder, and KeyEnv set.
func Home(tb testing.TB, port string) string {
	tb.Helper()
	home := tb.TempDir()
	codexHome := filepath.Join(home, ".codex")
	config := `model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "Mock OpenAI"
base_url = "http://127.0.0.1:` + port + `/v1"
wire_api = "responses"
env_key = "` + KeyEnv + `"
`
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	return home
}
