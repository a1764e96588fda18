package codex_test

import (
	"errors"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// storeFiles lists the rollout files under testdata/store: every file
// Codex 0.169.0 stored in the captures (see testdata/store/README.md).
func storeFiles(t *testing.T) []string {
	return parsetest.StoreFiles(t, "testdata/store", "/sessions/")
}

// goldenEntry is an Entry as the golden files show it: its events with
// their type names, and only the length of a raw line.
type goldenEntry struct {
	Error string `json:",omitempty"`
	codex.Entry
	Events []fakecli.Typed[codex.Event] `json:",omitempty"`
	Raw    int                          `json:",omitempty"`
}

func renderEntries(t *testing.T, seq iter.Seq2[codex.Entry, error]) []byte {
	t.Helper()
	out := []goldenEntry{}
	for e, err := range seq {
		g := goldenEntry{Entry: e, Events: fakecli.Describe(e.Events, "codex"), Raw: len(e.Raw)}
		if err != nil {
			g.Error = err.Error()
		}
		out = append(out, g)
	}
	data, err := fakecli.Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReadEntries reads every captured rollout and compares the entries
// with the file's golden file. Run with -update to rewrite them.
func TestReadEntries(t *testing.T) {
	for _, p := range storeFiles(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(p), "testdata/store/"), func(t *testing.T) {
			parsetest.Check(t, p, renderEntries(t, codex.ReadEntries(open(t, p))), *update)
		})
	}
}

// shown keeps the events a replay shows, in both views, each item once,
// complete, without the ids that the live stream numbers per process
// ("item_0") and the store does not.
func shown(events []codex.Event) []codex.Event {
	var out []codex.Event
	for _, e := range events {
		switch e := e.(type) {
		case codex.Text:
			e.ItemID = ""
			out = append(out, e)
		case codex.Reasoning:
			e.ItemID = ""
			out = append(out, e)
		case codex.CommandExecution:
			if e.Phase == codex.PhaseCompleted {
				e.ItemID = ""
				out = append(out, e)
			}
		case codex.FileChange:
			if e.Phase == codex.PhaseCompleted {
				e.ItemID = ""
				out = append(out, e)
			}
		case codex.WebSearch, codex.MCPToolCall, codex.TodoList, codex.Notice, codex.APIError:
			out = append(out, e)
		}
	}
	return out
}

// TestStoreEqualsLive checks that the events of each stored thread are
// the events the live runs that wrote it showed, in the same order.
func TestStoreEqualsLive(t *testing.T) {
	tests := []struct {
		rollout string   // under testdata/store
		live    []string // the runs that wrote it, in order
	}{
		{"plain/sessions/2026/12/01/rollout-2026-12-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea53.jsonl", []string{"plain/live-r1"}},
		{"reasoning/sessions/2026/12/01/rollout-2026-12-01T20-57-15-01a23365-bee2-7d02-958a-929b55ee4338.jsonl", []string{"reasoning/live-r1"}},
		{"tool-call/sessions/2026/12/01/rollout-2026-12-01T20-56-51-01a23365-5f5f-7923-b1f2-69bd6d41c2c7.jsonl", []string{"tool-call/live-r1"}},
		{"resume/sessions/2026/12/01/rollout-2026-12-01T20-56-28-01a23365-0657-7662-80b4-4726987395b1.jsonl", []string{"resume/live-r1", "resume/live-r2", "resume/live-r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.rollout, func(t *testing.T) {
			var want []codex.Event
			for _, run := range tt.live {
				for ev, err := range codex.NewTurn("").Events(open(t, "testdata/store/"+run+".jsonl")) {
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, shown([]codex.Event{ev})...)
				}
			}
			var got []codex.Event
			prompts := 0
			for e, err := range codex.ReadEntries(open(t, "testdata/store/"+tt.rollout)) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, shown(e.Events)...)
				if e.Prompt != nil {
					prompts++
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stored events differ from the live ones (-live +stored):\n%s", diff)
			}
			if prompts != len(tt.live) {
				t.Errorf("%d prompts for %d runs", prompts, len(tt.live))
			}
		})
	}
}

// TestReadEntriesBadLines checks that a file with a corrupt line, unknown
// records and a last line cut short yields every good entry and an error
// for each bad line, in place.
func TestReadEntriesBadLines(t *testing.T) {
	file := `{"timestamp":"2026-12-01T20:56:20.274Z","type":"session_meta","payload":{"id":"01a23364-e60f-7ea1-a8d3-8612e1f6ea53","cwd":"/w","history_mode":"paginated"}}
{"timestamp":"2026-12-01T20:56:20.356Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u","content":[{"type":"text","text":"hi"}]}}}
{"timestamp":"2026-12-01T20:56:20.3
{"timestamp":"2026-12-01T20:56:20.400Z","type":"future_record","payload":{}}
{"timestamp":"2026-12-01T20:56:20.401Z","type":"event_msg","payload":{"type":"future_event","x":1}}
{"timestamp":"2026-12-01T20:56:20.451Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"FutureItem","id":"f"}}}
{"timestamp":"2026-12-01T20:56:20.452Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"a","content":[{"type":"Text","text":"hello"}]}}}
{"timestamp":"2026-12-01T20:56:20.5`
	type result struct {
		Line          int64
		Type, Subtype string
		Raw           bool
		Prompt        string
		Events        int
		Error         string
	}
	var got []result
	for e, err := range codex.ReadEntries(strings.NewReader(file)) {
		r := result{Line: e.Line, Type: e.Type, Subtype: e.Subtype, Raw: e.Raw != nil, Prompt: e.Prompt.Text(), Events: len(e.Events)}
		if err != nil {
			var le *codex.LineError
			var se *codex.SyntaxError
			if !errors.As(err, &le) || !errors.As(err, &se) {
				t.Fatalf("error %v is not a *LineError wrapping a *SyntaxError", err)
			}
			r.Line, r.Error = le.Line, err.Error()
		}
		got = append(got, r)
	}
	want := []result{
		{Line: 1, Type: "session_meta"},
		{Line: 2, Type: "event_msg", Subtype: "item_completed", Prompt: "hi"},
		{Line: 3, Error: "codex: skipped line 3 (byte 332): invalid JSON line (35 bytes): unexpected end of input at offset 35"},
		{Line: 4, Type: "future_record", Raw: true},
		{Line: 5, Type: "event_msg", Subtype: "future_event", Raw: true},
		{Line: 6, Type: "event_msg", Subtype: "item_completed", Events: 1},
		{Line: 7, Type: "event_msg", Subtype: "item_completed", Events: 1},
		{Line: 8, Error: "codex: skipped line 8 (byte 858): invalid JSON line (35 bytes): unexpected end of input at offset 35"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestReadEntriesLegacy checks a rollout of an older CLI, whose history
// mode is legacy: its user_message, agent_message and agent_reasoning
// records hold the conversation, and an item_completed that repeats an
// agent message is left out.
func TestReadEntriesLegacy(t *testing.T) {
	file := `{"timestamp":"2025-09-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0198f0a4-0657-7662-80b4-4726987395b1","cwd":"/w","cli_version":"0.46.0"}}
{"timestamp":"2025-09-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Fix it.","images":["data:image/png;base64,iVBO"]}}
{"timestamp":"2025-09-01T10:00:02.000Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Looking**"}}
{"timestamp":"2025-09-01T10:00:03.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Fixed."}}
{"timestamp":"2025-09-01T10:00:03.001Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"Fixed."}]}}}
{"timestamp":"2025-09-01T10:00:04.000Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}
`
	var got []any
	for e, err := range codex.ReadEntries(strings.NewReader(file)) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Prompt != nil {
			got = append(got, e.Prompt)
		}
		for _, ev := range e.Events {
			got = append(got, ev)
		}
		if e.Interrupt {
			got = append(got, "interrupt")
		}
	}
	want := []any{
		codex.Prompt{{Type: "text", Text: "Fix it."}, {Type: "image", MediaType: "image/png", Data: "iVBO"}},
		codex.Reasoning{Text: "**Looking**"},
		codex.Text{Text: "Fixed."},
		"interrupt",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("legacy rollout (-want +got):\n%s", diff)
	}
}

// TestReadEntriesItems checks the stored items no capture holds, in the
// shapes of Codex's TurnItem.
func TestReadEntriesItems(t *testing.T) {
	file := `{"type":"session_meta","payload":{"id":"01a23364-e60f-7ea1-a8d3-8612e1f6ea53","history_mode":"paginated"}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u","content":[{"type":"text","text":"Look:"},{"type":"image","image_url":"https://example.com/a.png"},{"type":"local_image","path":"/tmp/b.png"}]}}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"p","changes":{"/w/a.go":{"type":"update","unified_diff":"@@"},"/w/b.go":{"type":"add","content":"x"}},"status":"completed"}}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"q","changes":[{"path":"/w/c.go","kind":{"type":"delete"}}],"status":"completed"}}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"WebSearch","id":"ws_1","query":"","action":{"type":"search","query":"go iter"}}}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c","command":["bash","-lc","echo 'it''s' $HOME"],"aggregated_output":"","exit_code":1,"status":"failed"}}}
{"type":"event_msg","payload":{"type":"plan_update","plan":[{"step":"Read","status":"completed"},{"step":"Write","status":"in_progress"}]}}
{"type":"event_msg","payload":{"type":"error","message":"unexpected status 401 Unauthorized: bad key"}}
{"type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"Fix login"}}
`
	var got []any
	for e, err := range codex.ReadEntries(strings.NewReader(file)) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Prompt != nil {
			got = append(got, e.Prompt)
		}
		for _, ev := range e.Events {
			got = append(got, ev)
		}
		if e.Title != "" {
			got = append(got, "title "+e.Title)
		}
	}
	want := []any{
		codex.Prompt{{Type: "text", Text: "Look:"}, {Type: "image", URL: "https://example.com/a.png"},
			{Type: "local_image", Raw: []byte(`{"type":"local_image","path":"/tmp/b.png"}`)}},
		codex.FileChange{ItemID: "p", Phase: codex.PhaseCompleted, Kind: codex.ToolKindEdit, Status: codex.StatusCompleted,
			Changes: []codex.Change{{Path: "/w/a.go", Kind: codex.ChangeUpdate, Diff: "@@"}, {Path: "/w/b.go", Kind: codex.ChangeAdd, Diff: "x"}}},
		codex.FileChange{ItemID: "q", Phase: codex.PhaseCompleted, Kind: codex.ToolKindDelete, Status: codex.StatusCompleted,
			Changes: []codex.Change{{Path: "/w/c.go", Kind: codex.ChangeDelete}}},
		codex.WebSearch{ItemID: "ws_1", Phase: codex.PhaseCompleted, Kind: codex.ToolKindSearch, Query: "go iter", ActionType: "search",
			Action: []byte(`{"type":"search","query":"go iter"}`)},
		codex.CommandExecution{ItemID: "c", Phase: codex.PhaseCompleted, Kind: codex.ToolKindExecute,
			Command: `bash -lc "echo 'it''s' "'$HOME'`, ExitCode: 1, HasExitCode: true, Status: codex.StatusFailed},
		codex.TodoList{Phase: codex.PhaseUpdated, Items: []codex.TodoItem{{Text: "Read", Completed: true}, {Text: "Write"}}},
		codex.APIError{Message: "unexpected status 401 Unauthorized: bad key", Status: 401},
		"title Fix login",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func open(t *testing.T, p string) *os.File { return parsetest.Open(t, p) }

func size(t *testing.T, f *os.File) int64 { return parsetest.Size(t, f) }

// TestReadEntriesFileChange checks a stored apply_patch, in the shape of
// Codex's FileChange item (codex-rs/protocol/src/items.rs): each file's
// change with its text (an added or deleted file's whole text, an
// update's unified diff and where it moved the file), and what applying
// the patch printed. The live stream prints the files and their kinds
// only.
func TestReadEntriesFileChange(t *testing.T) {
	file := `{"timestamp":"2026-12-01T21:40:00.000Z","type":"session_meta","payload":{"id":"01a23380-1c2d-7e3f-9a4b-5c6d7e8f9a0b","cwd":"/w","history_mode":"paginated"}}
{"timestamp":"2026-12-01T21:40:02.000Z","type":"event_msg","payload":{"type":"item_completed","thread_id":"01a23380-1c2d-7e3f-9a4b-5c6d7e8f9a0b","turn_id":"t1","item":{"type":"FileChange","id":"call_Ap1","changes":{"/w/notes.txt":{"type":"update","unified_diff":"@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n","move_path":null},"/w/new.txt":{"type":"add","content":"hello\n"},"/w/old.txt":{"type":"delete","content":"bye\n"},"/w/a.txt":{"type":"update","unified_diff":"@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n","move_path":"/w/b.txt"}},"status":"completed","auto_approved":true,"stdout":"Success. Updated the following files:\nA new.txt\nM notes.txt\nD old.txt\nM b.txt\n","stderr":""},"started_at_ms":1796161201900,"completed_at_ms":1796161202000}}
{"timestamp":"2026-12-01T21:40:03.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"call_Ap2","changes":{"/w/x.txt":{"type":"update","unified_diff":"not a diff"}},"status":"failed","stdout":"","stderr":"Failed to find expected lines in /w/x.txt"}}}
`
	var got []codex.Event
	for e, err := range codex.ReadEntries(strings.NewReader(file)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Events...)
	}
	want := []codex.Event{
		codex.FileChange{ItemID: "call_Ap1", Phase: codex.PhaseCompleted, Kind: codex.ToolKindEdit, Status: codex.StatusCompleted,
			Changes: []codex.Change{
				{Path: "/w/notes.txt", Kind: codex.ChangeUpdate, Diff: "@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n",
					Hunks: []codex.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []string{" alpha", "-beta", "+gamma"}}}},
				{Path: "/w/new.txt", Kind: codex.ChangeAdd, Diff: "hello\n"},
				{Path: "/w/old.txt", Kind: codex.ChangeDelete, Diff: "bye\n"},
				{Path: "/w/a.txt", Kind: codex.ChangeUpdate, MovePath: "/w/b.txt", Diff: "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n",
					Hunks: []codex.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", `\ No newline at end of file`, "+b"}}}},
			},
			Stdout: "Success. Updated the following files:\nA new.txt\nM notes.txt\nD old.txt\nM b.txt\n"},
		codex.FileChange{ItemID: "call_Ap2", Phase: codex.PhaseCompleted, Kind: codex.ToolKindEdit, Status: codex.StatusFailed,
			Changes: []codex.Change{{Path: "/w/x.txt", Kind: codex.ChangeUpdate, Diff: "not a diff"}},
			Stderr:  "Failed to find expected lines in /w/x.txt"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestReadEntriesError checks the error that failed a turn, in the shapes
// Codex stores it: its ErrorEvent ({"message", "codex_error_info"}), and
// its turn error nested as the app-server protocol carries it
// ({"error": {"message", "codexErrorInfo"}}, see
// ../shared/captures/codex/app-server/api-error-500.ndjson), or a string.
func TestReadEntriesError(t *testing.T) {
	const msg = "We’re currently experiencing high demand, which may cause temporary errors."
	for _, payload := range []string{
		`{"type":"error","message":"` + msg + `","codex_error_info":"internal_server_error"}`,
		`{"type":"error","error":{"message":"` + msg + `","codexErrorInfo":"internalServerError","additionalDetails":null}}`,
		`{"type":"error","error":"` + msg + `"}`,
	} {
		line := `{"timestamp":"2026-12-01T21:50:01.300Z","type":"event_msg","payload":` + payload + `}`
		for e, err := range codex.ReadEntries(strings.NewReader(line)) {
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]codex.Event{codex.APIError{Message: msg}}, e.Events); diff != "" {
				t.Errorf("%s (-want +got):\n%s", payload, diff)
			}
		}
	}
}
