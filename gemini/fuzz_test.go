package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/parsetest"
)

var fuzzLines = []string{
	`{"type":"init","timestamp":"t","session_id":"s","model":"auto"}`,
	`{"type":"message","role":"user","content":"hi"}`,
	`{"type":"message","role":"assistant","content":"He","delta":true}`,
	`{"type":"tool_use","tool_name":"read_file","tool_id":"t","parameters":{"file_path":"a"}}`,
	`{"type":"tool_result","tool_id":"t","status":"error","output":"","error":{"type":"x","message":"y"}}`,
	`{"type":"error","severity":"warning","message":"w"}`,
	`{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":429}}]"},"stats":{"duration_ms":1,"tool_calls":2}}`,
	`{"type":"result","status":"success","stats":{"duration_ms":9e99}}`,
	`{"type":"init","session_id":"a","type":"message","session_id":"b\u0041"}`,
	`{"type":"message","role":"assistant","content":"x","delta":true,"delta":false}`,
	`{"type":"message","role":"assis`,
	"Loaded cached credentials.",
	"",
}

func FuzzParseLine(f *testing.F) {
	for _, s := range fuzzLines {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		prior := []Event{Notice{Message: "prior"}}
		events, sid, err := ParseLine(line, prior)
		trimmed := parsetest.CheckInput(t, orig, line)
		var se *SyntaxError
		switch {
		case err == nil:
			if len(trimmed) > 0 && trimmed[0] != '{' {
				t.Fatal("ParseLine accepted a line that is not an object")
			}
			if len(events) < 1 || events[0] != (Notice{Message: "prior"}) {
				t.Fatal("ParseLine lost the events it was given")
			}
			if len(trimmed) > 0 {
				checkAgainstEncodingJSON(t, trimmed, events[1:], sid)
			}
		case errors.As(err, &se):
			if len(events) != 1 || sid != nil {
				t.Fatal("ParseLine returned output with an error")
			}
			parsetest.CheckSyntaxError(t, err, se.Length, se.Offset, trimmed)
		default:
			t.Fatalf("unexpected error type %T", err)
		}
	})
}

// checkAgainstEncodingJSON checks what ParseLine read from an object line
// against what encoding/json decodes from it: the session id, the line
// type, which decides the kind of every event added, and the fields of
// message lines. Both decoders take the last of a repeated name.
func checkAgainstEncodingJSON(t *testing.T, line []byte, added []Event, sid []byte) {
	// A map, not a struct: encoding/json matches struct fields ignoring
	// case, and the CLI's names are exact.
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return // validity is jsonscan's to check, against gjson above
	}
	// A member that is absent or not of the type leaves its variable zero.
	var typ, wantSID, role, content string
	var delta bool
	_ = json.Unmarshal(top["type"], &typ)
	_ = json.Unmarshal(top["session_id"], &wantSID)
	_ = json.Unmarshal(top["role"], &role)
	_ = json.Unmarshal(top["content"], &content)
	_ = json.Unmarshal(top["delta"], &delta)
	if string(sid) != wantSID || (sid == nil) != (wantSID == "") {
		t.Fatalf("session id %q, encoding/json reads %q", sid, wantSID)
	}
	for _, e := range added {
		if got := eventLineType(e); got != typ {
			t.Fatalf("%T event from a line whose type encoding/json reads as %q", e, typ)
		}
	}
	switch typ {
	case "init", "tool_use", "tool_result", "error":
		if len(added) != 1 {
			t.Fatalf("%d events from a %q line, want 1", len(added), typ)
		}
	case "result":
		if len(added) != 1 && len(added) != 2 {
			t.Fatalf("%d events from a result line", len(added))
		}
	case "message":
		var want []Event
		switch {
		case role == "user":
			want = []Event{UserMessage{Text: content}}
		case role == "assistant" && delta:
			want = []Event{PartialText{Text: content}}
		case role == "assistant":
			want = []Event{Text{Text: content}}
		}
		if len(added) != len(want) || len(want) == 1 && added[0] != want[0] {
			t.Fatalf("message line gave %v, encoding/json reads %v", added, want)
		}
	}
}

// eventLineType is the type of the line an event comes from.
func eventLineType(e Event) string {
	switch e.(type) {
	case Init:
		return "init"
	case UserMessage, PartialText, Text:
		return "message"
	case ToolUse:
		return "tool_use"
	case ToolResult:
		return "tool_result"
	case Notice:
		return "error"
	case APIError, Result:
		return "result"
	}
	return ""
}

// FuzzTurnEvents reads arbitrary output through Turn.Events with a small
// line limit: it must yield, for every line, what Feed returns for it, an
// error for every line over the limit, and stop at the end.
func FuzzTurnEvents(f *testing.F) {
	f.Add([]byte(strings.Join(fuzzLines, "\n")), uint8(200))
	f.Add([]byte(fuzzLines[2]+"\r\n"+fuzzLines[2]+"\n"+fuzzLines[7]), uint8(40))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		maxLine := int(limit)
		var want []Event
		wantErrs := 0
		byLine := NewTurn("r")
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) > maxLine {
				if !byLine.Done() {
					wantErrs++
				}
				continue
			}
			if len(bytes.Trim(line, " \t\r")) == 0 {
				continue
			}
			events, err := byLine.Feed(line, nil)
			if err != nil {
				wantErrs++
			}
			want = append(want, events...)
		}
		turn := NewTurn("r")
		var got []Event
		gotErrs := 0
		for e, err := range turn.events(bytes.NewReader(data), maxLine) {
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) && !errors.Is(err, ErrLineTooLong) {
					t.Fatalf("unexpected error %v", err)
				}
				gotErrs++
				continue
			}
			if e == nil {
				t.Fatal("nil event without an error")
			}
			got = append(got, e)
		}
		if len(got) != len(want) || gotErrs != wantErrs {
			t.Fatalf("Events gave %d events and %d errors; Feed %d and %d", len(got), gotErrs, len(want), wantErrs)
		}
		for i := range got {
			if !eventsEqual(got[i], want[i]) {
				t.Fatalf("event %d: Events %#v, Feed %#v", i, got[i], want[i])
			}
		}
		final := turn.Finish(1, nil)
		if turn.Done() != true || turn.SessionID() != byLine.SessionID() {
			t.Fatalf("after Finish: done %v, session %q (Feed: %q)", turn.Done(), turn.SessionID(), byLine.SessionID())
		}
		if _, ok := turn.Result(); ok == (len(final) > 0 && isFinal(final[len(final)-1])) {
			t.Fatalf("result %v, yet Finish returned %v", ok, final)
		}
		if turn.Err() == nil {
			t.Fatal("a run that exited 1 did not fail")
		}
	})
}

func isFinal(e Event) bool {
	switch e.(type) {
	case ResumeFailed, NoResult:
		return true
	}
	return false
}

// eventsEqual compares events, which may hold raw JSON.
func eventsEqual(a, b Event) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb) && eventLineType(a) == eventLineType(b)
}

func FuzzParseResetTime(f *testing.F) {
	for _, s := range []string{
		"Suggested retry after 3s.",
		"Please retry in 3.123456789s.\nSuggested retry after 3s.]",
		"Please retry in 560ms.",
		"Suggested retry after 3s.. Retrying after 5756ms...",
		"You have exhausted your daily quota on this model.",
		"Suggested retry after 9999999999h.",
		"Please retry in -1s",
		"      'Please retry in 13h42m7.5s.',",
		"Please retry in 3months",
	} {
		f.Add(s, int64(1796126354669))
	}
	f.Fuzz(func(t *testing.T, text string, nowMS int64) {
		now := time.UnixMilli(nowMS)
		ms, err := ParseResetTime(text, now, nil)
		// What closes a delay does not matter: a quote and a comma after
		// the text change nothing.
		if ms2, err2 := ParseResetTime(text+"',", now, nil); ms2 != ms || errors.Is(err2, ErrNotLimit) != errors.Is(err, ErrNotLimit) {
			t.Fatalf("%q gives %d, %v; with \"',\" after it %d, %v", text, ms, err, ms2, err2)
		}
		if err != nil {
			if ms != 0 || !errors.Is(err, ErrNotLimit) && !errors.Is(err, ErrNoResetTime) {
				t.Fatalf("ms %d with error %v", ms, err)
			}
			if errors.Is(err, ErrNotLimit) && isLimit(text) {
				t.Fatalf("ErrNotLimit for a limit text %q", text)
			}
			return
		}
		if ms < nowMS || ms <= 0 {
			t.Fatalf("reset %d before now %d", ms, nowMS)
		}
		if !strings.Contains(text, "retry after ") && !strings.Contains(text, "retry in ") {
			t.Fatalf("reset time from text without a hint: %q", text)
		}
	})
}

// FuzzHTTPStatus checks that the status read out of an API error body is
// always an HTTP status, and comes from a code member.
func FuzzHTTPStatus(f *testing.F) {
	f.Add(`{"error":{"code":401,"message":"x"}}]`)
	f.Add(`{"error":{"code":429}}]` + "\n[more]")
	f.Add(`{"error":{"code":1e3}}]`)
	f.Fuzz(func(t *testing.T, body string) {
		n := httpStatus(body)
		if n != 0 && (n < 100 || n > 599) {
			t.Fatalf("status %d", n)
		}
		if n != 0 && !strings.Contains(body, "code") {
			t.Fatalf("status %d from a body without a code", n)
		}
	})
}

// FuzzStderr feeds arbitrary lines to a Stderr: a retry it reports has an
// attempt, a bounded message, and a delay the line spelled out.
func FuzzStderr(f *testing.F) {
	f.Add("Attempt 1 failed: a\nb. Retrying after 5756ms...\nAttempt 2 failed: c. Max attempts reached")
	f.Add("Attempt 1 failed with status 429. Retrying with backoff...")
	f.Fuzz(func(t *testing.T, text string) {
		var s Stderr
		for _, line := range strings.Split(text, "\n") {
			r, ok := s.Feed([]byte(line))
			if !ok {
				continue
			}
			if r.Attempt < 1 || len(r.Message) > maxRetryMessage || r.Delay < 0 {
				t.Fatalf("retry %+v", r)
			}
			if r.Delay > 0 && !strings.Contains(line, "Retrying after ") {
				t.Fatalf("delay %v from %q", r.Delay, line)
			}
		}
	})
}

// FuzzParseJSONOutput checks ParseJSONOutput against encoding/json.
func FuzzParseJSONOutput(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","response":"r","stats":{"models":{}}}`))
	f.Add([]byte(`{"error":{"type":"t","message":"m","code":53},"error":{"code":"x"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ParseJSONOutput(data)
		var top map[string]json.RawMessage
		jsonErr := json.Unmarshal(data, &top)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T", err)
			}
			if jsonErr == nil && top != nil && utf8.Valid(data) {
				t.Fatalf("refused an object encoding/json reads: %v", err)
			}
			return
		}
		if jsonErr != nil {
			return // depth beyond encoding/json's, or the like
		}
		var session, response string
		_ = json.Unmarshal(top["session_id"], &session)
		_ = json.Unmarshal(top["response"], &response)
		if out.SessionID != session || out.Response != response {
			t.Fatalf("read %q %q, encoding/json %q %q", out.SessionID, out.Response, session, response)
		}
	})
}
