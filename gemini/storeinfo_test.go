package gemini_test

import (
	"io"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// TestReadInfo reads the list facts of every captured session. The
// summaries are those the CLI's own --list-sessions printed
// (testdata/store/*/list-sessions-*.txt); the times are the last
// lastUpdated of each file, the hashes the SHA-256 of each cwd.
func TestReadInfo(t *testing.T) {
	tests := []struct {
		file string
		want gemini.Info
	}{
		{"plain/tmp/work/chats/session-2026-12-01T21-06-e8280112.jsonl", gemini.Info{
			SessionID: "e8280112-4e66-4a40-a4f5-c1cfb6f99296", ProjectHash: "3e1d5bf4fbd3f05b20d8df16febe8064558530454fcbda6579864fa005a8b4f2",
			Title: "Mock summary: Say hello and tell", Named: true, Updated: 1796159168199, HasMessages: true}},
		{"resume/tmp/work/chats/session-2026-12-01T21-06-181cb93b.jsonl", gemini.Info{
			SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a57756221e31995793396553760decefe5cf7f744a9161eaa28d4d35685336",
			Title: "Mock summary: First question: who are", Named: true, Updated: 1796159208618, HasMessages: true}},
		{"thinking/tmp/work/chats/session-2026-12-01T21-07-5d3f4ebe.jsonl", gemini.Info{
			SessionID: "5d3f4ebe-7024-44ff-8d11-1c55bf81c108", ProjectHash: "701f4d339ead0182d4e54a01570c9f0fbeb209dffd4ce58dd6dd4bd1fcf08a85",
			Title: "What is 2 + 2? Think first.", Updated: 1796159244759, HasMessages: true}},
		{"tool-call/tmp/work/chats/session-2026-12-01T21-07-70c7e5f7.jsonl", gemini.Info{
			SessionID: "70c7e5f7-d9a6-4069-95ce-50e60472dd03", ProjectHash: "cd7ab351838a4f742c5d5c90861d072d03304ae9c03eb0800ed885ca0c28dde7",
			Title: "Run echo hi in the shell and tell me what it printed.", Updated: 1796159224875, HasMessages: true}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := open(t, "testdata/store/"+tt.file)
			n := size(t, f)
			r := &parsetest.CountingReaderAt{R: f}
			got, err := gemini.ReadInfo(r, n)
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
	meta := `{"sessionId":"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1","projectHash":"b9a5","startTime":"2026-12-01T21:06:24.370Z","lastUpdated":"2026-12-01T21:06:24.370Z","kind":"main"}` + "\n"
	tests := []struct {
		name, file string
		want       gemini.Info
	}{
		{"empty", "", gemini.Info{}},
		// A run that failed before it sent a prompt, such as one whose
		// authentication failed, leaves its metadata alone: the CLI does
		// not list such a chat.
		{"metadata only", meta, gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Updated: 1796159184370}},
		{"notices only", meta + `{"id":"e","type":"error","content":"Auth failed"}` + "\n" + `{"id":"i","type":"info","content":"Bye"}` + "\n",
			gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Updated: 1796159184370}},
		// The preamble the CLI opens each session with is no message of
		// the person's: a chat that holds it alone, as each process of its
		// ACP mode leaves for the session it starts with, is not listed.
		{"context only", meta + `{"$set":{"messages":[{"id":"c","type":"user","content":[{"text":"<session_context>\n</session_context>"}]}]}}` + "\n",
			gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Updated: 1796159184370}},
		{"context message only", meta + `{"id":"c","type":"user","content":[{"text":"<session_context>\n</session_context>"}]}` + "\n",
			gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Updated: 1796159184370}},
		{"a model message", meta + `{"id":"g","timestamp":"2026-12-01T21:06:25.000Z","type":"gemini","content":"Hi."}` + "\n",
			gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Updated: 1796159185000, HasMessages: true}},
		{"first prompt, not a tool response", meta +
			`{"id":"r","timestamp":"2026-12-01T21:06:25.000Z","type":"user","content":[{"functionResponse":{"id":"x","name":"n","response":{}}}]}` + "\n" +
			`{"id":"u","timestamp":"2026-12-01T21:06:26.000Z","type":"user","content":[{"text":"Fix\nit"}]}` + "\n",
			gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Title: "Fix it", Updated: 1796159186000, HasMessages: true}},
		{"the last summary", meta + `{"id":"u","type":"user","content":"Fix it"}` + "\n" + `{"$set":{"summary":"One"}}` + "\n" + `{"$set":{"summary":"Two"}}` + "\n",
			gemini.Info{SessionID: "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", ProjectHash: "b9a5", Title: "Two", Named: true, Updated: 1796159184370, HasMessages: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gemini.ReadInfo(strings.NewReader(tt.file), int64(len(tt.file)))
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
// large session file, and not the rest.
func TestReadInfoLarge(t *testing.T) {
	data := largeSession(20 << 20)
	r := &parsetest.CountingReaderAt{R: strings.NewReader(data)}
	got, err := gemini.ReadInfo(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID == "" || got.Title != "Turn 0: please look at the code." || got.Updated == 0 {
		t.Errorf("ReadInfo = %+v", got)
	}
	if n := r.Read(); n > 64<<10 {
		t.Errorf("ReadInfo read %d bytes of %d, want at most 64 KiB", n, len(data))
	}
}

func TestReadInfoShortFile(t *testing.T) {
	if _, err := gemini.ReadInfo(strings.NewReader("{}\n"), 1<<20); err != io.ErrUnexpectedEOF {
		t.Errorf("ReadInfo of a short file: %v, want io.ErrUnexpectedEOF", err)
	}
}

// BenchmarkReadInfo reads the list facts of a generated session file.
func BenchmarkReadInfo(b *testing.B) {
	data := largeSession(20 << 20)
	r := strings.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gemini.ReadInfo(r, int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}
