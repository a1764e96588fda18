package gemini

import (
	"bytes"
	"strconv"
	"time"
)

// Retry reports that the CLI is retrying a failed API request. Only the
// CLI's standard error says so, as
//
//	Attempt 1 failed: <message>. Retrying after 5756ms...
//
// with a message of one line or more, so [Stderr] produces it and
// [ParseLine] never does.
type Retry struct {
	Attempt int           // the attempt that failed, from 1
	Delay   time.Duration // the wait before the next attempt; 0 if not given
	// Message is why the attempt failed, lines joined with "\n" and cut
	// at 64 KiB; for a rate limit it may give a time to retry at (see
	// [ParseResetTime]).
	Message string
}

func (Retry) isEvent() {}

// maxRetryMessage bounds the text a [Stderr] keeps for one report.
const maxRetryMessage = 64 << 10

// Stderr picks the retries out of the CLI's standard error, fed to it line
// by line. The zero value is ready to use. A Stderr is not safe for
// concurrent use.
type Stderr struct {
	attempt int    // the attempt being reported; 0 outside a report
	lines   int    // lines of the report read so far
	message []byte // its text so far, at most maxRetryMessage bytes
}

var (
	retrying    = []byte(". Retrying")
	maxAttempts = []byte(". Max attempts reached")
)

// Feed reads one line of standard error, with or without its terminator.
// It returns a [Retry] and true when the line ends the report of a failed
// attempt that the CLI will retry. A report that ends with "Max attempts
// reached" returns nothing: the run's result reports that failure. Lines
// outside a report are ignored. Feed keeps no reference to line.
func (s *Stderr) Feed(line []byte) (Retry, bool) {
	text := bytes.TrimRight(line, "\r\n")
	if n, rest, ok := attemptLine(text); ok {
		s.attempt, s.lines, s.message = n, 0, s.message[:0]
		text = rest
	} else if s.attempt == 0 {
		return Retry{}, false
	}
	if s.lines++; s.lines > 1 {
		s.add([]byte("\n"))
	}
	if bytes.Contains(text, maxAttempts) {
		s.attempt = 0
		return Retry{}, false
	}
	i := bytes.LastIndex(text, retrying)
	if i < 0 {
		s.add(text)
		return Retry{}, false
	}
	// The message ends its sentence; ". Retrying" starts the CLI's own.
	s.add(text[:i])
	r := Retry{Attempt: s.attempt, Delay: retryDelay(text[i+len(retrying):]), Message: string(s.message)}
	s.attempt = 0
	return r, true
}

// add appends b to the message, as far as the bound allows.
func (s *Stderr) add(b []byte) {
	room := maxRetryMessage - len(s.message)
	s.message = append(s.message, b[:min(len(b), max(room, 0))]...)
}

// attemptLine reads "Attempt N failed: rest" (or "Attempt N failed rest").
func attemptLine(line []byte) (n int, rest []byte, ok bool) {
	after, found := bytes.CutPrefix(line, []byte("Attempt "))
	if !found {
		return 0, nil, false
	}
	k := 0
	for k < len(after) && k < 9 && after[k] >= '0' && after[k] <= '9' {
		k++
	}
	n, err := strconv.Atoi(string(after[:k]))
	if err != nil || n < 1 {
		return 0, nil, false
	}
	rest, found = bytes.CutPrefix(after[k:], []byte(" failed"))
	if !found {
		return 0, nil, false
	}
	rest = bytes.TrimPrefix(rest, []byte(":"))
	return n, bytes.TrimPrefix(rest, []byte(" ")), true
}

// retryDelay reads " after 5756ms..." at the start of s; 0 without one.
func retryDelay(s []byte) time.Duration {
	after, found := bytes.CutPrefix(s, []byte(" after "))
	if !found {
		return 0
	}
	k := 0
	for k < len(after) && k < 12 && after[k] >= '0' && after[k] <= '9' {
		k++
	}
	ms, err := strconv.ParseInt(string(after[:k]), 10, 64)
	if err != nil || !bytes.HasPrefix(after[k:], []byte("ms")) {
		return 0
	}
	return millis(ms)
}
