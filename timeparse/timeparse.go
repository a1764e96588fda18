package timeparse

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// SecondsThreshold is the magnitude at which a numeric epoch stops being
// read as seconds and starts being read as milliseconds (10^12).
const SecondsThreshold = 1_000_000_000_000

// maxRFC3339Millis is 10000-01-01T00:00:00Z in epoch milliseconds: instants
// from there on cannot be written with a four-digit year.
const maxRFC3339Millis = 253402300800000

// EpochMillis converts an integer epoch to milliseconds: v < 10^12 is
// seconds (the result is v × 1000), v ≥ 10^12 is already milliseconds.
// It reports ok == false for v ≤ 0, which callers treat as "unknown".
// It cannot overflow: seconds below 10^12 scale to less than 10^15.
func EpochMillis(v int64) (ms int64, ok bool) {
	switch {
	case v <= 0:
		return 0, false
	case v < SecondsThreshold:
		return v * 1000, true
	default:
		return v, true
	}
}

// FloatEpochMillis converts a floating-point epoch to milliseconds with the
// same threshold as [EpochMillis], flooring to the millisecond. NaN, ±Inf,
// values whose result does not fit in an int64, and values that are not
// positive after flooring report ok == false.
func FloatEpochMillis(f float64) (ms int64, ok bool) {
	if math.IsNaN(f) || f <= 0 || f >= math.MaxInt64 {
		// f >= MaxInt64 also catches +Inf; float64(MaxInt64) is 2^63,
		// the first value that no longer fits.
		return 0, false
	}
	if f < SecondsThreshold {
		f *= 1000
	}
	f = math.Floor(f)
	if f <= 0 {
		return 0, false
	}
	return int64(f), true
}

// ParseMillis reads an instant from text and returns it in epoch
// milliseconds. It accepts, after trimming surrounding white space:
//
//   - a decimal integer or float epoch ("1778598000", "1778598000123",
//     "1778598000.5", "1.7785980e9"), converted as by [EpochMillis] and
//     [FloatEpochMillis];
//   - an RFC 3339 / ISO 8601 date and time "YYYY-MM-DDThh:mm:ss", with "T",
//     "t" or a space between date and time, optional fractional seconds of
//     any length (floored to the millisecond), and an optional zone: "Z",
//     "z", "+hh:mm" or "-hh:mm". No zone means UTC.
//
// Anything else, instants at or before 1970-01-01T00:00:00Z, and RFC 3339
// text that does not name a real calendar day report ok == false.
func ParseMillis(s string) (ms int64, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	switch numberKind(s) {
	case kindInt:
		v, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return EpochMillis(v)
		}
		// Out of int64 range: the float path rejects it or, for a
		// huge negative, rejects it as well.
		fallthrough
	case kindFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		return FloatEpochMillis(f)
	}
	return parseRFC3339(s)
}

type kind int

const (
	kindNone kind = iota
	kindInt
	kindFloat
)

// numberKind classifies s as a plain decimal integer, a decimal float
// (fraction and/or exponent), or neither. It is stricter than strconv,
// which also accepts hexadecimal, underscores, "inf" and "nan".
func numberKind(s string) kind {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := digitsAt(s, i)
	i += intDigits
	k := kindInt
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		k = kindFloat
		i++
		fracDigits = digitsAt(s, i)
		i += fracDigits
	}
	if intDigits+fracDigits == 0 {
		return kindNone
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		k = kindFloat
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := digitsAt(s, i)
		if n == 0 {
			return kindNone
		}
		i += n
	}
	if i != len(s) {
		return kindNone
	}
	return k
}

func digitsAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' {
		n++
	}
	return n
}

// parseRFC3339 reads "YYYY-MM-DD[Tt ]hh:mm:ss[.frac][Z|z|±hh:mm]".
func parseRFC3339(s string) (int64, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	if c := s[10]; c != 'T' && c != 't' && c != ' ' {
		return 0, false
	}
	year, ok1 := fixed(s[0:4])
	month, ok2 := fixed(s[5:7])
	day, ok3 := fixed(s[8:10])
	hour, ok4 := fixed(s[11:13])
	minute, ok5 := fixed(s[14:16])
	sec, ok6 := fixed(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	rest := s[19:]
	var frac int64 // milliseconds
	if rest != "" && rest[0] == '.' {
		n := digitsAt(rest, 1)
		if n == 0 {
			return 0, false
		}
		digits := rest[1 : 1+n]
		for i := range 3 {
			frac *= 10
			if i < len(digits) {
				frac += int64(digits[i] - '0')
			}
		}
		rest = rest[1+n:]
	}
	var offset int64 // seconds east of UTC
	switch {
	case rest == "" || rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, okh := fixed(rest[1:3])
		om, okm := fixed(rest[4:6])
		if !okh || !okm || oh > 23 || om > 59 {
			return 0, false
		}
		offset = int64(oh*3600 + om*60)
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	ms := (t.Unix()-offset)*1000 + frac
	if ms <= 0 || ms >= maxRFC3339Millis {
		return 0, false
	}
	return ms, true
}

// fixed parses a run of ASCII digits; s is short, so it cannot overflow.
func fixed(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ZoneResolver maps an IANA zone name such as "Europe/Paris" to its
// location, for the CLI packages' ParseResetTime. [time.LoadLocation] is
// one (it reads the system's zone database, which this package never
// does); a test can supply fixed zones instead.
type ZoneResolver func(name string) (*time.Location, error)
