package codex_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/usage"
)

func ExampleParseLine() {
	stdout := `{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":"ok\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"The tests pass."}}
[DEBUG] secret token abc123
`
	var events []codex.Event
	for line := range strings.Lines(stdout) {
		var err error
		events, _, err = codex.ParseLine([]byte(line), events[:0])
		var syntaxErr *codex.SyntaxError
		if errors.As(err, &syntaxErr) {
			// Reported without its content.
			fmt.Println("skipped a line of", syntaxErr.Length, "bytes")
			continue
		}
		for _, e := range events {
			switch e := e.(type) {
			case codex.CommandExecution:
				fmt.Printf("%s %s: %s", e.Phase, e.Status, e.Command)
				if e.HasExitCode {
					fmt.Printf(" exited %d with %q", e.ExitCode, e.Output)
				}
				fmt.Println()
			case codex.Text:
				fmt.Println("text:", e.Text)
			}
		}
	}
	// Output:
	// started in_progress: /bin/bash -lc 'go test ./...'
	// completed completed: /bin/bash -lc 'go test ./...' exited 0 with "ok\n"
	// text: The tests pass.
	// skipped a line of 27 bytes
}

func ExampleTurn() {
	stdout := `{"type":"thread.started","thread_id":"01a23170-f4e4-79a3-8053-87c2b8ccf99b"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion)"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"2 + 2 = 4."}}
{"type":"turn.completed","usage":{"input_tokens":9160,"cached_input_tokens":6848,"output_tokens":26}}
`
	turn := codex.NewTurn("") // a new thread
	var events []codex.Event
	for line := range strings.Lines(stdout) {
		events, _ = turn.Feed([]byte(line), events[:0])
		for _, e := range events {
			switch e := e.(type) {
			case codex.Retry:
				fmt.Printf("retry %d of %d: %s\n", e.Attempt, e.MaxRetries, e.Message)
			case codex.Text:
				fmt.Println("text:", e.Text)
			case codex.TurnCompleted:
				u, _ := usage.ParseCodexUsage(e.Usage)
				fmt.Println("thread totals:", u.Input, "in,", u.Output, "out")
			}
		}
	}
	turn.Finish(0, nil) // the CLI exited with status 0
	fmt.Println("error:", turn.Err())
	fmt.Println("next resume:", turn.ThreadID())
	// Output:
	// retry 1 of 5: stream disconnected before completion
	// text: 2 + 2 = 4.
	// thread totals: 9160 in, 26 out
	// error: <nil>
	// next resume: 01a23170-f4e4-79a3-8053-87c2b8ccf99b
}

func ExampleTurn_Events() {
	// In a program, stdout is the CLI's standard output pipe.
	stdout := strings.NewReader(`{"type":"thread.started","thread_id":"01a23172-bd92-7f82-a483-249833528bbc"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"file_change","changes":[{"path":"/work/hello.txt","kind":"add"}],"status":"completed"}}
{"type":"turn.failed","error":{"message":"You've hit your usage limit. Try again at 2:00 PM."}}
`)
	turn := codex.NewTurn("01a23172-bd92-7f82-a483-249833528bbc") // resuming
	for e, err := range turn.Events(stdout) {
		if err != nil {
			fmt.Println("skipped:", err) // a bad line; reading goes on
			continue
		}
		switch e := e.(type) {
		case codex.FileChange:
			for _, c := range e.Changes {
				fmt.Println(c.Kind, c.Path)
			}
		case codex.TurnFailed:
			fmt.Println("failed:", e.Message)
		}
	}
	turn.Finish(1, nil) // cmd.ProcessState.ExitCode(), once Wait returns
	fmt.Println(errors.Is(turn.Err(), codex.ErrAPI))
	// Output:
	// add /work/hello.txt
	// failed: You've hit your usage limit. Try again at 2:00 PM.
	// true
}

// A run against a server that answers 500 retries five times, then ends
// with an API error and a failed turn: the run's error is ErrAPI, and the
// *RunError carries the status.
func ExampleRunError() {
	stdout := strings.NewReader(`{"type":"thread.started","thread_id":"01a23172-d02a-7010-9f3c-10514ef88b99"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 5/5 (unexpected status 500 Internal Server Error: boom)"}
{"type":"error","message":"exceeded retry limit, last status: 500 Internal Server Error"}
{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 500 Internal Server Error"}}
`)
	turn := codex.NewTurn("")
	for range turn.Events(stdout) {
	}
	turn.Finish(1, nil)
	err := turn.Err()
	var re *codex.RunError
	if errors.Is(err, codex.ErrAPI) && errors.As(err, &re) {
		fmt.Println("API error, HTTP status", re.Status)
	}
	fmt.Println(err)
	// Output:
	// API error, HTTP status 500
	// codex: API error: exceeded retry limit, last status: 500 Internal Server Error (exit status 1 (failure))
}

// A resume of a thread the CLI does not have prints nothing on stdout and
// exits 1: Finish ends the Turn with ResumeFailed, and stderr says that
// the thread is unknown.
func ExampleResumeFailed() {
	turn := codex.NewTurn("0199a213-0000-7000-8000-000000000000")
	for range turn.Events(strings.NewReader("")) {
	}
	for _, e := range turn.Finish(1, nil) {
		fmt.Printf("%T %+v\n", e, e)
	}
	stderr := []byte("ERROR: No saved session found with ID 0199a213-0000-7000-8000-000000000000.\n")
	fmt.Println("unknown thread:", codex.ResumeNotFound(stderr))
	// Output:
	// codex.ResumeFailed {ThreadID:0199a213-0000-7000-8000-000000000000 Exit:exit status 1 (failure)}
	// unknown thread: true
}

func ExampleCommandLine() {
	args, stdin := codex.CommandLine(codex.Options{
		Resume:  "01a23170-f4e4-79a3-8053-87c2b8ccf99b",
		Model:   "gpt-5.1-codex",
		Sandbox: codex.SandboxWorkspaceWrite,
	}, "--fix the failing test")
	fmt.Println(strings.Join(args, " "))
	fmt.Printf("stdin: %s\n", stdin)
	// Output:
	// exec --json --model=gpt-5.1-codex --sandbox=workspace-write resume -- 01a23170-f4e4-79a3-8053-87c2b8ccf99b -
	// stdin: --fix the failing test
}

func ExampleParseResetTime() {
	// The CLI writes its machine's local time; here that machine is in
	// New York, and the text was written at 9:30 AM there: now is in its
	// zone.
	newYork := time.FixedZone("EST", -5*3600) // in a program: time.Local
	now := time.Date(2026, 12, 1, 9, 30, 0, 0, newYork)
	for _, text := range []string{
		"You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at 2:00 PM.",
		"You've hit your usage limit. Try again at Dec 5th, 2026 2:00 PM.",
		"Rate limit reached for gpt-5.1-codex. Please try again in 11.054s.",
		"You've hit your usage limit. Try again later.",
	} {
		ms, err := codex.ParseResetTime(text, now, nil)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(time.UnixMilli(ms).In(newYork).Format("Jan 2 15:04:05.000"))
	}
	// Output:
	// Dec 1 14:00:00.000
	// Dec 5 14:00:00.000
	// Dec 1 09:30:11.054
	// codex: limit without a reset time
}

func ExampleExitStatus() {
	// In a program: codex.ExitStatus(cmd.ProcessState.ExitCode()).
	for _, code := range []int{0, 1, 2, -1} {
		switch s := codex.ExitStatus(code); s.Kind() {
		case codex.ExitSuccess, codex.ExitFailure:
			fmt.Println(s, "- the output says more")
		case codex.ExitUsage:
			fmt.Println(s, "- the command line is wrong")
		default:
			fmt.Println(s)
		}
	}
	// Output:
	// exit status 0 (success) - the output says more
	// exit status 1 (failure) - the output says more
	// exit status 2 (usage error) - the command line is wrong
	// killed by a signal
}
