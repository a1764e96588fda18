package claudetest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/acpkit/acpkit/claude/claudetest"
)

func ExampleRun() {
	transcripts := fstest.MapFS{
		"hello.jsonl": {Data: []byte(`{"type":"system","subtype":"init","session_id":"s1"}
{"type":"result","subtype":"success","is_error":false,"result":"Hi!","session_id":"s1"}
`)},
		"hello.stderr": {Data: []byte("warning: this is a recording\n")},
	}
	code := claudetest.Run(context.Background(), claudetest.Env{
		Args:   []string{"-p", "--output-format", "stream-json", "--verbose", "say hi"},
		Stdout: os.Stdout,
		Stderr: os.Stdout, // shown in the example's output
		Open:   transcripts.Open,
		Getenv: func(key string) string {
			if key == claudetest.EnvTranscript {
				return "hello.jsonl"
			}
			return ""
		},
	})
	fmt.Println("exit status", code)
	// Output:
	// warning: this is a recording
	// {"type":"system","subtype":"init","session_id":"s1"}
	// {"type":"result","subtype":"success","is_error":false,"result":"Hi!","session_id":"s1"}
	// exit status 0
}

func ExampleRender() {
	transcript := `{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5"}
not json
{"type":"assistant","session_id":"s1","message":{"content":[{"type":"text","text":"Hi!"}]}}
`
	out, err := claudetest.Render(strings.NewReader(transcript))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", out)
	// Output:
	// [
	//   {
	//     "line": 1,
	//     "session_id": "s1",
	//     "events": [
	//       {
	//         "type": "Heartbeat",
	//         "event": {
	//           "Subtype": "init",
	//           "Model": "claude-sonnet-4-5"
	//         }
	//       }
	//     ]
	//   },
	//   {
	//     "line": 2,
	//     "error": "claude: invalid stream-json line (8 bytes): invalid literal at offset 1"
	//   },
	//   {
	//     "line": 3,
	//     "events": [
	//       {
	//         "type": "Text",
	//         "event": {
	//           "Text": "Hi!",
	//           "ParentToolUseID": ""
	//         }
	//       }
	//     ]
	//   }
	// ]
}
