package codex

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
		`{"timestamp":"2026-12-01T20:56:20.274Z","ordinal":0,"type":"session_meta","payload":{"id":"01a23364-e60f-7ea1-a8d3-8612e1f6ea53","cwd":"/w","history_mode":"paginated"}}` + "\n" +
			`{"timestamp":"2026-12-01T20:56:20.356Z","type":"event_msg","payload":{"type":"item_completed","turn_id":"t","item":{"type":"UserMessage","id":"u","content":[{"type":"text","text":"hi"},{"type":"image","image_url":"data:image/png;base64,iVBO"}]}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"a"},{"type":"Text","text":"b"}]}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Reasoning","id":"r","summary_text":["a","b"],"raw_content":[]}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c","command":["/bin/bash","-lc","echo 'hi' $X"],"aggregated_output":"hi\n","exit_code":0,"status":"completed"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"p","changes":{"/a":{"type":"add"}},"status":"completed"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"p","changes":{"/a":{"type":"update","unified_diff":"@@ -1 +1 @@\n-a\n+b\n","move_path":"/b"},"/c":{"type":"delete","content":"x"}},"status":"completed","stdout":"Success.","stderr":""}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"WebSearch","id":"w","action":{"type":"open_page","url":"u"}}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"McpToolCall","id":"m","server":"s","tool":"t","error":"boom"}}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"hi","images":["https://x/y.png"]}}`,
		`{"type":"event_msg","payload":{"type":"plan_update","plan":[{"step":"a","status":"completed"}]}}`,
		`{"type":"event_msg","payload":{"type":"error","message":"Reconnecting... 2/5 (unexpected status 502)"}}`,
		`{"type":"event_msg","payload":{"type":"error","error":{"message":"unexpected status 401 Unauthorized","codexErrorInfo":"unauthorized"}}}`,
		`{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"n"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}`,
		`{"type":"future","payload":1}` + "\r\n\r\n" + `{"type":"event_msg","payload":{"type":"future"}}`,
		`{"timestamp":"2026-12-01T20:56:20.3`,
		"not json\n[1]\n {\"type\":\"world_state\"} \n",
		`{"type":"event_msg","type":"session_meta","payload":{"id":"a"},"payload":{"id":"b"}}`,
		"",
	} {
		f.Add([]byte(s))
	}
	const maxLine = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		lines := parsetest.FileLines(data, maxLine)
		i := 0
		for e, err := range readEntries(bytes.NewReader(data), maxLine) {
			if i == len(lines) {
				t.Fatalf("entry %d beyond the %d lines", i+1, len(lines))
			}
			checkEntry(t, lines[i], e, err, maxLine)
			i++
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
	if err != nil {
		var le *LineError
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
	var top map[string]json.RawMessage // exact names, the last of each, as the reader
	if json.Unmarshal(trimmed, &top) != nil {
		return // validity is jsonscan's, checked by ParseLine's fuzz target
	}
	var typ string
	if json.Unmarshal(top["type"], &typ) != nil {
		if e.Type != "" || !bytes.Equal(e.Raw, trimmed) {
			t.Fatalf("line without a string type: Type %q, Raw %q", e.Type, e.Raw)
		}
		return
	}
	if e.Type != typ {
		t.Fatalf("Type %q, encoding/json reads %q", e.Type, typ)
	}
	kept := e.Raw != nil
	if kept && !bytes.Equal(e.Raw, trimmed) || kept && (e.Internal || len(e.Events) > 0 || e.Prompt != nil) {
		t.Fatalf("%q line: Raw %q with Internal %v, %d events, prompt %v", e.Type, e.Raw, e.Internal, len(e.Events), e.Prompt)
	}
	if len(e.Events) > 1 || e.Internal && (len(e.Events) > 0 || e.Prompt != nil || e.Title != "") {
		t.Fatalf("%q line: Internal %v, %d events, prompt %v, title %q", e.Type, e.Internal, len(e.Events), e.Prompt, e.Title)
	}
}
