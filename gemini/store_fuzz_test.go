package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

func FuzzReadEntries(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"e8280112-4e66-4a40-a4f5-c1cfb6f99296","projectHash":"3e1d","startTime":"2026-12-01T21:06:07.766Z","lastUpdated":"2026-12-01T21:06:07.766Z","kind":"main"}` + "\n" +
			`{"$set":{"messages":[{"id":"d0","timestamp":"2026-12-01T21:06:07.766Z","type":"user","content":[{"text":"<session_context>\n</session_context>"}]}],"lastUpdated":"2026-12-01T21:06:07.766Z"}}`,
		`{"id":"6b","timestamp":"2026-12-01T21:06:07.871Z","type":"user","content":[{"text":"Say hello."},{"inlineData":{"mimeType":"image/png","data":"iVBO"}},{"fileData":{"mimeType":"application/pdf","fileUri":"f"}}],"displayContent":[{"text":"@a.png hello"}]}`,
		`{"id":"8e","type":"gemini","content":"Hi","thoughts":[{"subject":"s","description":"d","timestamp":"2026-12-01T21:07:24.758Z"}],"model":"m"}`,
		`{"id":"00","type":"gemini","content":"","toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"echo hi"},"result":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"error":"x"}}}],"status":"error","resultDisplay":"x"}]}`,
		`{"id":"g","type":"gemini","content":[{"text":"t","thought":true},{"text":"a"},{"functionCall":{"id":"c","name":"read_file","args":{}}}]}`,
		`{"id":"u","type":"user","content":[{"functionResponse":{"id":"c","name":"read_file","response":{"output":"x"}}}]}`,
		`{"id":"w","type":"warning","content":"careful"}`,
		`{"$rewindTo":"u"}` + "\r\n\r\n" + `{"$set":{"summary":"s","memoryScratchpad":{"version":1}}}`,
		`{"$set":{"messages":[]}}`,
		`{"id":1,"$set":1,"sessionId":"s","projectHash":"p"}`,
		`{"future":true}`,
		`{"id":"6b2`,
		"not json\n[1]\n {\"$rewindTo\":\"x\"} \n",
		"",
	} {
		f.Add([]byte(s))
	}
	const maxLine = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		lines := parsetest.FileLines(data, maxLine)
		i := 0
		var c Conversation
		for e, err := range readEntries(bytes.NewReader(data), maxLine) {
			if i == len(lines) {
				t.Fatalf("entry %d beyond the %d lines", i+1, len(lines))
			}
			checkEntry(t, lines[i], e, err, maxLine)
			i++
			c.Apply(e)
		}
		if i != len(lines) {
			t.Fatalf("%d entries for %d lines", i, len(lines))
		}
		if !bytes.Equal(orig, data) {
			t.Fatal("the reader changed its input")
		}
		checkConversation(t, &c)
		info, err := ReadInfo(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("ReadInfo: %v", err)
		}
		if strings.ContainsAny(info.Title, "\n\r\t") || utf8.RuneCountInString(info.Title) > 201 || !utf8.ValidString(info.Title) {
			t.Fatalf("title %q is not one short line", info.Title)
		}
		if info.Title != "" && !info.Named && !info.HasMessages {
			t.Fatalf("a prompt for a title, %q, but no message", info.Title)
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
	isString := func(name string) bool {
		var s string
		return json.Unmarshal(top[name], &s) == nil
	}
	isObject := func(name string) bool {
		var m map[string]json.RawMessage
		return json.Unmarshal(top[name], &m) == nil && m != nil
	}
	want := RecordUnknown
	switch {
	case isString("$rewindTo"):
		want = RecordRewind
	case isString("id"):
		want = RecordMessage
	case isObject("$set"):
		want = RecordSet
	case isString("sessionId") && isString("projectHash"):
		want = RecordMetadata
	}
	if e.Record != want {
		t.Fatalf("Record %v, encoding/json reads %v", e.Record, want)
	}
	if (e.Set != nil) != (want == RecordSet || want == RecordMetadata) {
		t.Fatalf("%v record with Set %v", e.Record, e.Set)
	}
	if want == RecordUnknown && !bytes.Equal(e.Raw, trimmed) {
		t.Fatalf("unknown record not kept: %q", e.Raw)
	}
	if e.Prompt != nil && e.Type != "user" || len(e.Thoughts) > 0 && e.Type != "gemini" {
		t.Fatalf("%q message with a prompt %v, thoughts %v", e.Type, e.Prompt, e.Thoughts)
	}
}

// checkConversation holds the properties of a conversation: every message
// in it once, the ids indexed where they are, and Messages showing each
// tool call and result once.
func checkConversation(t *testing.T, c *Conversation) {
	t.Helper()
	if len(c.index) != len(c.messages) {
		t.Fatalf("%d ids indexed for %d messages", len(c.index), len(c.messages))
	}
	for i, m := range c.messages {
		if c.index[m.ID] != i || m.Record != RecordMessage {
			t.Fatalf("message %d (%q) indexed at %d", i, m.ID, c.index[m.ID])
		}
	}
	msgs := c.Messages()
	if len(msgs) != c.Len() {
		t.Fatalf("Messages() has %d of %d", len(msgs), c.Len())
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, ev := range m.Events {
			key := ""
			switch ev := ev.(type) {
			case ToolUse:
				key = "use " + ev.ID
			case ToolResult:
				key = "result " + ev.ID
			}
			if key != "" && seen[key] && key != "use " && key != "result " {
				t.Fatalf("%s twice", key)
			}
			seen[key] = true
		}
	}
}

// FuzzReadProjects checks that ReadProjects reads what encoding/json
// reads of projects.json, and keeps only the projects whose name makes
// a chats folder inside the CLI's folder.
func FuzzReadProjects(f *testing.F) {
	for _, s := range []string{
		`{"projects":{"/tmp/gm-store/plain/work":"work"}}`,
		`{"projects":{"/w/a":"a","/w/b":"../etc","/w/c":"c-1","/w/d":"","/w/e":"x/y","/w/f":"..","/w/g":"*"}}`,
		`{"projects":{"/a":"a","/a":"b"},"other":[1]}`,
		`{"projects":null}`, `{"projects":{"/a":1}}`, `null`, `[]`, `"x"`, ``, `{"projects":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ReadProjects(bytes.NewReader(data))
		var want struct {
			Projects map[string]string `json:"projects"`
		}
		if jerr := json.Unmarshal(data, &want); (err != nil) != (jerr != nil) {
			t.Fatalf("ReadProjects: %v; encoding/json: %v", err, jerr)
		}
		for cwd, name := range got {
			if want.Projects[cwd] != name {
				t.Fatalf("project of %q is %q; encoding/json reads %q", cwd, name, want.Projects[cwd])
			}
			dir, err := ChatsDir(name)
			if err != nil || !fs.ValidPath(dir) || strings.Count(dir, "/") != 2 || !strings.HasPrefix(dir, "tmp/") {
				t.Fatalf("project %q: chats folder %q, %v; want tmp/<name>/chats", name, dir, err)
			}
		}
		for cwd, name := range want.Projects {
			if _, ok := got[cwd]; !ok {
				if _, err := ChatsDir(name); err == nil {
					t.Fatalf("project %q of %q left out", name, cwd)
				}
			}
		}
	})
}
