package codex_test

import (
	"io"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// TestReadInfo reads the list facts of every captured rollout. The
// expected values were read from the files by a script that parses every
// line (session_meta, the first UserMessage item, the last timestamp);
// the titles are those of the CLI's own thread index
// (state_5.sqlite.dump.json in the captures).
func TestReadInfo(t *testing.T) {
	tests := []struct {
		file string
		want codex.Info
	}{
		{"plain/sessions/2026/12/01/rollout-2026-12-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea53.jsonl", codex.Info{
			SessionID: "01a23364-e60f-7ea1-a8d3-8612e1f6ea53", CWD: "/tmp/cx-store/plain/work",
			Title: "Say hello and tell me what 2 + 2 is.", Updated: 1796158580471}},
		{"reasoning/sessions/2026/12/01/rollout-2026-12-01T20-57-15-01a23365-bee2-7d02-958a-929b55ee4338.jsonl", codex.Info{
			SessionID: "01a23365-bee2-7d02-958a-929b55ee4338", CWD: "/tmp/cx-store/reasoning/work",
			Title: "What is 2 + 2? Think first.", Updated: 1796158635956}},
		{"resume/sessions/2026/12/01/rollout-2026-12-01T20-56-28-01a23365-0657-7662-80b4-4726987395b1.jsonl", codex.Info{
			SessionID: "01a23365-0657-7662-80b4-4726987395b1", CWD: "/tmp/cx-store/resume/work",
			Title: "MOCK_SCENARIO=echo First question: who are you?", Updated: 1796158603616}},
		{"tool-call/sessions/2026/12/01/rollout-2026-12-01T20-56-51-01a23365-5f5f-7923-b1f2-69bd6d41c2c7.jsonl", codex.Info{
			SessionID: "01a23365-5f5f-7923-b1f2-69bd6d41c2c7", CWD: "/tmp/cx-store/tool-call/work",
			Title: "Run echo hi in the shell and tell me what it printed.", Updated: 1796158611726}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := open(t, "testdata/store/"+tt.file)
			n := size(t, f)
			r := &parsetest.CountingReaderAt{R: f}
			got, err := codex.ReadInfo(r, n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadInfo (-want +got):\n%s", diff)
			}
			t.Logf("read %d of %d bytes", r.Read(), n)
		})
	}
}

func TestReadInfoCases(t *testing.T) {
	meta := `{"timestamp":"2026-12-01T20:56:20.274Z","type":"session_meta","payload":{"id":"01a23364-e60f-7ea1-a8d3-8612e1f6ea53","cwd":"/w","history_mode":"paginated"}}` + "\n"
	user := func(text string) string {
		return `{"timestamp":"2026-12-01T20:56:21.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u","content":[{"type":"text","text":` + text + `}]}}}` + "\n"
	}
	tests := []struct {
		name, file string
		want       codex.Info
	}{
		{"empty", "", codex.Info{}},
		{"no prompt", meta, codex.Info{SessionID: "01a23364-e60f-7ea1-a8d3-8612e1f6ea53", CWD: "/w", Updated: 1796158580274}},
		{"first prompt on one line", meta + user(`"Fix\n  the bug"`) + user(`"second"`),
			codex.Info{SessionID: "01a23364-e60f-7ea1-a8d3-8612e1f6ea53", CWD: "/w", Title: "Fix the bug", Updated: 1796158581000}},
		{"a name wins", meta + user(`"Fix"`) + `{"timestamp":"2026-12-01T20:56:22.000Z","type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"Login"}}` + "\n",
			codex.Info{SessionID: "01a23364-e60f-7ea1-a8d3-8612e1f6ea53", CWD: "/w", Title: "Login", Named: true, Updated: 1796158582000}},
		{"legacy context is no prompt",
			`{"timestamp":"2025-09-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0198f0a4-0657-7662-80b4-4726987395b1","cwd":"/w"}}` + "\n" +
				`{"timestamp":"2025-09-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"<environment_context>\n</environment_context>"}}` + "\n" +
				`{"timestamp":"2025-09-01T10:00:02.000Z","type":"event_msg","payload":{"type":"user_message","message":"Real question"}}` + "\n",
			codex.Info{SessionID: "0198f0a4-0657-7662-80b4-4726987395b1", CWD: "/w", Title: "Real question", Updated: 1756720802000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := codex.ReadInfo(strings.NewReader(tt.file), int64(len(tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadInfo (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadInfoLarge checks that ReadInfo reads the head and the tail of a
// large rollout, and not the rest.
func TestReadInfoLarge(t *testing.T) {
	data := largeRollout(20 << 20)
	r := &parsetest.CountingReaderAt{R: strings.NewReader(data)}
	got, err := codex.ReadInfo(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got.CWD != "/home/dev/project" || got.Title != "Turn 0: please look at the code." || got.Updated == 0 {
		t.Errorf("ReadInfo = %+v", got)
	}
	if n := r.Read(); n > 96<<10 {
		t.Errorf("ReadInfo read %d bytes of %d, want at most 96 KiB", n, len(data))
	}
}

func TestReadInfoShortFile(t *testing.T) {
	if _, err := codex.ReadInfo(strings.NewReader("{}\n"), 1<<20); err != io.ErrUnexpectedEOF {
		t.Errorf("ReadInfo of a short file: %v, want io.ErrUnexpectedEOF", err)
	}
}

// BenchmarkReadInfo reads the list facts of a generated rollout.
func BenchmarkReadInfo(b *testing.B) {
	data := largeRollout(20 << 20)
	r := strings.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := codex.ReadInfo(r, int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}
