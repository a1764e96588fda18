package codex

import (
	"errors"
	"strings"
	"time"

	"github.com/acpkit/acpkit/timeparse"
)

// Reasons [ParseResetTime] finds no reset time, for errors.Is.
var (
	// ErrNotLimit: the text reports no usage or rate limit.
	ErrNotLimit = errors.New("codex: no usage or rate limit in the text")
	// ErrNoResetTime: the text reports a limit but gives no time it can
	// read ("Try again later."); it is wrapped with the reason when the
	// time is there but cannot be read.
	ErrNoResetTime = errors.New("codex: limit without a reset time")
)

// limitWords mark a text, lowercased, as reporting a usage or rate limit.
var limitWords = [...]string{"usage limit", "rate limit", "429", "too many requests", "quota"}

// isLimit reports whether text reports a usage or rate limit.
func isLimit(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range limitWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// resetError is ErrNoResetTime with the reason a found phrase could not be
// read.
type resetError struct{ reason string }

func (e *resetError) Error() string        { return ErrNoResetTime.Error() + ": " + e.reason }
func (e *resetError) Is(target error) bool { return target == ErrNoResetTime }

// ParseResetTime reads the time at which a limit lets requests through
// again out of the text the CLI shows when one stops it (an [APIError]'s
// or a [TurnFailed]'s Message), and returns it in Unix epoch milliseconds.
// It knows these wordings:
//
//	You've hit your usage limit. … or try again at 2:00 PM.
//	You've hit your usage limit. Try again at Dec 5th, 2026 2:00 PM.
//	Rate limit reached for … Please try again in 11.054s.
//
// now is the moment the CLI wrote the text, or the current time when that
// is not known, in the zone of the machine the CLI ran on: the CLI writes
// its local time and names no zone, so a clock time is in now's location
// (pass now.In(time.Local) when it ran on this machine). A clock time
// without a date is on now's date, as the CLI writes a date only for
// another day; a date without a year is the first one not yet past. A
// duration counts from now, and the result is rounded up to the
// millisecond. zones is not used, since the CLI names no zone; the
// parameter is the one package claude's and package gemini's
// ParseResetTime take.
//
// Without a time, the error is [ErrNoResetTime] when the text reports a
// limit ("Try again later.") or names a time it cannot read (wrapped with
// the reason: a date that does not exist), and [ErrNotLimit] otherwise; ms
// is then 0.
func ParseResetTime(text string, now time.Time, zones timeparse.ZoneResolver) (ms int64, err error) {
	if rest, ok := after(text, "try again at "); ok {
		at, err := clockTime(rest, now)
		if err != nil {
			return 0, err
		}
		return at.UnixMilli(), nil
	}
	if rest, ok := after(text, "try again in "); ok {
		word, _, _ := strings.Cut(rest, " ")
		word = strings.TrimRight(word, ".,;)")
		d, err := time.ParseDuration(word)
		if err != nil || d <= 0 || strings.HasPrefix(word, "+") {
			return 0, &resetError{"\"try again in\" is not followed by a duration"}
		}
		return ceilMillis(now.Add(d)), nil
	}
	if isLimit(text) {
		return 0, ErrNoResetTime
	}
	return 0, ErrNotLimit
}

// ceilMillis returns t in Unix epoch milliseconds, rounded up: a reset time
// must not come before the moment it names.
func ceilMillis(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Sub(time.UnixMilli(ms)) > 0 {
		ms++
	}
	return ms
}

// after returns what follows the last occurrence of phrase in text, phrase
// matched without regard to ASCII case.
func after(text, phrase string) (string, bool) {
	for i := len(text) - len(phrase); i >= 0; i-- {
		if strings.EqualFold(text[i:i+len(phrase)], phrase) {
			return text[i+len(phrase):], true
		}
	}
	return "", false
}

// clockTime reads "[Mon D(st|nd|rd|th)[, YYYY] ]H:MM (AM|PM)" or
// "[…]HH:MM" at the start of s, a time on now's date, or on the date
// given, in now's location.
func clockTime(s string, now time.Time) (time.Time, error) {
	c := cursor{s: s}
	month, day, year, hasDate, err := c.date()
	if err != nil {
		return time.Time{}, err
	}
	hour, minute, ok := c.clock()
	if !ok {
		return time.Time{}, &resetError{"\"try again at\" is not followed by a clock time"}
	}
	loc := now.Location()
	if !hasDate {
		return time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, loc), nil
	}
	if year != 0 {
		at := time.Date(year, month, day, hour, minute, 0, 0, loc)
		if at.Day() != day {
			return time.Time{}, &resetError{"no such date"}
		}
		return at, nil
	}
	// The first year from now's on whose calendar the date exists and is
	// not yet past (Feb 29 can be up to eight years away).
	for y := now.Year(); y <= now.Year()+8; y++ {
		at := time.Date(y, month, day, hour, minute, 0, 0, loc)
		if at.Day() == day && !at.Before(now.Truncate(time.Minute)) {
			return at, nil
		}
	}
	return time.Time{}, &resetError{"no such date"}
}

// cursor reads the tail of a limit message left to right.
type cursor struct{ s string }

var months = [...]string{
	"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december",
}

// date reads an optional "Mon D[suffix][, YYYY] " prefix. It fails only
// when a month name is followed by a day it cannot read.
func (c *cursor) date() (month time.Month, day, year int, ok bool, err error) {
	s := c.s
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	if n < 3 {
		return 0, 0, 0, false, nil
	}
	word := strings.ToLower(s[:n])
	for i, full := range months {
		if word == full[:3] || word == full || i == 8 && word == "sept" {
			month = time.Month(i + 1)
		}
	}
	if month == 0 {
		return 0, 0, 0, false, nil
	}
	bad := &resetError{"a month without a day"}
	rest := strings.TrimPrefix(s[n:], ".")
	if !strings.HasPrefix(rest, " ") {
		return 0, 0, 0, false, bad
	}
	rest = rest[1:]
	k := digits(rest, 2)
	if k == 0 {
		return 0, 0, 0, false, bad
	}
	day = atoi(rest[:k])
	if day < 1 || day > 31 {
		return 0, 0, 0, false, &resetError{"no such date"}
	}
	rest = rest[k:]
	for _, suffix := range [...]string{"st", "nd", "rd", "th"} {
		if len(rest) >= 2 && strings.EqualFold(rest[:2], suffix) {
			rest = rest[2:]
			break
		}
	}
	if y, ok := strings.CutPrefix(rest, ", "); ok && digits(y, 4) == 4 && (len(y) == 4 || y[4] == ' ') {
		year = atoi(y[:4])
		rest = y[4:]
	} else {
		rest = strings.TrimPrefix(rest, ",")
	}
	if !strings.HasPrefix(rest, " ") {
		return 0, 0, 0, false, bad
	}
	c.s = strings.TrimLeft(rest, " ")
	return month, day, year, true, nil
}

// clock reads "H:MM AM", "H:MM PM" (1 ≤ H ≤ 12, the space optional, any
// case) or "HH:MM" (24-hour).
func (c *cursor) clock() (hour, minute int, ok bool) {
	s := c.s
	k := digits(s, 2)
	if k == 0 || k+3 > len(s) || s[k] != ':' || digits(s[k+1:], 2) != 2 {
		return 0, 0, false
	}
	hour, minute = atoi(s[:k]), atoi(s[k+1:k+3])
	s = s[k+3:]
	if len(s) > 0 && s[0] >= '0' && s[0] <= '9' || minute > 59 {
		return 0, 0, false
	}
	m := strings.TrimPrefix(s, " ")
	switch {
	case len(m) >= 2 && (strings.EqualFold(m[:2], "am") || strings.EqualFold(m[:2], "pm")) &&
		(len(m) == 2 || !isWordByte(m[2])):
		if hour < 1 || hour > 12 {
			return 0, 0, false
		}
		hour %= 12
		if strings.EqualFold(m[:2], "pm") {
			hour += 12
		}
	case hour > 23 || len(s) > 0 && isWordByte(s[0]):
		return 0, 0, false
	}
	return hour, minute, true
}

// digits returns how many ASCII digits, at most max, s starts with.
func digits(s string, max int) int {
	n := 0
	for n < len(s) && n < max && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// atoi reads a short run of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
