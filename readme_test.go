package acpkit_test

import (
	"os"
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
