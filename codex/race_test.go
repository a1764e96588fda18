//go:build race

package codex_test

const raceEnabled = true
