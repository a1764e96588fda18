package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// lineCLI is a fourth CLI, written with the package's exported API only:
// one long-lived process that takes each prompt as a JSON line
// {"prompt":…} and writes lines of its own:
//
//	{"say":"…"}           agent text
//	{"ask":"…","id":"…"}  a permission question about a tool
//	{"withdraw":"…"}      the question withdrawn
//	{"mode":"…"}          it went on in another mode
//	{"commands":"…"}      it has no slash commands
//	{"end":"…"}           the turn's stop reason
//	{"retire":"…"}        it takes no further turn
//
// {"interrupt":true} asks it to end the turn, and the answer to a
// question comes back as {"answer":"…","id":"…"}.
type lineCLI struct{}

func (lineCLI) Info() bridge.CLIInfo {
	return bridge.CLIInfo{
		Name:    "Line CLI",
		Program: "linecli",
		Modes:   []acp.SessionMode{{ID: "ask", Name: "Ask"}, {ID: "auto", Name: "Auto"}},
		Models:  []bridge.Model{{ID: "default", Name: "Default"}},
	}
}

func (lineCLI) NewConversation(c bridge.ConversationConfig) (bridge.Conversation, error) {
	return &lineConversation{}, nil
}

type lineConversation struct {
	stdin  io.Writer
	prompt string // for the process Start binds next
	inTurn bool
}

func (c *lineConversation) CommandLine(mode, model string) []string {
	return []string{"--serve", "--mode=" + mode}
}

func (c *lineConversation) Start(stdin io.WriteCloser) {
	c.stdin = stdin
	if c.prompt != "" {
		c.write(map[string]any{"prompt": c.prompt})
		c.prompt = ""
	}
}

func (c *lineConversation) write(v any) {
	b, _ := json.Marshal(v)
	c.stdin.Write(append(b, '\n'))
}

func (c *lineConversation) Prompt(prompt []acp.ContentBlock) error {
	var text []string
	for _, b := range prompt {
		t, ok := b.(acp.TextContent)
		if !ok {
			return acp.Errorf(acp.CodeInvalidParams, "text only")
		}
		text = append(text, t.Text)
	}
	c.inTurn = true
	if c.stdin == nil {
		c.prompt = strings.Join(text, "\n")
		return nil
	}
	c.write(map[string]any{"prompt": strings.Join(text, "\n")})
	return nil
}

func (c *lineConversation) Interrupt() bool {
	c.write(map[string]any{"interrupt": true})
	return true
}

func (c *lineConversation) Line(h bridge.Host, line []byte) {
	var m struct{ Say, Ask, ID, Withdraw, Mode, Commands, End, Retire string }
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch {
	case m.Say != "":
		h.Notify(acp.AgentMessageChunk{Content: acp.TextContent{Text: m.Say}})
	case m.Ask != "":
		h.Ask(bridge.Question{
			ID:       m.ID,
			ToolCall: acp.PermissionToolCall{ToolCallID: m.ID, Title: m.Ask},
			Options:  []acp.PermissionOption{{OptionID: "yes", Name: "Yes", Kind: acp.PermissionAllowOnce}},
		})
	case m.Withdraw != "":
		h.Withdraw(m.Withdraw)
	case m.Mode != "":
		h.ModeChanged(m.Mode)
	case m.Commands != "":
		h.Commands(nil, nil)
	case m.Retire != "":
		h.Retire()
	case m.End != "":
		c.inTurn = false
		h.EndTurn(acp.PromptResult{StopReason: acp.StopReason(m.End)}, nil)
	}
}

// Exited leaves a turn under way to the Agent, which fails it.
func (c *lineConversation) Exited(h bridge.Host, err error) {
	c.stdin, c.inTurn = nil, false
}

func (c *lineConversation) Answer(h bridge.Host, q bridge.Question, o acp.PermissionOutcome, err error) {
	c.write(map[string]any{"answer": o.OptionID, "id": q.ID})
}

func (c *lineConversation) SetMode(string) func(context.Context) error  { return nil }
func (c *lineConversation) SetModel(string) func(context.Context) error { return nil }
func (c *lineConversation) Usage() usage.Snapshot                       { return usage.Snapshot{} }

// TestFourthCLI serves sessions with a CLI that the package does not
// know: its modes, its command line, a question asked twice and answered
// once, one asked outside a turn, a mode it switched to, an interrupt, a
// crash, and a CLI that retires between turns.
func TestFourthCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: lineCLI{}}, acp.ClientCapabilities{})
		defer e.close()
		e.answer = func(ctx context.Context, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
			return selected("yes")(ctx)
		}
		res, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
		must(t, err)
		if res.Modes.CurrentModeID != "ask" || len(res.Modes.AvailableModes) != 2 {
			t.Errorf("the session's modes are %+v", res.Modes)
		}
		first := e.promptAsync(bg, res.SessionID, "hello")
		p := e.process()
		if diff := cmp.Diff([]string{"--serve", "--mode=ask"}, p.args); diff != "" {
			t.Errorf("command line (-want +got):\n%s", diff)
		}
		e.answer = func(ctx context.Context, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
			if p.ToolCall.Title == "rm -rf build" {
				<-ctx.Done() // asked again: this one is withdrawn
				return acp.RequestPermissionResult{}, ctx.Err()
			}
			return selected("yes")(ctx)
		}
		p.write(`{"say":"Hi."}`, `{"ask":"rm -rf build","id":"q1"}`, `{"ask":"rm -rf build/","id":"q1"}`)
		synctest.Wait()
		p.write(`{"mode":"auto"}`, `{"commands":"none"}`, `{"end":"end_turn"}`)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
		p.write(`{"ask":"outside","id":"q2"}`, `{"withdraw":"q2"}`, `{"say":"Idle."}`)
		synctest.Wait()

		second := e.promptAsync(bg, res.SessionID, "again")
		synctest.Wait()
		e.cancel(res.SessionID)
		synctest.Wait()
		p.write(`{"end":"cancelled"}`)
		stopReason(t, got(t, second), acp.StopReasonCancelled)

		third := e.promptAsync(bg, res.SessionID, "once more")
		synctest.Wait()
		p.exit(3)
		if msg := failure(t, got(t, third), bridge.KindCrash); msg != "Line CLI exited without finishing the turn" {
			t.Errorf("the prompt failed with %q", msg)
		}

		fourth := e.promptAsync(bg, res.SessionID, "last")
		p2 := e.process()
		p2.stayAtEOF = true
		p2.write(`{"end":"end_turn"}`, `{"retire":"yes"}`)
		stopReason(t, got(t, fourth), acp.StopReasonEndTurn)
		if !p2.inputClosed() {
			t.Error("the CLI that retired was not stopped")
		}
		p2.exit(0)
		want := []string{
			`{"prompt":"hello"}`, `{"answer":"yes","id":"q1"}`, `{"answer":"","id":"q2"}`,
			`{"prompt":"again"}`, `{"interrupt":true}`, `{"prompt":"once more"}`,
		}
		if diff := cmp.Diff(want, p.lines()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		want = []string{"agent_message_chunk", "current_mode_update", "config_option_update", "available_commands_update", "config_option_update", "agent_message_chunk"}
		if diff := cmp.Diff(want, e.kinds()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
	})
}
