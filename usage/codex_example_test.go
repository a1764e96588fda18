package usage_test

import (
	"fmt"

	"github.com/acpkit/acpkit/usage"
)

// Codex reports the thread's running totals at the end of every turn; a
// turn's own usage is the difference from the totals the turn before left.
func ExampleCodexUsage_Since() {
	// The "usage" of turn.completed after the first turn and after the
	// second, which ran in a new process resuming the thread.
	first, _ := usage.ParseCodexUsage([]byte(`{"input_tokens":9160,"cached_input_tokens":6848,"cache_write_input_tokens":0,"output_tokens":26,"reasoning_output_tokens":0}`))
	second, _ := usage.ParseCodexUsage([]byte(`{"input_tokens":18411,"cached_input_tokens":13760,"cache_write_input_tokens":0,"output_tokens":52,"reasoning_output_tokens":0}`))

	turn1 := first.Report() // a new thread: its totals are the first turn's
	turn2 := second.Since(first).Report()
	lost := second.Since(usage.CodexUsage{}).Report() // the first turn's totals were not kept
	fmt.Println("turn 1:", turn1.Input, turn1.CacheRead, turn1.Output)
	fmt.Println("turn 2:", turn2.Input, turn2.CacheRead, turn2.Output)
	fmt.Println("turn 2 without a baseline:", lost.Input, lost.Output)
	// Output:
	// turn 1: 9160 6848 26
	// turn 2: 9251 6912 26
	// turn 2 without a baseline: absent absent
}
