package claude_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
)

// largeTranscript generates a session file of about size bytes in the
// shape Claude Code 2.1.328 writes (see testdata/store): turn after turn
// of a prompt, the CLI's attachments and request records, thinking, a
// Bash call and its result, and the answer, with a 116 KB prompt
// snapshot every tenth turn, as the longest real lines are.
func largeTranscript(size int) string {
	var b strings.Builder
	b.Grow(size + 200<<10)
	const sid = "5474356c-702e-48b0-8ecb-5f54d4bff9a2"
	common := `,"userType":"external","entrypoint":"sdk-cli","cwd":"/home/dev/project","sessionId":"` + sid + `","version":"2.1.328","gitBranch":"main"}`
	t0 := time.Date(2026, 12, 1, 20, 50, 0, 0, time.UTC)
	filler := strings.Repeat("[redacted: Claude Code prompt text] ", 300)
	snapshot := strings.Repeat(`"`+strings.Repeat("[redacted: Claude Code prompt text] ", 90)+`",`, 36)
	output := strings.Repeat("ok  \tgithub.com/acpkit/acpkit/claude\t0.412s\n", 40)
	parent := "null"
	for i := 0; b.Len() < size; i++ {
		ts := func(k int) string {
			return t0.Add(time.Duration(i*10+k) * time.Second).Format("2006-01-02T15:04:05.000Z")
		}
		uuid := func(k int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, k) }
		prompt := fmt.Sprintf("Turn %d: please look at the code.", i)
		link := func(k int) string {
			p := parent
			parent = `"` + uuid(k) + `"`
			return `"parentUuid":` + p + `,"isSidechain":false,"uuid":"` + uuid(k) + `","timestamp":"` + ts(k) + `"`
		}
		fmt.Fprintf(&b, `{"type":"queue-operation","operation":"enqueue","timestamp":"%s","sessionId":"%s","content":%q}`+"\n", ts(0), sid, prompt)
		fmt.Fprintf(&b, `{%s,"promptId":"%s","type":"user","message":{"role":"user","content":%q},"permissionMode":"default","promptSource":"sdk"%s`+"\n", link(1), uuid(99), prompt, common)
		fmt.Fprintf(&b, `{%s,"attachment":{"type":"skill_listing","content":"%s"},"type":"attachment"%s`+"\n", link(2), filler[:1400], common)
		if i%10 == 0 {
			fmt.Fprintf(&b, `{%s,"attachment":{"type":"prompt_snapshot","systemPrompt":[%s"x"]},"type":"attachment"%s`+"\n", link(3), snapshot, common)
		}
		fmt.Fprintf(&b, `{"type":"api-request-blob","sessionId":"%s","hash":"%x","message":{"role":"user","content":"%s"}}`+"\n", sid, i, filler[:10000])
		fmt.Fprintf(&b, `{%s,"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"I should run the tests first, turn %d.","signature":"EqQBCkYIBxgCKkAhK4sNURcTLQoRWKgT8Pdt1D29ETdjD"}],"stop_reason":"tool_use","usage":{"input_tokens":4337,"output_tokens":16}},"requestId":"req_%d","type":"assistant"%s`+"\n", link(4), i, i, i, common)
		fmt.Fprintf(&b, `{%s,"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./...","description":"Run the tests"}}],"stop_reason":"tool_use","usage":{"input_tokens":4337,"output_tokens":16}},"requestId":"req_%d","type":"assistant"%s`+"\n", link(5), i, i, i, common)
		fmt.Fprintf(&b, `{%s,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":%q,"is_error":false}]},"toolUseResult":{"stdout":%q,"stderr":"","interrupted":false}%s`+"\n", link(6), i, output, output, common)
		fmt.Fprintf(&b, `{%s,"message":{"id":"msg_%db","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"All tests pass in turn %d."}],"stop_reason":"end_turn","usage":{"input_tokens":4337,"output_tokens":16}},"requestId":"req_%db","type":"assistant"%s`+"\n", link(7), i, i, i, common)
		fmt.Fprintf(&b, `{"type":"last-prompt","lastPrompt":%q,"leafUuid":"%s","sessionId":"%s"}`+"\n", prompt, uuid(7), sid)
	}
	return b.String()
}

// BenchmarkReadEntries reads a generated 20 MB transcript as a replay
// does: every entry, and every event of it.
func BenchmarkReadEntries(b *testing.B) {
	data := largeTranscript(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for e, err := range claude.ReadEntries(strings.NewReader(data)) {
			if err != nil {
				b.Fatal(err)
			}
			n += len(e.Events)
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// BenchmarkParseLineBaseline parses the same transcript's lines with
// ParseLine, the live stream's parser, as the baseline of
// BenchmarkReadEntries: the store reader should cost about as much.
func BenchmarkParseLineBaseline(b *testing.B) {
	data := largeTranscript(20 << 20)
	lines := bytes.Split([]byte(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var events []claude.Event
	for b.Loop() {
		for _, line := range lines {
			var err error
			if events, _, err = claude.ParseLine(line, events[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
