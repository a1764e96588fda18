package claude_test

import (
	"encoding/json"
	"errors"
	"io"
	"iter"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// goldenEntry is an Entry as the golden files show it: its events with
// their type names, and only the length of a raw line.
type goldenEntry struct {
	Error string `json:",omitempty"`
	claude.Entry
	Events []fakecli.Typed[claude.Event] `json:",omitempty"`
	Raw    int                           `json:",omitempty"`
}

// renderEntries describes what seq yields, for a golden file.
func renderEntries(t *testing.T, seq iter.Seq2[claude.Entry, error]) []byte {
	t.Helper()
	out := []goldenEntry{}
	for e, err := range seq {
		g := goldenEntry{Entry: e, Events: fakecli.Describe(e.Events, "claude"), Raw: len(e.Raw)}
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

// TestReadEntries reads every stored session of the captures and compares
// the entries with the file's golden file. Run with -update to rewrite
// them.
func TestReadEntries(t *testing.T) {
	for _, p := range storeFiles(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(p), "testdata/store/"), func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			seq := claude.ReadEntries(f)
			if dir, file := path.Split(filepath.ToSlash(p)); strings.HasSuffix(dir, "/subagents/") {
				meta := readMeta(t, filepath.Join(filepath.FromSlash(dir), strings.TrimSuffix(file, ".jsonl")+".meta.json"))
				seq = claude.ReadSubagent(f, meta.ToolUseID)
			}
			parsetest.Check(t, p, renderEntries(t, seq), *update)
		})
	}
}

// TestReadEntriesBadLines checks that a file with a corrupt line, an
// unknown line type, a line that is not an object and a last line cut
// short yields every good entry and an error for each bad line, in place.
func TestReadEntriesBadLines(t *testing.T) {
	file := `{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"},"timestamp":"2026-12-01T20:50:37.365Z"}
{"type":"assistant","uuid":"a1","message":{"content":[{"type":"text","text":"he
{"type":"future-kind","x":1}

[1,2]
{"type":"assistant","uuid":"a2","message":{"content":[{"type":"text","text":"hello"}]}}
{"type":"assistant","uuid":"a3","message":{"con`
	type result struct {
		Line  int64
		Type  string
		ID    string
		Raw   string
		Error string
	}
	var got []result
	for e, err := range claude.ReadEntries(strings.NewReader(file)) {
		r := result{Line: e.Line, Type: e.Type, ID: e.ID, Raw: string(e.Raw)}
		if err != nil {
			var le *claude.LineError
			var se *claude.SyntaxError
			if !errors.As(err, &le) || !errors.As(err, &se) {
				t.Fatalf("error %v is not a *LineError wrapping a *SyntaxError", err)
			}
			r.Line, r.Error = le.Line, err.Error()
		}
		got = append(got, r)
	}
	want := []result{
		{Line: 1, Type: "user", ID: "u1"},
		{Line: 2, Error: "claude: skipped line 2 (byte 108): invalid stream-json line (79 bytes): unexpected end of input at offset 79"},
		{Line: 3, Type: "future-kind", Raw: `{"type":"future-kind","x":1}`},
		{Line: 5, Error: "claude: skipped line 5 (byte 218): invalid stream-json line (5 bytes): not a JSON object at offset 0"},
		{Line: 6, Type: "assistant", ID: "a2"},
		{Line: 7, Error: "claude: skipped line 7 (byte 312): invalid stream-json line (47 bytes): unexpected end of input at offset 47"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestReadEntriesReadError checks that an error from the reader ends the
// sequence after the entries read before it.
func TestReadEntriesReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(`{"type":"mode","mode":"normal"}`+"\n"), &failingReader{boom})
	var types []string
	var last error
	for e, err := range claude.ReadEntries(r) {
		types = append(types, e.Type)
		last = err
	}
	if diff := cmp.Diff([]string{"mode", ""}, types); diff != "" || !errors.Is(last, boom) {
		t.Errorf("got %v, last error %v; want [mode ''] and boom", types, last)
	}
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// shown keeps the events a replay shows, in both views: the complete
// blocks, tool results and API errors, without signs of life, streamed
// pieces and the result, which the store does not keep.
func shown(events []claude.Event) []claude.Event {
	var out []claude.Event
	for _, e := range events {
		switch e.(type) {
		case claude.Text, claude.Thinking, claude.ToolUse, claude.UnknownBlock, claude.ToolResult, claude.APIError:
			out = append(out, e)
		}
	}
	return out
}

// TestStoreEqualsLive checks that the events of each stored session, its
// subagents' interleaved, are the events the live stream of the same runs
// showed, in the same order and with the same times.
func TestStoreEqualsLive(t *testing.T) {
	tests := []struct {
		session string   // under testdata/store, without .jsonl
		live    []string // the runs that wrote it, in order
	}{
		{"plain/projects/-tmp-cc-store-plain-work/5474356c-702e-48b0-8ecb-5f54d4bff9a2", []string{"plain/live-r1"}},
		{"tools/projects/-tmp-cc-store-tools-work/eaca3c35-d13e-4c1d-a95b-a66cef48d210", []string{"tools/live-r1"}},
		{"thinking/projects/-tmp-cc-store-thinking-work/dc485482-1765-4952-9d28-514fd2a660b5", []string{"thinking/live-r1"}},
		{"cancel/projects/-tmp-cc-store-cancel-work/10e3cd16-479b-4860-9d83-0d44031f097b", []string{"cancel/live-r1"}},
		{"permission-deny-stdio/projects/-tmp-cc-store-permission-deny-stdio-work/69755242-e22e-4c09-92a9-29c0b2b99807", []string{"permission-deny-stdio/live-r1"}},
		{"cwd-unusual/projects/-tmp-cc-store-cwd-unusual-My-Project-v2------1--hidden-dir-x-y----nai-ve/acf7b234-4136-4efe-b45a-4971f38faadb", []string{"cwd-unusual/live-r1"}},
		{"subagent/projects/-tmp-cc-store-subagent-work/6d0706c6-94f5-4004-a4aa-42746a618990", []string{"subagent/live-r1"}},
		{"resume/projects/-tmp-cc-store-resume-work/06bc54a4-f6e8-415f-a965-41995b28a3b2", []string{"resume/live-r1", "resume/live-r2", "resume/live-r3"}},
		{"resume/projects/-tmp-cc-store-resume-work/30bae6ba-d396-42f8-8b00-011c53ca0896", []string{"resume/live-r1", "resume/live-r2", "resume/live-r3", "resume/live-r4"}},
	}
	for _, tt := range tests {
		t.Run(tt.session, func(t *testing.T) {
			var want []claude.Event
			for _, run := range tt.live {
				// Line by line: a streaming-input run holds several turns.
				lines, _ := parsetest.Lines(t, "testdata/store/"+run+".jsonl")
				for _, line := range lines {
					events, _, err := claude.ParseLine(line, nil)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, shown(events)...)
				}
			}
			var got []claude.Event
			for e, err := range sessionEntries(t, "testdata/store/"+tt.session) {
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range shown(e.Events) {
					// The live stream leaves out a subagent's final
					// answer, which comes back as its call's result; a
					// translation shows no subagent text anyway.
					if txt, ok := ev.(claude.Text); ok && txt.ParentToolUseID != "" && e.Sidechain {
						continue
					}
					got = append(got, ev)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stored events differ from the live ones (-live +stored):\n%s", diff)
			}
		})
	}
}

// sessionEntries reads the stored session at base (its path without
// .jsonl) with its subagents interleaved.
func sessionEntries(t *testing.T, base string) iter.Seq2[claude.Entry, error] {
	t.Helper()
	subs := []iter.Seq2[claude.Entry, error]{}
	metas, _ := filepath.Glob(filepath.Join(base, claude.SubagentsDir, "agent-*.meta.json"))
	for _, m := range metas {
		meta := readMeta(t, m)
		subs = append(subs, claude.ReadSubagent(open(t, strings.TrimSuffix(m, ".meta.json")+".jsonl"), meta.ToolUseID))
	}
	return claude.Interleave(claude.ReadEntries(open(t, base+".jsonl")), subs...)
}

// TestReadEntriesAPIErrors checks the API failures of a stored session,
// which the store writes otherwise than the stream: the assistant line of
// an error names its status, type, code and limit in camelCase (the
// stream's rate-limit-rejected capture, ../shared/captures/claude, with
// the store's names), and each retry is a system line "api_error" (the
// stream's "api_retry"), in the shape Claude Code 2.1.x stores it.
func TestReadEntriesAPIErrors(t *testing.T) {
	file := `{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","model":"<synthetic>","role":"assistant","type":"message","content":[{"type":"text","text":"You've hit your 5-hour limit · resets 4pm (UTC)"}]},"uuid":"a1","timestamp":"2026-11-30T13:48:45.722Z","error":"rate_limit","requestId":"req_1","isApiErrorMessage":true,"apiErrorStatus":429,"apiError":"usage_limit_reached","apiErrorParams":{"rate_limit_info":{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour"}},"apiErrorType":"rate_limit_error","sessionId":"s"}
{"parentUuid":"a1","isSidechain":false,"type":"system","subtype":"api_error","level":"error","error":{"message":"529 overloaded","status":529,"formatted":"529 overloaded_error","connection":null,"isNetworkDown":false,"rateLimits":null},"retryInMs":601.7,"retryAttempt":2,"maxRetries":10,"source":"request_retry","uuid":"s1","timestamp":"2026-11-30T13:48:46.000Z","sessionId":"s"}
{"parentUuid":"s1","isSidechain":false,"type":"system","subtype":"api_error","level":"error","error":{"message":"fetch failed","connection":{"code":"ECONNRESET"}},"retryInMs":2008,"retryAttempt":3,"maxRetries":10,"uuid":"s2","timestamp":"2026-11-30T13:48:47.000Z","sessionId":"s"}
`
	var got []claude.Event
	for e, err := range claude.ReadEntries(strings.NewReader(file)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Events...)
	}
	const at = 1796046525722 // 2026-11-30T13:48:45.722Z
	want := []claude.Event{
		claude.APIError{Kind: "rate_limit", Status: 429, Type: "rate_limit_error", Code: "usage_limit_reached",
			RateLimit: &claude.RateLimit{Status: claude.RateLimitRejected, Type: "five_hour", ResetsAt: 1796054400000,
				Raw: []byte(`{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour"}`), Timestamp: at},
			Text: "You've hit your 5-hour limit · resets 4pm (UTC)", Timestamp: at},
		claude.Retry{Attempt: 2, MaxRetries: 10, Delay: 601 * time.Millisecond, Status: 529, Timestamp: at + 278},
		claude.Retry{Attempt: 3, MaxRetries: 10, Delay: 2008 * time.Millisecond, Timestamp: at + 1278},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// taskNotification is the text of the user entry Claude Code writes when a
// subagent run in the background ends: its tags as Claude Code 2.1.x
// writes them, the subagent's report in <result>.
const taskNotification = "<task-notification>\n<task-id>a4b5c6d7e8f901234</task-id>\n" +
	"<tool-use-id>toolu_01Bg7Research</tool-use-id>\n<output-file>/tmp/claude-0/-w/s/tasks/a4b5c6d7e8f901234.output</output-file>\n" +
	"<status>completed</status>\n<summary>Agent \"Read the README\" finished</summary>\n" +
	"<note>The same task may be notified more than once.</note>\n" +
	"<result>The README says <b>hello</b>.\nThat is all.</result>\n" +
	"<usage><subagent_tokens>1200</subagent_tokens><tool_uses>1</tool_uses><duration_ms>2100</duration_ms></usage>\n" +
	"</task-notification>"

// TestReadEntriesTaskNotification checks that a task's notification,
// which the CLI writes as a user entry, is read as the CLI's own entry,
// not the person's, and what it tells: by its origin, as releases since
// 2.1.1xx name it ("origin", then "turnOrigin"), or by its text in those
// that name none.
func TestReadEntriesTaskNotification(t *testing.T) {
	notice := &claude.TaskNotification{TaskID: "a4b5c6d7e8f901234", ToolUseID: "toolu_01Bg7Research",
		OutputFile: "/tmp/claude-0/-w/s/tasks/a4b5c6d7e8f901234.output", Status: "completed",
		Summary: `Agent "Read the README" finished`, Result: "The README says <b>hello</b>.\nThat is all."}
	content, _ := json.Marshal(taskNotification)
	line := func(members string) string {
		return `{"parentUuid":"a1","isSidechain":false,"promptId":"p2","type":"user","message":{"role":"user","content":` + string(content) + `},"uuid":"u2"` + members + `}`
	}
	type result struct {
		Meta         bool
		Origin       string
		Notification *claude.TaskNotification
	}
	tests := []struct {
		name string
		line string
		want result
	}{
		{"origin", line(`,"permissionMode":"default","origin":{"kind":"task-notification"},"userType":"external"`),
			result{Meta: true, Origin: "task-notification", Notification: notice}},
		{"turnOrigin", line(`,"promptSource":"system","turnOrigin":"task_notification"`),
			result{Meta: true, Origin: "task_notification", Notification: notice}},
		{"no origin: its text", line(``), result{Meta: true, Notification: notice}},
		{"text of no notification", `{"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":"a background command finished"}}`,
			result{Meta: true, Origin: "task-notification", Notification: &claude.TaskNotification{}}},
		{"the person's, whatever its text", line(`,"origin":{"kind":"human"},"promptSource":"typed","turnOrigin":"human"`),
			result{Origin: "human"}},
		{"a prompt from the SDK", `{"type":"user","promptSource":"sdk","turnOrigin":"sdk","message":{"role":"user","content":"Say hello."}}`,
			result{Origin: "sdk"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for e, err := range claude.ReadEntries(strings.NewReader(tt.line)) {
				if err != nil {
					t.Fatal(err)
				}
				got := result{Meta: e.Meta, Origin: e.Origin, Notification: e.Notification}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}
