package gemini

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
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
//
// A delay is a positive Go duration ("3s", "1.5s", "500ms", "1m30s").
// Without one, the error is [ErrNoResetTime] when the text reports a limit
// (a quota, HTTP 429, RESOURCE_EXHAUSTED: a daily quota gives no time) and
// [ErrNotLimit] otherwise; ms is then 0. now is the time the text was
// read: the delays count from it. Unlike the Claude CLI's, these texts give
// delays, never clock times, so no time zone is needed to read them.
func ParseResetTime(text string, now time.Time) (ms int64, err error) {
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

// delay reads the duration that starts s, ended by white space, the end of
// s, or a '.' or ']' closing the sentence.
func delay(s string) (time.Duration, bool) {
	n := 0
	for n < len(s) && s[n] != ' ' && s[n] != '\n' && s[n] != '\t' && s[n] != '\r' && s[n] != ']' {
		n++
	}
	token := strings.TrimRight(s[:n], ".") // "3s." ends a sentence; stderr adds "3s.."
	if token == "" || token[0] < '0' || token[0] > '9' {
		return 0, false
	}
	d, err := time.ParseDuration(token)
	if err != nil || d <= 0 {
		return 0, false
	}
	return d, true
}

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
