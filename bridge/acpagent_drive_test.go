package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// logHost is a Host that logs what a Conversation tells it, one line
// each, for a test to compare.
type logHost struct {
	fuzzHost
	got []string
}

func (h *logHost) Notify(updates ...acp.Update) {
	for _, u := range updates {
		b, err := json.Marshal(u)
		if err != nil {
			h.t.Fatalf("update %#v: %v", u, err)
		}
		h.got = append(h.got, "notify "+string(b))
	}
}
func (h *logHost) ModeChanged(mode string) { h.got = append(h.got, "mode "+mode) }
func (h *logHost) Retire()                 { h.got = append(h.got, "retire") }
func (h *logHost) Commands(cs []acp.AvailableCommand, _ []bridge.Model) {
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	h.got = append(h.got, "commands "+strings.Join(names, ","))
}
func (h *logHost) Offer(modes []acp.SessionMode, models []bridge.Model) {
	var ids []string
	for _, m := range modes {
		ids = append(ids, m.ID)
	}
	var mids []string
	for _, m := range models {
		mids = append(mids, m.ID)
	}
	h.got = append(h.got, "offer modes "+strings.Join(ids, ",")+" models "+strings.Join(mids, ","))
}
func (h *logHost) EndTurn(res acp.PromptResult, err error) {
	b, _ := json.Marshal(res)
	line := "end " + string(b)
	var e *acp.Error
	switch {
	case errors.As(err, &e):
		b, _ := json.Marshal(e)
		line += " error " + string(b)
	case err != nil:
		line += " error " + err.Error()
	}
	h.got = append(h.got, line)
}

// take returns what the host got since it was last asked.
func (h *logHost) take() []string {
	got := h.got
	h.got = nil
	return got
}

// acpDrive is a Conversation of an ACP agent that a test plays the
// agent of, line by line, without a process.
type acpDrive struct {
	t    *testing.T
	conv bridge.Conversation
	h    *logHost
	in   switchWriter // what the bridge wrote to the agent
}

// driveACP starts a Conversation of cli in mode and model.
func driveACP(t *testing.T, cli bridge.CLI, cfg bridge.ConversationConfig, mode, model string) *acpDrive {
	t.Helper()
	if cfg.Cwd == "" {
		cfg.Cwd = "/work"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	conv, err := cli.NewConversation(cfg)
	must(t, err)
	d := &acpDrive{t: t, conv: conv, h: &logHost{fuzzHost: fuzzHost{t: t}}}
	conv.CommandLine(mode, model)
	conv.Start(nopCloser{&d.in})
	return d
}

// open answers initialize with caps and the opening of the session
// with result, and forgets what the host and the agent got meanwhile.
func (d *acpDrive) open(caps, result string) {
	d.agent(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":`+caps+`}}`,
		`{"jsonrpc":"2.0","id":2,"result":`+result+`}`)
	d.h.take()
	d.sent()
}

// agent feeds the Conversation lines of the agent's.
func (d *acpDrive) agent(lines ...string) {
	for _, l := range lines {
		d.conv.Line(d.h, []byte(l))
	}
}

// sent returns the lines the bridge wrote to the agent since it was
// last asked.
func (d *acpDrive) sent() []string {
	s := strings.TrimSpace(d.in.String())
	d.in.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// agentUpdate is a session/update of the agent's session s1.
func agentUpdate(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
}

const (
	agentModes  = `"modes":{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"},{"id":"plan","name":"Plan"}]}`
	agentModels = `"models":{"currentModelId":"m1","availableModels":[{"modelId":"m1","name":"One"},{"modelId":"m2","name":"Two"}]}`
)

// TestACPAgentUpdates checks what the bridge makes of each update of an
// ACP agent's: those of the session go to the editor (or to the
// session's state) at any time, notices only to an editor that takes
// them; those of a turn only during one, its tool calls tracked, so
// that those it leaves open end failed with it; and the turn's usage,
// cached tokens and all, is the session's.
func TestACPAgentUpdates(t *testing.T) {
	for _, notices := range []bool{false, true} {
		d := driveACP(t, anyAgent, bridge.ConversationConfig{Notices: notices}, "default", "default")
		d.open(`{}`, `{"sessionId":"s1",`+agentModes+`}`)
		d.agent(
			agentUpdate(`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"init","description":"Set up"},{"name":"help","description":"Help"}]}`),
			agentUpdate(`{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`),
			agentUpdate(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"replayed"}}`),
			agentUpdate(`{"sessionUpdate":"session_info_update","title":"Greeting"}`),
			agentUpdate(`{"sessionUpdate":"usage_update","used":100,"size":1000}`),
			agentUpdate(`{"sessionUpdate":"notice","severity":"warning","title":"Slow down"}`),
			agentUpdate(`{"sessionUpdate":"config_option_update","configOptions":[{"id":"mode","name":"Mode","type":"select","category":"mode","currentValue":"auto","options":[{"value":"auto","name":"Auto"},{"value":"plan","name":"Plan"}]}]}`),
			// The same mode again: no change to tell.
			agentUpdate(`{"sessionUpdate":"config_option_update","configOptions":[{"id":"mode","name":"Mode","type":"select","category":"mode","currentValue":"auto","options":[{"value":"auto","name":"Auto"},{"value":"plan","name":"Plan"}]}]}`),
		)
		want := []string{
			"commands init,help",
			"mode plan",
			`notify {"sessionUpdate":"session_info_update","title":"Greeting"}`,
			`notify {"sessionUpdate":"usage_update","used":100,"size":1000}`,
		}
		if notices {
			want = append(want, `notify {"sessionUpdate":"notice","severity":"warning","title":"Slow down"}`)
		}
		want = append(want,
			"offer modes auto,plan models ",
			"mode auto",
			"offer modes auto,plan models ",
		)
		if diff := cmp.Diff(want, d.h.take()); diff != "" {
			t.Errorf("notices %v: outside a turn, the editor got (-want +got):\n%s", notices, diff)
		}

		must(t, d.conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "Go."}}))
		if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"Go."}]}}`}, d.sent()); diff != "" {
			t.Errorf("the agent got (-want +got):\n%s", diff)
		}
		d.agent(
			agentUpdate(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"On it."}}`),
			agentUpdate(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls"}`),
			agentUpdate(`{"sessionUpdate":"tool_call","toolCallId":"t2","title":"cat","status":"completed"}`),
			agentUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}`),
			agentUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"t3","status":"completed"}`),
			`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"totalTokens":30,"inputTokens":20,"outputTokens":10,"cachedReadTokens":5,"cachedWriteTokens":2}}}`,
		)
		want = []string{
			`notify {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"On it."}}`,
			`notify {"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls"}`,
			`notify {"sessionUpdate":"tool_call","toolCallId":"t2","title":"cat","status":"completed"}`,
			`notify {"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}`,
			`notify {"sessionUpdate":"tool_call_update","toolCallId":"t3","status":"completed"}`,
			`notify {"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed"}`,
			`end {"stopReason":"end_turn","usage":{"totalTokens":30,"inputTokens":20,"outputTokens":10,"cachedReadTokens":5,"cachedWriteTokens":2}}`,
		}
		if diff := cmp.Diff(want, d.h.take()); diff != "" {
			t.Errorf("notices %v: in a turn, the editor got (-want +got):\n%s", notices, diff)
		}
		u := d.conv.Usage()
		var got []uint64
		for _, c := range []usage.Counter{u.Input, u.Output, u.Total, u.CacheRead, u.CacheWrite} {
			n, _ := c.Value()
			got = append(got, n)
		}
		if diff := cmp.Diff([]uint64{20, 10, 30, 5, 2}, got); diff != "" {
			t.Errorf("the session's usage (input, output, total, cache read, cache write) (-want +got):\n%s", diff)
		}
	}
}

// switchWriter is an agent's stdin whose writes fail once broken, as
// they do when its process has exited.
type switchWriter struct {
	bytes.Buffer
	broken bool
}

func (w *switchWriter) Write(b []byte) (int, error) {
	if w.broken {
		return 0, errors.New("broken pipe")
	}
	return w.Buffer.Write(b)
}

// TestACPAgentApply checks that the session's mode and model reach an
// agent that has just opened its session: through the config options
// it offers them as, else session/set_mode and session/set_model; a
// mode it does not list, or refuses, becomes the agent's; "default"
// stands for the agent's own first model.
func TestACPAgentApply(t *testing.T) {
	const (
		options = `"configOptions":[` +
			`{"id":"md","name":"Mode","type":"select","category":"mode","currentValue":"default","options":[{"value":"default","name":"Default"},{"value":"plan","name":"Plan"}]},` +
			`{"id":"ml","name":"Model","type":"select","category":"model","currentValue":"m1","options":[{"group":"g","name":"G","options":[{"value":"m1","name":"One"},{"value":"m2","name":"Two"}]}]}]`
	)
	for _, tc := range []struct {
		name, mode, model, result string
		answers                   []string // the agent's answers to what it was sent
		want, sent                []string
	}{{
		name: "config options", mode: "plan", model: "m2", result: `{"sessionId":"s1",` + options + `}`,
		answers: []string{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":4,"result":{}}`},
		want:    []string{"offer modes default,plan models default,m1,m2"},
		sent: []string{
			`{"jsonrpc":"2.0","id":3,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"md","value":"plan"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"ml","value":"m2"}}`,
		},
	}, {
		name: "set_mode and set_model", mode: "plan", model: "m2", result: `{"sessionId":"s1",` + agentModes + `,` + agentModels + `}`,
		answers: []string{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":4,"result":{}}`},
		want:    []string{"offer modes default,plan models default,m1,m2"},
		sent: []string{
			`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"plan"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"session/set_model","params":{"sessionId":"s1","modelId":"m2"}}`,
		},
	}, {
		name: "refused", mode: "plan", model: "m2", result: `{"sessionId":"s1",` + agentModes + `,` + agentModels + `}`,
		answers: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"not now"}}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"no"}}`},
		want:    []string{"offer modes default,plan models default,m1,m2", "mode default"},
		sent: []string{
			`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"plan"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"session/set_model","params":{"sessionId":"s1","modelId":"m2"}}`,
		},
	}, {
		name: "unlisted mode, default model", mode: "yolo", model: "default", result: `{"sessionId":"s1",` + agentModes + `,` + agentModels + `}`,
		want: []string{"offer modes default,plan models default,m1,m2", "mode default"},
	}, {
		name: "no choice of model", mode: "default", model: "m2", result: `{"sessionId":"s1",` + agentModes + `}`,
		want: []string{"offer modes default,plan models "},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d := driveACP(t, anyAgent, bridge.ConversationConfig{}, tc.mode, tc.model)
			d.agent(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
			d.sent()
			d.agent(`{"jsonrpc":"2.0","id":2,"result":` + tc.result + `}`)
			d.agent(tc.answers...)
			if diff := cmp.Diff(tc.sent, d.sent()); diff != "" {
				t.Errorf("the agent got (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, d.h.take()); diff != "" {
				t.Errorf("the editor got (-want +got):\n%s", diff)
			}
		})
	}
}

// TestACPAgentSetModeModel checks the editor's change of mode or model
// in a session whose agent runs: it waits for the agent's answer, and
// is refused -32602 with the agent's reason, or when the agent offers
// no choice, or when the agent cannot be written to; before the agent's
// session is open, the change is kept for it.
func TestACPAgentSetModeModel(t *testing.T) {
	// Before the session is open: kept, then applied.
	var log bytes.Buffer
	d := driveACP(t, anyAgent, bridge.ConversationConfig{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}, "default", "default")
	if d.conv.SetMode("plan") != nil || d.conv.SetModel("m2") != nil {
		t.Error("a change before the agent's session is open waits for an answer")
	}
	d.agent(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
	d.sent()
	d.agent(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1",` + agentModes + `,` + agentModels + `}}`)
	want := []string{
		`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"plan"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/set_model","params":{"sessionId":"s1","modelId":"m2"}}`,
	}
	if diff := cmp.Diff(want, d.sent()); diff != "" {
		t.Errorf("the changes made before the session opened: the agent got (-want +got):\n%s", diff)
	}
	d.agent(`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":4,"result":{}}`)

	// The mode and model the agent is in already: nothing to ask.
	if d.conv.SetMode("plan") != nil || d.conv.SetModel("m2") != nil {
		t.Error("a change to the agent's own mode or model waits for an answer")
	}
	type step struct {
		name   string
		set    func(string) func(context.Context) error
		value  string
		answer string // the agent's answer to id
		want   string // the error, "" for none
	}
	for _, s := range []step{
		{"mode taken", d.conv.SetMode, "default", `{"jsonrpc":"2.0","id":5,"result":{}}`, ""},
		{"mode refused", d.conv.SetMode, "plan", `{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Internal error","data":{"details":"untrusted folder"}}}`, "The agent refused: untrusted folder"},
		{"model taken", d.conv.SetModel, "m1", `{"jsonrpc":"2.0","id":7,"result":{}}`, ""},
		{"model refused", d.conv.SetModel, "m2", `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"unknown model"}}`, "The agent refused: unknown model"},
	} {
		wait := s.set(s.value)
		if wait == nil {
			t.Fatalf("%s: the agent was not asked", s.name)
		}
		d.agent(s.answer)
		err := wait(bg)
		var got string
		if err != nil {
			var e *acp.Error
			if !errors.As(err, &e) || e.Code != acp.CodeInvalidParams {
				t.Fatalf("%s: %v, want -32602", s.name, err)
			}
			got = e.Message
		}
		if got != s.want {
			t.Errorf("%s: %q, want %q", s.name, got, s.want)
		}
	}
	// The mode refused is not the session's: asking for it asks again.
	wait := d.conv.SetMode("plan")
	if wait == nil {
		t.Fatal("the mode the agent refused counts as the session's")
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if err := wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting for the agent's answer with a cancelled context: %v", err)
	}
	d.in.broken = true
	if err := d.conv.SetModel("m2")(bg); err == nil || err.Error() != "broken pipe" {
		t.Errorf("a change the agent cannot be sent: %v, want broken pipe", err)
	}
	// A prompt the agent cannot be sent is logged: the turn ends when
	// the process's exit is seen.
	must(t, d.conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "Hi."}}))
	if want := `msg="not written to The agent" error="broken pipe"`; !strings.Contains(log.String(), want) {
		t.Errorf("the log says\n%s\nwant %s", log.String(), want)
	}

	// An agent without a choice of model.
	d = driveACP(t, anyAgent, bridge.ConversationConfig{}, "default", "default")
	d.open(`{}`, `{"sessionId":"s1",`+agentModes+`}`)
	var e *acp.Error
	if err := d.conv.SetModel("m2")(bg); !errors.As(err, &e) || e.Code != acp.CodeInvalidParams || e.Message != "The agent offers no choice of model" {
		t.Errorf("a model of an agent that offers none: %v", err)
	}
}

// TestGeminiACPOpenError checks how a turn fails when Gemini CLI cannot
// load the session it goes on with: one it says it does not have
// (-32002, or its -32603 "Invalid session identifier") is not found,
// naming the session, as the editor can tell; another error is the
// CLI's.
func TestGeminiACPOpenError(t *testing.T) {
	const notFound = `,"data":{"kind":"resume_not_found","sessionId":"old-1"}}`
	for _, tc := range []struct {
		name      string
		cli       bridge.CLI
		err, want string
	}{
		{"gemini invalid id", bridge.GeminiACP, `{"code":-32603,"message":"Internal error","data":{"details":"Invalid session identifier \"old-1\". Use --list-sessions to see available sessions."}}`,
			`{"code":-32002,"message":"Gemini CLI has no conversation old-1 to resume"` + notFound},
		{"gemini not found", bridge.GeminiACP, `{"code":-32002,"message":"gone"}`,
			`{"code":-32002,"message":"Gemini CLI has no conversation old-1 to resume"` + notFound},
		{"gemini other error", bridge.GeminiACP, `{"code":-32603,"message":"disk full"}`,
			`{"code":-32603,"message":"disk full","data":{"kind":"cli_error"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := driveACP(t, tc.cli, bridge.ConversationConfig{ResumeID: "old-1"}, "default", "default")
			must(t, d.conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "Again."}}))
			d.agent(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`)
			if sent := d.sent(); len(sent) != 2 || !strings.Contains(sent[1], `"method":"session/load"`) || !strings.Contains(sent[1], `"sessionId":"old-1"`) {
				t.Fatalf("the agent got %q, want initialize and the load of old-1", sent)
			}
			d.agent(`{"jsonrpc":"2.0","id":2,"error":` + tc.err + `}`)
			if diff := cmp.Diff([]string{"retire", `end {"stopReason":""} error ` + tc.want}, d.h.take()); diff != "" {
				t.Errorf("the editor got (-want +got):\n%s", diff)
			}
		})
	}
}
