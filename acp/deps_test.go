package acp_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestDependencies checks that acp, the wire, imports nothing of the
// module but its internal packages, however deep: a program that speaks
// ACP compiles no CLI parser.
func TestDependencies(t *testing.T) {
	const module = "github.com/acpkit/acpkit/"
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if !strings.HasPrefix(rel, "internal/") {
				t.Errorf("%s imports %s", path, imp)
				continue
			}
			walk(imp, filepath.Join("..", filepath.FromSlash(rel)))
		}
	}
	walk(module+"acp", ".")
}
