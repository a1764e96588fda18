package bridge_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// waitCLI is a CLI of the tests' own, one long-lived process per session,
// which answers a prompt off the session's goroutine: its Conversation
// hands the wait to ConversationConfig.Go, and the turn ends when the
// test releases it. It offers reasoning efforts and forks.
type waitCLI struct {
	release chan string // a turn ends with the text sent here
	mu      sync.Mutex
	convs   []*waitConversation
}

func (c *waitCLI) Info() bridge.CLIInfo {
	return bridge.CLIInfo{
		Name: "Wait", Program: "wait",
		Modes:  []acp.SessionMode{{ID: "default", Name: "Default"}},
		Models: []bridge.Model{{ID: "default", Name: "Default"}, {ID: "deep", Name: "Deep"}, {ID: "plain", Name: "Plain"}},
		Forks:  true,
	}
}

func (c *waitCLI) NewConversation(cfg bridge.ConversationConfig) (bridge.Conversation, error) {
	conv := &waitConversation{cli: c, cfg: cfg, effort: "default", efforts: []string{}}
	c.mu.Lock()
	c.convs = append(c.convs, conv)
	c.mu.Unlock()
	return conv, nil
}

// conv returns the i-th Conversation made.
func (c *waitCLI) conv(i int) *waitConversation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.convs[i]
}

type waitConversation struct {
	cli    *waitCLI
	cfg    bridge.ConversationConfig
	gone   chan struct{} // closed when the process exits
	stored string        // the conversation's id, once prompted

	effort  string // the effort option's value
	mu      sync.Mutex
	efforts []string // every effort it took
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
func (w *waitConversation) StoredID() string                            { return w.stored }
func (w *waitConversation) Replay(bridge.Host, fs.FS, bridge.StoredFile) error {
	return nil
}

// levels are the efforts each model takes, the first its own.
var levels = map[string][]string{"default": {"low", "high"}, "deep": {"high", "max"}}

// The wait CLI's efforts are a Tuner's option, as Claude Code's and
// Codex's are.
func (w *waitConversation) Options(model string) []acp.SessionConfigOption {
	l := levels[model]
	if l == nil {
		return nil
	}
	current := w.effort
	if !slices.Contains(l, current) {
		current = "default"
	}
	values := []acp.SessionConfigSelectOption{{Value: "default", Name: "Default"}}
	for _, v := range l {
		values = append(values, acp.SessionConfigSelectOption{Value: v, Name: v})
	}
	return []acp.SessionConfigOption{{ID: "effort", Name: "Effort", Category: acp.ConfigCategoryThoughtLevel, Type: acp.ConfigOptionSelect,
		CurrentValue: current, Options: acp.SessionConfigSelectOptions{Options: values}}}
}

func (w *waitConversation) SetOption(id, value, model string) (func(context.Context) error, error) {
	if id != "effort" || value != "default" && !slices.Contains(levels[model], value) {
		return nil, acp.Errorf(acp.CodeInvalidParams, "model %s takes no %s %q", model, id, value)
	}
	return nil, nil
}

func (w *waitConversation) OptionSet(id, value string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.effort = value
	w.efforts = append(w.efforts, value)
}

func (w *waitConversation) effortsSet() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.efforts)
}

// Prompt waits, off the session's goroutine, for the test's release or
// the process's exit; the callback ends the turn.
func (w *waitConversation) Prompt(prompt []acp.ContentBlock) error {
	gone := w.gone
	w.cfg.Go(func() func(bridge.Host) {
		select {
		case text := <-w.cli.release:
			return func(h bridge.Host) {
				w.stored = "stored-" + w.cfg.SessionID
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

// The effort option: offered for a model with efforts, "default" among
// them; set, it reaches the Conversation; one the model does not take is
// refused; a model that does not take the session's goes back to its own.
func TestEffortOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cli := &waitCLI{release: make(chan string)}
		e := newEnv(t, bridge.Config{CLI: cli}, acp.ClientCapabilities{})
		e.stayAtEOF = true
		defer e.close()
		res, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work"})
		must(t, err)
		sid := res.SessionID
		options := func(opts []acp.SessionConfigOption) string { return optionsOf(opts) }
		if got, want := options(res.ConfigOptions), "mode(mode)=default{default} model(model)=default{default,deep,plain} effort(thought_level)=default{default,low,high}"; got != want {
			t.Errorf("session/new's options are %s, want %s", got, want)
		}
		set := func(key, value string) (string, error) {
			r, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: key, Value: value})
			return options(r.ConfigOptions), err
		}
		steps := []struct {
			key, value, want string
			refused          bool
		}{
			{key: "effort", value: "high", want: "mode(mode)=default{default} model(model)=default{default,deep,plain} effort(thought_level)=high{default,low,high}"},
			{key: "effort", value: "max", refused: true},
			{key: "model", value: "deep", want: "mode(mode)=default{default} model(model)=deep{default,deep,plain} effort(thought_level)=high{default,high,max}"},
			{key: "effort", value: "max", want: "mode(mode)=default{default} model(model)=deep{default,deep,plain} effort(thought_level)=max{default,high,max}"},
			{key: "model", value: "default", want: "mode(mode)=default{default} model(model)=default{default,deep,plain} effort(thought_level)=default{default,low,high}"},
			{key: "model", value: "plain", want: "mode(mode)=default{default} model(model)=plain{default,deep,plain}"},
		}
		for _, st := range steps {
			got, err := set(st.key, st.value)
			if st.refused {
				if !asErrorCode(err, acp.CodeInvalidParams) {
					t.Errorf("setting %s to %s: %v, want invalid params", st.key, st.value, err)
				}
				continue
			}
			if err != nil || got != st.want {
				t.Errorf("setting %s to %s: %s, %v; want %s", st.key, st.value, got, err, st.want)
			}
		}
		if diff := cmp.Diff([]string{"high", "max"}, cli.conv(0).effortsSet()); diff != "" {
			t.Errorf("the efforts the Conversation was given (-want +got):\n%s", diff)
		}
	})
}

// session/fork, for a CLI that forks: advertised, it opens a session that
// starts as a copy of the open session's conversation, by the id the CLI
// keeps it under; one without a conversation yet is refused.
func TestForkAnyCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cli := &waitCLI{release: make(chan string)}
		n := 0
		ids := func() string { n++; return fmt.Sprintf("11111111-2222-4333-8444-%012d", n) }
		e := newAgentEnv(t, bridge.Config{CLI: cli, NewSessionID: ids})
		e.stayAtEOF = true
		defer e.close()
		c := e.dial(1)
		init, err := acp.Initialize.Call(bg, c, acp.InitializeParams{ProtocolVersion: 1})
		must(t, err)
		if !init.AgentCapabilities.SupportsSessionFork() {
			t.Error("session/fork is not advertised")
		}
		s, err := acp.SessionNew.Call(bg, c, acp.NewSessionParams{Cwd: "/work"})
		must(t, err)
		synctest.Wait()
		if _, err := acp.SessionFork.Call(bg, c, acp.ForkSessionParams{SessionID: s.SessionID, Cwd: "/work"}); !asErrorCode(err, acp.CodeInvalidParams) {
			t.Errorf("forking a session with no conversation yet: %v, want invalid params", err)
		}
		ch := make(chan error, 1)
		go func() {
			_, err := acp.SessionPrompt.Call(bg, c, acp.PromptParams{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextContent{Text: "hi"}}})
			ch <- err
		}()
		synctest.Wait()
		cli.release <- "Hello."
		must(t, <-ch)
		f, err := acp.SessionFork.Call(bg, c, acp.ForkSessionParams{SessionID: s.SessionID, Cwd: "/work"})
		must(t, err)
		synctest.Wait()
		if f.SessionID == s.SessionID || f.SessionID == "" || len(f.ConfigOptions) == 0 {
			t.Errorf("session/fork answered %+v", f)
		}
		if got := cli.conv(1).cfg.ForkOf; got != "stored-"+s.SessionID {
			t.Errorf("the fork's Conversation forks %q, want the conversation the CLI keeps", got)
		}
		if got := len(e.started); got != 2 {
			t.Errorf("%d processes were started, want one per session", got)
		}
		// The same over ACP v2.
		c2 := e.dial(2)
		init2, err := acpv2.Initialize.Call(bg, c2, acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
		must(t, err)
		if init2.Capabilities.Session.Fork == nil {
			t.Error("session/fork is not advertised in v2")
		}
		f2, err := acpv2.SessionFork.Call(bg, c2, acpv2.ForkSessionParams{SessionID: s.SessionID, Cwd: "/work"})
		must(t, err)
		synctest.Wait()
		if got := cli.conv(2).cfg.ForkOf; f2.SessionID == "" || got != "stored-"+s.SessionID {
			t.Errorf("v2's session/fork answered %+v, forking %q", f2, got)
		}
	})
}

// optionsOf sums up config options: each one's id, category, value and
// the values it offers.
func optionsOf(opts []acp.SessionConfigOption) string {
	var out []string
	for _, o := range opts {
		var values []string
		for _, v := range o.Options.Options {
			values = append(values, v.Value)
		}
		out = append(out, fmt.Sprintf("%s(%s)=%s{%s}", o.ID, o.Category, o.CurrentValue, strings.Join(values, ",")))
	}
	return strings.Join(out, " ")
}
