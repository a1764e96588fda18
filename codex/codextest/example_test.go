package codextest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/acpkit/acpkit/codex/codextest"
)

func ExampleRun() {
	transcripts := fstest.MapFS{
		"hello.jsonl": {Data: []byte(`{"type":"thread.started","thread_id":"t1"}
{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}
`)},
		"hello.stderr": {Data: []byte("warning: this is a recording\n")},
	}
	code := codextest.Run(context.Background(), codextest.Env{
		Args:   []string{"exec", "--json", "--skip-git-repo-check", "-"},
		Stdin:  strings.NewReader("say hi"),
		Stdout: os.Stdout,
		Stderr: os.Stdout, // shown in the example's output
		Open:   transcripts.Open,
		Getenv: func(key string) string {
			if key == codextest.EnvTranscript {
				return "hello.jsonl"
			}
			return ""
		},
	})
	fmt.Println("exit status", code)
	// Output:
	// warning: this is a recording
	// {"type":"thread.started","thread_id":"t1"}
	// {"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}
	// exit status 0
}

func ExampleRender() {
	transcript := `{"type":"thread.started","thread_id":"t1"}
not json
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Hi!"}}
`
	out, err := codextest.Render(strings.NewReader(transcript))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", out)
	// Output:
	// [
	//   {
	//     "line": 1,
	//     "session_id": "t1",
	//     "events": [
	//       {
	//         "type": "ThreadStarted",
	//         "event": {
	//           "ThreadID": "t1"
	//         }
	//       }
	//     ]
	//   },
	//   {
	//     "line": 2,
	//     "error": "codex: invalid JSON line (8 bytes): invalid literal at offset 1"
	//   },
	//   {
	//     "line": 3,
	//     "events": [
	//       {
	//         "type": "Text",
	//         "event": {
	//           "ItemID": "item_0",
	//           "Text": "Hi!"
	//         }
	//       }
	//     ]
	//   }
	// ]
}
