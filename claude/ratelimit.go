package claude

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/members"
	"github.com/acpkit/acpkit/timeparse"
	"github.com/tidwall/gjson"
)

// resetKeys are the names under which a reset time has been seen in
// rate_limit_info, most likely first. The first one present decides, even
// when its value is null or unusable: a later key is never consulted. A
// key that is repeated takes its last value, like every other member.
var resetKeys = [...]string{"resetsAt", "resets_at", "reset_at", "resetAt", "reset"}

// window holds the members of a rate-limit window that the parser reads:
// rate_limit_info itself, or an entry of its unifiedWindows. Of a repeated
// name, the last value.
type window struct {
	status, typ, typSnake, utilization gjson.Result
	resets                             [len(resetKeys)]gjson.Result
	// rate_limit_info only
	overageStatus, usingOverage, windows gjson.Result
}

func readWindow(obj gjson.Result) window {
	var w window
	obj.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "status":
			w.status = v
		case "rateLimitType":
			w.typ = v
		case "rate_limit_type":
			w.typSnake = v
		case "utilization":
			w.utilization = v
		case "overageStatus":
			w.overageStatus = v
		case "isUsingOverage":
			w.usingOverage = v
		case "unifiedWindows":
			w.windows = v
		default:
			for i, name := range resetKeys {
				if k.Str == name {
					w.resets[i] = v
				}
			}
		}
		return true
	})
	return w
}

// resetsAt is the window's reset time in epoch milliseconds; 0 if unknown.
func (w *window) resetsAt() int64 {
	for _, r := range w.resets {
		if r.Exists() {
			return epochMillis(r)
		}
	}
	return 0
}

// parseRateLimitInfo reads a rate_limit_info object. Anything it does not
// recognise leaves the matching field zero; it never fails. The fractions
// of the top level and of every window share one allocation.
func parseRateLimitInfo(info gjson.Result) RateLimit {
	var rl RateLimit
	if !info.IsObject() {
		return rl
	}
	w := readWindow(info)
	rl.Status = RateLimitStatus(str(w.status))
	if w.typ.Exists() {
		rl.Type = str(w.typ)
	} else {
		rl.Type = str(w.typSnake)
	}
	rl.ResetsAt = w.resetsAt()
	rl.OverageStatus = RateLimitStatus(str(w.overageStatus))
	rl.UsingOverage = w.usingOverage.Type == gjson.True

	n := 0 // windows that are objects, an upper bound on distinct names
	if w.windows.IsObject() {
		w.windows.ForEach(func(_, v gjson.Result) bool {
			if v.IsObject() {
				n++
			}
			return true
		})
	}
	fractions := fractionPool{n: n + 1}
	rl.Utilization = fractions.of(w.utilization)
	if n > 0 {
		rl.Windows = make([]RateLimitWindow, 0, n)
		w.windows.ForEach(func(k, v gjson.Result) bool {
			if !v.IsObject() {
				return true
			}
			ww := readWindow(v)
			rw := RateLimitWindow{
				Name:        str(k),
				Status:      RateLimitStatus(str(ww.status)),
				Utilization: fractions.of(ww.utilization),
				ResetsAt:    ww.resetsAt(),
			}
			// A repeated name keeps its last value, in its first place.
			for i := range rl.Windows {
				if rl.Windows[i].Name == rw.Name {
					rl.Windows[i] = rw
					return true
				}
			}
			rl.Windows = append(rl.Windows, rw)
			return true
		})
		slices.SortFunc(rl.Windows, func(a, b RateLimitWindow) int { return strings.Compare(a.Name, b.Name) })
	}
	rl.Raw = members.Object(info)
	return rl
}

// fractionPool hands out pointers to the utilization fractions of one
// rate_limit_info, allocated together on first use.
type fractionPool struct {
	n    int // how many fractions at most
	vals []float64
}

// of returns a pointer to v's value when v is a number, nil otherwise.
func (fp *fractionPool) of(v gjson.Result) *float64 {
	if v.Type != gjson.Number {
		return nil
	}
	if fp.vals == nil {
		fp.vals = make([]float64, 0, fp.n)
	}
	fp.vals = append(fp.vals, v.Num)
	return &fp.vals[len(fp.vals)-1]
}

// epochMillis converts an instant (a reset time, a line's timestamp) to
// epoch milliseconds, as [timeparse.ParseMillis] reads it: an epoch in
// seconds or milliseconds, or RFC 3339 text. It is 0 when the value is
// unusable (null, a bool, an object, zero, out of range, bad text). A JSON
// number's text is read as timeparse reads a numeric string, which is what
// it is.
func epochMillis(r gjson.Result) int64 {
	var text string
	switch r.Type {
	case gjson.Number:
		text = r.Raw
	case gjson.String:
		text = r.Str
	default:
		return 0
	}
	ms, ok := timeparse.ParseMillis(text)
	if !ok {
		return 0
	}
	return ms
}

// Reasons [ParseResetTime] finds no reset time, for errors.Is.
var (
	// ErrNotLimit: the text reports no usage or rate limit.
	ErrNotLimit = errors.New("claude: no usage or rate limit in the text")
	// ErrNoResetTime: the text reports a limit but names no reset time
	// it can read.
	ErrNoResetTime = errors.New("claude: no reset time in the text")
)

// ZoneError is returned by [ParseResetTime] for a text whose reset time
// names a zone that could not be resolved: the time is there, but not
// where it is.
type ZoneError struct {
	// Zone is the name the text gives, such as "America/New_York".
	Zone string
	// Err is the resolver's error; nil when there was no resolver.
	Err error
}

// Error names the zone, and the resolver's reason when there is one.
func (e *ZoneError) Error() string {
	msg := "claude: cannot resolve the reset time's zone " + strconv.Quote(e.Zone)
	if e.Err == nil {
		return msg + " without a ZoneResolver"
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *ZoneError) Unwrap() error { return e.Err }

// ParseResetTime reads the reset time out of the text the CLI shows when a
// usage limit stops it (an [APIError]'s Text, or a [Result]'s), and returns
// it in Unix epoch milliseconds. Prefer [APIError].RateLimit.ResetsAt when
// the line carries it; this is for the lines that carry only words:
//
//	ms, err := claude.ParseResetTime(e.Text, time.UnixMilli(e.Timestamp), time.LoadLocation)
//
// now is the moment the CLI wrote the text (an event's Timestamp), or the
// current time when that is unknown. It knows these wordings:
//
//	Claude AI usage limit reached|1778598000
//	5-hour limit reached ∙ resets 3am
//	Session limit reached ∙ resets 3pm
//	You've hit your limit · resets 8pm (America/New_York)
//	You've hit your session limit · resets 5:30am (Asia/Calcutta)
//	You've hit your limit · resets Apr 17, 7pm (Asia/Riyadh)
//	You've hit your 5-hour limit · resets 5pm (Europe/Paris) · progress saved
//
// After "|" comes an epoch (seconds or milliseconds; 0 means unknown). A
// clock time is in the named zone, resolved with zones, or in now's
// location when the text names none. A nil zones resolves only "UTC", so
// that the package reads no file itself. A clock time earlier than now on
// the current day in that zone means the next day; a date already past
// this year (in that zone) means next year; a time within the same minute
// as now gives now.
//
// The error is a [*ZoneError] when the text names a zone that zones
// cannot resolve; without a time, it is [ErrNoResetTime] when the text
// reports a limit in the CLI's words ("… limit reached", "…hit your …
// limit") and [ErrNotLimit] otherwise ("Unlimited retries exhausted").
// ms is then 0.
func ParseResetTime(text string, now time.Time, zones timeparse.ZoneResolver) (ms int64, err error) {
	if ms, ok, found := pipeReset(text); found {
		if !ok {
			return 0, ErrNoResetTime
		}
		return ms, nil
	}
	return clockReset(text, now, zones)
}

// pipeReset reads "…limit reached|<epoch>"; found reports the form matched.
func pipeReset(text string) (ms int64, ok, found bool) {
	const marker = "limit reached|"
	i := strings.Index(text, marker)
	if i < 0 {
		return 0, false, false
	}
	rest := text[i+len(marker):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n < len(rest) && isWordByte(rest[n]) {
		return 0, false, true
	}
	v, err := strconv.ParseInt(rest[:n], 10, 64)
	if err != nil {
		return 0, false, true
	}
	ms, ok = timeparse.EpochMillis(v)
	return ms, ok, true
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// clockReset reads "…limit… resets [Mon D, ]H[:MM](am|pm) [(Zone)]".
func clockReset(text string, now time.Time, zones timeparse.ZoneResolver) (int64, error) {
	li := indexLimit(text)
	if li < 0 {
		return 0, ErrNotLimit
	}
	const marker = "resets "
	ri := strings.Index(text[li:], marker)
	if ri < 0 {
		return 0, ErrNoResetTime
	}
	c := cursor{s: text[li+ri+len(marker):]}
	month, day, hasDate := c.date()
	hour, minute, ok := c.clock()
	if !ok {
		return 0, ErrNoResetTime
	}
	loc := now.Location()
	if name, has := c.zone(); has {
		var err error
		if loc, err = resolve(name, zones); err != nil {
			return 0, err
		}
	}
	local := now.In(loc)
	nowMinute := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), 0, 0, loc)
	var at time.Time
	if hasDate {
		found := false
		// The first year from now's on whose calendar the date exists
		// and is not yet past (Feb 29 can be up to eight years away).
		for y := local.Year(); y <= local.Year()+8; y++ {
			at = time.Date(y, month, day, hour, minute, 0, 0, loc)
			if at.Day() == day && !at.Before(nowMinute) {
				found = true
				break
			}
		}
		if !found {
			return 0, ErrNoResetTime
		}
	} else {
		at = time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
		if at.Before(nowMinute) {
			at = time.Date(local.Year(), local.Month(), local.Day()+1, hour, minute, 0, 0, loc)
		}
	}
	if at.Equal(nowMinute) {
		at = now
	}
	ms := at.UnixMilli()
	if ms <= 0 {
		return 0, ErrNoResetTime
	}
	return ms, nil
}

// resolve returns the location of the zone name, or a *ZoneError.
func resolve(name string, zones timeparse.ZoneResolver) (*time.Location, error) {
	if zones == nil {
		if name == "UTC" {
			return time.UTC, nil
		}
		return nil, &ZoneError{Zone: name}
	}
	loc, err := zones(name)
	if err == nil && loc == nil {
		err = errors.New("the resolver returned no location")
	}
	if err != nil {
		return nil, &ZoneError{Zone: name, Err: err}
	}
	return loc, nil
}

// cursor reads the tail of a reset message left to right.
type cursor struct{ s string }

var months = [...]string{
	"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december",
}

// indexLimit is the index of the first word "limit" (any ASCII case) by
// which s reports a limit in the CLI's words: "… limit reached" or "…hit
// your … limit", within one clause; -1 if s reports none. A word that
// only holds "limit" ("delimiter", "unlimited") is not one.
func indexLimit(s string) int {
	const word = "limit"
	for i := 0; i+len(word) <= len(s); i++ {
		if !strings.EqualFold(s[i:i+len(word)], word) || i > 0 && isLetter(s[i-1]) {
			continue
		}
		after := s[i+len(word):]
		if after != "" && isLetter(after[0]) {
			continue
		}
		start := 0 // of the clause
		if j := strings.LastIndexAny(s[:i], ".;|·∙\n"); j >= 0 {
			_, n := utf8.DecodeRuneInString(s[j:])
			start = j + n
		}
		if hasFoldPrefix(after, " reached") || indexFold(s[start:i], "hit your ") >= 0 {
			return i
		}
	}
	return -1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// hasFoldPrefix reports whether s begins with prefix, any ASCII case.
func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// indexFold is the index of the first sub in s, any ASCII case; -1 if
// none.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasFoldPrefix(s[i:], sub) {
			return i
		}
	}
	return -1
}

// date reads an optional "Mon D, " or "Month D " prefix.
func (c *cursor) date() (time.Month, int, bool) {
	s := c.s
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	if n < 3 {
		return 0, 0, false
	}
	word := strings.ToLower(s[:n])
	month := time.Month(0)
	for i, full := range months {
		if word == full[:3] || word == full || i == 8 && word == "sept" {
			month = time.Month(i + 1)
		}
	}
	if month == 0 || n >= len(s) || s[n] != ' ' {
		return 0, 0, false
	}
	rest := s[n+1:]
	d := 0
	k := 0
	for k < len(rest) && k < 2 && rest[k] >= '0' && rest[k] <= '9' {
		d = d*10 + int(rest[k]-'0')
		k++
	}
	if k == 0 || d < 1 || d > 31 {
		return 0, 0, false
	}
	rest = rest[k:]
	rest = strings.TrimPrefix(rest, ",")
	if !strings.HasPrefix(rest, " ") {
		return 0, 0, false
	}
	c.s = strings.TrimLeft(rest, " ")
	return month, d, true
}

// clock reads "H[:MM]am", "H[:MM]pm" (1 ≤ H ≤ 12) or "HH:MM" (24-hour).
func (c *cursor) clock() (hour, minute int, ok bool) {
	s := c.s
	k := 0
	for k < len(s) && k < 2 && s[k] >= '0' && s[k] <= '9' {
		hour = hour*10 + int(s[k]-'0')
		k++
	}
	if k == 0 || k < len(s) && s[k] >= '0' && s[k] <= '9' {
		return 0, 0, false
	}
	hasMinute := false
	if k+2 < len(s) && s[k] == ':' && isDigit(s[k+1]) && isDigit(s[k+2]) {
		minute = int(s[k+1]-'0')*10 + int(s[k+2]-'0')
		hasMinute = true
		k += 3
		if minute > 59 {
			return 0, 0, false
		}
	}
	var meridiem string
	if k+2 <= len(s) {
		meridiem = strings.ToLower(s[k : k+2])
	}
	switch {
	case meridiem == "am" || meridiem == "pm":
		if hour < 1 || hour > 12 {
			return 0, 0, false
		}
		hour %= 12
		if meridiem == "pm" {
			hour += 12
		}
		k += 2
	case hasMinute:
		if hour > 23 {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	if k < len(s) && isWordByte(s[k]) {
		return 0, 0, false
	}
	c.s = s[k:]
	return hour, minute, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// zone reads an optional " (Area/City)".
func (c *cursor) zone() (string, bool) {
	s := strings.TrimLeft(c.s, " ")
	if !strings.HasPrefix(s, "(") {
		return "", false
	}
	end := strings.IndexByte(s, ')')
	if end < 2 {
		return "", false
	}
	name := s[1:end]
	if strings.ContainsAny(name, " \t") {
		return "", false
	}
	c.s = s[end+1:]
	return name, true
}
