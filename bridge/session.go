package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/acpkit/acpkit/acp"
)

// session is one ACP session, served by the Agent's CLI in the CLI's own
// way: one long-lived process (Claude Code) or one process per turn.
type session interface {
	// prompt runs one turn to its end.
	prompt(ctx context.Context, conn *acp.Conn, prompt []acp.ContentBlock) (acp.PromptResult, error)
	// cancel cancels the turn under way, if any.
	cancel()
	// close cancels the turn under way and stops the session's process.
	close()
	setMode(ctx context.Context, conn *acp.Conn, mode string) error
	setModel(ctx context.Context, conn *acp.Conn, model string) error
	common() *base
}

// base is what every session has, whatever serves it.
type base struct {
	a          *Agent
	caps       acp.ClientCapabilities // the client's, at the session's start
	id, cwd    string
	mcp        string        // the --mcp-config JSON; "" for none
	promptSlot chan struct{} // one prompt at a time

	mu       sync.Mutex
	resumeID string // the conversation the next process resumes; "" for a new one
	mode     string
	model    string
	closed   bool
}

func (b *base) common() *base { return b }

// acquire waits for the session's prompt slot.
func (b *base) acquire(ctx context.Context) (release func(), err error) {
	select {
	case b.promptSlot <- struct{}{}:
		return func() { <-b.promptSlot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// state returns the session's modes and config options.
func (b *base) state() (*acp.SessionModeState, []acp.SessionConfigOption) {
	b.mu.Lock()
	mode, model := b.mode, b.model
	b.mu.Unlock()
	modes := b.a.modes()
	modeValues := make([]modelChoice, len(modes))
	for i, m := range modes {
		modeValues[i] = modelChoice{Value: m.ID, Name: m.Name, Description: m.Description}
	}
	modeJSON, _ := json.Marshal(modeValues)
	modelJSON, _ := json.Marshal(b.a.modelChoices(model))
	return &acp.SessionModeState{CurrentModeID: mode, AvailableModes: modes}, []acp.SessionConfigOption{
		{ID: configMode, Name: "Mode", Category: "mode", Type: acp.ConfigOptionSelect, CurrentValue: mode, Options: modeJSON},
		{ID: configModel, Name: "Model", Category: "model", Type: acp.ConfigOptionSelect, CurrentValue: model, Options: modelJSON},
	}
}

// changeMode switches the session's mode: live applies it to a running
// process (nil when none runs), and the next process starts with it. The
// client hears of the change as a mode and as a config option.
func (b *base) changeMode(conn *acp.Conn, mode string, live func() error) error {
	valid := false
	for _, m := range b.a.modes() {
		valid = valid || m.ID == mode
	}
	if !valid {
		return acp.Errorf(acp.CodeInvalidParams, "no mode %q", mode)
	}
	if live != nil {
		if err := live(); err != nil {
			return err
		}
	}
	b.mu.Lock()
	b.mode = mode
	b.mu.Unlock()
	_, options := b.state()
	b.a.notify(conn, b.id, []acp.Update{acp.CurrentModeUpdate{CurrentModeID: mode}, acp.ConfigOptionUpdate{ConfigOptions: options}})
	return nil
}

// changeModel switches the session's model, as changeMode the mode.
func (b *base) changeModel(model string, live func() error) error {
	if model == "" || strings.HasPrefix(model, "-") {
		return acp.Errorf(acp.CodeInvalidParams, "invalid model %q", model)
	}
	if live != nil {
		if err := live(); err != nil {
			return err
		}
	}
	b.mu.Lock()
	b.model = model
	b.mu.Unlock()
	return nil
}

// modelArg is the model to pass to a CLI: "" for its default.
func modelArg(model string) string {
	if model == "default" {
		return ""
	}
	return model
}

// promptText joins a prompt into the text of a CLI that takes text only:
// text as it is, resources as their contents in a context tag, links as
// Markdown links.
func promptText(prompt []acp.ContentBlock) (string, error) {
	var b strings.Builder
	for _, c := range prompt {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch c := c.(type) {
		case acp.TextContent:
			b.WriteString(c.Text)
		case acp.ResourceLink:
			fmt.Fprintf(&b, "[@%s](%s)", c.Name, c.URI)
		case acp.EmbeddedResource:
			if c.Resource.Text == nil {
				return "", acp.Errorf(acp.CodeInvalidParams, "binary resource %s is not supported", c.Resource.URI)
			}
			fmt.Fprintf(&b, "<context ref=%q>\n%s\n</context>", c.Resource.URI, *c.Resource.Text)
		default:
			return "", acp.Errorf(acp.CodeInvalidParams, "prompt content of type %T is not supported", c)
		}
	}
	if b.Len() == 0 {
		return "", acp.Errorf(acp.CodeInvalidParams, "the prompt is empty")
	}
	return b.String(), nil
}
