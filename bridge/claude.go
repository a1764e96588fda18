package bridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/usage"
)

// Claude is the Claude Code CLI, one long-lived process per session in
// streaming-input mode, whose permission questions go to the editor.
// session/cancel interrupts the turn and keeps the process.
var Claude CLI = claudeCLI{}

type claudeCLI struct{}

var claudeInfo = CLIInfo{
	Name:    "Claude Code",
	Program: "claude",
	Tested:  claude.TestedVersion,
	Modes: []acp.SessionMode{
		{ID: "default", Name: "Default", Description: "Ask before each tool that needs permission"},
		{ID: "acceptEdits", Name: "Accept Edits", Description: "Edit files without asking"},
		{ID: "plan", Name: "Plan Mode", Description: "Plan without changing anything"},
		{ID: "dontAsk", Name: "Don't Ask", Description: "Refuse every tool that would need permission"},
		{ID: "bypassPermissions", Name: "Bypass Permissions", Description: "Run every tool without asking"},
	},
	Bypass: "bypassPermissions",
	Models: []Model{
		{ID: "default", Name: "Default"},
		{ID: "opus", Name: "Opus"},
		{ID: "sonnet", Name: "Sonnet"},
		{ID: "haiku", Name: "Haiku"},
	},
	Accepts: Accepts{Image: true, EmbeddedContext: true, MCPStdio: true, MCPHTTP: true, MCPSSE: true},
	Forks:   true,
	SignIn:  []string{"auth", "login"},
	SignOut: []string{"auth", "logout"},
}

func (claudeCLI) Info() CLIInfo { return claudeInfo }

func (claudeCLI) NewConversation(c ConversationConfig) (Conversation, error) {
	mcp, err := mcpConfig(c.MCPServers)
	if err != nil {
		return nil, err
	}
	resume, fork := c.ResumeID, false
	if c.ForkOf != "" {
		resume, fork = c.ForkOf, true
	}
	return &claudeConversation{
		cfg: c, mcp: mcp, resumeID: resume, fork: fork, effort: effortDefault, terminal: terminalCommands,
		tr:   &ClaudeTranslator{Notices: c.Notices, Location: c.Location, Zones: c.Zones},
		view: newSubagentView(c.SessionID),
	}, nil
}

// claudeConversation is a session of Claude Code, served by one process
// at a time.
type claudeConversation struct {
	cfg      ConversationConfig
	mcp      string // the --mcp-config JSON; "" for none
	tr       *ClaudeTranslator
	view     *subagentView // its subagents, for an editor that takes child sessions
	resumeID string        // the conversation the next process resumes; "" for a new one
	fork     bool          // the next process makes resumeID's conversation a copy, the session's own

	// Of the process that runs.
	sess    *claude.Session // nil when none runs
	resumed string          // the id it was started to resume
	lost    bool            // the conversation it resumed does not exist

	commands []acp.AvailableCommand // the CLI's slash commands, as its initialize answer listed them
	terminal []string               // those that work only in the CLI's own terminal

	effort  string              // the effort option's value; "default" for the model's own
	efforts map[string][]string // the efforts each model takes, by model ID, as the CLI listed them
	fast    bool                // fast mode is on
	fasts   map[string]bool     // the models that take fast mode, by model ID

	inTurn    bool
	prompt    []claude.Block                      // the prompt for the process Start binds next
	asked     map[string]claude.PermissionRequest // questions put to the editor, by request id
	questions map[string][]askQuestion            // those of AskUserQuestion, by request id
	scratch   []claude.Event
}

func (c *claudeConversation) CommandLine(mode, model string) []string {
	o := claude.Options{
		Resume:                 c.resumeID,
		ForkSession:            c.fork,
		PermissionMode:         mode,
		Model:                  modelArg(model),
		IncludePartialMessages: true,
		MCPConfig:              c.mcp,
		AddDirs:                c.cfg.AdditionalDirectories,
	}
	if o.PermissionMode == "default" {
		o.PermissionMode = ""
	}
	if c.effort != effortDefault && slices.Contains(c.efforts[model], c.effort) {
		o.Effort = c.effort
	}
	if c.resumeID == "" || c.fork {
		o.ExtraArgs = append(o.ExtraArgs, "--session-id="+c.cfg.SessionID)
	}
	o.ExtraArgs = append(o.ExtraArgs, c.cfg.ExtraArgs...)
	return claude.SessionCommandLine(o)
}

func (c *claudeConversation) Start(stdin io.WriteCloser) {
	c.sess = claude.NewSession(stdin, c.resumeID)
	c.resumed, c.lost = c.resumeID, false
	// The subagents' text and thinking too, which their Task calls show.
	if _, err := c.sess.Initialize(claude.InitializeOptions{ForwardSubagentText: true}); err != nil {
		c.cfg.Logger.Warn("initialize not written", "error", err)
	}
	if c.fast {
		// The command line has no fast mode: the process takes it as
		// the running one does.
		if _, err := c.sess.Call("apply_flag_settings", json.RawMessage(`{"settings":{"fastMode":true}}`)); err != nil {
			c.cfg.Logger.Warn("fast mode not written", "error", err)
		}
	}
	if c.prompt != nil {
		c.send(c.prompt)
		c.prompt = nil
	}
}

func (c *claudeConversation) Prompt(prompt []acp.ContentBlock) error {
	if name, ok := slashCommand(prompt); ok && slices.Contains(c.terminal, name) {
		return acp.InvalidParam("prompt", "/%s works only in Claude Code's own terminal: run `claude` in a terminal for it", name)
	}
	blocks, err := userBlocks(prompt)
	if err != nil {
		return err
	}
	c.inTurn = true
	if c.sess == nil {
		c.prompt = blocks
		return nil
	}
	c.send(blocks)
	return nil
}

// send writes a user message; a CLI that cannot take it has exited, and
// the Agent sees to the turn when it learns so.
func (c *claudeConversation) send(blocks []claude.Block) {
	if err := c.sess.Send(blocks...); err != nil {
		c.cfg.Logger.Warn("user message not written", "error", err)
	}
}

func (c *claudeConversation) Interrupt() bool {
	if c.sess == nil {
		return false
	}
	if _, err := c.sess.Interrupt(); err != nil {
		c.cfg.Logger.Warn("interrupt not written", "error", err)
		return false
	}
	return true
}

func (c *claudeConversation) Line(h Host, line []byte) {
	if bytes.Contains(line, []byte(`"terminal_slash_commands"`)) {
		if list, ok := claude.TerminalCommands(line); ok && !slices.Equal(list, c.terminal) {
			c.terminal = list
			if c.commands != nil {
				h.Commands(c.offered(), nil)
			}
		}
	}
	events, err := c.sess.Feed(line, c.scratch[:0])
	c.scratch = events
	if err != nil {
		c.cfg.Logger.Warn("Claude Code output skipped", "error", err)
		return
	}
	var updates []acp.Update
	for _, ev := range events {
		if r, ok := ev.(claude.Result); ok && !c.inTurn && r.ResumeNotFound() {
			// A CLI started before the first prompt could not resume the
			// conversation: it is let go, as endTurn lets go of one that
			// says so in a turn.
			c.lost = true
			h.Retire()
		}
		switch ev := ev.(type) {
		case claude.ControlResponse:
			if ev.Subtype == "initialize" && ev.Err == nil {
				c.initialized(h, ev.Payload)
			}
		case claude.PermissionRequest:
			c.question(h, ev)
		case claude.ControlCancel:
			c.forget(ev.ID)
			h.Withdraw(ev.ID)
		case claude.Request:
			if err := c.sess.Decline(ev); err != nil {
				c.cfg.Logger.Warn("CLI request not declined", "error", err)
			}
		case claude.TurnEnd:
			c.endTurn(h, nil)
		default:
			if c.inTurn {
				updates = c.tr.Translate(updates[:0], ev, c.cfg.Now())
				c.view.notify(h, c.tr, updates)
			}
		}
	}
}

// initialized learns the CLI's commands and models from its answer to
// initialize.
func (c *claudeConversation) initialized(h Host, payload json.RawMessage) {
	var init struct {
		Commands []struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			ArgumentHint string `json:"argumentHint"`
		} `json:"commands"`
		Models []struct {
			Value          string   `json:"value"`
			DisplayName    string   `json:"displayName"`
			Description    string   `json:"description"`
			SupportsEffort bool     `json:"supportsEffort"`
			Efforts        []string `json:"supportedEffortLevels"`
			SupportsFast   bool     `json:"supportsFastMode"`
		} `json:"models"`
	}
	if json.Unmarshal(payload, &init) != nil {
		return
	}
	var models []Model
	c.efforts, c.fasts = map[string][]string{}, map[string]bool{}
	for _, m := range init.Models {
		if m.Value != "" {
			c.fasts[m.Value] = m.SupportsFast
			models = append(models, Model{ID: m.Value, Name: cmp.Or(m.DisplayName, m.Value), Description: m.Description})
			if m.SupportsEffort {
				c.efforts[m.Value] = slices.DeleteFunc(m.Efforts, func(e string) bool { return e == "" || e == effortDefault })
			}
		}
	}
	cmds := []acp.AvailableCommand{}
	for _, cm := range init.Commands {
		ac := acp.AvailableCommand{Name: cm.Name, Description: cm.Description}
		if cm.ArgumentHint != "" {
			ac.Input = &acp.CommandInput{Hint: cm.ArgumentHint}
		}
		cmds = append(cmds, ac)
	}
	c.commands = cmds
	h.Commands(c.offered(), models)
}

// terminalCommands are the slash commands Claude Code 2.1.328 lists as
// working only in its own terminal, until a CLI says which.
var terminalCommands = []string{"doctor", "color", "focus", "reload-plugins"}

// offered returns the slash commands offered to the editor: the CLI's,
// without those that work only in its own terminal.
func (c *claudeConversation) offered() []acp.AvailableCommand {
	return slices.DeleteFunc(slices.Clone(c.commands), func(ac acp.AvailableCommand) bool { return slices.Contains(c.terminal, ac.Name) })
}

// slashCommand returns the name of the slash command a prompt runs: its
// one text block's "/name", before any argument.
func slashCommand(prompt []acp.ContentBlock) (string, bool) {
	if len(prompt) != 1 {
		return "", false
	}
	t, ok := prompt[0].(acp.TextContent)
	if !ok || !strings.HasPrefix(t.Text, "/") {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(t.Text), "/"), " ")
	return name, name != ""
}

// The permission options offered for each tool call.
const (
	optionAllow       = "allow"
	optionAllowAlways = "allow_always"
	optionReject      = "reject"
)

var permissionOptions = []acp.PermissionOption{
	{OptionID: optionAllow, Name: "Allow", Kind: acp.PermissionAllowOnce},
	{OptionID: optionAllowAlways, Name: "Always allow", Kind: acp.PermissionAllowAlways},
	{OptionID: optionReject, Name: "Reject", Kind: acp.PermissionRejectOnce},
}

// planOptions are offered when the model asks to leave plan mode
// (ExitPlanMode): each allow names the mode to go on in.
var planOptions = []acp.PermissionOption{
	{OptionID: "acceptEdits", Name: "Yes, and auto-accept edits", Kind: acp.PermissionAllowAlways},
	{OptionID: "default", Name: "Yes, and manually approve edits", Kind: acp.PermissionAllowOnce},
	{OptionID: optionReject, Name: "No, keep planning", Kind: acp.PermissionRejectOnce},
}

// question puts a permission request to the editor, announcing the tool
// call first when the CLI asks about one it has not shown yet.
func (c *claudeConversation) question(h Host, r claude.PermissionRequest) {
	if !c.inTurn {
		if err := c.sess.Deny(r, "No prompt is under way.", false); err != nil {
			c.cfg.Logger.Warn("permission answer not written", "error", err)
		}
		return
	}
	updates, tc := c.tr.PermissionToolCall(nil, r)
	c.view.notify(h, c.tr, updates)
	if r.ToolName == toolAskUserQuestion {
		c.ask(h, r, tc)
		return
	}
	options := permissionOptions
	if r.ToolName == toolExitPlanMode {
		options = planOptions
	}
	c.remember(r)
	h.Ask(Question{ID: r.ID, ToolCall: tc, Options: options})
}

// remember keeps a permission request put to the editor, until its
// answer.
func (c *claudeConversation) remember(r claude.PermissionRequest) {
	if c.asked == nil {
		c.asked, c.questions = map[string]claude.PermissionRequest{}, map[string][]askQuestion{}
	}
	c.asked[r.ID] = r
}

// forget lets go of a permission request answered or withdrawn.
func (c *claudeConversation) forget(id string) {
	delete(c.asked, id)
	delete(c.questions, id)
}

// take lets go of the permission request id, which the editor has
// answered, and returns it with its AskUserQuestion questions (nil for
// another tool); false when it is not pending.
func (c *claudeConversation) take(id string) (claude.PermissionRequest, []askQuestion, bool) {
	r, ok := c.asked[id]
	questions := c.questions[id]
	c.forget(id)
	return r, questions, ok
}

func (c *claudeConversation) Answer(h Host, q Question, outcome acp.PermissionOutcome, err error) {
	r, questions, ok := c.take(q.ID)
	if !ok {
		return
	}
	switch {
	case questions != nil && err == nil && outcome.Outcome == acp.PermissionSelected:
		err = c.answerAsk(r, questions, outcome.OptionID)
	case err != nil:
		c.cfg.Logger.Warn("permission request failed", "error", err)
		err = c.sess.Deny(r, "The editor could not ask for permission.", false)
	case outcome.Outcome == acp.PermissionCancelled:
		err = c.sess.Deny(r, "The user cancelled.", true)
	case r.ToolName == toolExitPlanMode && outcome.OptionID != optionReject:
		err = c.leavePlan(h, r, outcome.OptionID)
	case outcome.OptionID == optionAllow:
		err = c.sess.Allow(r, nil)
	case outcome.OptionID == optionAllowAlways:
		err = c.sess.Allow(r, nil, r.Suggestions...)
	default:
		err = c.sess.Deny(r, "The user refused permission to run this tool.", false)
	}
	if err != nil && !errors.Is(err, claude.ErrNotPending) {
		c.cfg.Logger.Warn("permission answer not written", "error", err)
	}
}

// leavePlan allows ExitPlanMode, switching the CLI to mode (one of
// planOptions' ids) with the answer. The editor hears of the new mode
// first, before the CLI can go on and write what follows.
func (c *claudeConversation) leavePlan(h Host, r claude.PermissionRequest, mode string) error {
	if mode != "acceptEdits" {
		mode = "default"
	}
	update, err := json.Marshal(map[string]string{"type": "setMode", "mode": mode, "destination": "session"})
	if err != nil {
		return err
	}
	h.ModeChanged(mode)
	return c.sess.Allow(r, nil, claude.PermissionUpdate{Raw: update})
}

// endTurn ends the turn under way with its response; exit is how the
// process ended, when it did.
func (c *claudeConversation) endTurn(h Host, exit error) {
	if !c.inTurn {
		return
	}
	c.inTurn, c.asked, c.questions = false, nil, nil
	res, err := c.tr.End(false, c.resumed, exit, c.cfg.Now())
	var e *acp.Error
	if errors.As(err, &e) && e.Code == acp.CodeResourceNotFound {
		// The CLI exits after a failed resume: the next prompt needs
		// another, which asks for the same conversation.
		c.lost = true
		h.Retire()
	}
	h.EndTurn(res, err)
}

func (c *claudeConversation) Exited(h Host, err error) {
	if c.sess != nil {
		// A failed resume's result names a conversation that was never
		// kept: the session stays bound to the one it asked for.
		if id := c.sess.SessionID(); id != "" && !c.lost {
			c.resumeID = id
		}
		// A fork is made once the CLI has named the copy; until then the
		// next process forks again.
		c.fork = c.fork && c.resumeID != c.cfg.SessionID
		c.sess = nil
	}
	c.prompt = nil
	c.endTurn(h, err)
}

func (c *claudeConversation) SetMode(mode string) func(context.Context) error {
	return c.control("set_permission_mode", map[string]any{"mode": mode})
}

func (c *claudeConversation) SetModel(model string) func(context.Context) error {
	var m *string // null: the CLI's default
	if arg := modelArg(model); arg != "" {
		m = &arg
	}
	return c.control("set_model", map[string]any{"model": m})
}

// control returns a function that sends a control request to the process
// that runs and waits for its answer; nil when none runs.
func (c *claudeConversation) control(subtype string, params map[string]any) func(context.Context) error {
	if c.sess == nil {
		return nil
	}
	sess := c.sess
	raw, err := json.Marshal(params)
	return func(ctx context.Context) error {
		if err != nil {
			return err
		}
		_, err := sess.Request(ctx, subtype, raw)
		var refused *claude.ControlError
		if errors.As(err, &refused) {
			return acp.Errorf(acp.CodeInvalidParams, "Claude Code refused: %s", refused.Message)
		}
		return err
	}
}

func (c *claudeConversation) Usage() usage.Snapshot { return c.tr.Usage() }

// userBlocks turns an ACP prompt into the content of a user message.
func userBlocks(prompt []acp.ContentBlock) ([]claude.Block, error) {
	var blocks []claude.Block
	for _, b := range prompt {
		switch b := b.(type) {
		case acp.TextContent:
			blocks = append(blocks, claude.TextBlock(b.Text))
		case acp.ImageContent:
			raw, err := json.Marshal(map[string]any{
				"type":   "image",
				"source": map[string]string{"type": "base64", "media_type": b.MimeType, "data": b.Data},
			})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, claude.RawBlock(raw))
		case acp.ResourceLink:
			blocks = append(blocks, claude.TextBlock(linkText(b.Name, b.URI)))
		case acp.EmbeddedResource:
			if b.Resource.Text == nil {
				return nil, acp.Errorf(acp.CodeInvalidParams, "binary resource %s is not supported", b.Resource.URI)
			}
			blocks = append(blocks, claude.TextBlock(contextText(b.Resource.URI, *b.Resource.Text)))
		default:
			return nil, acp.Errorf(acp.CodeInvalidParams, "prompt content of type %T is not supported", b)
		}
	}
	if len(blocks) == 0 {
		return nil, acp.Errorf(acp.CodeInvalidParams, "the prompt is empty")
	}
	return blocks, nil
}

// mcpConfig renders the client's MCP servers as the CLI's --mcp-config
// JSON; "" when there are none.
func mcpConfig(servers []acp.MCPServer) (string, error) {
	if len(servers) == 0 {
		return "", nil
	}
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	all := map[string]server{}
	for _, s := range servers {
		switch s := s.(type) {
		case acp.MCPServerStdio:
			env := pairs(s.Env, func(v acp.EnvVariable) (string, string) { return v.Name, v.Value })
			all[s.Name] = server{Type: "stdio", Command: s.Command, Args: s.Args, Env: env}
		case acp.MCPServerHTTP:
			all[s.Name] = server{Type: "http", URL: s.URL, Headers: pairs(s.Headers, httpHeader)}
		case acp.MCPServerSSE:
			all[s.Name] = server{Type: "sse", URL: s.URL, Headers: pairs(s.Headers, httpHeader)}
		default:
			return "", acp.Errorf(acp.CodeInvalidParams, "unsupported MCP server transport %T", s)
		}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": all})
	return string(b), err
}

// pairs returns the names and values of nv as a map; nil when there are
// none.
func pairs[T any](nv []T, pair func(T) (name, value string)) map[string]string {
	if len(nv) == 0 {
		return nil
	}
	m := make(map[string]string, len(nv))
	for _, v := range nv {
		name, value := pair(v)
		m[name] = value
	}
	return m
}

func httpHeader(h acp.HTTPHeader) (string, string) { return h.Name, h.Value }

// The fast mode option: faster output on the models that take it
// (supportsFastMode), on or off. The effort option (see effortOption) is
// one of the levels the session's model takes (Claude Code's --effort),
// or the model's own.
const (
	configFast = "fast"
	fastOn     = "on"
	fastOff    = "off"
)

func (c *claudeConversation) Options(model string) []acp.SessionConfigOption {
	var out []acp.SessionConfigOption
	if levels := c.efforts[model]; len(levels) > 0 {
		out = append(out, c.effortOption(levels))
	}
	if c.fasts[model] {
		current := fastOff
		if c.fast {
			current = fastOn
		}
		out = append(out, acp.SessionConfigOption{
			ID: configFast, Name: "Fast mode", Description: "Faster output, at a higher price, on the models that take it",
			Category: acp.ConfigCategoryModelConfig, Type: acp.ConfigOptionSelect, CurrentValue: current,
			Options: acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: fastOff, Name: "Off"}, {Value: fastOn, Name: "On"}}},
		})
	}
	return out
}

// effortOption is the effort option, of levels.
func (c *claudeConversation) effortOption(levels []string) acp.SessionConfigOption {
	return effortOption(claudeLevels(levels), c.effort, "")
}

// claudeLevels are Claude Code's effort levels as the effort option's.
func claudeLevels(levels []string) []effortLevel {
	out := make([]effortLevel, len(levels))
	for i, l := range levels {
		out[i] = effortLevel{id: l}
	}
	return out
}

func (c *claudeConversation) SetOption(id, value, model string) (func(context.Context) error, error) {
	if id == configFast {
		if !c.fasts[model] || value != fastOn && value != fastOff {
			return nil, acp.InvalidParam("value", "model %q takes no fast mode %q", model, value)
		}
		return c.control("apply_flag_settings", map[string]any{"settings": map[string]any{"fastMode": value == fastOn}}), nil
	}
	if id != configEffort {
		return nil, acp.InvalidParam("configId", "no config option %q", id)
	}
	if err := checkEffort(model, value, claudeLevels(c.efforts[model])); err != nil {
		return nil, err
	}
	var level any // null: the model's own
	if value != effortDefault {
		level = value
	}
	return c.control("apply_flag_settings", map[string]any{"settings": map[string]any{"effortLevel": level}}), nil
}

func (c *claudeConversation) OptionSet(id, value string) {
	switch id {
	case configEffort:
		c.effort = value
	case configFast:
		c.fast = value == fastOn
	}
}
