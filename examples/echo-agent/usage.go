package main

import (
	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/acpkit/acpkit/usage"
)

// addTurn adds a finished turn to the session's usage, counting the words
// received (input) and echoed (output) as tokens, and returns the usage
// updates to send: the standard usage_update, and goose's, which also names
// the session's model and carries the session's totals. Call with the
// agent's mu held.
func (s *session) addTurn(input, output int) (acp.UsageUpdate, goose.UsageUpdate) {
	s.usage.Add(usage.Report{
		Input:         usage.CountOf(uint64(input)),
		Output:        usage.CountOf(uint64(output)),
		Model:         s.model,
		ContextWindow: usage.CountOf(contextWindow),
	})
	snap := s.usage.Snapshot()
	// Both figures ACPUpdate needs are in every report, so its ok is
	// always true here.
	std, _ := snap.ACPUpdate()
	return std, goose.NewUsageUpdate(snap)
}
