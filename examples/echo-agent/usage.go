package main

import "github.com/acpkit/acpkit/acp"

// tokenCount is a session's usage so far, counting words as tokens.
type tokenCount struct {
	input, output uint64
}

// addTurn adds a finished turn of input words received and output words
// echoed, and returns the usage updates to send: the standard usage_update
// and goose's, which also names the session's model.
func (t *tokenCount) addTurn(input, output int, model string) (acp.UsageUpdate, acp.GooseUsageUpdate) {
	t.input += uint64(input)
	t.output += uint64(output)
	in, out := t.input, t.output
	used := in + out
	return acp.UsageUpdate{Used: used, Size: contextWindow},
		acp.GooseUsageUpdate{
			Used:                    used,
			ContextLimit:            contextWindow,
			Model:                   model,
			AccumulatedInputTokens:  &in,
			AccumulatedOutputTokens: &out,
		}
}
