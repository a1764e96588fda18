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
//	{"end":"…"}           the turn's stop reason
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
	var m struct{ Say, Ask, ID, Withdraw, Mode, End string }
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
	case m.End != "":
		c.inTurn = false
		h.EndTurn(acp.PromptResult{StopReason: acp.StopReason(m.End)}, nil)
	}
}

func (c *lineConversation) Exited(h bridge.Host, err error) {
	c.stdin = nil
	if c.inTurn {
		c.inTurn = false
		h.EndTurn(acp.PromptResult{}, acp.Errorf(acp.CodeInternalError, "Line CLI died: %v", err))
	}
}

func (c *lineConversation) Answer(h bridge.Host, q bridge.Question, o acp.PermissionOutcome, err error) {
	c.write(map[string]any{"answer": o.OptionID, "id": q.ID})
}

func (c *lineConversation) SetMode(string) func(context.Context) error  { return nil }
func (c *lineConversation) SetModel(string) func(context.Context) error { return nil }
func (c *lineConversation) Usage() usage.Snapshot                       { return usage.Snapshot{} }

// TestFourthCLI serves sessions with a CLI that the package does not
// know: its modes, its command line, a question answered and one asked
// outside a turn, a mode it switched to, an interrupt, and a crash.
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
		p.write(`{"say":"Hi."}`, `{"ask":"rm -rf build","id":"q1"}`)
		synctest.Wait()
		p.write(`{"mode":"auto"}`, `{"end":"end_turn"}`)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
		p.write(`{"ask":"outside","id":"q2"}`)
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
		if a := got(t, third); a.err == nil || !strings.Contains(a.err.Error(), "Line CLI died: exit status 3") {
			t.Errorf("the prompt was answered %+v, %v; want the CLI's death", a.res, a.err)
		}
		want := []string{
			`{"prompt":"hello"}`, `{"answer":"yes","id":"q1"}`, `{"answer":"","id":"q2"}`,
			`{"prompt":"again"}`, `{"interrupt":true}`, `{"prompt":"once more"}`,
		}
		if diff := cmp.Diff(want, p.lines()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"agent_message_chunk", "current_mode_update", "config_option_update"}, e.kinds()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
	})
}
