package claude_test

import (
	"errors"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// fixedZones resolves a few IANA names to fixed offsets, so tests never
// read the machine's zone database.
func fixedZones(name string) (*time.Location, error) {
	offsets := map[string]int{
		"America/New_York": -4 * 3600,
		"Asia/Calcutta":    5*3600 + 1800,
		"Asia/Riyadh":      3 * 3600,
		"Europe/Paris":     2 * 3600,
		"UTC":              0,
	}
	off, ok := offsets[name]
	if !ok {
		return nil, errors.New("unknown zone")
	}
	return time.FixedZone(name, off), nil
}

func TestParseResetTime(t *testing.T) {
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	// 2026-05-12 14:20:30 UTC, a Tuesday.
	now := utc("2026-05-12T14:20:30Z")
	tokyo := now.In(time.FixedZone("JST", 9*3600)) // 23:20:30 local
	// Already 2027 in Tokyo, still 2026 in UTC.
	newYearTokyo := utc("2026-12-31T22:00:00Z").In(time.FixedZone("JST", 9*3600))
	tests := []struct {
		name string
		text string
		now  time.Time
		want string // RFC 3339 in UTC; "none" for ErrNoResetTime, "no limit" for ErrNotLimit; "zone Z: why" for a ZoneError
	}{
		{"pipe seconds", "Claude AI usage limit reached|1778598000", now, "2026-05-12T15:00:00Z"},
		{"pipe milliseconds", "Claude AI usage limit reached|1778598000123", now, "2026-05-12T15:00:00.123Z"},
		{"pipe zero", "Claude AI usage limit reached|0", now, "none"},
		{"pipe empty", "Claude AI usage limit reached|", now, "none"},
		{"pipe junk", "Claude AI usage limit reached|12ab", now, "none"},
		{"pipe with newline", "Claude AI usage limit reached|1778598000\n", now, "2026-05-12T15:00:00Z"},
		{"later today, now's zone", "5-hour limit reached ∙ resets 3pm", now, "2026-05-12T15:00:00Z"},
		{"earlier means tomorrow", "5-hour limit reached ∙ resets 3am", now, "2026-05-13T03:00:00Z"},
		{"session limit", "Session limit reached ∙ resets 3pm", now, "2026-05-12T15:00:00Z"},
		{"now's own zone", "Session limit reached ∙ resets 3am", tokyo, "2026-05-12T18:00:00Z"},
		{"named zone", "You've hit your limit · resets 8pm (America/New_York)", now, "2026-05-13T00:00:00Z"},
		{"half hour zone and minutes", "You've hit your session limit · resets 5:30am (Asia/Calcutta)", now, "2026-05-13T00:00:00Z"},
		{"date", "You've hit your limit · resets Apr 17, 7pm (Asia/Riyadh)", now, "2027-04-17T16:00:00Z"},
		{"date later this year", "You've hit your limit · resets May 20, 7pm (Asia/Riyadh)", now, "2026-05-20T16:00:00Z"},
		{"full month name", "You've hit your limit · resets September 3, 12am (UTC)", now, "2026-09-03T00:00:00Z"},
		{"trailing words", "You've hit your 5-hour limit · resets 5pm (Europe/Paris) · progress saved", now, "2026-05-12T15:00:00Z"},
		{"UTC", "You've hit your limit · resets 2pm (UTC)", now, "2026-05-13T14:00:00Z"},
		{"same minute is now", "You've hit your limit · resets 2:20pm (UTC)", now, "2026-05-12T14:20:30Z"},
		{"minute before is tomorrow", "You've hit your limit · resets 2:19pm (UTC)", now, "2026-05-13T14:19:00Z"},
		{"exactly now", "You've hit your limit · resets 2:20pm (UTC)", utc("2026-05-12T14:20:00Z"), "2026-05-12T14:20:00Z"},
		{"date and time of now", "You've hit your limit · resets May 12, 2:20pm (UTC)", now, "2026-05-12T14:20:30Z"},
		{"today's date, earlier hour, is next year", "You've hit your limit · resets May 12, 1pm (UTC)", now, "2027-05-12T13:00:00Z"},
		{"today's date, later hour", "You've hit your limit · resets May 12, 11pm (UTC)", now, "2026-05-12T23:00:00Z"},
		{"year in the zone, not in now's", "You've hit your limit · resets Dec 31, 11pm (UTC)", newYearTokyo, "2026-12-31T23:00:00Z"},
		{"12am", "limit reached ∙ resets 12am", now, "2026-05-13T00:00:00Z"},
		{"12pm", "limit reached ∙ resets 12pm", now, "2026-05-13T12:00:00Z"},
		{"24-hour clock", "limit reached · resets 16:45", now, "2026-05-12T16:45:00Z"},
		{"unknown zone", "You've hit your limit · resets 8pm (Mars/Olympus)", now, "zone Mars/Olympus: unknown zone"},
		{"no limit wording", "The cache resets 3pm", now, "no limit"},
		{"no time", "You've hit your limit", now, "none"},
		{"13pm", "limit reached ∙ resets 13pm", now, "none"},
		{"0am", "limit reached ∙ resets 0am", now, "none"},
		{"bare hour", "limit reached ∙ resets 3", now, "none"},
		{"minutes out of range", "limit reached ∙ resets 3:75pm", now, "none"},
		{"glued word", "limit reached ∙ resets 3amazing", now, "none"},
		{"Feb 30", "limit reached ∙ resets Feb 30, 1pm", now, "none"},
		{"Feb 29 goes to a leap year", "limit reached ∙ resets Feb 29, 1pm (UTC)", now, "2028-02-29T13:00:00Z"},
		{"empty", "", now, "no limit"},
		{"a word holding limit", "The file uses a tab delimiter.", now, "no limit"},
		{"a word starting with limit", "Unlimited retries exhausted", now, "no limit"},
		{"limit as another word", "The limit of the list is 10; it resets 3pm", now, "no limit"},
		{"reached a limit in other words", "Rate limit reached for requests", now, "none"},
		{"hit a named limit", "You've hit your weekly Opus limit", now, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := claude.ParseResetTime(tt.text, tt.now, fixedZones)
			if diff := cmp.Diff(tt.want, describeReset(ms, err)); diff != "" {
				t.Errorf("ParseResetTime(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// describeReset describes what ParseResetTime returned as TestParseResetTime
// states it.
func describeReset(ms int64, err error) string {
	var ze *claude.ZoneError
	switch {
	case err == nil:
		return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
	case ms != 0:
		return "ms with an error"
	case errors.Is(err, claude.ErrNoResetTime):
		return "none"
	case errors.Is(err, claude.ErrNotLimit):
		return "no limit"
	case errors.As(err, &ze) && ze.Err != nil:
		return "zone " + ze.Zone + ": " + ze.Err.Error()
	case errors.As(err, &ze):
		return "zone " + ze.Zone
	}
	return "error " + err.Error()
}

func TestParseResetTimeNilZones(t *testing.T) {
	now := time.Date(2026, 5, 12, 14, 0, 0, 0, time.UTC)
	var got []string
	for _, text := range []string{
		"You've hit your limit · resets 8pm (UTC)",
		"You've hit your limit · resets 8pm (America/New_York)",
		"You've hit your limit · resets 8pm",
		"You've hit your limit",
	} {
		got = append(got, describeReset(claude.ParseResetTime(text, now, nil)))
	}
	want := []string{"2026-05-12T20:00:00Z", "zone America/New_York", "2026-05-12T20:00:00Z", "none"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with nil zones (-want +got):\n%s", diff)
	}
}

func TestRateLimitInfoResetKeys(t *testing.T) {
	tests := []struct {
		name string
		info string
		want int64
	}{
		{"seconds", `{"resetsAt":1778598000}`, 1778598000000},
		{"milliseconds", `{"resetsAt":1778598000123}`, 1778598000123},
		{"float seconds", `{"resetsAt":1778598000.25}`, 1778598000250},
		{"string seconds", `{"resetsAt":"1778598000"}`, 1778598000000},
		{"RFC 3339", `{"resetsAt":"2026-05-12T17:00:00+02:00"}`, 1778598000000},
		{"zero is unknown", `{"resetsAt":0}`, 0},
		{"negative is unknown", `{"resetsAt":-5}`, 0},
		{"huge is unknown", `{"resetsAt":1e400}`, 0},
		{"beyond int64 is unknown", `{"resetsAt":99999999999999999999}`, 0},
		{"bad text is unknown", `{"resetsAt":"tomorrow"}`, 0},
		{"bool is unknown", `{"resetsAt":true}`, 0},
		{"snake case", `{"resets_at":1778598000}`, 1778598000000},
		{"reset_at", `{"reset_at":1778598000}`, 1778598000000},
		{"resetAt", `{"resetAt":1778598000}`, 1778598000000},
		{"reset", `{"reset":1778598000}`, 1778598000000},
		{"order of keys, not of the object", `{"reset":1,"resetsAt":1778598000}`, 1778598000000},
		{"null decides", `{"resetsAt":null,"resets_at":1778598000}`, 0},
		{"unusable decides", `{"resets_at":"soon","reset":1778598000}`, 0},
		{"zero decides", `{"resetsAt":0,"reset":1778598000}`, 0},
		{"duplicate keeps the last", `{"resetsAt":1,"resetsAt":1778598000}`, 1778598000000},
		{"duplicate keeps the last, even unusable", `{"resetsAt":1778598000,"resetsAt":null,"reset":1778598000}`, 0},
		{"none", `{"status":"allowed"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"type":"rate_limit_event","rate_limit_info":` + tt.info + `}`
			events, _, err := claude.ParseLine([]byte(line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 1 {
				t.Fatalf("got %d events, want 1", len(events))
			}
			rl := events[0].(claude.RateLimit)
			if diff := cmp.Diff(tt.want, rl.ResetsAt); diff != "" {
				t.Errorf("ResetsAt mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
