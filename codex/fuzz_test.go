package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/parsetest"
)

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"thread.started","thread_id":"01a23170-f4e4-79a3-8053-87c2b8ccf99b"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}`,
		`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"file_change","changes":[{"path":"/a","kind":"add"}],"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"q","action":{"type":"search"}}}`,
		`{"type":"item.completed","item":{"id":"i","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":null,"error":{"message":"m"},"status":"failed"}}`,
		`{"type":"item.updated","item":{"id":"i","type":"todo_list","items":[{"text":"a","completed":true}]}}`,
		`{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: x)"}`,
		`{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests, request id: r"}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":2}}`,
		`{"type":"turn.failed","error":{"message":"try again at 2:00 PM."}}`,
		`{"type":"item.completed","item":{"id":"i","type":"plan","text":"x"}}`,
		`{"type":"thread.started","thread_id":"a","type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"\u00e9\ud83d\ude00"}}`,
		"[1]",
		"not json",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		prior := []Event{TurnStarted{}}
		events, threadID, err := ParseLine(line, prior)
		trimmed := parsetest.CheckInput(t, orig, line)
		var se *SyntaxError
		switch {
		case err == nil:
			if len(events) < 1 || events[0] != (TurnStarted{}) || len(events) > 2 {
				t.Fatalf("ParseLine returned %d events after the one it was given", len(events)-1)
			}
			if len(trimmed) > 0 {
				if trimmed[0] != '{' {
					t.Fatal("ParseLine accepted a line that is not an object")
				}
				checkAgainstEncodingJSON(t, trimmed, events[1:], threadID)
			} else if len(events) != 1 || threadID != nil {
				t.Fatal("an event or a thread id from a blank line")
			}
		case errors.As(err, &se):
			if len(trimmed) > 0 && trimmed[0] == '{' && jsonscan.Valid(trimmed) {
				t.Fatalf("%v for a valid object", err)
			}
			if len(events) != 1 || threadID != nil {
				t.Fatal("ParseLine returned events or a thread id with an error")
			}
			parsetest.CheckSyntaxError(t, err, se.Length, se.Offset, trimmed)
		default:
			t.Fatalf("unexpected error type %T", err)
		}
	})
}

// checkAgainstEncodingJSON checks what ParseLine read from an object line
// against what encoding/json decodes from it: the line type decides the
// kind of event, the item type its type, and the thread id and item id are
// the same. Both decoders take the last of a repeated name.
func checkAgainstEncodingJSON(t *testing.T, line []byte, added []Event, id []byte) {
	// Maps, not structs: encoding/json matches struct fields without
	// regard to case, and the CLI's member names are exact.
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return // validity is jsonscan's to check, against gjson above
	}
	var typ, threadID string
	_ = json.Unmarshal(top["type"], &typ) // absent or not a string leaves ""
	_ = json.Unmarshal(top["thread_id"], &threadID)
	if string(id) != threadID || (id == nil) != (threadID == "") {
		t.Fatalf("thread id %q, encoding/json reads %q", id, threadID)
	}
	var item map[string]json.RawMessage
	raw := top["item"]
	isItem := strings.HasPrefix(typ, "item.") && len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &item) == nil
	var itemType, itemID string
	_ = json.Unmarshal(item["type"], &itemType)
	_ = json.Unmarshal(item["id"], &itemID)
	want := ""
	switch typ {
	case "thread.started", "turn.started", "turn.completed", "turn.failed", "error":
		want = typ
	case "item.started", "item.updated", "item.completed":
		if isItem {
			want = "item"
			if (itemType == "agent_message" || itemType == "reasoning") && typ != "item.completed" {
				want = ""
			}
		}
	}
	if (want == "") != (len(added) == 0) {
		t.Fatalf("%d events from a line of type %q (item type %q)", len(added), typ, itemType)
	}
	if len(added) == 0 {
		return
	}
	got := lineType(added[0])
	if got != want {
		t.Fatalf("%T event from a line whose type encoding/json reads as %q", added[0], typ)
	}
	switch e := added[0].(type) {
	case APIError:
		checkStatus(t, e.Message, e.Status)
	case Retry:
		checkStatus(t, e.Message, e.Status)
	case TurnFailed:
		checkStatus(t, e.Message, e.Status)
	case ThreadStarted:
		if e.ThreadID != threadID {
			t.Fatalf("thread id %q, encoding/json reads %q", e.ThreadID, threadID)
		}
	case UnknownItem:
		if e.Type != itemType || e.ItemID != itemID {
			t.Fatalf("unknown item %q %q, encoding/json reads %q %q", e.Type, e.ItemID, itemType, itemID)
		}
	}
}

// checkStatus checks that an HTTP status read from msg is one, and that
// msg names it after the word "status".
func checkStatus(t *testing.T, msg string, status int) {
	if status == 0 {
		return
	}
	if status < 100 || status > 599 {
		t.Fatalf("status %d from %q", status, msg)
	}
	n := strconv.Itoa(status)
	if !strings.Contains(strings.ToLower(msg), "status "+n) && !strings.Contains(strings.ToLower(msg), "status: "+n) {
		t.Fatalf("status %d from %q, which does not name it", status, msg)
	}
}

// lineType is the kind of line an event comes from: its type, or "item".
func lineType(e Event) string {
	switch e.(type) {
	case ThreadStarted:
		return "thread.started"
	case TurnStarted:
		return "turn.started"
	case TurnCompleted:
		return "turn.completed"
	case TurnFailed:
		return "turn.failed"
	case Retry, APIError:
		return "error"
	case Text, Reasoning, CommandExecution, FileChange, WebSearch, MCPToolCall, TodoList, Notice, UnknownItem:
		return "item"
	}
	return ""
}

func FuzzParseResetTime(f *testing.F) {
	for _, s := range []string{
		"You’ve hit your usage limit. … or try again at 2:00 PM.",
		"You've hit your usage limit. Try again at Dec 5th, 2026 2:00 PM.",
		"Please try again in 11.054s. Visit",
		"try again at Feb 29th 12:00 AM",
		"try again at 23:59",
		"Try again later.",
		"try again in 9999999h",
	} {
		f.Add(s, int64(1796182215), int32(-300))
	}
	f.Fuzz(func(t *testing.T, text string, nowSec int64, offsetMin int32) {
		if nowSec < 0 || nowSec > 1<<36 {
			return
		}
		loc := time.FixedZone("cli", int(offsetMin%(18*60))*60)
		now := time.Unix(nowSec, 0).In(loc)
		ms, err := ParseResetTime(text, now, nil)
		if err != nil {
			if ms != 0 || errors.Is(err, ErrNoResetTime) == errors.Is(err, ErrNotLimit) {
				t.Fatalf("ms = %d, err = %v", ms, err)
			}
			return
		}
		lower := strings.ToLower(text)
		if !strings.Contains(lower, "try again at ") && !strings.Contains(lower, "try again in ") {
			t.Fatalf("reset time %d from text without one: %q", ms, text)
		}
		if strings.Contains(lower, "try again in ") && !strings.Contains(lower, "try again at ") && ms <= now.UnixMilli() {
			t.Fatalf("a duration gave %d, not after now %d: %q", ms, now.UnixMilli(), text)
		}
	})
}

// FuzzResumeNotFound checks the stderr reader's two promises: more text
// around what says "not found" never hides it, and ASCII case does not
// matter.
func FuzzResumeNotFound(f *testing.F) {
	for _, s := range []string{
		"ERROR: No saved session found with ID 0199a213-0000-7000-8000-000000000000.\n",
		"no rollout found for thread id x",
		"WARNING: proceeding, even though we could not create PATH aliases\n",
		"",
	} {
		f.Add([]byte(s), []byte("before\n"), []byte("\nafter"))
	}
	f.Fuzz(func(t *testing.T, stderr, before, after []byte) {
		found := ResumeNotFound(stderr)
		if found && !ResumeNotFound(append(append(bytes.Clone(before), stderr...), after...)) {
			t.Fatalf("found in %q but not with text around it", stderr)
		}
		if found != ResumeNotFound(bytes.ToUpper(stderr)) && isASCII(stderr) {
			t.Fatalf("found in %q is %v, but not in upper case", stderr, found)
		}
	})
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
