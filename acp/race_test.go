//go:build race

package acp_test

// raceEnabled is true under the race detector, whose instrumentation and
// randomly emptied sync.Pools make allocation counts meaningless.
const raceEnabled = true
