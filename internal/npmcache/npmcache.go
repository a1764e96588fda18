// Package npmcache installs pinned npm packages for the tests that run
// real peers (the official TypeScript SDK, the Codex CLI): with npm, once,
// into a folder of the user's cache directory, never into the repository.
// Only tests, and the commands that refresh vendored files, import it.
package npmcache

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// installLimit bounds an npm install, which on a machine whose network
// drops packets would otherwise retry for many minutes.
const installLimit = 3 * time.Minute

// Set is a set of packages installed together, into one folder.
type Set struct {
	// Folder is the folder's name under the user's cache directory's
	// "acpkit" folder, such as "ts-sdk-2.4.0"; name the version in it, so
	// that a new version installs afresh.
	Folder string
	// Env names an environment variable that, when set, is the folder to
	// use instead; "" for none.
	Env string
	// Packages are what npm installs, each pinned: "name@version".
	Packages []string
	// Installed are the paths, relative to the folder, whose presence
	// shows the installation complete, such as
	// "node_modules/zod/package.json".
	Installed []string

	once sync.Once
	dir  string
	err  error
}

// Dir returns the folder holding the packages' node_modules, installing
// them the first time it is called in the process. Test binaries of
// several packages may install at once: each installs into a folder of its
// own and renames it into place, and the first rename wins.
func (s *Set) Dir() (string, error) {
	s.once.Do(func() { s.dir, s.err = s.install() })
	return s.dir, s.err
}

func (s *Set) install() (string, error) {
	dir := ""
	if s.Env != "" {
		dir = os.Getenv(s.Env)
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "acpkit", s.Folder)
	}
	if s.installed(dir) {
		return dir, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("npm is not installed: %w", err)
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
	cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--fetch-retries=1", "--prefix", tmp}, s.Packages...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v\n%s", err, tail(out, 5))
	}
	if err := os.Rename(tmp, dir); err != nil && !s.installed(dir) {
		// dir exists but is not an installation: an older layout.
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", err
		}
	}
	if !s.installed(dir) {
		return "", fmt.Errorf("npm installed no %v into %s", s.Packages, dir)
	}
	return dir, nil
}

// installed reports whether dir holds every package.
func (s *Set) installed(dir string) bool {
	for _, p := range s.Installed {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
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
