package geminitest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/gemini/geminitest"
)

func ExampleRun() {
	transcripts := fstest.MapFS{
		"hello.jsonl": {Data: []byte(`{"type":"init","session_id":"s-1","model":"auto"}
{"type":"message","role":"assistant","content":"Hello.","delta":true}
{"type":"result","status":"success","stats":{"total_tokens":9}}
`)},
	}
	args, stdin := gemini.CommandLine(gemini.Options{SkipTrust: true}, "say hello")
	var stdout strings.Builder
	code := geminitest.Run(context.Background(), geminitest.Env{
		Args:   args,
		Stdin:  strings.NewReader(string(stdin)),
		Stdout: &stdout,
		Stderr: os.Stderr,
		Open:   transcripts.Open,
		Getenv: func(key string) string {
			if key == geminitest.EnvTranscript {
				return "hello.jsonl"
			}
			return ""
		},
	})
	turn := gemini.NewTurn("")
	for e := range turn.Events(strings.NewReader(stdout.String())) {
		if t, ok := e.(gemini.Text); ok {
			fmt.Println("text:", t.Text)
		}
	}
	turn.Finish(code, nil)
	fmt.Println("exit", code, "session", turn.SessionID(), "err", turn.Err())
	// Output:
	// text: Hello.
	// exit 0 session s-1 err <nil>
}

func ExampleRender() {
	transcript := `{"type":"init","session_id":"s-1","model":"auto"}
{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"file_path":"a.txt"}}
{"type":"tool_result","tool_id":"t1","status":"success","output":"x"}
`
	out, err := geminitest.Render(strings.NewReader(transcript), "", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out[strings.Index(string(out), `"turn"`):]))
	// Output:
	// "turn": {
	//     "events": [
	//       {
	//         "type": "Init",
	//         "event": {
	//           "Model": "auto"
	//         }
	//       },
	//       {
	//         "type": "ToolUse",
	//         "event": {
	//           "ID": "t1",
	//           "Name": "read_file",
	//           "Kind": "read",
	//           "Input": {
	//             "file_path": "a.txt"
	//           }
	//         }
	//       },
	//       {
	//         "type": "ToolResult",
	//         "event": {
	//           "ID": "t1",
	//           "Name": "read_file",
	//           "Kind": "read",
	//           "Status": "success",
	//           "Output": "x",
	//           "ErrorType": "",
	//           "ErrorMessage": ""
	//         }
	//       },
	//       {
	//         "type": "NoResult",
	//         "event": {
	//           "Exit": 1
	//         }
	//       }
	//     ],
	//     "session_id": "s-1",
	//     "err": "gemini: run ended without a result (exit status 1 (failure))"
	//   }
	// }
}
