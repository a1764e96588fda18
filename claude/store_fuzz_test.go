package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

func FuzzReadEntries(f *testing.F) {
	for _, s := range []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Say hello."},"uuid":"895750f0-7065-4da2-b5bf-c78db87780e6","timestamp":"2026-12-01T20:50:37.365Z","cwd":"/w","sessionId":"5474356c-702e-48b0-8ecb-5f54d4bff9a2"}`,
		`{"parentUuid":"a","type":"assistant","message":{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]},"uuid":"b","timestamp":"2026-12-01T20:50:37.498Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"ok","is_error":true}]},"toolUseResult":"Error"}`,
		`{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}},{"type":"text","text":"[Request interrupted by user]"}]}}`,
		`{"type":"assistant","isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"API Error"}]}}`,
		`{"type":"system","subtype":"turn_duration","durationMs":233,"uuid":"c","isMeta":false}`,
		`{"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>a1</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<status>completed</status>\n<result>r</result>\n</task-notification>"}}`,
		`{"type":"user","turnOrigin":"task_notification","message":{"role":"user","content":[{"type":"text","text":"<task-notification><result>a</result></result>"}]}}`,
		`{"type":"system","subtype":"api_error","level":"error","error":{"status":529},"retryInMs":601.5,"retryAttempt":1,"maxRetries":10}`,
		`{"type":"assistant","error":"rate_limit","isApiErrorMessage":true,"apiErrorStatus":429,"apiErrorParams":{"rate_limit_info":{"status":"rejected","resetsAt":1796054400}},"message":{"content":[{"type":"text","text":"x"}]}}`,
		`{"type":"custom-title","customTitle":"Login work"}` + "\n" + `{"type":"ai-title","aiTitle":"t"}`,
		`{"type":"attachment","attachment":{"type":"date"}}` + "\r\n\r\n" + `{"type":"future","x":[1,2]}`,
		`{"type":"user","message":{"con`,
		"not json\n[1]\n\"x\"\n {\"type\":\"mode\"} \n",
		`{"type":1,"type":"user","message":{"content":"a"},"message":{"content":"b"}}`,
		`{"type":"\u0075ser","isMeta":true,"message":{"content":"<command-name>/x</command-name>"}}`,
		strings.Repeat(" ", 70) + "\n" + strings.Repeat("x", 70),
		"",
	} {
		f.Add([]byte(s))
	}
	const maxLine = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		lines := parsetest.FileLines(data, maxLine)
		i := 0
		for e, err := range readEntries(bytes.NewReader(data), "toolu_parent", maxLine) {
			if i == len(lines) {
				t.Fatalf("entry %d beyond the %d lines", i+1, len(lines))
			}
			l := lines[i]
			i++
			checkEntry(t, l, e, err, maxLine)
		}
		if i != len(lines) {
			t.Fatalf("%d entries for %d lines", i, len(lines))
		}
		if !bytes.Equal(orig, data) {
			t.Fatal("the reader changed its input")
		}
		info, err := ReadInfo(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("ReadInfo: %v", err)
		}
		if strings.ContainsAny(info.Title, "\n\r\t") || utf8.RuneCountInString(info.Title) > 201 || !utf8.ValidString(info.Title) {
			t.Fatalf("title %q is not one short line", info.Title)
		}
	})
}

// checkEntry holds the properties of what the reader yields for line l.
func checkEntry(t *testing.T, l parsetest.FileLine, e Entry, err error, maxLine int) {
	t.Helper()
	var le *LineError
	if err != nil {
		if !errors.As(err, &le) || le.Line != l.N || le.Offset != l.Offset {
			t.Fatalf("line %d at %d: error %v, want a *LineError there", l.N, l.Offset, err)
		}
		var se *SyntaxError
		var tl *LineTooLongError
		switch {
		case errors.As(err, &tl):
			if len(l.Text) <= maxLine || tl.Length != int64(len(l.Text)) {
				t.Fatalf("line of %d bytes reported too long: %v", len(l.Text), err)
			}
		case errors.As(err, &se):
			trimmed := bytes.TrimSpace(l.Text)
			if json.Valid(trimmed) && trimmed[0] == '{' && utf8.Valid(trimmed) {
				t.Fatalf("a JSON object reported invalid: %v", err)
			}
			parsetest.CheckSyntaxError(t, err, se.Length, se.Offset, trimmed)
		default:
			t.Fatalf("unexpected error %T %v", err, err)
		}
		if !cmp.Equal(e, Entry{}) {
			t.Fatal("an entry with an error")
		}
		return
	}
	if e.Line != l.N || e.Offset != l.Offset {
		t.Fatalf("entry at line %d offset %d, want %d at %d", e.Line, e.Offset, l.N, l.Offset)
	}
	trimmed := bytes.TrimSpace(l.Text)
	var top map[string]json.RawMessage
	if json.Unmarshal(trimmed, &top) != nil {
		return // validity is jsonscan's, checked by the parsers' fuzz targets
	}
	var typ string
	if json.Unmarshal(top["type"], &typ) != nil || typ == "" {
		if e.Type != "" || !bytes.Equal(e.Raw, trimmed) {
			t.Fatalf("line without a type: Type %q, Raw %q", e.Type, e.Raw)
		}
		return
	}
	if e.Type != typ {
		t.Fatalf("Type %q, encoding/json reads %q", e.Type, typ)
	}
	switch typ {
	case "user", "assistant", "system":
		for _, ev := range e.Events {
			if p := parentOf(ev); p != "toolu_parent" {
				t.Fatalf("%T with ParentToolUseID %q", ev, p)
			}
		}
		if e.Raw != nil {
			t.Fatal("a known line kept raw")
		}
	default:
		_, internal := internalTypes[typ]
		_, title := titleTypes[typ]
		if e.Internal != internal || (e.Raw != nil) != (!internal && !title) || e.Raw != nil && !bytes.Equal(e.Raw, trimmed) {
			t.Fatalf("%q line: Internal %v, Raw %q", typ, e.Internal, e.Raw)
		}
	}
	if e.Prompt != nil && typ != "user" || e.Interrupt && e.Prompt != nil {
		t.Fatalf("%q line with prompt %v, interrupt %v", typ, e.Prompt, e.Interrupt)
	}
	if e.Notification != nil && (typ != "user" || !e.Meta) || e.Origin != "" && typ != "user" {
		t.Fatalf("%q line with notification %+v, origin %q, meta %v", typ, e.Notification, e.Origin, e.Meta)
	}
}

// parentOf returns an event's ParentToolUseID.
func parentOf(e Event) string {
	switch e := e.(type) {
	case Text:
		return e.ParentToolUseID
	case Thinking:
		return e.ParentToolUseID
	case ToolUse:
		return e.ParentToolUseID
	case UnknownBlock:
		return e.ParentToolUseID
	case ToolResult:
		return e.ParentToolUseID
	case APIError:
		return e.ParentToolUseID
	case PermissionDenied:
		return e.ParentToolUseID
	}
	return "toolu_parent" // events without one
}

// TestReadEntriesAgreesWithParseLine checks that the events of a stored
// line are those ParseLine reads from it, for the captured sessions.
func TestReadEntriesAgreesWithParseLine(t *testing.T) {
	lines, _ := parsetest.Lines(t,
		"testdata/store/tools/projects/-tmp-cc-store-tools-work/eaca3c35-d13e-4c1d-a95b-a66cef48d210.jsonl",
		"testdata/store/thinking/projects/-tmp-cc-store-thinking-work/dc485482-1765-4952-9d28-514fd2a660b5.jsonl",
		"testdata/store/tui-title/projects/-tmp-cc-store-tui-title-work/d5464bb8-88f1-410d-8933-83f4fd7c37c6.jsonl")
	var er entryReader
	for _, line := range lines {
		e, err := er.read(line)
		// The stream names the call's account as the store does not.
		live := bytes.Replace(line, []byte(`"toolUseResult":`), []byte(`"tool_use_result":`), 1)
		want, _, err2 := ParseLine(live, nil)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		switch e.Type {
		case "user", "assistant", "system":
		default:
			continue
		}
		if diff := cmp.Diff(want, e.Events); diff != "" {
			t.Errorf("line %.80s: events (-ParseLine +stored):\n%s", line, diff)
		}
	}
}

// FuzzReadSubagentMeta checks that ReadSubagentMeta reads a JSON object
// as encoding/json does, keeps it whole, and refuses anything else.
func FuzzReadSubagentMeta(f *testing.F) {
	for _, s := range []string{
		`{"agentType":"general-purpose","isBuiltIn":true,"description":"Check the shell","toolUseId":"toolu_01tAj9vCJitiNj9ZdeGHDOMP","spawnDepth":1,"finished":true}`,
		` {"toolUseId":"t","toolUseId":"u"} `, `{"toolUseId":1}`, `{}`, `null`, `[]`, `"x"`, ``, `{"agentType":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadSubagentMeta(bytes.NewReader(data))
		var want struct {
			AgentType   string `json:"agentType"`
			Description string `json:"description"`
			ToolUseID   string `json:"toolUseId"`
		}
		trimmed := bytes.TrimSpace(data)
		object := len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(data, &want) == nil
		if (err == nil) != object {
			t.Fatalf("ReadSubagentMeta: %v; a JSON object encoding/json reads: %v", err, object)
		}
		if err != nil {
			return
		}
		if m.AgentType != want.AgentType || m.Description != want.Description || m.ToolUseID != want.ToolUseID || !bytes.Equal(m.Raw, data) {
			t.Fatalf("ReadSubagentMeta: %+v; encoding/json reads %+v", m, want)
		}
	})
}
