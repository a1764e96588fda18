package codex_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/codex"
)

// largeRollout generates a rollout of about size bytes in the shape Codex
// 0.169.0 writes (see testdata/store): a session_meta line holding a 22 KB
// system prompt, then turn after turn of the turn's context, the prompt
// (as a response item and as an item), reasoning, a command and its
// output, the answer, and token counts.
func largeRollout(size int) string {
	var b strings.Builder
	b.Grow(size + 64<<10)
	const id = "01a23365-0657-7662-80b4-4726987395b1"
	t0 := time.Date(2026, 12, 1, 20, 56, 0, 0, time.UTC)
	ts := func(s int) string {
		return t0.Add(time.Duration(s) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	}
	prompt := strings.Repeat("[redacted: Codex CLI prompt text] ", 640)
	fmt.Fprintf(&b, `{"timestamp":"%s","ordinal":0,"type":"session_meta","payload":{"session_id":"%s","id":"%s","timestamp":"%s","cwd":"/home/dev/project","originator":"codex_exec","cli_version":"0.169.0","source":"exec","base_instructions":{"text":"%s"},"history_mode":"paginated"}}`+"\n", ts(0), id, id, ts(0), prompt)
	output := strings.Repeat("ok  \tgithub.com/acpkit/acpkit/codex\t0.412s\n", 40)
	for i, k := 0, 1; b.Len() < size; i++ {
		turn := fmt.Sprintf("01a23365-%04x-7a90-b1d0-d9a15ff53a61", i%0x10000)
		line := func(typ, payload string) {
			fmt.Fprintf(&b, `{"timestamp":"%s","ordinal":%d,"type":"%s","payload":%s}`+"\n", ts(k*10), k, typ, payload)
			k++
		}
		text := fmt.Sprintf("Turn %d: please look at the code.", i)
		line("event_msg", `{"type":"task_started","turn_id":"`+turn+`","started_at":1796158580}`)
		line("turn_context", `{"turn_id":"`+turn+`","cwd":"/home/dev/project","approval_policy":"never","model":"gpt-5.5","summary":"`+prompt[:4000]+`"}`)
		line("response_item", `{"type":"message","id":"msg_u`+turn+`","role":"user","content":[{"type":"input_text","text":"`+text+`"}]}`)
		line("event_msg", `{"type":"item_completed","thread_id":"`+id+`","turn_id":"`+turn+`","item":{"type":"UserMessage","id":"u`+turn+`","content":[{"type":"text","text":"`+text+`","text_elements":[]}]}}`)
		line("event_msg", `{"type":"item_completed","thread_id":"`+id+`","turn_id":"`+turn+`","item":{"type":"Reasoning","id":"rs_`+turn+`","summary_text":["**Looking**\n\nI read the code first."],"raw_content":[]}}`)
		line("response_item", `{"type":"function_call","id":"fc_`+turn+`","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"call_`+turn+`"}`)
		line("event_msg", fmt.Sprintf(`{"type":"item_completed","thread_id":"%s","turn_id":"%s","item":{"type":"CommandExecution","id":"call_%s","command":["/bin/bash","-lc","go test ./..."],"cwd":"file:///home/dev/project","status":"completed","aggregated_output":%q,"exit_code":0}}`, id, turn, turn, output))
		line("response_item", fmt.Sprintf(`{"type":"function_call_output","id":"fco_%s","call_id":"call_%s","output":%q}`, turn, turn, output))
		line("event_msg", `{"type":"item_completed","thread_id":"`+id+`","turn_id":"`+turn+`","item":{"type":"AgentMessage","id":"msg_`+turn+`","content":[{"type":"Text","text":"All tests pass."}]}}`)
		line("response_item", `{"type":"message","status":"completed","id":"msg_`+turn+`","role":"assistant","content":[{"type":"output_text","text":"All tests pass.","annotations":[],"logprobs":[]}]}`)
		line("event_msg", `{"type":"token_count","info":{"total_token_usage":{"input_tokens":9157,"cached_input_tokens":6848,"output_tokens":26,"total_tokens":9183}}}`)
		line("event_msg", `{"type":"task_complete","turn_id":"`+turn+`","last_agent_message":"All tests pass.","duration_ms":200}`)
	}
	return b.String()
}

// BenchmarkReadEntries reads a generated 20 MB rollout as a replay does:
// every entry, and every event of it.
func BenchmarkReadEntries(b *testing.B) {
	data := largeRollout(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for e, err := range codex.ReadEntries(strings.NewReader(data)) {
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

// BenchmarkReadEntriesBaseline splits the same rollout into lines and
// validates each, the least a reader of it must do, as the baseline of
// BenchmarkReadEntries.
func BenchmarkReadEntriesBaseline(b *testing.B) {
	data := largeRollout(20 << 20)
	lines := bytes.Split([]byte(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, line := range lines {
			if len(line) > 0 {
				if _, _, err := codex.ParseLine(line, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
