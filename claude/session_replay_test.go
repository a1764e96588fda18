package claude_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"testing/fstest"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// record returns a transcript record of a line in direction dir.
func record(dir, line string) string {
	b, err := json.Marshal(claudetest.Record{Dir: dir, Line: line})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// earlyRequests is a session in which the CLI asks for a permission and
// sends an MCP message before it answers initialize, as the real CLI does
// while it starts MCP servers.
var earlyRequests = record("in", `{"type":"control_request","request_id":"req_1_x","request":{"subtype":"initialize","hooks":null}}`) +
	record("out", `{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}`) +
	record("in", `{"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`) +
	record("out", `{"type":"control_request","request_id":"mcp-1","request":{"subtype":"mcp_message","server_name":"ide","message":{"jsonrpc":"2.0","id":0,"method":"initialize"}}}`) +
	record("in", `{"type":"control_response","response":{"subtype":"success","request_id":"mcp-1","response":{}}}`) +
	record("out", `{"type":"control_response","response":{"subtype":"success","request_id":"req_1_x","response":{"pid":42}}}`) +
	record("in", `{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":"default"}`) +
	record("out", `{"type":"system","subtype":"init","session_id":"s1","model":"m"}`) +
	record("out", `{"type":"assistant","message":{"content":[{"type":"text","text":"Hello."}]},"session_id":"s1"}`) +
	record("out", `{"type":"result","subtype":"success","is_error":false,"result":"Hello.","result_index":0,"terminal_reason":"completed","session_id":"s1"}`) +
	`{"dir":"stdin_closed"}` + "\n" + `{"dir":"exit","code":0}` + "\n"

// TestSessionServesRequestsBeforeInitialize drives the fake CLI the way a
// program drives the real one: one goroutine reads the output and answers
// the CLI's requests, while the main one waits for the answer to
// initialize. The CLI's requests come first; nothing may deadlock.
func TestSessionServesRequestsBeforeInitialize(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- claudetest.Run(t.Context(), claudetest.Env{
			Args: claude.SessionCommandLine(claude.Options{}), Stdin: inR, Stdout: outW, Stderr: &stderr,
			Open: fstest.MapFS{"early.ndjson": {Data: []byte(earlyRequests)}}.Open,
			Getenv: func(key string) string {
				if key == claudetest.EnvTranscript {
					return "early.ndjson"
				}
				return ""
			},
		})
		// As when a process exits: its pipes break.
		inR.Close()
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })

	s := claude.NewSession(inW, "")
	responses := make(chan claude.ControlResponse, 1)
	turns := make(chan claude.TurnEnd, 1)
	var seen []string
	readerDone := make(chan error, 1)
	go func() {
		var err error
		for e, readErr := range s.Events(outR) {
			if readErr != nil {
				err = readErr
				continue
			}
			switch e := e.(type) {
			case claude.PermissionRequest:
				seen = append(seen, "permission "+e.ToolName)
				err = s.Allow(e, nil)
			case claude.Request:
				seen = append(seen, "declined")
				err = s.Decline(e)
			case claude.ControlResponse:
				responses <- e
			case claude.Text:
				seen = append(seen, e.Text)
			case claude.TurnEnd:
				turns <- e
			}
		}
		readerDone <- err
	}()

	// A deadlock would hang here; testwait turns it into a failure.
	var id string
	var err error
	testwait.Do(t, "the fake CLI to read initialize", func() { id, err = s.Initialize(claude.InitializeOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	resp := testwait.For(t, responses, "the answer to initialize")
	if diff := cmp.Diff(claude.ControlResponse{ID: id, Subtype: "initialize", Payload: json.RawMessage(`{"pid":42}`)}, resp); diff != "" {
		t.Errorf("initialize answer mismatch (-want +got):\n%s", diff)
	}
	testwait.Do(t, "the fake CLI to read the turn", func() { err = s.SendText("hi") })
	if err != nil {
		t.Fatal(err)
	}
	end := testwait.For(t, turns, "the turn's end")
	inW.Close()
	if err := testwait.For(t, readerDone, "the output to end"); err != nil {
		t.Error(err)
	}
	if code := testwait.For(t, exit, "the fake CLI to exit"); code != 0 || stderr.Len() != 0 {
		t.Errorf("fake CLI: status %d, stderr %q", code, stderr.String())
	}
	got := []any{seen, end, len(s.Pending()), s.SessionID()}
	want := []any{[]string{"permission Bash", "declined", "Hello."}, claude.TurnEnd{TerminalReason: "completed"}, 0, "s1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[seen, turn end, pending, session] mismatch (-want +got):\n%s", diff)
	}
}
