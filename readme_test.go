package acpkit_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeSample keeps the README's code sample identical to
// examples/minimal-agent, which CI builds and tests, so it cannot rot.
func TestReadmeSample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	sample, err := os.ReadFile("examples/minimal-agent/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(sample)+"```\n") {
		t.Error("README.md's Go sample differs from examples/minimal-agent/main.go; copy the file into the README")
	}
}

// TestReadmeTestCommand keeps CI running the test command the README gives.
func TestReadmeTestCommand(t *testing.T) {
	const command = "go test -race ./..."
	for _, name := range []string{"README.md", ".ci/run"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), command) {
			t.Errorf("%s does not contain %q", name, command)
		}
	}
}

// TestReadmeEditorSetup keeps the README's two steps to an editor true:
// the go install path is claude-acp's package, and the Zed settings are
// JSON that runs it with each CLI it serves.
func TestReadmeEditorSetup(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	const install = "go install github.com/acpkit/acpkit/examples/claude-acp@latest"
	if !strings.Contains(readme, install) {
		t.Errorf("README.md does not say %q", install)
	}
	if _, err := os.Stat("examples/claude-acp/main.go"); err != nil {
		t.Errorf("the package README.md installs: %v", err)
	}
	_, block, ok := strings.Cut(readme, "```json\n{\n  \"agent_servers\"")
	block, _, _ = strings.Cut(block, "```\n")
	var settings struct {
		AgentServers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"agent_servers"`
	}
	if !ok || json.Unmarshal([]byte("{\n  \"agent_servers\""+block), &settings) != nil {
		t.Fatal("README.md has no Zed agent_servers settings that parse as JSON")
	}
	clis := map[string]bool{}
	for name, s := range settings.AgentServers {
		if s.Type != "custom" || s.Command != "claude-acp" {
			t.Errorf("the agent server %q runs %q (type %q), want claude-acp (custom)", name, s.Command, s.Type)
		}
		cli := "claude"
		if len(s.Args) == 2 && s.Args[0] == "-cli" {
			cli = s.Args[1]
		} else if len(s.Args) != 0 {
			t.Errorf("the agent server %q takes %q, want no arguments or -cli", name, s.Args)
		}
		clis[cli] = true
	}
	if !clis["claude"] || !clis["codex"] || !clis["gemini"] {
		t.Errorf("the Zed settings serve %v, want claude, codex and gemini", clis)
	}
}

// TestExamplesImportNothingInternal keeps the programs under examples/
// copyable, as the README says: none imports an internal package. Their
// tests may.
func TestExamplesImportNothingInternal(t *testing.T) {
	files, err := filepath.Glob("examples/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.Contains("/"+path+"/", "/internal/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
	if checked == 0 {
		t.Error("no program found under examples/")
	}
}
