package bridge_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
)

// An Agent serves ACP sessions with a CLI: register its handlers, serve
// them with an acp.Conn, and Close the Agent when the Conn has ended. A
// program takes the operating system's starter, clock and session ids
// from package bridgeos and serves stdin and stdout:
//
//	agent, err := bridgeos.NewAgent(bridge.Config{CLI: bridge.Claude, Logger: log})
//	…
//	conn := acp.NewConn(ctx, os.Stdin, os.Stdout, methods, nil)
//
// Here the CLI is claudetest's fake Claude Code, run in-process, and the
// editor is joined to the Agent in memory.
func ExampleAgent() {
	var started [][]string
	agent, err := bridge.NewAgent(bridge.Config{
		Start:        fakeClaude.starter(filepath.Join("..", "claude", "testdata", "control", "two-turns.ndjson"), &started),
		NewSessionID: func() string { return "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20" },
		Clock:        testClock{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	var editor acp.Methods
	acp.SessionUpdate.Handle(&editor, func(ctx context.Context, c *acp.Conn, n acp.SessionNotification) {
		switch u := n.Update.(type) {
		case acp.AgentMessageChunk:
			fmt.Printf("text %q\n", u.Content.(acp.TextContent).Text)
		case acp.AvailableCommandsUpdate:
			fmt.Println("commands:", len(u.AvailableCommands))
		}
	})
	ctx := context.Background()
	client, _, closePair := acptest.NewPair(ctx, editor, agent.Handler(bridge.Editor{}), nil)
	acp.Initialize.Call(ctx, client, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion})
	s, err := acp.SessionNew.Call(ctx, client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{
		SessionID: s.SessionID,
		Prompt:    []acp.ContentBlock{acp.TextContent{Text: "Say hello and tell me what 2 + 2 is."}},
	})
	fmt.Println(res.StopReason, err)

	agent.Close() // stops the session's CLI
	closePair()
	// Output:
	// commands: 40
	// text "Hello from the mock server. 2 + 2 = 4."
	// end_turn <nil>
}
