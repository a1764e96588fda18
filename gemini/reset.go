package gemini

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/acpkit/acpkit/timeparse"
)

// Reasons [ParseResetTime] finds no reset time, for errors.Is.
var (
	// ErrNotLimit: the text reports no rate or usage limit.
	ErrNotLimit = errors.New("gemini: no rate or usage limit in text")
	// ErrNoResetTime: the text reports a limit but gives no usable time
	// to retry at, as for a daily quota.
	ErrNoResetTime = errors.New("gemini: limit without a reset time")
)

// retryHints introduce a retry delay in the texts of a rate-limited
// request: the CLI's own, read from the API's RetryInfo, and the API's.
var retryHints = [...]string{"Suggested retry after ", "Please retry in "}

// limitWords mark a text as reporting a rate or usage limit.
var limitWords = [...]string{"429", "quota", "rate limit", "rate-limit", "resource_exhausted", "too many requests"}

// lastMillis is the last instant whose epoch milliseconds fit in an int64.
var lastMillis = time.UnixMilli(math.MaxInt64)

// ParseResetTime reads when a rate-limited request may be retried out of
// the text the CLI gives for it (an [APIError]'s Message, a [Result]'s
// ErrorMessage, or a line of its standard error), and returns that time in
// Unix epoch milliseconds: now plus the delay the text names. It knows
// these wordings, and takes the latest time when a text holds several:
//
//	Suggested retry after 3s.
//	Please retry in 3.123456789s.
//	Please retry in 560ms.
//	      'Please retry in 13h42m7.5s.',
//
// The last is a line of the dump on the CLI's standard error, the only
// place a daily quota's delay appears. A delay is a positive Go duration
// ("3s", "1.5s", "500ms", "1m30s", "13h42m7.5s"), read up to the first
// character that cannot continue it: a quote, comma or period after it
// does not matter, a letter or digit makes it no delay ("3months").
// Without one, the error is [ErrNoResetTime] when the text reports a limit
// (a quota, HTTP 429, RESOURCE_EXHAUSTED: a daily quota gives no time) and
// [ErrNotLimit] otherwise; ms is then 0. now is the time the text was
// read: the delays count from it. Unlike the Claude CLI's, these texts give
// delays, never clock times, so zones is not used; the parameter is the one
// package claude's and package codex's ParseResetTime take.
func ParseResetTime(text string, now time.Time, zones timeparse.ZoneResolver) (ms int64, err error) {
	var longest time.Duration
	found := false
	for _, hint := range retryHints {
		for rest := text; ; {
			i := strings.Index(rest, hint)
			if i < 0 {
				break
			}
			rest = rest[i+len(hint):]
			if d, ok := delay(rest); ok {
				longest, found = max(longest, d), true
			}
		}
	}
	if !found {
		if isLimit(text) {
			return 0, ErrNoResetTime
		}
		return 0, ErrNotLimit
	}
	at := now.Add(longest)
	if at.Before(now) || at.After(lastMillis) || at.UnixMilli() <= 0 {
		return 0, fmt.Errorf("%w: %v after %v is out of range", ErrNoResetTime, longest, now)
	}
	return at.UnixMilli(), nil
}

// delay reads the duration that starts s, up to the first byte that
// cannot continue it, so that what closes it does not matter: white space,
// a sentence's '.', a quote, a comma, a ']' ("3s.]", "13h42m7.5s.',"). A
// letter or digit there is part of another word ("3months"), and no
// duration is read.
func delay(s string) (time.Duration, bool) {
	n := durationLen(s)
	if n == 0 || n < len(s) && isWordByte(s[n]) {
		return 0, false
	}
	d, err := time.ParseDuration(s[:n])
	if err != nil || d <= 0 {
		return 0, false
	}
	return d, true
}

// durationUnits are the units of time.ParseDuration, a unit before any
// that is a prefix of it.
var durationUnits = [...]string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"}

// durationLen returns the length of the unsigned Go duration that starts
// s ("1h2m3.5s"): one or more numbers, each with an optional fraction and
// a unit; 0 when s starts with none.
func durationLen(s string) int {
	n := 0
	for {
		i := n
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == n {
			return n
		}
		if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
			for i++; i < len(s) && isDigit(s[i]); i++ {
			}
		}
		unit := ""
		for _, u := range durationUnits {
			if strings.HasPrefix(s[i:], u) {
				unit = u
				break
			}
		}
		if unit == "" {
			return n
		}
		n = i + len(unit)
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isWordByte reports whether c is an ASCII letter or digit.
func isWordByte(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' }

// isLimit reports whether text names a rate or usage limit, in any ASCII
// case.
func isLimit(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range limitWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
