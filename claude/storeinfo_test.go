package claude_test

import (
	"io"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// TestReadInfo reads the list facts of every captured session. The
// expected values were read from the files by a script that parses every
// line (the last top-level timestamp, the first cwd, the title lines).
func TestReadInfo(t *testing.T) {
	tests := []struct {
		file string
		want claude.Info
	}{
		{"plain/projects/-tmp-cc-store-plain-work/5474356c-702e-48b0-8ecb-5f54d4bff9a2.jsonl", claude.Info{
			SessionID: "5474356c-702e-48b0-8ecb-5f54d4bff9a2", CWD: "/tmp/cc-store/plain/work",
			Title: "Say hello and tell me what 2 + 2 is.", Updated: 1796158237511}},
		{"cancel/projects/-tmp-cc-store-cancel-work/10e3cd16-479b-4860-9d83-0d44031f097b.jsonl", claude.Info{
			SessionID: "10e3cd16-479b-4860-9d83-0d44031f097b", CWD: "/tmp/cc-store/cancel/work",
			Title: "MOCK_SCENARIO=echo Say hello.", Updated: 1796158260050}},
		{"cwd-unusual/projects/-tmp-cc-store-cwd-unusual-My-Project-v2------1--hidden-dir-x-y----nai-ve/acf7b234-4136-4efe-b45a-4971f38faadb.jsonl", claude.Info{
			SessionID: "acf7b234-4136-4efe-b45a-4971f38faadb", CWD: "/tmp/cc-store/cwd-unusual/My Project.v2 (ü) #1/.hidden_dir+x@y/🚀 nai\u0308ve",
			Title: "Say hello and tell me what 2 + 2 is.", Updated: 1796158282447}},
		{"permission-deny-stdio/projects/-tmp-cc-store-permission-deny-stdio-work/69755242-e22e-4c09-92a9-29c0b2b99807.jsonl", claude.Info{
			SessionID: "69755242-e22e-4c09-92a9-29c0b2b99807", CWD: "/tmp/cc-store/permission-deny-stdio/work",
			Title: "MOCK_SCENARIO=permission-touch Create an empty file named x.", Updated: 1796158253415}},
		{"resume/projects/-tmp-cc-store-resume-work/06bc54a4-f6e8-415f-a965-41995b28a3b2.jsonl", claude.Info{
			SessionID: "06bc54a4-f6e8-415f-a965-41995b28a3b2", CWD: "/tmp/cc-store/resume/work",
			Title: "MOCK_SCENARIO=echo Hello, who are you?", Updated: 1796158242976}},
		{"resume/projects/-tmp-cc-store-resume-work/30bae6ba-d396-42f8-8b00-011c53ca0896.jsonl", claude.Info{
			SessionID: "30bae6ba-d396-42f8-8b00-011c53ca0896", CWD: "/tmp/cc-store/resume/work",
			Title: "MOCK_SCENARIO=echo Hello, who are you?", Updated: 1796158244394}},
		{"subagent/projects/-tmp-cc-store-subagent-work/6d0706c6-94f5-4004-a4aa-42746a618990.jsonl", claude.Info{
			SessionID: "6d0706c6-94f5-4004-a4aa-42746a618990", CWD: "/tmp/cc-store/subagent/work",
			Title: "Ask a subagent to check the shell.", Updated: 1796158267073}},
		{"thinking/projects/-tmp-cc-store-thinking-work/dc485482-1765-4952-9d28-514fd2a660b5.jsonl", claude.Info{
			SessionID: "dc485482-1765-4952-9d28-514fd2a660b5", CWD: "/tmp/cc-store/thinking/work",
			Title: "Check that the shell works. Think first.", Updated: 1796158255566}},
		{"tools/projects/-tmp-cc-store-tools-work/eaca3c35-d13e-4c1d-a95b-a66cef48d210.jsonl", claude.Info{
			SessionID: "eaca3c35-d13e-4c1d-a95b-a66cef48d210", CWD: "/tmp/cc-store/tools/work",
			Title: "Create notes.txt with alpha and beta, then change beta to gamma and show it.", Updated: 1796158246765}},
		{"tui-title/projects/-tmp-cc-store-tui-title-work/d5464bb8-88f1-410d-8933-83f4fd7c37c6.jsonl", claude.Info{
			SessionID: "d5464bb8-88f1-410d-8933-83f4fd7c37c6", CWD: "/tmp/cc-store/tui-title/work",
			Title: "Login work (renamed)", Named: true, Updated: 1796158299509}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := open(t, "testdata/store/"+tt.file)
			n := size(t, f)
			r := &parsetest.CountingReaderAt{R: f}
			got, err := claude.ReadInfo(r, n)
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

// TestReadInfoCases checks the rules on hand-written files.
func TestReadInfoCases(t *testing.T) {
	const id = "5474356c-702e-48b0-8ecb-5f54d4bff9a2"
	user := func(content, extra string) string {
		return `{"type":"user","sessionId":"` + id + `","cwd":"/w","message":{"role":"user","content":` + content + `}` + extra + `,"timestamp":"2026-12-01T20:50:37.365Z"}` + "\n"
	}
	tests := []struct {
		name string
		file string
		want claude.Info
	}{
		{"empty", "", claude.Info{}},
		{"only garbage", "not json\n{\"type\":\n", claude.Info{}},
		{"multi-line prompt", user(`"  Fix the\n\tlogin   bug.\n"`, ""),
			claude.Info{SessionID: id, CWD: "/w", Title: "Fix the login bug.", Updated: 1796158237365}},
		{"meta, command, interrupt, tool result and sidechain skipped",
			user(`"<local-command-caveat>Caveat</local-command-caveat>"`, `,"isMeta":true`) +
				user(`"<command-name>/model</command-name>\n<command-message>model</command-message>"`, "") +
				user(`"<local-command-stdout>Set model</local-command-stdout>"`, "") +
				user(`[{"type":"text","text":"[Request interrupted by user]"}]`, "") +
				user(`[{"type":"tool_result","tool_use_id":"t","content":"x"}]`, "") +
				user(`"a subagent's task"`, `,"isSidechain":true`) +
				user(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}},{"type":"text","text":"What is this?"}]`, ""),
			claude.Info{SessionID: id, CWD: "/w", Title: "What is this?", Updated: 1796158237365}},
		{"a command alone", user(`"<command-name>/compact</command-name>"`, ""),
			claude.Info{SessionID: id, CWD: "/w", Title: "/compact", Updated: 1796158237365}},
		{"custom title over ai title over summary over prompt",
			`{"type":"summary","summary":"Old summary"}` + "\n" + `{"type":"ai-title","aiTitle":"AI title"}` + "\n" +
				user(`"prompt"`, "") + `{"type":"custom-title","customTitle":"Mine"}` + "\n" + `{"type":"ai-title","aiTitle":"AI again"}` + "\n",
			claude.Info{SessionID: id, CWD: "/w", Title: "Mine", Named: true, Updated: 1796158237365}},
		{"the last ai title", `{"type":"ai-title","aiTitle":"First"}` + "\n" + user(`"prompt"`, "") + `{"type":"ai-title","aiTitle":"Second"}` + "\n",
			claude.Info{SessionID: id, CWD: "/w", Title: "Second", Named: true, Updated: 1796158237365}},
		{"long prompt cut", user(`"`+strings.Repeat("word ", 100)+`"`, ""),
			claude.Info{SessionID: id, CWD: "/w", Title: strings.TrimSpace(strings.Repeat("word ", 40)) + "…", Updated: 1796158237365}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := claude.ReadInfo(strings.NewReader(tt.file), int64(len(tt.file)))
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
// large transcript, and not the rest.
func TestReadInfoLarge(t *testing.T) {
	data := largeTranscript(20 << 20)
	r := &parsetest.CountingReaderAt{R: strings.NewReader(data)}
	got, err := claude.ReadInfo(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got.CWD != "/home/dev/project" || got.Title != "Turn 0: please look at the code." || got.Updated == 0 {
		t.Errorf("ReadInfo = %+v", got)
	}
	if n := r.Read(); n > 64<<10 {
		t.Errorf("ReadInfo read %d bytes of %d, want at most 64 KiB", n, len(data))
	}
}

// TestReadInfoShortFile checks that a file shorter than its stated size
// is an error, not a wrong answer.
func TestReadInfoShortFile(t *testing.T) {
	if _, err := claude.ReadInfo(strings.NewReader("{}\n"), 1<<20); err != io.ErrUnexpectedEOF {
		t.Errorf("ReadInfo of a short file: %v, want io.ErrUnexpectedEOF", err)
	}
}

// BenchmarkReadInfo reads the list facts of the generated transcript.
func BenchmarkReadInfo(b *testing.B) {
	data := largeTranscript(20 << 20)
	r := strings.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := claude.ReadInfo(r, int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}
