//go:build race

package acphttp_test

// raceEnabled is true under the race detector, whose instrumentation
// makes memory figures meaningless and caps a process at 8128 goroutines.
const raceEnabled = true
