package bridge

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/usage"
)

// Codex is the OpenAI Codex CLI, one `codex exec --json` process per
// turn. It never asks for permission: the mode is its sandbox policy,
// which decides what the agent's commands may do.
var Codex CLI = codexCLI{}

type codexCLI struct{}

var codexInfo = CLIInfo{
	Name:    "Codex",
	Program: "codex",
	Tested:  codex.TestedVersion,
	Modes: []acp.SessionMode{
		{ID: string(codex.SandboxReadOnly), Name: "Read Only", Description: "Commands may read files but not change them"},
		{ID: string(codex.SandboxWorkspaceWrite), Name: "Workspace Write", Description: "Commands may change files in the workspace"},
		{ID: string(codex.SandboxDangerFullAccess), Name: "Full Access", Description: "Commands run without a sandbox"},
	},
	Bypass:  string(codex.SandboxDangerFullAccess),
	Models:  []Model{{ID: "default", Name: "Default"}},
	PerTurn: true,
	// `codex exec` takes a prompt of text alone, on stdin, and no MCP
	// server of the editor's.
	Accepts: Accepts{EmbeddedContext: true},
}

func (codexCLI) Info() CLIInfo { return codexInfo }

func (codexCLI) NewConversation(c ConversationConfig) (Conversation, error) {
	return &codexConversation{cfg: c, threadID: c.ResumeID, notices: notices(c.Notices)}, nil
}

// codexConversation is a Codex thread, one process per turn. It keeps
// the thread's usage totals from turn to turn: Codex reports them
// cumulatively.
type codexConversation struct {
	oneShot
	cfg      ConversationConfig
	notices  notices
	threadID string // the thread the next turn resumes; "" for a new one

	// Of the turn under way.
	turn    *codex.Turn
	resumed string
	res     acp.PromptResult
	scratch []codex.Event
	updates []acp.Update

	prev    usage.CodexUsage // the thread's totals after the last turn
	hasPrev bool
	acc     usage.Accumulator
}

func (c *codexConversation) CommandLine(mode, model string) []string {
	o := codex.Options{Resume: c.threadID, Model: modelArg(model), Sandbox: codex.Sandbox(mode), AddDirs: c.cfg.AdditionalDirectories, SkipGitRepoCheck: true}
	args, stdin := codex.CommandLine(o, c.text)
	c.stdin = stdin
	c.turn, c.resumed, c.res = codex.NewTurn(c.threadID), c.threadID, acp.PromptResult{}
	return slices.Insert(args, 1, c.cfg.ExtraArgs...) // after "exec", before its operands
}

func (c *codexConversation) Line(h Host, line []byte) {
	events, err := c.turn.Feed(line, c.scratch[:0])
	c.scratch = events
	if err != nil {
		c.cfg.Logger.Warn("Codex output skipped", "error", err)
		return
	}
	for _, ev := range events {
		c.updates = c.translate(c.updates[:0], ev)
		h.Notify(c.updates...)
	}
}

// translate appends the updates of one event to dst.
func (c *codexConversation) translate(dst []acp.Update, ev codex.Event) []acp.Update {
	switch ev := ev.(type) {
	case codex.Text:
		dst = append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
	case codex.Reasoning:
		dst = append(dst, acp.AgentThoughtChunk{Content: acp.TextContent{Text: ev.Text}})
	case codex.CommandExecution:
		it := item{id: ev.ItemID, phase: ev.Phase, status: ev.Status, kind: toolKind(ev.Kind), title: firstLine(ev.Command), out: ev.Output}
		it.input, _ = json.Marshal(map[string]string{"command": ev.Command})
		if ev.HasExitCode {
			it.raw, _ = json.Marshal(map[string]any{"output": ev.Output, "exitCode": ev.ExitCode})
		} else if ev.Output != "" {
			it.raw = rawText(ev.Output)
		}
		dst = append(dst, it.update())
	case codex.FileChange:
		var paths []string
		it := item{id: ev.ItemID, phase: ev.Phase, status: ev.Status, kind: toolKind(ev.Kind), out: ev.Stdout + ev.Stderr}
		for _, ch := range ev.Changes {
			paths = append(paths, ch.Path)
			it.locs = append(it.locs, acp.ToolCallLocation{Path: cmp.Or(ch.MovePath, ch.Path)})
			it.diffs = append(it.diffs, changeDiffs(ch)...)
		}
		it.title = titled("Edit", strings.Join(paths, ", "))
		if it.out != "" {
			it.raw, _ = json.Marshal(patchOutput{ev.Stdout, ev.Stderr})
		}
		dst = append(dst, it.update())
	case codex.WebSearch:
		status := codex.StatusCompleted
		if ev.Phase != codex.PhaseCompleted {
			status = codex.StatusInProgress
		}
		dst = append(dst, item{id: ev.ItemID, phase: ev.Phase, status: status, kind: toolKind(ev.Kind), title: searchTitle(ev.Query)}.update())
	case codex.MCPToolCall:
		it := item{id: ev.ItemID, phase: ev.Phase, status: ev.Status, kind: toolKind(ev.Kind), title: ev.Server + ": " + ev.Tool, input: ev.Arguments}
		if len(ev.Result) > 0 {
			it.out, it.raw = string(ev.Result), ev.Result
		} else if ev.Error != "" {
			it.out, it.raw = ev.Error, rawText(ev.Error)
		}
		dst = append(dst, it.update())
	case codex.TodoList:
		p := acp.Plan{Entries: []acp.PlanEntry{}}
		for _, it := range ev.Items {
			status := acp.PlanStatusPending
			if it.Completed {
				status = acp.PlanStatusCompleted
			}
			p.Entries = append(p.Entries, acp.PlanEntry{Content: it.Text, Priority: acp.PlanPriorityMedium, Status: status})
		}
		dst = append(dst, p)
	case codex.Notice:
		dst = c.notices.add(dst, acp.NoticeInfo, ev.Message)
	case codex.Retry:
		dst = c.notices.add(dst, acp.NoticeInfo, ev.Message)
	case codex.APIError:
		dst = c.notices.add(dst, acp.NoticeError, ev.Message)
	case codex.TurnCompleted:
		c.res.Usage = c.usage(ev.Usage, c.resumed)
	}
	return dst
}

func (c *codexConversation) Exited(h Host, exit error) {
	t := c.turn
	c.turn = nil
	if !c.inTurn || t == nil {
		return
	}
	c.inTurn = false
	t.Finish(exitCode(exit), nil)
	err := t.Err()
	var re *codex.RunError
	msg, status := "", 0
	if errors.As(err, &re) {
		msg, status = re.Message, re.Status
	}
	res := c.res
	// Codex writes its machine's local time: read it in the session's zone.
	now := c.cfg.Now().In(cmp.Or(c.cfg.Location, time.UTC))
	res.StopReason, err = codexOutcome.of(err, msg, status, c.resumed, now, c.cfg.Zones)
	if id := t.ThreadID(); id != "" {
		c.threadID = id
	}
	h.EndTurn(res, err)
}

// codexOutcome reads how a Codex run ended.
var codexOutcome = runOutcome{
	cli:            "Codex",
	resumeNotFound: codex.ErrResumeNotFound,
	noResult:       codex.ErrNoResult,
	api:            codex.ErrAPI,
	noResetTime:    codex.ErrNoResetTime,
	parseReset:     codex.ParseResetTime,
}

func (c *codexConversation) Usage() usage.Snapshot { return c.acc.Snapshot() }

// usage turns the thread's totals into this turn's usage: their
// difference from the last turn's, or the totals themselves on a new
// thread's first turn. A resumed thread's first turn in this process has
// no baseline, and so no usage.
func (c *codexConversation) usage(raw json.RawMessage, resumeID string) *acp.Usage {
	cu, err := usage.ParseCodexUsage(raw)
	if err != nil {
		return nil
	}
	var rep usage.Report
	switch {
	case c.hasPrev:
		rep = cu.Since(c.prev).Report()
	case resumeID == "":
		rep = cu.Report()
	}
	c.prev, c.hasPrev = cu, true
	c.acc.Add(rep)
	return reportUsage(rep)
}

// patchOutput is what applying a patch printed, as a file change's
// rawOutput.
type patchOutput struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// changeDiffs is what a change of a Codex file change does to its file,
// as far as the change tells it (a stored one does, the live stream's
// does not): an added or deleted file's text, or a diff of each hunk of
// an update (its diff as text when its hunks do not read).
func changeDiffs(c codex.Change) []acp.ToolCallContent {
	switch {
	case c.Diff == "":
		return nil
	case c.Kind == codex.ChangeAdd:
		return []acp.ToolCallContent{acp.ToolCallDiff{Path: c.Path, NewText: c.Diff}}
	case c.Kind == codex.ChangeDelete:
		return []acp.ToolCallContent{acp.ToolCallDiff{Path: c.Path, OldText: &c.Diff}}
	case c.Kind == codex.ChangeUpdate && c.Hunks == nil:
		return []acp.ToolCallContent{textContent(c.Diff)}
	}
	var out []acp.ToolCallContent
	for _, h := range c.Hunks {
		out = append(out, hunkDiff(cmp.Or(c.MovePath, c.Path), h.Lines))
	}
	return out
}

// item is what a Codex item shows of itself as a tool call.
type item struct {
	id     string
	phase  codex.Phase
	status codex.Status
	kind   acp.ToolKind
	title  string
	input  json.RawMessage
	locs   []acp.ToolCallLocation
	diffs  []acp.ToolCallContent // the changes to files, before the output
	out    string                // the output as text; "" for none
	raw    json.RawMessage       // the output as JSON (rawOutput); nil for none
}

// update announces the tool call at the item's first line and updates it
// at the others.
func (it item) update() acp.Update {
	st := acp.ToolCallStatusInProgress
	switch it.status {
	case codex.StatusCompleted:
		st = acp.ToolCallStatusCompleted
	case codex.StatusFailed, codex.StatusDeclined:
		st = acp.ToolCallStatusFailed
	}
	out := it.diffs
	if it.out != "" {
		out = append(out[:len(out):len(out)], textContent(it.out))
	}
	if it.phase == codex.PhaseStarted {
		return acp.ToolCall{ToolCallID: it.id, Title: it.title, Kind: it.kind, Status: st, RawInput: it.input, Locations: it.locs, Content: out, RawOutput: it.raw}
	}
	return acp.ToolCallUpdate{ToolCallID: it.id, Title: it.title, Kind: it.kind, Status: st, RawInput: it.input, Locations: it.locs, Content: out, RawOutput: it.raw}
}
