package bridge_test

import (
	"context"
	"io"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// waitCLI is a CLI of the tests' own, one long-lived process per session,
// which answers a prompt off the session's goroutine: its Conversation
// hands the wait to ConversationConfig.Go, and the turn ends when the
// test releases it.
type waitCLI struct {
	release chan string // a turn ends with the text sent here
}

func (c *waitCLI) Info() bridge.CLIInfo {
	return bridge.CLIInfo{
		Name: "Wait", Program: "wait",
		Modes:  []acp.SessionMode{{ID: "default", Name: "Default"}},
		Models: []bridge.Model{{ID: "default", Name: "Default"}},
	}
}

func (c *waitCLI) NewConversation(cfg bridge.ConversationConfig) (bridge.Conversation, error) {
	return &waitConversation{cli: c, cfg: cfg}, nil
}

type waitConversation struct {
	cli  *waitCLI
	cfg  bridge.ConversationConfig
	gone chan struct{} // closed when the process exits
}

func (w *waitConversation) CommandLine(mode, model string) []string { return []string{"wait"} }
func (w *waitConversation) Start(stdin io.WriteCloser)              { w.gone = make(chan struct{}) }
func (w *waitConversation) Interrupt() bool                         { return false }
func (w *waitConversation) Line(h bridge.Host, line []byte)         {}
func (w *waitConversation) Answer(bridge.Host, bridge.Question, acp.PermissionOutcome, error) {
}
func (w *waitConversation) SetMode(string) func(context.Context) error  { return nil }
func (w *waitConversation) SetModel(string) func(context.Context) error { return nil }
func (w *waitConversation) Usage() usage.Snapshot                       { return usage.Snapshot{} }

// Prompt waits, off the session's goroutine, for the test's release or
// the process's exit; the callback ends the turn.
func (w *waitConversation) Prompt(prompt []acp.ContentBlock) error {
	gone := w.gone
	w.cfg.Go(func() func(bridge.Host) {
		select {
		case text := <-w.cli.release:
			return func(h bridge.Host) {
				h.Notify(acp.AgentMessageChunk{Content: acp.TextContent{Text: text}})
				h.EndTurn(acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil)
			}
		case <-gone:
			return nil
		}
	})
	return nil
}

func (w *waitConversation) Exited(h bridge.Host, err error) {
	close(w.gone)
	h.EndTurn(acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "gone"))
}

// A Conversation that waits for its CLI off the session's goroutine ends
// the turn from the callback its work returns, on the session's
// goroutine; the Agent's Close waits for work still under way.
func TestConversationGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cli := &waitCLI{release: make(chan string)}
		e := newEnv(t, bridge.Config{CLI: cli}, acp.ClientCapabilities{})
		e.stayAtEOF = true
		sid := e.newSession()
		e.process()
		ch := e.promptAsync(bg, sid, "hi")
		pending(t, ch)
		cli.release <- "Hello."
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		if diff := cmp.Diff([]string{"agent_message_chunk Hello."}, e.summary()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
		// A turn whose work still waits when the Agent closes: the CLI's
		// exit ends the work, and Close returns once it has. The prompt
		// is answered cancelled, or its connection is gone first.
		ch = e.promptAsync(bg, sid, "again")
		pending(t, ch)
		e.close()
		if a := got(t, ch); a.err == nil && a.res.StopReason != acp.StopReasonCancelled {
			t.Errorf("the prompt under way at Close was answered %+v", a.res)
		}
	})
}
