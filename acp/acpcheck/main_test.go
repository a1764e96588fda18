package acpcheck_test

import (
	"testing"

	"github.com/acpkit/acpkit/internal/fakebin"
)

// The programs TestMain builds once for the whole test binary: the agents
// the suite must pass, and the fake CLIs behind claude-acp. They are
// built without -race: the agents are not what these tests check.
var echoAgent, claudeACP, fakeclaude, fakecodex, fakegemini string

func TestMain(m *testing.M) {
	fakebin.MainPrograms(m, map[string]*string{
		"../../examples/echo-agent": &echoAgent,
		"../../examples/claude-acp": &claudeACP,
		"../../examples/fakeclaude": &fakeclaude,
		"../../examples/fakecodex":  &fakecodex,
		"../../examples/fakegemini": &fakegemini,
	})
}
