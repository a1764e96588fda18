package claudetest_test

import (
	"context"
	"fmt"
	"os"
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
