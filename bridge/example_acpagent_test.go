package bridge_test

import (
	"context"
	"fmt"
	"io"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
)

// pipeAgent is an ACP agent served in this process over pipes, standing
// in for a program such as `gemini --acp`.
type pipeAgent struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	conn   *acp.Conn
}

func (p *pipeAgent) Stdin() io.WriteCloser        { return p.stdin }
func (p *pipeAgent) Stdout() io.Reader            { return p.stdout }
func (p *pipeAgent) Stderr() io.Reader            { return nil }
func (p *pipeAgent) Signal(s bridge.Signal) error { return p.conn.Close() }
func (p *pipeAgent) Wait() error                  { p.conn.Wait(); return nil }

// startHello starts an agent that answers every prompt "Hello."
func startHello(dir string, args []string) (bridge.Process, error) {
	var m acp.Methods
	acp.Initialize.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion}, nil
	})
	acp.SessionNew.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.NewSessionParams) (acp.NewSessionResult, error) {
		return acp.NewSessionResult{SessionID: "hello-1"}, nil
	})
	acp.SessionPrompt.Handle(&m, func(ctx context.Context, c *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		hello := acp.AgentMessageChunk{Content: acp.TextContent{Text: "Hello."}}
		if err := acp.SessionUpdate.Notify(ctx, c, acp.SessionNotification{SessionID: p.SessionID, Update: hello}); err != nil {
			return acp.PromptResult{}, err
		}
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := acp.NewConn(context.Background(), inR, outW, m, nil)
	go func() { conn.Wait(); outW.Close() }()
	return &pipeAgent{stdin: inW, stdout: outR, conn: conn}, nil
}

// Any agent that speaks ACP serves an editor's sessions behind an Agent,
// one process per session: here one served in this process, which a
// program would start with bridgeos.Starter instead.
func ExampleACPAgent() {
	agent, err := bridge.NewAgent(bridge.Config{
		CLI:          bridge.ACPAgent(bridge.ACPAgentInfo{Name: "Hello agent", Program: "hello-agent"}),
		Start:        startHello,
		NewSessionID: func() string { return "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20" },
		Clock:        testClock{}, // a program's: bridgeos.Clock{}
	})
	if err != nil {
		panic(err)
	}
	defer agent.Close()

	// The editor prints the agent's text.
	var editor acp.Methods
	acp.SessionUpdate.Handle(&editor, func(ctx context.Context, c *acp.Conn, n acp.SessionNotification) {
		if chunk, ok := n.Update.(acp.AgentMessageChunk); ok {
			fmt.Println("agent:", chunk.Content.(acp.TextContent).Text)
		}
	})
	ctx := context.Background()
	client, _, closePair := acptest.NewPair(ctx, editor, agent.Handler(bridge.Editor{}), nil)
	defer closePair()
	if _, err := acp.Initialize.Call(ctx, client, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion}); err != nil {
		panic(err)
	}
	s, err := acp.SessionNew.Call(ctx, client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		panic(err)
	}
	res, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextContent{Text: "Hi"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println("stop:", res.StopReason)
	// Output:
	// agent: Hello.
	// stop: end_turn
}
