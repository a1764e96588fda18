package codex_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/codex"
)

// A rollout, as Codex writes it (trimmed: real lines carry more members,
// and the model-facing history and token counts between them).
const storedRollout = `{"timestamp":"2026-12-01T20:56:51.331Z","ordinal":0,"type":"session_meta","payload":{"id":"01a23365-5f5f-7923-b1f2-69bd6d41c2c7","cwd":"/home/dev/notes","cli_version":"0.169.0","history_mode":"paginated"}}
{"timestamp":"2026-12-01T20:56:51.387Z","ordinal":8,"type":"event_msg","payload":{"type":"item_completed","turn_id":"01a23365-5f7a-7fa0-87c0-a4a06a6e8623","item":{"type":"UserMessage","id":"01a23365-5fb8-7332-a63b-ad3ee456b6a6","content":[{"type":"text","text":"Run echo hi.","text_elements":[]}]}}}
{"timestamp":"2026-12-01T20:56:51.462Z","ordinal":9,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo hi\"}","call_id":"call_8xeQa91y8O0dJgbP"}}
{"timestamp":"2026-12-01T20:56:51.664Z","ordinal":11,"type":"event_msg","payload":{"type":"item_completed","turn_id":"01a23365-5f7a-7fa0-87c0-a4a06a6e8623","item":{"type":"CommandExecution","id":"call_8xeQa91y8O0dJgbP","command":["/bin/bash","-lc","echo hi"],"status":"completed","aggregated_output":"hi\n","exit_code":0}}}
{"timestamp":"2026-12-01T20:56:51.712Z","ordinal":14,"type":"event_msg","payload":{"type":"item_completed","turn_id":"01a23365-5f7a-7fa0-87c0-a4a06a6e8623","item":{"type":"AgentMessage","id":"msg_e74d","content":[{"type":"Text","text":"The command printed: hi"}]}}}
{"timestamp":"2026-12-01T20:56:51.726Z","ordinal":18,"type":"event_msg","payload":{"type":"task_complete","turn_id":"01a23365-5f7a-7fa0-87c0-a4a06a6e8623"}}
{"timestamp":"2026-12-01T20:56:5`

func ExampleReadEntries() {
	for e, err := range codex.ReadEntries(strings.NewReader(storedRollout)) {
		if err != nil {
			fmt.Println("skipped:", err) // the last line was cut short
			continue
		}
		if e.Prompt != nil {
			fmt.Println("person:", e.Prompt.Text())
		}
		for _, ev := range e.Events {
			switch ev := ev.(type) {
			case codex.Text:
				fmt.Println("agent:", ev.Text)
			case codex.CommandExecution:
				fmt.Printf("ran %s: exit %d, %q\n", ev.Command, ev.ExitCode, ev.Output)
			}
		}
	}
	// Output:
	// person: Run echo hi.
	// ran /bin/bash -lc 'echo hi': exit 0, "hi\n"
	// agent: The command printed: hi
	// skipped: codex: skipped line 7 (byte 1456): invalid JSON line (32 bytes): unexpected end of input at offset 32
}
