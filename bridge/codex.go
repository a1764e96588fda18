package bridge

import (
	"encoding/json"
	"errors"
	"io"
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
var Codex = &CLI{
	Name: "codex",
	modes: []acp.SessionMode{
		{ID: string(codex.SandboxReadOnly), Name: "Read Only", Description: "Commands may read files but not change them"},
		{ID: string(codex.SandboxWorkspaceWrite), Name: "Workspace Write", Description: "Commands may change files in the workspace"},
		{ID: string(codex.SandboxDangerFullAccess), Name: "Full Access", Description: "Commands run without a sandbox"},
	},
	bypass: 1,
	models: []modelChoice{{Value: "default", Name: "Default"}},
	open:   newTurnSession(codexCLI{}),
}

// codexCLI runs Codex once per turn.
type codexCLI struct{}

func (codexCLI) commandLine(resumeID, mode, model string, extra []string, prompt string) ([]string, []byte) {
	o := codex.Options{Resume: resumeID, Model: modelArg(model), Sandbox: codex.Sandbox(mode), SkipGitRepoCheck: true}
	args, stdin := codex.CommandLine(o, prompt)
	return slices.Insert(args, 1, extra...), stdin // after "exec", before its operands
}

func (codexCLI) translator(b *base) turnTranslator {
	return &codexTranslator{notices: notices(b.caps.AcceptsNotices()), loc: b.a.cfg.Location, now: b.a.cfg.Clock.Now, a: b.a}
}

// codexTranslator turns Codex's events into updates, keeping the thread's
// usage totals from turn to turn: Codex reports them cumulatively.
type codexTranslator struct {
	a       *Agent
	notices notices
	loc     *time.Location
	now     func() time.Time

	prev    usage.CodexUsage // the thread's totals after the last turn
	hasPrev bool
	acc     usage.Accumulator
}

func (c *codexTranslator) run(resumeID string, stdout io.Reader, wait func() int, emit func([]acp.Update)) (string, acp.PromptResult, error) {
	t := codex.NewTurn(resumeID)
	var (
		updates []acp.Update
		res     acp.PromptResult
		apiErr  *apiFailure
	)
	for ev, err := range t.Events(stdout) {
		if err != nil {
			c.a.log.Warn("Codex output skipped", "error", err)
			continue
		}
		updates = updates[:0]
		switch ev := ev.(type) {
		case codex.Text:
			updates = append(updates, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
		case codex.Reasoning:
			updates = append(updates, acp.AgentThoughtChunk{Content: acp.TextContent{Text: ev.Text}})
		case codex.CommandExecution:
			input, _ := json.Marshal(map[string]string{"command": ev.Command})
			var out []acp.ToolCallContent
			if ev.Output != "" {
				out = []acp.ToolCallContent{textContent(ev.Output)}
			}
			updates = append(updates, itemUpdate(ev.ItemID, ev.Phase, ev.Status, acp.ToolKind(ev.Kind), firstLine(ev.Command), input, nil, out))
		case codex.FileChange:
			var paths []string
			var locs []acp.ToolCallLocation
			for _, ch := range ev.Changes {
				paths = append(paths, ch.Path)
				locs = append(locs, acp.ToolCallLocation{Path: ch.Path})
			}
			updates = append(updates, itemUpdate(ev.ItemID, ev.Phase, ev.Status, acp.ToolKind(ev.Kind), titled("Edit", strings.Join(paths, ", ")), nil, locs, nil))
		case codex.WebSearch:
			status := codex.StatusCompleted
			if ev.Phase != codex.PhaseCompleted {
				status = codex.StatusInProgress
			}
			updates = append(updates, itemUpdate(ev.ItemID, ev.Phase, status, acp.ToolKind(ev.Kind), searchTitle(ev.Query), nil, nil, nil))
		case codex.MCPToolCall:
			var out []acp.ToolCallContent
			if len(ev.Result) > 0 {
				out = []acp.ToolCallContent{textContent(string(ev.Result))}
			} else if ev.Error != "" {
				out = []acp.ToolCallContent{textContent(ev.Error)}
			}
			updates = append(updates, itemUpdate(ev.ItemID, ev.Phase, ev.Status, acp.ToolKind(ev.Kind), ev.Server+": "+ev.Tool, ev.Arguments, nil, out))
		case codex.TodoList:
			p := acp.Plan{Entries: []acp.PlanEntry{}}
			for _, it := range ev.Items {
				status := acp.PlanStatusPending
				if it.Completed {
					status = acp.PlanStatusCompleted
				}
				p.Entries = append(p.Entries, acp.PlanEntry{Content: it.Text, Priority: acp.PlanPriorityMedium, Status: status})
			}
			updates = append(updates, p)
		case codex.Notice:
			updates = c.notices.add(updates, acp.NoticeInfo, ev.Message)
		case codex.Retry:
			updates = c.notices.add(updates, acp.NoticeInfo, ev.Message)
		case codex.APIError:
			apiErr = &apiFailure{status: ev.Status}
			updates = c.notices.add(updates, acp.NoticeError, ev.Message)
		case codex.TurnCompleted:
			res.Usage = c.usage(ev.Usage, resumeID)
		}
		if len(updates) > 0 {
			emit(updates)
		}
	}
	t.Finish(wait(), nil)
	err := t.Err()
	var re *codex.RunError
	msg := ""
	if errors.As(err, &re) {
		msg = re.Message
	}
	res.StopReason, err = codexOutcome.of(err, msg, apiErr, resumeID, func(text string) (int64, error) {
		return codex.ParseResetTime(text, c.now(), c.loc)
	})
	return t.ThreadID(), res, err
}

// codexOutcome reads how a Codex run ended.
var codexOutcome = runOutcome{
	cli:            "Codex",
	resumeNotFound: codex.ErrResumeNotFound,
	noResult:       codex.ErrNoResult,
	api:            codex.ErrAPI,
	noResetTime:    codex.ErrNoResetTime,
}

func (c *codexTranslator) usageSnapshot() usage.Snapshot { return c.acc.Snapshot() }

// usage turns the thread's totals into this turn's usage: their
// difference from the last turn's, or the totals themselves on a new
// thread's first turn. A resumed thread's first turn in this process has
// no baseline, and so no usage.
func (c *codexTranslator) usage(raw json.RawMessage, resumeID string) *acp.Usage {
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

// itemUpdate announces a tool call at its first line and updates it at
// the others.
func itemUpdate(id string, phase codex.Phase, status codex.Status, kind acp.ToolKind, title string, input json.RawMessage, locs []acp.ToolCallLocation, out []acp.ToolCallContent) acp.Update {
	st := acp.ToolCallStatusInProgress
	switch status {
	case codex.StatusCompleted:
		st = acp.ToolCallStatusCompleted
	case codex.StatusFailed, codex.StatusDeclined:
		st = acp.ToolCallStatusFailed
	}
	if phase == codex.PhaseStarted {
		return acp.ToolCall{ToolCallID: id, Title: title, Kind: kind, Status: st, RawInput: input, Locations: locs, Content: out}
	}
	return acp.ToolCallUpdate{ToolCallID: id, Title: title, Kind: kind, Status: st, RawInput: input, Locations: locs, Content: out}
}

// resumeNotFound is the error of a resume the CLI does not know.
func resumeNotFound(cli, id string) error {
	return acp.Errorf(acp.CodeResourceNotFound, "%s has no conversation %s to resume", cli, id).
		WithData(ErrorData{Kind: KindResumeNotFound, SessionID: id})
}

// notices reports that the client takes notices.
type notices bool

// add appends a notice with msg as its title, for a client that takes
// notices; others get nothing, since the CLI's words come back in the
// prompt's error when they matter.
func (n notices) add(dst []acp.Update, sev acp.NoticeSeverity, msg string) []acp.Update {
	if !n || msg == "" {
		return dst
	}
	return append(dst, acp.Notice{Severity: sev, Title: msg})
}
