package codex_test

import (
	"errors"
	"testing"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/google/go-cmp/cmp"
)

func TestParseResetTime(t *testing.T) {
	rfc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	// The zone of the machine the CLI ran on: UTC-5, where it is still
	// 2026-12-01 when it is already 2026-12-02 in UTC.
	ny := time.FixedZone("EST", -5*3600)
	now := rfc("2026-12-02T03:30:15Z") // 22:30:15 on Dec 1st in ny
	const limit = "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at "
	tests := []struct {
		name string
		text string
		loc  *time.Location
		want string // RFC 3339 in UTC; "" for an error
		why  string // the error's text
	}{
		{"clock time, machine's zone", limit + "11:45 PM.", ny, "2026-12-02T04:45:00Z", ""},
		{"clock time, UTC", limit + "11:45 PM.", nil, "2026-12-02T23:45:00Z", ""},
		{"clock time already past stays on the day", limit + "2:00 PM.", ny, "2026-12-01T19:00:00Z", ""},
		{"noon and midnight", "Try again at 12:05 AM", ny, "2026-12-01T05:05:00Z", ""},
		{"noon", "try again at 12:00 pm.", ny, "2026-12-01T17:00:00Z", ""},
		{"24-hour clock", "try again at 23:10.", ny, "2026-12-02T04:10:00Z", ""},
		{"date and year", limit + "Dec 5th, 2026 2:00 PM.", ny, "2026-12-05T19:00:00Z", ""},
		{"capitalised, other suffixes", "You've hit your usage limit. Try again at Jan 1st, 2027 9:05 AM.", ny, "2027-01-01T14:05:00Z", ""},
		{"2nd, then text", "try again at Mar 2nd, 2027 1:00 AM and then Mar 3rd", ny, "2027-03-02T06:00:00Z", ""},
		{"3rd", "try again at Mar 3rd, 2027 1:00 AM", ny, "2027-03-03T06:00:00Z", ""},
		{"22nd", "try again at Feb 22nd, 2027 1:00 AM", nil, "2027-02-22T01:00:00Z", ""},
		{"date without a year", "try again at Jan 3rd 1:00 AM", nil, "2027-01-03T01:00:00Z", ""},
		{"Feb 29 without a year", "try again at Feb 29th 1:00 AM", nil, "2028-02-29T01:00:00Z", ""},
		{"Feb 30", "try again at Feb 30th, 2027 1:00 AM", nil, "", "codex: limit without a reset time: no such date"},
		{"day 32", "try again at Feb 32nd, 2027 1:00 AM", nil, "", "codex: limit without a reset time: no such date"},
		{"month without a day", "try again at May, 2027", nil, "", "codex: limit without a reset time: a month without a day"},
		{"hour 13 PM", "try again at 13:00 PM", nil, "", "codex: limit without a reset time: \"try again at\" is not followed by a clock time"},
		{"minute 60", "try again at 1:60 PM", nil, "", "codex: limit without a reset time: \"try again at\" is not followed by a clock time"},
		{"the last phrase counts", "try again at 1:00 AM, or rather try again at 3:00 AM", nil, "2026-12-02T03:00:00Z", ""},
		{"duration", "Rate limit reached for gpt-5.1-codex. Please try again in 11.054s. Visit https://platform.openai.com/account/rate-limits", nil, "2026-12-02T03:30:26.054Z", ""},
		{"duration in minutes", "please try again in 1m30s", nil, "2026-12-02T03:31:45Z", ""},
		{"duration in words", "please try again in a few minutes", nil, "", "codex: limit without a reset time: \"try again in\" is not followed by a duration"},
		{"negative duration", "please try again in -5s", nil, "", "codex: limit without a reset time: \"try again in\" is not followed by a duration"},
		{"later", "You've hit your usage limit. Try again later.", nil, "", "codex: limit without a reset time"},
		{"429 without a time", "unexpected status 429 Too Many Requests", nil, "", "codex: limit without a reset time"},
		{"quota", "Quota exceeded for the day", nil, "", "codex: limit without a reset time"},
		{"not a limit", "unexpected status 401 Unauthorized", nil, "", "codex: no usage or rate limit in the text"},
		{"empty", "", nil, "", "codex: no usage or rate limit in the text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := now.UTC()
			if tt.loc != nil {
				at = now.In(tt.loc)
			}
			ms, err := codex.ParseResetTime(tt.text, at, nil)
			got, why := "", ""
			if err == nil {
				got = time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
			} else {
				why = err.Error()
				if errors.Is(err, codex.ErrNoResetTime) == errors.Is(err, codex.ErrNotLimit) || ms != 0 {
					t.Errorf("error %v, ms %d: want ErrNoResetTime or ErrNotLimit, and 0", err, ms)
				}
			}
			if diff := cmp.Diff([]string{tt.want, tt.why}, []string{got, why}); diff != "" {
				t.Errorf("ParseResetTime(%q) [time error] mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}
