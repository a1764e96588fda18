package bridge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/usage"
	"github.com/tidwall/gjson"
)

// This file renders what Codex does as ACP updates: the items of a live
// turn, which stream, and those of a stored thread, which session/load
// replays; the tool calls its approvals are about; its token counts and
// rate limits.

// codexRender turns Codex's events into ACP updates. A live turn's text,
// reasoning and command output come in pieces before their item is
// complete: it keeps what has streamed of the turn (reset at each turn),
// so that the complete item does not repeat it.
type codexRender struct {
	notices  notices
	streamed map[string]bool           // messages and reasoning whose pieces were shown
	parts    map[string]int            // the reasoning part each streamed item is at
	outputs  map[string]string         // the output of the running commands so far
	changes  map[string][]codex.Change // the file changes announced, for their approvals
}

// reset forgets what the last turn streamed.
func (r *codexRender) reset() {
	r.streamed, r.parts, r.outputs, r.changes = nil, nil, nil, nil
}

// render appends the updates of one event to dst.
func (r *codexRender) render(dst []acp.Update, ev codex.Event) []acp.Update {
	switch ev := ev.(type) {
	case codex.TextDelta:
		r.stream(ev.ItemID)
		return append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Delta}, MessageID: ev.ItemID})
	case codex.Text:
		if !r.streamed[ev.ItemID] || ev.ItemID == "" {
			dst = append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}, MessageID: ev.ItemID})
		}
	case codex.ReasoningDelta:
		text := ev.Delta
		if part, ok := r.parts[ev.ItemID]; ok && part != ev.Part {
			text = "\n\n" + text // a new part of the summary: a paragraph of its own
		}
		r.stream(ev.ItemID)
		r.parts[ev.ItemID] = ev.Part
		return append(dst, acp.AgentThoughtChunk{Content: acp.TextContent{Text: text}, MessageID: ev.ItemID})
	case codex.Reasoning:
		if (!r.streamed[ev.ItemID] || ev.ItemID == "") && ev.Text != "" {
			dst = append(dst, acp.AgentThoughtChunk{Content: acp.TextContent{Text: ev.Text}, MessageID: ev.ItemID})
		}
	case codex.CommandOutputDelta:
		if r.outputs == nil {
			r.outputs = map[string]string{}
		}
		r.outputs[ev.ItemID] += ev.Delta
		out := r.outputs[ev.ItemID]
		dst = append(dst, acp.ToolCallUpdate{ToolCallID: ev.ItemID, Status: acp.ToolCallStatusInProgress,
			Content: []acp.ToolCallContent{textContent(out)}})
	case codex.CommandExecution:
		dst = append(dst, r.command(ev).update())
	case codex.FileChange:
		if ev.Phase != codex.PhaseCompleted {
			if r.changes == nil {
				r.changes = map[string][]codex.Change{}
			}
			r.changes[ev.ItemID] = ev.Changes
		}
		dst = append(dst, fileChangeItem(ev).update())
	case codex.WebSearch:
		status := codex.StatusCompleted
		if ev.Phase != codex.PhaseCompleted {
			status = codex.StatusInProgress
		}
		dst = append(dst, codexItem{id: ev.ItemID, phase: ev.Phase, status: status, kind: toolKind(ev.Kind), title: searchTitle(ev.Query)}.update())
	case codex.MCPToolCall:
		it := codexItem{id: ev.ItemID, phase: ev.Phase, status: ev.Status, kind: toolKind(ev.Kind), title: ev.Server + ": " + ev.Tool, input: ev.Arguments}
		switch {
		case len(ev.Result) > 0:
			it.out, it.raw = mcpResultText(ev.Result), ev.Result
		case ev.Error != "":
			it.out, it.raw = ev.Error, rawText(ev.Error)
		}
		dst = append(dst, it.update())
	case codex.PlanUpdate:
		p := acp.Plan{Entries: []acp.PlanEntry{}}
		for _, st := range ev.Steps {
			status := acp.PlanStatusPending
			switch st.Status {
			case "inProgress", "in_progress":
				status = acp.PlanStatusInProgress
			case "completed":
				status = acp.PlanStatusCompleted
			}
			p.Entries = append(p.Entries, acp.PlanEntry{Content: st.Step, Priority: acp.PlanPriorityMedium, Status: status})
		}
		dst = append(dst, p)
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
		dst = r.notices.add(dst, acp.NoticeInfo, ev.Message)
	case codex.Retry:
		dst = r.notices.add(dst, acp.NoticeInfo, ev.Message)
	case codex.APIError:
		dst = r.notices.add(dst, acp.NoticeError, ev.Message)
	}
	return dst
}

// stream records that the item id has streamed.
func (r *codexRender) stream(id string) {
	if r.streamed == nil {
		r.streamed, r.parts = map[string]bool{}, map[string]int{}
	}
	r.streamed[id] = true
}

// errorNotice is a failed request to the model as a notice: one the
// app-server retries, or the one that fails the turn, whose words the
// prompt's error repeats.
func (r *codexRender) errorNotice(dst []acp.Update, ev codex.ErrorNotification) []acp.Update {
	msg := ev.Error.Message
	if d := ev.Error.Details; d != "" && d != msg {
		msg += ": " + d
	}
	sev := acp.NoticeError
	if ev.WillRetry {
		sev = acp.NoticeInfo
	}
	return r.notices.add(dst, sev, msg)
}

// command is a command's item: its output is what has streamed of it, or
// what the complete item holds.
func (r *codexRender) command(ev codex.CommandExecution) codexItem {
	it := codexItem{id: ev.ItemID, phase: ev.Phase, status: ev.Status, kind: toolKind(ev.Kind), title: commandTitle(ev.Command, ev.Actions), out: ev.Output}
	if it.out == "" && ev.Phase != codex.PhaseCompleted {
		it.out = r.outputs[ev.ItemID]
	}
	if ev.Phase == codex.PhaseCompleted {
		delete(r.outputs, ev.ItemID)
	}
	it.input = commandInput(ev.Command, ev.CWD, "")
	for _, a := range ev.Actions {
		if a.Type == "read" && a.Path != "" {
			it.locs = append(it.locs, acp.ToolCallLocation{Path: a.Path})
		}
	}
	if ev.HasExitCode {
		it.raw, _ = json.Marshal(map[string]any{"output": ev.Output, "exitCode": ev.ExitCode})
	} else if ev.Output != "" {
		it.raw = rawText(ev.Output)
	}
	return it
}

// commandTitle names a command by what it runs: the action the CLI read
// it as, when it is one, else the command line, the shell wrapper
// included.
func commandTitle(command string, actions []codex.CommandAction) string {
	if len(actions) == 1 && actions[0].Command != "" {
		return firstLine(actions[0].Command)
	}
	return firstLine(command)
}

// commandInput is a command as a tool call's rawInput.
func commandInput(command, cwd, reason string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Command string `json:"command"`
		CWD     string `json:"cwd,omitempty"`
		Reason  string `json:"reason,omitempty"`
	}{command, cwd, reason})
	return b
}

// commandApproval is the tool call a command's approval is about: the
// command, where it runs, and why the model asks, when it says.
func (r *codexRender) commandApproval(a codex.CommandApproval) acp.PermissionToolCall {
	tc := acp.PermissionToolCall{ToolCallID: a.ItemID, Title: commandTitle(a.Command, a.Actions), Kind: acp.ToolKindExecute,
		Status: acp.ToolCallStatusPending, RawInput: commandInput(a.Command, a.CWD, a.Reason)}
	var text []string
	if a.Reason != "" {
		text = append(text, a.Reason)
	}
	text = append(text, "$ "+a.Command)
	if a.CWD != "" {
		text = append(text, "in "+a.CWD)
	}
	tc.Content = []acp.ToolCallContent{textContent(strings.Join(text, "\n"))}
	return tc
}

// fileChangeApproval is the tool call a file change's approval is about:
// the change announced with the same item id, with its diffs.
func (r *codexRender) fileChangeApproval(a codex.FileChangeApproval) acp.PermissionToolCall {
	u := fileChangeItem(codex.FileChange{ItemID: a.ItemID, Phase: codex.PhaseUpdated, Kind: codex.ToolKindEdit, Changes: r.changes[a.ItemID]}).update().(acp.ToolCallUpdate)
	tc := acp.PermissionToolCall(u)
	tc.Status = acp.ToolCallStatusPending
	var why []string
	if a.Reason != "" {
		why = append(why, a.Reason)
	}
	if a.GrantRoot != "" {
		why = append(why, "It asks to write in "+a.GrantRoot+" for the rest of the session.")
	}
	if len(why) > 0 {
		tc.Content = append([]acp.ToolCallContent{textContent(strings.Join(why, "\n"))}, tc.Content...)
	}
	return tc
}

// mcpApproval is the tool call an MCP tool's approval is about, which
// the app-server announces only once it runs: the request names it.
func mcpApproval(e codex.Elicitation) acp.PermissionToolCall {
	title := e.ServerName + ": " + cmp.Or(e.ToolName, "tool")
	tc := acp.PermissionToolCall{ToolCallID: "mcp-approval-" + strings.Trim(e.ID, `"`), Title: title, Kind: acp.ToolKindOther,
		Status: acp.ToolCallStatusPending, RawInput: e.ToolParams}
	if e.Message != "" {
		tc.Content = []acp.ToolCallContent{textContent(e.Message)}
	}
	return tc
}

// mcpResultText is an MCP tool's result as text: the text of its content
// blocks, or the result's JSON when it has none.
func mcpResultText(result json.RawMessage) string {
	var texts []string
	for _, b := range gjson.GetBytes(result, "content").Array() {
		if b.Get("type").String() == "text" {
			texts = append(texts, b.Get("text").String())
		}
	}
	if len(texts) == 0 {
		return string(result)
	}
	return strings.Join(texts, "\n")
}

// fileChangeItem is a file change's item: each file's diffs, as far as
// the change tells them, and what applying it printed.
func fileChangeItem(ev codex.FileChange) codexItem {
	var paths []string
	it := codexItem{id: ev.ItemID, phase: ev.Phase, status: ev.Status, kind: toolKind(ev.Kind), out: ev.Stdout + ev.Stderr}
	for _, ch := range ev.Changes {
		paths = append(paths, ch.Path)
		it.locs = append(it.locs, acp.ToolCallLocation{Path: cmp.Or(ch.MovePath, ch.Path)})
		it.diffs = append(it.diffs, changeDiffs(ch)...)
	}
	it.title = titled("Edit", strings.Join(paths, ", "))
	if it.out != "" {
		it.raw, _ = json.Marshal(patchOutput{ev.Stdout, ev.Stderr})
	}
	return it
}

// patchOutput is what applying a patch printed, as a file change's
// rawOutput.
type patchOutput struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// changeDiffs is what a change of a Codex file change does to its file,
// as far as the change tells it (the app-server's and a stored one's do,
// `codex exec`'s does not): an added or deleted file's text, or a diff of
// each hunk of an update (its diff as text when its hunks do not read).
// The first carries the change whole, for an ACP v2 editor's structured
// file change (see changeMeta).
func changeDiffs(c codex.Change) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	switch {
	case c.Diff == "":
		return nil
	case c.Kind == codex.ChangeAdd:
		out = []acp.ToolCallContent{acp.ToolCallDiff{Path: c.Path, NewText: c.Diff}}
	case c.Kind == codex.ChangeDelete:
		out = []acp.ToolCallContent{acp.ToolCallDiff{Path: c.Path, OldText: &c.Diff}}
	case c.Kind == codex.ChangeUpdate && c.Hunks == nil:
		return []acp.ToolCallContent{textContent(c.Diff)}
	default:
		for _, h := range c.Hunks {
			out = append(out, hunkDiff(cmp.Or(c.MovePath, c.Path), h.Lines))
		}
	}
	if len(out) > 0 {
		d := out[0].(acp.ToolCallDiff)
		d.Meta = changeMeta(c)
		out[0] = d
	}
	return out
}

// codexItem is what a Codex item shows of itself as a tool call.
type codexItem struct {
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

// update announces the tool call at the item's start and updates it
// afterwards.
func (it codexItem) update() acp.Update {
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

// codexTokens keeps a thread's token counts, which Codex reports as
// running totals over the whole thread, earlier processes included, and
// makes each turn's own usage of them.
type codexTokens struct {
	total  codex.TokenCounts // the thread's totals, as last reported
	known  bool              // total is the thread's: a new thread's zero, or reported
	base   codex.TokenCounts // the totals when the turn under way began
	baseOK bool
	last   codex.TokenCounts // the turn's last request's own
	window int64             // the model's context window; 0 when unknown
	fresh  bool              // the turn under way reported its own
	acc    usage.Accumulator // the session's usage, summed over its turns
}

// turnStarts takes the totals so far as the new turn's baseline.
func (t *codexTokens) turnStarts() {
	t.base, t.baseOK, t.fresh = t.total, t.known, false
}

// update takes a report of the thread's totals: the turn's own, when it
// names turnID, or, before the turn's first, the totals a resumed or
// forked thread restores, which are its baseline.
func (t *codexTokens) update(ev codex.TokenUsage, turnID string) {
	t.total, t.known = ev.Total, true
	if turnID == "" || ev.TurnID != turnID {
		if !t.fresh {
			t.base, t.baseOK = ev.Total, true
		}
		return
	}
	t.last, t.window, t.fresh = ev.Last, ev.ContextWindow, true
}

// turn returns the usage of the turn just ended, and adds it to the
// session's; ok is false when it is unknown.
func (t *codexTokens) turn() (rep usage.Report, ok bool) {
	if !t.fresh || !t.baseOK {
		return usage.Report{}, false
	}
	d := t.total.Sub(t.base)
	rep = usage.Report{Input: tokenCount(d.Input), CacheRead: tokenCount(d.CachedInput), CacheWrite: tokenCount(d.CacheWriteInput), Output: tokenCount(d.Output)}
	if t.window > 0 {
		rep.ContextWindow = tokenCount(t.window)
	}
	t.acc.Add(rep)
	return rep, true
}

// context is how full the context window is after the turn's last
// request, as a usage_update; ok is false when the turn did not say.
func (t *codexTokens) context() (u acp.UsageUpdate, ok bool) {
	if !t.fresh || t.window <= 0 {
		return acp.UsageUpdate{}, false
	}
	return acp.UsageUpdate{Used: uint64(max(t.last.Total, 0)), Size: uint64(t.window)}, true
}

func tokenCount(n int64) usage.Count { return usage.CountOf(uint64(max(n, 0))) }

// codexLimitWarning is the share of a rate-limit window, in percent, from
// which the person is warned.
const codexLimitWarning = 90

// codexLimits keeps the account's rate-limit windows, and which of them
// the person was told of.
type codexLimits struct {
	last  codex.RateLimits
	shown [2]int // per window: 0, or 1 when warned, 2 when told it was reached
}

// update takes the state of the rate limits, and appends a notice for a
// window that has become nearly used up, or used up, since the person was
// last told: a notice, or, during a turn, agent text for a client that
// takes none.
func (l *codexLimits) update(dst []acp.Update, ev codex.RateLimits, n notices, inTurn bool, loc *time.Location) []acp.Update {
	l.last = ev
	for i, w := range []*codex.RateLimitWindow{ev.Primary, ev.Secondary} {
		level := 0
		switch {
		case w == nil:
		case w.UsedPercent >= 100:
			level = 2
		case w.UsedPercent >= codexLimitWarning:
			level = 1
		}
		shown := l.shown[i]
		l.shown[i] = level
		if level == 0 || level <= shown {
			continue
		}
		title := limitWindowText(w, cmp.Or(loc, time.UTC))
		switch {
		case bool(n):
			sev := acp.NoticeWarning
			if level == 2 {
				sev = acp.NoticeError
			}
			dst = append(dst, acp.Notice{Severity: sev, Title: title})
		case inTurn:
			dst = append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: "\n\n" + title + "\n\n"}})
		}
	}
	return dst
}

// resetsAt is when the rate limit that is reached resets, in Unix epoch
// milliseconds: the latest reset of the windows used up; 0 when none is
// or it is unknown.
func (l *codexLimits) resetsAt() int64 {
	var at int64
	for _, w := range []*codex.RateLimitWindow{l.last.Primary, l.last.Secondary} {
		if w != nil && w.UsedPercent >= 100 {
			at = max(at, w.ResetsAt)
		}
	}
	return at
}

// limitWindowText says where a rate-limit window stands, in a person's
// terms.
func limitWindowText(w *codex.RateLimitWindow, loc *time.Location) string {
	return limitSentence("Codex", windowLength(w.WindowMinutes), w.UsedPercent >= 100, float64(w.UsedPercent), w.ResetsAt, loc)
}

// windowLength names a rate-limit window by its length.
func windowLength(minutes int64) string {
	switch {
	case minutes == 7*24*60:
		return "weekly limit"
	case minutes > 0 && minutes%(24*60) == 0:
		return fmt.Sprintf("%d-day limit", minutes/(24*60))
	case minutes > 0 && minutes%60 == 0:
		return fmt.Sprintf("%d-hour limit", minutes/60)
	case minutes > 0:
		return fmt.Sprintf("%d-minute limit", minutes)
	}
	return "usage limit"
}

// changeMeta is a Codex change as the _meta of its first v1 diff, whole
// (see fileChangeKey): its operation and its git patch.
func changeMeta(c codex.Change) json.RawMessage {
	f := fileChange{Operation: acpv2.DiffModify, Path: c.Path}
	switch {
	case c.Kind == codex.ChangeAdd:
		f.Operation, f.Patch = acpv2.DiffAdd, newFilePatch(c.Path, c.Diff)
	case c.Kind == codex.ChangeDelete:
		f.Operation, f.Patch = acpv2.DiffDelete, deletedFilePatch(c.Path, c.Diff)
	case c.MovePath != "":
		f.Operation, f.Path, f.OldPath = acpv2.DiffMove, c.MovePath, c.Path
		f.Patch = fmt.Sprintf("diff --git %s %s\nrename from %s\nrename to %s\n--- %s\n+++ %s\n%s", c.Path, c.MovePath, c.Path, c.MovePath, c.Path, c.MovePath, hunksText(c))
	default:
		f.Patch = fmt.Sprintf("diff --git %s %s\n--- %s\n+++ %s\n%s", c.Path, c.Path, c.Path, c.Path, hunksText(c))
	}
	return f.meta()
}

// hunksText is an update's hunks as a unified diff's, each with its
// header.
func hunksText(c codex.Change) string {
	var b strings.Builder
	for _, h := range c.Hunks {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.OldStart, h.OldLines), hunkRange(h.NewStart, h.NewLines))
		for _, l := range h.Lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// hunkRange is a side of a hunk's header: "start[,count]".
func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
