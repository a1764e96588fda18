//go:build !race

package acphttp_test

const raceEnabled = false
