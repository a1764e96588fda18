//go:build race

package main

// raceEnabled makes the tests build claude-acp and fakeclaude with the
// race detector when they run under it.
const raceEnabled = true
