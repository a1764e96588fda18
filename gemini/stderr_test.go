package gemini_test

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// TestStderrCapture reads the retries of the rate-limit capture's
// standard error: two retries, then the last attempt, which fails the run.
func TestStderrCapture(t *testing.T) {
	f, err := os.Open("testdata/rate-limit-429.stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s gemini.Stderr
	var got []gemini.Retry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r, ok := s.Feed(sc.Bytes()); ok {
			got = append(got, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	const message = "You exceeded your current quota, please check your plan and billing details. " +
		"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n" +
		"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-3.8-flash\n" +
		"Please retry in 3.123456789s.\n" +
		"Suggested retry after 3s."
	want := []gemini.Retry{
		{Attempt: 1, Delay: 5756 * time.Millisecond, Message: message},
		{Attempt: 2, Delay: 11193 * time.Millisecond, Message: message},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("retries mismatch (-want +got):\n%s", diff)
	}
}

func TestStderr(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  []gemini.Retry
	}{
		{"one line", "Attempt 3 failed: boom. Retrying after 10ms...\n",
			[]gemini.Retry{{Attempt: 3, Delay: 10 * time.Millisecond, Message: "boom"}}},
		{"an older wording, without a delay", "Attempt 1 failed with status 429. Retrying with backoff... ApiError: x\r\n",
			[]gemini.Retry{{Attempt: 1, Message: "with status 429"}}},
		{"a new report replaces an unfinished one", "Attempt 1 failed: a\nb\nAttempt 2 failed: c. Retrying after 1ms...\n",
			[]gemini.Retry{{Attempt: 2, Delay: time.Millisecond, Message: "c"}}},
		{"empty first line", "Attempt 1 failed:\nwhy. Retrying after 2ms...\n",
			[]gemini.Retry{{Attempt: 1, Delay: 2 * time.Millisecond, Message: "\nwhy"}}},
		{"lines outside a report", "Warning: TERM=dumb\n. Retrying after 5ms...\nAttempt 0 failed: x. Retrying after 1ms...\nAttempt x failed\n", nil},
		{"max attempts", "Attempt 1 failed: a. Max attempts reached\nthen. Retrying after 1ms...\n", nil},
		{"a delay that is not milliseconds", "Attempt 1 failed: a. Retrying after 5s...\n", []gemini.Retry{{Attempt: 1, Message: "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s gemini.Stderr
			var got []gemini.Retry
			for line := range strings.Lines(tt.lines) {
				if r, ok := s.Feed([]byte(line)); ok {
					got = append(got, r)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStderrBound checks that a runaway report keeps at most 64 KiB.
func TestStderrBound(t *testing.T) {
	var s gemini.Stderr
	s.Feed([]byte("Attempt 1 failed: " + strings.Repeat("x", 50<<10)))
	for range 3 {
		s.Feed([]byte(strings.Repeat("y", 50<<10)))
	}
	r, ok := s.Feed([]byte("end. Retrying after 1ms..."))
	if !ok || len(r.Message) != 64<<10 {
		t.Errorf("ok %v, message of %d bytes; want 65536", ok, len(r.Message))
	}
}
