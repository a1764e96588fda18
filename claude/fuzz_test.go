package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"system","subtype":"init","session_id":"s","model":"m"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"n","input":{}}]},"parent_tool_use_id":"p","session_id":"s"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]},"error":"rate_limit"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}],"is_error":true}]}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"tool_use_result":{"type":"update","filePath":"/a","content":"b\n","originalFile":"a\n","structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]},"tool_use_result":"Error: x"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]},"tool_use_result":null}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]},"tool_use_result":{"filePath":"/a","originalFile":"a\nb","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" a","-b","\\ No newline at end of file","+c"]}]}}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3,"output_tokens":1}}}}`,
		`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":16}}}`,
		`{"type":"assistant","message":{"id":"msg_1","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1778598000}}`,
		`{"type":"result","subtype":"success","is_error":true,"result":"r","usage":{},"modelUsage":{},"errors":["e"]}`,
		`{"type":"system","subtype":"api_retry","attempt":1,"retry_delay_ms":9e99}`,
		`{"type":"system","subtype":"permission_denied","tool_name":"Write","tool_use_id":"t","message":"m","timestamp":"2026-11-30T13:48:39.975Z"}`,
		`{"type":"assistant","message":{"con`,
		`{"a":"\u00e9\ud83d\ude00"}`,
		`{"type":"result","session_id":"a","type":"system","session_id":"b\u0041"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"},"delta":{}}}`,
		"not json",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		prior := []Event{Heartbeat{Subtype: "prior"}}
		events, sid, err := ParseLine(line, prior)
		trimmed := parsetest.CheckInput(t, orig, line)
		var se *SyntaxError
		switch {
		case err == nil:
			if len(trimmed) > 0 && trimmed[0] != '{' {
				t.Fatal("ParseLine accepted a line that is not an object")
			}
			if len(events) < 1 || events[0] != (Heartbeat{Subtype: "prior"}) {
				t.Fatal("ParseLine lost the events it was given")
			}
			if sid != nil && !gjson.ValidBytes(trimmed) {
				t.Fatal("session id from an invalid line")
			}
			if len(trimmed) > 0 {
				checkAgainstEncodingJSON(t, trimmed, events[1:], sid)
			}
			checkReportUnknown(t, line, events[1:], sid)
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
// against what encoding/json decodes from it: the session id, and the line
// type, which decides the kind of every event added. Both decoders must
// take the last occurrence of a repeated name.
func checkAgainstEncodingJSON(t *testing.T, line []byte, added []Event, sid []byte) {
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return // validity is jsonscan's to check, against gjson above
	}
	var wantSID, typ string
	// A member that is absent or not a string leaves its variable empty.
	_ = json.Unmarshal(top["session_id"], &wantSID)
	_ = json.Unmarshal(top["type"], &typ)
	if string(sid) != wantSID || (sid == nil) != (wantSID == "") {
		t.Fatalf("session id %q, encoding/json reads %q", sid, wantSID)
	}
	for _, e := range added {
		got := eventLineType(e)
		if _, ok := e.(MessageUsage); ok && typ == "stream_event" {
			got = typ // from a message_start or message_delta
		}
		if got != typ {
			t.Fatalf("%T event from a line whose type encoding/json reads as %q", e, typ)
		}
	}
	var details json.RawMessage
	_ = json.Unmarshal(top["tool_use_result"], &details)
	for _, e := range added {
		if r, ok := e.(ToolResult); ok && string(r.Details) == "null" {
			t.Fatal("a null tool_use_result kept as Details")
		}
		if r, ok := e.(ToolResult); ok && r.FileChange != nil {
			var fc struct {
				FilePath string `json:"filePath"`
			}
			if r.Details == nil || json.Unmarshal(details, &fc) == nil && fc.FilePath != r.FileChange.Path {
				t.Fatalf("file change %+v of details %s, encoding/json reads %q", r.FileChange, details, fc.FilePath)
			}
			if text, ok := r.FileChange.NewText(); ok && r.FileChange.Content == nil && len(r.FileChange.Hunks) == 0 && text != *r.FileChange.Original {
				t.Fatalf("no hunk changed %q into %q", *r.FileChange.Original, text)
			}
		}
	}
	switch typ {
	case "system", "rate_limit_event", "result":
		if len(added) != 1 {
			t.Fatalf("%d events from a %q line, want 1", len(added), typ)
		}
	}
}

// checkReportUnknown checks that a Parser with ReportUnknown reports what
// ParseLine does, with an Unknown event where ParseLine has none (a line
// of an unknown type) or a Heartbeat (a system line of an unknown
// subtype).
func checkReportUnknown(t *testing.T, line []byte, plain []Event, sid []byte) {
	all, allSID, err := Parser{ReportUnknown: true}.ParseLine(line, nil)
	if err != nil || !bytes.Equal(sid, allSID) {
		t.Fatalf("with ReportUnknown: error %v, session %q; without: session %q", err, allSID, sid)
	}
	var unknowns int
	asDefault := []Event{}
	for _, e := range all {
		u, ok := e.(Unknown)
		switch {
		case !ok:
			asDefault = append(asDefault, e)
		case u.Type == "system":
			asDefault = append(asDefault, Heartbeat{Subtype: u.Subtype, Timestamp: u.Timestamp})
		default:
			unknowns++
		}
	}
	if diff := cmp.Diff(append([]Event{}, plain...), asDefault); diff != "" || unknowns > 1 || unknowns == 1 && len(plain) > 0 {
		t.Fatalf("ReportUnknown events %v, without %v", all, plain)
	}
}

// eventLineType is the type of the line an event comes from.
func eventLineType(e Event) string {
	switch e.(type) {
	case Heartbeat, Retry, PermissionDenied:
		return "system"
	case Unknown:
		return "unknown"
	case Text, Thinking, ToolUse, UnknownBlock, MessageUsage, APIError:
		return "assistant"
	case ToolResult:
		return "user"
	case PartialText, PartialThinking, PartialToolUse, PartialToolInput:
		return "stream_event"
	case RateLimit:
		return "rate_limit_event"
	case Result:
		return "result"
	}
	return ""
}

func FuzzRateLimitInfo(f *testing.F) {
	for _, s := range []string{
		`{"status":"allowed","resetsAt":1778598000,"rateLimitType":"five_hour"}`,
		`{"status":"rejected","resets_at":"2026-05-12T15:00:00Z","utilization":1}`,
		`{"resetsAt":null,"reset":1}`,
		`{"reset_at":1e400}`,
		`{"resetAt":-1,"rate_limit_type":"seven_day"}`,
		`[]`,
		`{"resetsAt":99999999999999999999}`,
		`{"utilization":0.5,"unifiedWindows":{"a":{"utilization":1,"resetsAt":1},"b":{},"a":{"status":"x"},"c":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, info []byte) {
		if !gjson.ValidBytes(info) {
			return
		}
		rl := parseRateLimitInfo(gjson.ParseBytes(info))
		if rl.ResetsAt < 0 {
			t.Fatalf("negative reset time %d", rl.ResetsAt)
		}
		hasKey := false
		for _, k := range resetKeys {
			if bytes.Contains(info, []byte(k)) {
				hasKey = true
			}
		}
		// A key may be spelled with escapes; only plain text is checked.
		if !hasKey && !bytes.Contains(info, []byte(`\`)) && rl.ResetsAt != 0 {
			t.Fatalf("reset time %d from input without a reset key", rl.ResetsAt)
		}
		if !bytes.Contains(info, []byte("utilization")) && !bytes.Contains(info, []byte(`\`)) && rl.Utilization != nil {
			t.Fatal("utilization from input without one")
		}
		names := map[string]bool{}
		for i, w := range rl.Windows {
			if w.ResetsAt < 0 || names[w.Name] || i > 0 && rl.Windows[i-1].Name > w.Name {
				t.Fatalf("windows not sorted, repeated or with a negative reset time: %+v", rl.Windows)
			}
			names[w.Name] = true
		}
	})
}

// limitReached matches a text that reports a limit in the CLI's words.
var limitReached = regexp.MustCompile(`(?i)\blimit reached`)

func FuzzParseResetTime(f *testing.F) {
	for _, s := range []string{
		"Claude AI usage limit reached|1778598000",
		"5-hour limit reached ∙ resets 3am",
		"You've hit your limit · resets 8pm (America/New_York)",
		"You've hit your session limit · resets 5:30am (Asia/Calcutta)",
		"You've hit your limit · resets Apr 17, 7pm (Asia/Riyadh)",
		"You've hit your 5-hour limit · resets 5pm (Europe/Paris) · progress saved",
		"limit · resets Feb 29, 12:00",
		"Claude AI usage limit reached|0",
		"The file uses a tab delimiter; it resets 3pm",
		"Unlimited retries exhausted",
	} {
		f.Add(s, int64(1778595630), int32(0))
	}
	zones := func(name string) (*time.Location, error) {
		if len(name) > 3 || name == "UTC" {
			return time.FixedZone(name, (len(name)%27-13)*3600), nil
		}
		return nil, errors.New("unknown")
	}
	f.Fuzz(func(t *testing.T, text string, nowSec int64, offsetMin int32) {
		if nowSec < 0 || nowSec > 1<<36 {
			return
		}
		loc := time.FixedZone("now", int(offsetMin%(18*60))*60)
		now := time.Unix(nowSec, 0).In(loc)
		ms, err := ParseResetTime(text, now, zones)
		if err != nil {
			var ze *ZoneError
			switch {
			case ms != 0:
				t.Fatalf("error %v but ms = %d", err, ms)
			case errors.As(err, &ze):
				if ze.Err == nil || !strings.Contains(text, "("+ze.Zone+")") {
					t.Fatalf("ZoneError for %q (resolver error %v) from %q", ze.Zone, ze.Err, text)
				}
			case err == ErrNotLimit:
				if limitReached.MatchString(text) {
					t.Fatalf("ErrNotLimit for a text that reports a limit: %q", text)
				}
			case err != ErrNoResetTime:
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if ms <= 0 {
			t.Fatalf("ok with ms = %d", ms)
		}
		if !strings.Contains(text, "limit reached|") && !strings.Contains(text, "resets ") {
			t.Fatalf("reset time %d from text without one: %q", ms, text)
		}
		if !strings.Contains(text, "|") && ms < now.UnixMilli() {
			t.Fatalf("clock reset %d is before now %d: %q", ms, now.UnixMilli(), text)
		}
	})
}

// FuzzTerminalCommands checks that TerminalCommands never panics, lists
// commands only for a system init line, and lists no empty name.
func FuzzTerminalCommands(f *testing.F) {
	for _, s := range []string{
		`{"type":"system","subtype":"init","terminal_slash_commands":["doctor","color"]}`,
		`{"type":"system","subtype":"init","terminal_slash_commands":[1,"",null,{}]}`,
		`{"type":"system","subtype":"status","terminal_slash_commands":["x"]}`,
		`{"type":"system","subtype":"init","terminal_slash_commands":"doctor"}`,
		`[`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		list, ok := TerminalCommands(line)
		if !ok {
			if list != nil {
				t.Fatalf("%q: not listed, yet %q", line, list)
			}
			return
		}
		if !bytes.Contains(line, []byte("init")) || !bytes.Contains(line, []byte("system")) {
			t.Fatalf("%q: listed for a line that is no system init line", line)
		}
		for _, c := range list {
			if c == "" {
				t.Fatalf("%q: listed an empty name in %q", line, list)
			}
		}
	})
}
