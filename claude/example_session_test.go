package claude_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/acpkit/acpkit/claude"
)

// A permission round trip: the CLI asks before it runs a tool, the client
// allows the call with the arguments the CLI proposed, and the turn goes
// on. In a program, stdin and stdout are the pipes of a process started
// with claude.SessionCommandLine, and the loop runs on its own goroutine.
func ExampleSession() {
	var stdin bytes.Buffer // the CLI's standard input
	s := claude.NewSession(&stdin, "")
	if err := s.SendText("Create an empty file named x."); err != nil {
		fmt.Println(err)
		return
	}

	stdout := strings.NewReader(`{"type":"system","subtype":"init","session_id":"a3ff07eb","model":"claude-sonnet-4-5"}
{"type":"control_request","request_id":"c345dd86","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x"},"tool_use_id":"toolu_01"}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"(Bash completed with no output)","is_error":false}]},"session_id":"a3ff07eb"}
{"type":"result","subtype":"success","is_error":false,"result":"Created the file x.","result_index":0,"terminal_reason":"completed","session_id":"a3ff07eb"}
`)
	for e, err := range s.Events(stdout) {
		if err != nil {
			fmt.Println("skipped:", err)
			continue
		}
		switch e := e.(type) {
		case claude.PermissionRequest:
			fmt.Printf("may %s run %s? yes\n", e.ToolName, e.Input)
			if err := s.Allow(e, nil); err != nil {
				fmt.Println(err)
			}
		case claude.Request: // requests this client does not serve
			if err := s.Decline(e); err != nil {
				fmt.Println(err)
			}
		case claude.ToolResult:
			fmt.Println("tool:", e.Text)
		case claude.Result:
			fmt.Println("answer:", e.Text)
		case claude.TurnEnd:
			fmt.Println("turn", e.Index, e.TerminalReason)
		}
	}
	fmt.Print("written:\n", stdin.String())
	// Output:
	// may Bash run {"command":"touch x"}? yes
	// tool: (Bash completed with no output)
	// answer: Created the file x.
	// turn 0 completed
	// written:
	// {"type":"user","message":{"role":"user","content":"Create an empty file named x."},"parent_tool_use_id":null,"session_id":"default"}
	// {"type":"control_response","response":{"subtype":"success","request_id":"c345dd86","response":{"behavior":"allow","updatedInput":{"command":"touch x"}}}}
}

// Interrupting a turn while the answer streams: the CLI confirms the
// interrupt, ends the turn as aborted, and takes the next turn in the same
// process.
func ExampleSession_Interrupt() {
	var stdin bytes.Buffer
	s := claude.NewSession(&stdin, "")
	s.SendText("Tell me a long story.")

	var interrupt string
	feed := func(stdout string) {
		for e, err := range s.Events(strings.NewReader(stdout)) {
			switch e := e.(type) {
			case nil:
				fmt.Println("skipped:", err)
			case claude.PartialText:
				fmt.Printf("partial %q\n", e.Text)
				if interrupt == "" {
					interrupt, _ = s.Interrupt() // the person pressed Esc
				}
			case claude.ControlResponse:
				fmt.Println("answer to", e.Subtype, "ok:", e.Err == nil, e.ID == interrupt)
			case claude.TurnEnd:
				fmt.Println("turn", e.Index, e.TerminalReason, "interrupted:", e.Interrupted())
			}
		}
	}
	feed(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Once upon"}},"session_id":"205deac1"}
`)
	// What the CLI writes after it read the interrupt.
	feed(`{"type":"control_response","response":{"subtype":"success","request_id":"` + interrupt + `","response":{"still_queued":[]}}}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},"session_id":"205deac1"}
{"type":"result","subtype":"error_during_execution","is_error":true,"result_index":0,"terminal_reason":"aborted_streaming","session_id":"205deac1"}
`)
	fmt.Println("in turn:", s.InTurn(), "pending:", len(s.Pending()))
	// Output:
	// partial "Once upon"
	// answer to interrupt ok: true true
	// turn 0 aborted_streaming interrupted: true
	// in turn: false pending: 0
}

// Registering a hook: the initialize request names the callback, and the
// CLI then asks the client to run it before each Bash call, waiting for
// the hook's output. Here the hook refuses the call.
func ExampleSession_Initialize() {
	var stdin bytes.Buffer
	s := claude.NewSession(&stdin, "")
	id, err := s.Initialize(claude.InitializeOptions{
		Hooks: map[claude.HookEvent][]claude.HookMatcher{
			claude.HookPreToolUse: {{Matcher: "Bash", CallbackIDs: []string{"hook_0"}, Timeout: 10 * time.Second}},
		},
		JSONSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	stdout := strings.NewReader(`{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":{"pid":4242}}}
{"type":"control_request","request_id":"6f1c2a9e","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"}},"tool_use_id":"toolu_01"}}
`)
	for e := range s.Events(stdout) {
		switch e := e.(type) {
		case claude.ControlResponse:
			fmt.Println("answered:", e.Subtype)
		case claude.HookRequest:
			fmt.Println("hook:", e.CallbackID, e.ToolUseID)
			out := json.RawMessage(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"No deletions."}}`)
			if err := s.Respond(e, out); err != nil {
				fmt.Println(err)
			}
		}
	}
	fmt.Print("written:\n", stdin.String())
	// Output:
	// answered: initialize
	// hook: hook_0 toolu_01
	// written:
	// {"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":10}]},"jsonSchema":{"type":"object","properties":{"answer":{"type":"string"}}}}}
	// {"type":"control_response","response":{"subtype":"success","request_id":"6f1c2a9e","response":{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"No deletions."}}}}
}
