package gemini_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
)

func TestParseResetTime(t *testing.T) {
	now := time.Date(2026, 12, 1, 11, 59, 14, 669_000_000, time.FixedZone("X", 3600))
	at := func(d time.Duration) int64 { return now.Add(d).UnixMilli() }
	tests := []struct {
		name string
		text string
		ms   int64
		err  error
	}{
		{"suggested", "Quota exceeded.\nSuggested retry after 3s.", at(3 * time.Second), nil},
		{"the longest hint wins", "Please retry in 3.123456789s.\nSuggested retry after 3s.]", at(3123456789 * time.Nanosecond), nil},
		{"milliseconds", "Please retry in 560ms.", at(560 * time.Millisecond), nil},
		{"minutes", "Suggested retry after 1m30s", at(90 * time.Second), nil},
		{"stderr's double dot", "Suggested retry after 3s.. Retrying after 5756ms...", at(3 * time.Second), nil},
		{"a hint that does not parse is skipped", "Please retry in soon. Suggested retry after 2s.", at(2 * time.Second), nil},
		// A daily quota's delay is only in a quoted line of the stderr dump.
		{"quoted dump line", "      'Please retry in 13h42m7.5s.',", at(13*time.Hour + 42*time.Minute + 7500*time.Millisecond), nil},
		{"quoted dump line, nanoseconds", "      'Please retry in 3.123456789s.',", at(3123456789 * time.Nanosecond), nil},
		{"quoted dump line, last of a message", "    message: 'You exceeded your current quota.\\n' +\n      'Please retry in 13h42m7.5s.',\n    details: [ [Object] ]",
			at(13*time.Hour + 42*time.Minute + 7500*time.Millisecond), nil},
		{"double quotes", `"Please retry in 2m5s."`, at(125 * time.Second), nil},
		{"closed by a comma", "Please retry in 45s, or later", at(45 * time.Second), nil},
		{"closed by a parenthesis", "(Please retry in 45s)", at(45 * time.Second), nil},
		{"closed by a semicolon", "Please retry in 45s;", at(45 * time.Second), nil},
		{"microseconds", "Please retry in 800µs.", at(800 * time.Microsecond), nil},
		{"a unit run into a word", "Please retry in 3months.", 0, gemini.ErrNotLimit},
		{"a number run into a word", "Please retry in 3s2x.", 0, gemini.ErrNotLimit},
		{"no unit", "Please retry in 3'.", 0, gemini.ErrNotLimit},
		{"no unit before the quote, a 429", "'Please retry in 3', code 429", 0, gemini.ErrNoResetTime},
		{"daily quota", "[API Error: You have exhausted your daily quota on this model.]", 0, gemini.ErrNoResetTime},
		{"429 without a time", `[API Error: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}]`, 0, gemini.ErrNoResetTime},
		{"zero delay", "Quota exceeded. Suggested retry after 0s.", 0, gemini.ErrNoResetTime},
		{"negative delay", "Please retry in -3s.", 0, gemini.ErrNotLimit},
		{"no number", "Suggested retry after s.", 0, gemini.ErrNotLimit},
		{"overflowing delay", "Suggested retry after 9999999999h.", 0, gemini.ErrNotLimit},
		{"not a limit", `[API Error: {"error":{"code":401,"message":"API key not valid."}}]`, 0, gemini.ErrNotLimit},
		{"empty", "", 0, gemini.ErrNotLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := gemini.ParseResetTime(tt.text, now, nil)
			if ms != tt.ms || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("ParseResetTime(%q) = %d, %v; want %d, %v", tt.text, ms, err, tt.ms, tt.err)
			}
		})
	}
	// Far in the future, the time no longer fits.
	far := time.Unix(1<<62, 0)
	if ms, err := gemini.ParseResetTime("Suggested retry after 2562047h.", far, nil); ms != 0 || !errors.Is(err, gemini.ErrNoResetTime) {
		t.Errorf("far future: %d, %v; want 0, ErrNoResetTime", ms, err)
	}
}

// TestParseResetTimeCapture reads the rate-limit capture's result message.
func TestParseResetTimeCapture(t *testing.T) {
	data, err := os.ReadFile("testdata/rate-limit-429.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	turn := gemini.NewTurn("")
	var apiErr gemini.APIError
	for e := range turn.Events(bytesReader(data)) {
		if e, ok := e.(gemini.APIError); ok {
			apiErr = e
		}
	}
	now := time.UnixMilli(1_796_126_354_669)
	ms, err := gemini.ParseResetTime(apiErr.Message, now, nil)
	// "Please retry in 3.123456789s." is the longest hint.
	if err != nil || ms != now.UnixMilli()+3123 {
		t.Errorf("ParseResetTime = %d, %v; want %d", ms, err, now.UnixMilli()+3123)
	}
}
