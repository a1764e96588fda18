//go:build race

package main

// raceEnabled makes the end-to-end tests build the agent with the race
// detector when they run under it.
const raceEnabled = true
