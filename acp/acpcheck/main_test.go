package acpcheck_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The programs TestMain builds once for the whole test binary: the agents
// the suite must pass, and the fake CLIs behind claude-acp.
var echoAgent, claudeACP, fakeclaude, fakecodex, fakegemini string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "acpcheck-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// One go build for all of them: it builds them in parallel, and the
	// agents are not what these tests check, so no -race.
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"../../examples/echo-agent", "../../examples/claude-acp",
		"../../examples/fakeclaude", "../../examples/fakecodex", "../../examples/fakegemini")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the agents: %v\n%s", err, out)
		return 1
	}
	bin := func(name string) string { return filepath.Join(dir, name) }
	echoAgent, claudeACP = bin("echo-agent"), bin("claude-acp")
	fakeclaude, fakecodex, fakegemini = bin("fakeclaude"), bin("fakecodex"), bin("fakegemini")
	return m.Run()
}
