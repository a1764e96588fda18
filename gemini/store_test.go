package gemini_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// storeFiles lists the session files under testdata/store: every file the
// Gemini CLI 0.61.0 stored in the captures (see testdata/store/README.md).
func storeFiles(t *testing.T) []string { return parsetest.StoreFiles(t, "testdata/store", "/chats/") }

// goldenEntry is an Entry as the golden files show it: its events with
// their type names, the messages of a $set alike, and only the length of
// a raw line.
type goldenEntry struct {
	Error string `json:",omitempty"`
	gemini.Entry
	Events []fakecli.Typed[gemini.Event] `json:",omitempty"`
	Set    *goldenMetadata               `json:",omitempty"`
	Raw    int                           `json:",omitempty"`
}

type goldenMetadata struct {
	gemini.Metadata
	Messages []goldenEntry `json:",omitempty"`
}

func golden(e gemini.Entry, err error) goldenEntry {
	g := goldenEntry{Entry: e, Events: fakecli.Describe(e.Events, "gemini"), Raw: len(e.Raw)}
	if err != nil {
		g.Error = err.Error()
	}
	if e.Set != nil {
		g.Set = &goldenMetadata{Metadata: *e.Set}
		for _, m := range e.Set.Messages {
			g.Set.Messages = append(g.Set.Messages, golden(m, nil))
		}
	}
	return g
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	data, err := fakecli.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// conversation applies the records of the file at p to a Conversation.
func conversation(t *testing.T, p string) *gemini.Conversation {
	t.Helper()
	var c gemini.Conversation
	for e, err := range gemini.ReadEntries(open(t, p)) {
		if err != nil {
			t.Fatal(err)
		}
		c.Apply(e)
	}
	return &c
}

// TestReadEntries reads every captured session and compares its records
// with the file's golden file, and the conversation they build with the
// .conversation golden file. Run with -update to rewrite them.
func TestReadEntries(t *testing.T) {
	for _, p := range storeFiles(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(p), "testdata/store/"), func(t *testing.T) {
			out := []goldenEntry{}
			for e, err := range gemini.ReadEntries(open(t, p)) {
				out = append(out, golden(e, err))
			}
			parsetest.Check(t, p, encode(t, out), *update)

			c := conversation(t, p)
			msgs := []goldenEntry{}
			for _, m := range c.Messages() {
				msgs = append(msgs, golden(m, nil))
			}
			fields := *c
			parsetest.Check(t, strings.TrimSuffix(p, ".jsonl")+".conversation.jsonl", encode(t, struct {
				Session  gemini.Conversation
				Messages []goldenEntry
			}{fields, msgs}), *update)
		})
	}
}

// shown keeps the events a replay shows, in both views: the answer's
// complete text, tool calls and results, without the live stream's
// chunks, its run's end and its echo of the prompt.
func shown(events []gemini.Event) []gemini.Event {
	var out []gemini.Event
	for _, e := range events {
		switch e.(type) {
		case gemini.Text, gemini.ToolUse, gemini.ToolResult, gemini.Notice:
			out = append(out, e)
		}
	}
	return out
}

// TestStoreEqualsLive checks that the conversation each stored session
// builds shows what the live runs that wrote it showed: the same prompts,
// and the same events in the same order.
func TestStoreEqualsLive(t *testing.T) {
	tests := []struct {
		session string   // under testdata/store
		live    []string // the runs that wrote it, in order
	}{
		{"plain/tmp/work/chats/session-2026-12-01T21-06-e8280112.jsonl", []string{"plain/live-r1"}},
		{"thinking/tmp/work/chats/session-2026-12-01T21-07-5d3f4ebe.jsonl", []string{"thinking/live-r1"}},
		{"tool-call/tmp/work/chats/session-2026-12-01T21-07-70c7e5f7.jsonl", []string{"tool-call/live-r1"}},
		{"resume/tmp/work/chats/session-2026-12-01T21-06-181cb93b.jsonl", []string{"resume/live-r1", "resume/live-r2", "resume/live-r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.session, func(t *testing.T) {
			var want []gemini.Event
			var wantPrompts []string
			for _, run := range tt.live {
				turn := gemini.NewTurn("")
				for ev, err := range turn.Events(open(t, "testdata/store/"+run+".jsonl")) {
					if err != nil {
						t.Fatal(err)
					}
					if u, ok := ev.(gemini.UserMessage); ok {
						wantPrompts = append(wantPrompts, u.Text)
					}
					want = append(want, shown([]gemini.Event{ev})...)
				}
			}
			var got []gemini.Event
			var prompts []string
			for _, m := range conversation(t, "testdata/store/"+tt.session).Messages() {
				if m.Prompt != nil && !m.Meta {
					prompts = append(prompts, m.Prompt.Text())
				}
				got = append(got, shown(m.Events)...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stored events differ from the live ones (-live +stored):\n%s", diff)
			}
			if diff := cmp.Diff(wantPrompts, prompts); diff != "" {
				t.Errorf("stored prompts differ from the live ones (-live +stored):\n%s", diff)
			}
		})
	}
}

// TestReadEntriesBadLines checks that a file with a corrupt line, an
// unknown record and a last line cut short yields every good record and
// an error for each bad line, in place.
func TestReadEntriesBadLines(t *testing.T) {
	file := `{"sessionId":"e8280112-4e66-4a40-a4f5-c1cfb6f99296","projectHash":"3e1d","startTime":"2026-12-01T21:06:07.766Z","lastUpdated":"2026-12-01T21:06:07.766Z","kind":"main"}
{"id":"6b29","timestamp":"2026-12-01T21:06:07.871Z","type":"user","content":[{"text":"hi"}]}
{"id":"6b2
{"$future":1}
{"id":"x1","type":"reaction","content":"👍"}
{"$set":{"lastUpdated":"2026-12-01T21:06:07.872Z"}}
{"id":"8e5d","type":"gemini","content":"Hello","thoughts":[],"model":"gemini-3.8-flash"}
{"$set":{"summ`
	type result struct {
		Line   int64
		Record string
		Type   string
		Raw    bool
		Error  string
	}
	var got []result
	for e, err := range gemini.ReadEntries(strings.NewReader(file)) {
		r := result{Line: e.Line, Record: e.Record.String(), Type: e.Type, Raw: e.Raw != nil}
		if err != nil {
			var le *gemini.LineError
			var se *gemini.SyntaxError
			if !errors.As(err, &le) || !errors.As(err, &se) {
				t.Fatalf("error %v is not a *LineError wrapping a *SyntaxError", err)
			}
			r = result{Line: le.Line, Error: err.Error()}
		}
		got = append(got, r)
	}
	want := []result{
		{Line: 1, Record: "metadata"},
		{Line: 2, Record: "message", Type: "user"},
		{Line: 3, Error: "gemini: skipped line 3 (byte 261): invalid stream-json line (10 bytes): unexpected end of input at offset 10"},
		{Line: 4, Record: "unknown", Raw: true},
		{Line: 5, Record: "message", Type: "reaction", Raw: true},
		{Line: 6, Record: "$set"},
		{Line: 7, Record: "message", Type: "gemini"},
		{Line: 8, Error: "gemini: skipped line 8 (byte 474): invalid stream-json line (14 bytes): unexpected end of input at offset 14"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// replay describes what a replay shows of a conversation: the person's
// prompts and the events, one line each.
func replay(c *gemini.Conversation) []string {
	var out []string
	for _, m := range c.Messages() {
		if m.Prompt != nil && !m.Meta {
			out = append(out, "person: "+m.Prompt.Text())
		}
		for _, ev := range m.Events {
			switch ev := ev.(type) {
			case gemini.Text:
				out = append(out, "agent: "+ev.Text)
			case gemini.ToolUse:
				out = append(out, "call "+ev.ID+": "+ev.Name+" "+string(ev.Input))
			case gemini.ToolResult:
				out = append(out, "result "+ev.ID+": "+string(ev.Status)+" "+ev.Output+ev.ErrorMessage)
			case gemini.Notice:
				out = append(out, ev.Severity+": "+ev.Message)
			}
		}
	}
	return out
}

// TestConversation checks how records build the conversation: replacing
// by id, a $set of the list, rewinds, and the tool calls a rebuilt list
// holds in its parts.
func TestConversation(t *testing.T) {
	const meta = `{"sessionId":"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1","projectHash":"b9a5","startTime":"2026-12-01T21:06:24.370Z","lastUpdated":"2026-12-01T21:06:24.370Z","kind":"main"}` + "\n"
	tests := []struct {
		name string
		file string
		want []string
	}{
		{"replace by id", meta +
			`{"id":"u1","type":"user","content":[{"text":"Run it."}]}` + "\n" +
			`{"id":"g1","type":"gemini","content":"","thoughts":[]}` + "\n" +
			`{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"status":"success","resultDisplay":"a.go","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"a.go"}}}]}]}` + "\n" +
			`{"id":"u2","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"a.go"}}}]}` + "\n" +
			`{"id":"g2","type":"gemini","content":"Done."}` + "\n",
			[]string{"person: Run it.", `call c1: run_shell_command {"command":"ls"}`, "result c1: success a.go", "agent: Done."}},
		{"a rebuilt list", meta +
			`{"id":"u0","type":"user","content":[{"text":"Old."}]}` + "\n" +
			`{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>\nx\n</session_context>"}]},` +
			`{"id":"u1","type":"user","content":[{"text":"Run it."}]},` +
			`{"id":"g1","type":"gemini","content":[{"text":"Let me see.","thought":true},{"text":"Running."},{"functionCall":{"id":"c1","name":"read_file","args":{"file_path":"/w/a"}}}]},` +
			`{"id":"u2","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"error":"no such file"}}}]}],"lastUpdated":"2026-12-01T21:06:38.044Z"}}` + "\n" +
			`{"id":"u3","type":"user","content":[{"text":"Again."}]}` + "\n",
			[]string{"person: Run it.", "agent: Running.", `call c1: read_file {"file_path":"/w/a"}`, "result c1: error no such file", "person: Again."}},
		{"rewind", meta +
			`{"id":"u1","type":"user","content":[{"text":"One."}]}` + "\n" +
			`{"id":"g1","type":"gemini","content":"1"}` + "\n" +
			`{"id":"u2","type":"user","content":[{"text":"Two."}]}` + "\n" +
			`{"id":"g2","type":"gemini","content":"2"}` + "\n" +
			`{"$rewindTo":"u2"}` + "\n" +
			`{"id":"u3","type":"user","content":[{"text":"Three."}],"displayContent":[{"text":"3!"}]}` + "\n",
			[]string{"person: One.", "agent: 1", "person: 3!"}},
		{"rewind to an unknown id clears all", meta +
			`{"id":"u1","type":"user","content":"One."}` + "\n" + `{"$rewindTo":"nope"}` + "\n" + `{"id":"e1","type":"error","content":"Quota exceeded"}` + "\n",
			[]string{"error: Quota exceeded"}},
		{"an empty list clears all", meta +
			`{"id":"u1","type":"user","content":"One."}` + "\n" + `{"$set":{"messages":[]}}` + "\n",
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c gemini.Conversation
			for e, err := range gemini.ReadEntries(strings.NewReader(tt.file)) {
				if err != nil {
					t.Fatal(err)
				}
				c.Apply(e)
			}
			if diff := cmp.Diff(tt.want, replay(&c)); diff != "" {
				t.Errorf("replay (-want +got):\n%s", diff)
			}
			if c.SessionID != "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1" || c.StartTime == 0 {
				t.Errorf("session fields %+v", c)
			}
		})
	}
}

func open(t *testing.T, p string) *os.File { return parsetest.Open(t, p) }

func size(t *testing.T, f *os.File) int64 { return parsetest.Size(t, f) }
