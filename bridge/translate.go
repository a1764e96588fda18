package bridge

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/timeparse"
	"github.com/acpkit/acpkit/usage"
)

// ClaudeTranslator turns the events of one Claude Code session, turn after
// turn, into ACP session updates and prompt responses. It is pure: it
// keeps what a turn needs (which text was already streamed, the tool calls
// announced, the last API error) and the session's usage, and never writes
// anything itself. The zero ClaudeTranslator is ready to use, sending
// notices as agent text. It is not safe for concurrent use.
type ClaudeTranslator struct {
	// Notices reports that the client accepts notice updates (it declared
	// clientCapabilities.session.notices). Without it, rate-limit notices
	// are sent as agent text, and other notices are left out.
	Notices bool
	// Location is the time zone reset times are shown in; nil means UTC.
	Location *time.Location
	// Zones resolves the time zones named in the CLI's words, for reset
	// times a line gives only in words; nil resolves only "UTC".
	Zones timeparse.ZoneResolver

	// Per turn.
	streamedText     bool // a PartialText came since the last Text
	wroteText        bool // agent text was sent since the last paragraph break
	streamedThinking bool
	tools            map[string]*toolState // by tool use id
	partial          map[int]*partialTool  // streaming tool calls, by block index
	apiErr           *claude.APIError
	limitShown       bool // a rejected rate limit was shown
	result           *claude.Result
	runUsage         *acp.Usage   // the result's own tokens, for the response
	calls            int          // the main agent's model calls
	call             usage.Report // the latest one's usage
	callID           string       // its message id

	// Per session.
	acc  usage.Accumulator
	cost usage.Count // the CLI's latest total_cost_usd, picodollars
}

// toolState is what the ClaudeTranslator announced of a tool call.
type toolState struct {
	name  string
	input json.RawMessage // as last announced; nil before
	plan  bool            // TodoWrite: shown as a plan, not a tool call

	// A Task call's subagent: its text and thinking so far, a block
	// each, which the call's content shows.
	sub       []acp.ToolCallContent
	subKind   string // the last block's kind, "text" or "thought"; "" when a tool call came after it
	subStream bool   // the last block is still streaming
}

// partialTool is a tool call whose input is still streaming.
type partialTool struct {
	id, name, parent string
	input            []byte
}

// Translate appends to dst the updates that ev brings and returns the
// extended slice. now is the current time, for reset times the CLI gives
// only in words. Events with nothing to show (signs of life, control
// messages, the end of a turn) add nothing; see [ClaudeTranslator.End].
//
// Text and thinking are sent as they stream, and the complete block that
// repeats them is then skipped. A tool call is announced once its input
// is known, with a title and input already; a later, different input
// updates it. A subagent's text and thinking are shown inside its Task
// call's content, and its tool calls name that call in their _meta (see
// the package doc).
func (t *ClaudeTranslator) Translate(dst []acp.Update, ev claude.Event, now time.Time) []acp.Update {
	switch ev := ev.(type) {
	case claude.PartialText:
		if ev.ParentToolUseID != "" {
			return t.subagentText(dst, ev.ParentToolUseID, ev.Text, false, true)
		}
		t.streamedText, t.wroteText = true, true
		return append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
	case claude.Text:
		if ev.ParentToolUseID != "" {
			return t.subagentText(dst, ev.ParentToolUseID, ev.Text, false, false)
		}
		if t.skipStreamed(&t.streamedText) {
			return dst
		}
		t.wroteText = true
		return append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
	case claude.PartialThinking:
		if ev.ParentToolUseID != "" {
			return t.subagentText(dst, ev.ParentToolUseID, ev.Text, true, true)
		}
		t.streamedThinking = true
		return append(dst, acp.AgentThoughtChunk{Content: acp.TextContent{Text: ev.Text}})
	case claude.Thinking:
		if ev.ParentToolUseID != "" {
			return t.subagentText(dst, ev.ParentToolUseID, ev.Text, true, false)
		}
		if t.skipStreamed(&t.streamedThinking) {
			return dst
		}
		return append(dst, acp.AgentThoughtChunk{Content: acp.TextContent{Text: ev.Text}})
	case claude.PartialToolUse:
		if t.partial == nil {
			t.partial = map[int]*partialTool{}
		}
		t.partial[ev.Index] = &partialTool{id: ev.ID, name: ev.Name, parent: ev.ParentToolUseID}
	case claude.PartialToolInput:
		p := t.partial[ev.Index]
		if p == nil {
			return dst
		}
		p.input = append(p.input, ev.JSON...)
		if bytes.HasSuffix(bytes.TrimRight(p.input, " \t\r\n"), []byte("}")) && json.Valid(p.input) {
			delete(t.partial, ev.Index)
			return t.tool(dst, p.id, p.name, p.input, p.parent)
		}
	case claude.ToolUse:
		return t.tool(dst, ev.ID, ev.Name, ev.Input, ev.ParentToolUseID)
	case claude.MessageUsage:
		t.messageUsage(ev)
	case claude.ToolResult:
		return t.toolResult(dst, ev)
	case claude.RateLimit:
		return t.rateLimit(dst, ev)
	case claude.APIError:
		t.apiErr = &ev
		// A rejected rate limit is shown once, whether its rate_limit_event
		// or its error comes first; the prompt's error says it again. A
		// refused credential is the prompt's auth_required error alone:
		// the CLI's words send the person to its own /login.
		limit := ev.RateLimit != nil || ev.Kind == "rate_limit"
		if t.Notices && !(limit && t.limitShown) && !isAuthFailure(ev) {
			dst = append(dst, acp.Notice{Severity: acp.NoticeError, Title: apiErrorText(ev)})
			t.limitShown = t.limitShown || limit
		}
	case claude.Retry:
		if t.Notices {
			dst = append(dst, acp.Notice{Severity: acp.NoticeInfo, Title: retryText(ev)})
		}
	case claude.Result:
		t.result = &ev
		if ev.ResumeNotFound() {
			return dst // a run that never started has no usage to show
		}
		return t.usage(dst, ev)
	}
	return dst
}

// skipStreamed reports whether a complete block repeats text already
// streamed, and resets the mark for the next block.
func (t *ClaudeTranslator) skipStreamed(streamed *bool) bool {
	s := *streamed
	*streamed = false
	return s
}

// tool announces a tool call, or updates one announced with other input;
// parent is the Task call of the subagent that made it, "" for the main
// agent's.
func (t *ClaudeTranslator) tool(dst []acp.Update, id, name string, input json.RawMessage, parent string) []acp.Update {
	if t.tools == nil {
		t.tools = map[string]*toolState{}
	}
	if p := t.tools[parent]; parent != "" && p != nil {
		p.subKind, p.subStream = "", false // the subagent's next text is a block of its own
	}
	st := t.tools[id]
	if st != nil && sameJSON(st.input, input) {
		return dst
	}
	first := st == nil
	if first {
		st = &toolState{name: name}
		t.tools[id] = st
	}
	st.input = bytes.Clone(input)
	if name == toolTodoWrite {
		if p, ok := plan(input); ok {
			st.plan = true
			return append(dst, p)
		}
	}
	tc := toolCall(id, name, input)
	tc.Meta = parentMeta(parent)
	if first {
		return append(dst, tc)
	}
	return append(dst, acp.ToolCallUpdate{
		ToolCallID: id, Title: tc.Title, Kind: tc.Kind,
		Content: tc.Content, Locations: tc.Locations, RawInput: tc.RawInput, Meta: tc.Meta,
	})
}

// parentMeta is the _meta of a subagent's tool call, naming the Task
// call of the subagent as the TypeScript adapter names it
// (claudeCode.parentToolUseId); nil for the main agent's.
func parentMeta(parent string) json.RawMessage {
	if parent == "" {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"claudeCode": map[string]string{"parentToolUseId": parent}})
	return b
}

// thoughtMeta marks a block of a Task call's content as its subagent's
// thinking, where text blocks are its text.
var thoughtMeta = json.RawMessage(`{"claudeCode":{"thinking":true}}`)

// subagentText shows a subagent's text or thinking (thought) inside its
// Task call, parent: a block of the call's content each, in the order
// they came, between which the subagent's tool calls come as calls of
// their own; a streamed piece (partial) adds to the block it continues,
// and the complete block that repeats streamed pieces is skipped. The
// update carries the call's whole content, as ACP's tool_call_update
// replaces it.
func (t *ClaudeTranslator) subagentText(dst []acp.Update, parent, text string, thought, partial bool) []acp.Update {
	if t.tools == nil {
		t.tools = map[string]*toolState{}
	}
	st := t.tools[parent]
	if st == nil {
		st = &toolState{}
		t.tools[parent] = st
	}
	kind := "text"
	if thought {
		kind = "thought"
	}
	streaming := st.subStream && st.subKind == kind
	switch {
	case !partial && streaming: // the complete block of the pieces shown
		st.subStream = false
		return dst
	case partial && streaming:
		last := st.sub[len(st.sub)-1].(acp.ToolCallContentBlock)
		tc := last.Content.(acp.TextContent)
		tc.Text += text
		last.Content = tc
		st.sub[len(st.sub)-1] = last
	default:
		block := acp.TextContent{Text: text}
		if thought {
			block.Meta = thoughtMeta
		}
		st.sub = append(st.sub, acp.ToolCallContentBlock{Content: block})
		st.subKind, st.subStream = kind, partial
	}
	return append(dst, acp.ToolCallUpdate{ToolCallID: parent, Content: slices.Clone(st.sub)})
}

// subagentCall reports whether the tool call id starts a subagent: a
// Task or an Agent call, or a call whose subagent's words came first.
func (t *ClaudeTranslator) subagentCall(id string) bool {
	st := t.tools[id]
	return st != nil && (st.name == "Task" || st.name == "Agent" || st.name == "" && st.sub != nil)
}

// sameJSON reports whether a and b are the same JSON value, whatever their
// spacing and member order: a call's streamed input and the complete one
// are written differently.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// toolResult reports a tool call's outcome.
func (t *ClaudeTranslator) toolResult(dst []acp.Update, r claude.ToolResult) []acp.Update {
	if st := t.tools[r.ToolUseID]; st != nil && st.plan {
		return dst
	}
	u := acp.ToolCallUpdate{ToolCallID: r.ToolUseID, Status: acp.ToolCallStatusCompleted, Meta: parentMeta(r.ParentToolUseID)}
	if r.IsError {
		u.Status = acp.ToolCallStatusFailed
	}
	if r.Text != "" {
		u.Content, u.RawOutput = []acp.ToolCallContent{textContent(r.Text)}, rawText(r.Text)
	}
	if !r.IsError && r.FileChange != nil {
		u.Content = append(fileDiffs(r.FileChange), u.Content...)
	}
	if st := t.tools[r.ToolUseID]; st != nil && st.sub != nil {
		// A Task call's content keeps its subagent's words before its result.
		u.Content = append(slices.Clone(st.sub), u.Content...)
	}
	return append(dst, u)
}

// fileDiffs is what a change to a file did, as the result of the call
// that made it (a Write, an Edit) tells it, for the call's final content:
// the diff of the file's whole text, before and after, where the call's
// announcement could show only its input (a Write's new text, with no
// old one; an Edit's strings). Without the whole text, it is the diff of
// each hunk; nil without hunks either.
func fileDiffs(c *claude.FileChange) []acp.ToolCallContent {
	if text, ok := c.NewText(); ok {
		return []acp.ToolCallContent{acp.ToolCallDiff{Path: c.Path, OldText: c.Original, NewText: text}}
	}
	var out []acp.ToolCallContent
	for _, h := range c.Hunks {
		out = append(out, hunkDiff(c.Path, h.Lines))
	}
	return out
}

// hunkDiff is a hunk of a unified diff as a diff of the lines it shows:
// its kept and removed lines before, its kept and added lines after, each
// without a line end at the end; no old text when the hunk keeps or
// removes no line.
func hunkDiff(path string, lines []string) acp.ToolCallDiff {
	var before, after []string
	for _, l := range lines {
		if l == "" {
			continue
		}
		switch body := l[1:]; l[0] {
		case ' ':
			before, after = append(before, body), append(after, body)
		case '-':
			before = append(before, body)
		case '+':
			after = append(after, body)
		}
	}
	d := acp.ToolCallDiff{Path: path, NewText: strings.Join(after, "\n")}
	if before != nil {
		old := strings.Join(before, "\n")
		d.OldText = &old
	}
	return d
}

// PermissionToolCall returns the tool call a permission request is about,
// and the updates to send before asking: the call's announcement when the
// CLI asks about a call it has not shown yet.
func (t *ClaudeTranslator) PermissionToolCall(dst []acp.Update, r claude.PermissionRequest) ([]acp.Update, acp.PermissionToolCall) {
	dst = t.tool(dst, r.ToolUseID, r.ToolName, r.Input, "")
	tc := toolCall(r.ToolUseID, r.ToolName, r.Input)
	if r.Title != "" {
		tc.Title = r.Title
	}
	return dst, acp.PermissionToolCall{
		ToolCallID: tc.ToolCallID, Title: tc.Title, Kind: tc.Kind, Status: tc.Status,
		Content: tc.Content, Locations: tc.Locations, RawInput: tc.RawInput,
	}
}

// rateLimit warns the person of a limit that is close or reached.
func (t *ClaudeTranslator) rateLimit(dst []acp.Update, r claude.RateLimit) []acp.Update {
	var sev acp.NoticeSeverity
	switch r.Status {
	case claude.RateLimitWarning:
		sev = acp.NoticeWarning
	case claude.RateLimitRejected:
		if t.limitShown {
			return dst
		}
		sev, t.limitShown = acp.NoticeError, true
	default:
		return dst
	}
	title := limitText(r, t.loc())
	if !t.Notices {
		// A paragraph of its own, apart from the model's text.
		text := title + "\n\n"
		if t.wroteText {
			text = "\n\n" + text
		}
		t.wroteText = false
		return append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: text}})
	}
	return append(dst, acp.Notice{Severity: sev, Title: title})
}

// messageUsage keeps the usage of the main agent's latest model call, of
// which a message's later events know more than its earlier ones. A
// subagent's calls are left out: its context is not the session's.
func (t *ClaudeTranslator) messageUsage(m claude.MessageUsage) {
	if m.ParentToolUseID != "" {
		return
	}
	r, err := usage.FromAnthropic(m.Usage)
	if err != nil {
		return
	}
	if t.calls == 0 || m.MessageID != "" && m.MessageID != t.callID {
		t.call, t.callID = r, m.MessageID
		t.calls++
		return
	}
	t.call = t.call.Overlay(r) // the same message; a delta names none
}

// usage sends the session's context use and cost after a result, unless
// the run used no tokens.
//
// Used is how full the context window is now: the input of the run's last
// model call, cache reads and writes included, plus its output, as the
// main agent's [claude.MessageUsage] events give them. That figure never
// falls while a conversation grows, whereas a run's sum over its calls
// counts the context once per call. The events' output count is final
// only with --include-partial-messages, as the bridge runs the CLI (the
// assistant lines alone give the count at the message's start), so for a
// run of one call the output is the result's, that call's own. A run that
// reported no call's usage falls back to the run's own input and output.
func (t *ClaudeTranslator) usage(dst []acp.Update, r claude.Result) []acp.Update {
	res, err := usage.FromClaudeResult(r)
	if err != nil {
		return dst
	}
	t.acc.Add(res.Run)
	t.runUsage = reportUsage(res.Run)
	if res.TotalCost.Present() {
		t.cost = res.TotalCost
	}
	snap := t.acc.Snapshot()
	last := t.call
	if t.calls == 1 {
		last.Output = res.Run.Output
	}
	used, ok := last.ContextUsed()
	if !ok {
		used, _ = snap.ContextUsed()
	}
	size, _ := snap.ContextWindow.Get()
	u := acp.UsageUpdate{Used: used, Size: size}
	if pico, ok := t.cost.Get(); ok {
		u.Cost = &acp.Cost{Amount: usage.USD(pico), Currency: "USD"}
	}
	if used == 0 && size == 0 {
		return dst // a run without tokens, such as one the API refused
	}
	return append(dst, u)
}

// Usage returns the session's usage so far, summed over the turns'
// results: what goose's usage update carries.
func (t *ClaudeTranslator) Usage() usage.Snapshot { return t.acc.Snapshot() }

// End returns the prompt response for the turn that has just ended, and
// resets the ClaudeTranslator for the next turn. cancelled reports that the
// client cancelled the turn, which then ends as cancelled whatever the
// CLI says; resumed is the session id the CLI was started to resume, ""
// for a new conversation.
//
// A failed turn is an *acp.Error: -32002 when the resumed conversation
// does not exist, and -32603 otherwise, with [ErrorData] saying why. When
// the CLI ended without a result (it crashed, or was stopped), End
// returns -32603 too; exit describes how the process ended.
func (t *ClaudeTranslator) End(cancelled bool, resumed string, exit error, now time.Time) (acp.PromptResult, error) {
	r, apiErr := t.result, t.apiErr
	res := acp.PromptResult{Usage: t.runUsage}
	t.streamedText, t.streamedThinking, t.wroteText = false, false, false
	t.tools, t.partial, t.apiErr, t.result, t.runUsage, t.limitShown = nil, nil, nil, nil, nil, false
	t.calls, t.call, t.callID = 0, usage.Report{}, ""

	switch {
	case cancelled:
		res.StopReason = acp.StopReasonCancelled
		return res, nil
	case r == nil:
		msg := "Claude Code exited without finishing the turn"
		if exit != nil {
			msg += ": " + exit.Error()
		}
		return res, acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(ErrorData{Kind: KindCrash})
	}
	err := r.Err(apiErr)
	var re *claude.RunError
	errors.As(err, &re)
	switch {
	case errors.Is(err, claude.ErrResumeNotFound) && resumed != "":
		return res, resumeNotFound("Claude Code", resumed)
	case errors.Is(err, claude.ErrMaxTurns):
		res.StopReason = acp.StopReasonMaxTurnRequests
		return res, nil
	case errors.Is(err, claude.ErrAuth):
		return res, authRequired("Claude Code", re.Message, re.Status)
	case errors.Is(err, claude.ErrAPI):
		return res, t.apiError(re, apiErr, now)
	case err != nil:
		msg := cmp.Or(re.Message, "Claude Code failed ("+r.Subtype+")")
		return res, acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(ErrorData{Kind: KindCLIError})
	case r.StopReason == "refusal":
		res.StopReason = acp.StopReasonRefusal
		return res, nil
	}
	res.StopReason = acp.StopReasonEndTurn
	return res, nil
}

// apiError is the JSON-RPC error of a turn the API refused, as re says; e
// is the turn's last API error line, nil for none, whose rate limit says
// when it resets.
func (t *ClaudeTranslator) apiError(re *claude.RunError, e *claude.APIError, now time.Time) error {
	data := ErrorData{Kind: KindAPIError, APIErrorStatus: re.Status}
	if e != nil {
		if e.RateLimit != nil || e.Kind == "rate_limit" {
			data.Kind = KindRateLimit
		}
		if e.RateLimit != nil && e.RateLimit.ResetsAt != 0 {
			data.ResetsAtMs = e.RateLimit.ResetsAt
		}
	}
	if data.APIErrorStatus == 429 || re.Type == "rate_limit_error" {
		data.Kind = KindRateLimit
	}
	if data.Kind == KindRateLimit && data.ResetsAtMs == 0 {
		if ms, err := claude.ParseResetTime(re.Message, now, t.Zones); err == nil {
			data.ResetsAtMs = ms
		}
	}
	msg := cmp.Or(re.Message, "Claude Code could not reach the API")
	return acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(data)
}

// isAuthFailure reports whether an API error line says the credentials
// were refused or missing.
func isAuthFailure(e claude.APIError) bool {
	return e.Kind == "authentication_failed" || e.Status == 401
}

// reportUsage is a turn's Report as a prompt response's usage; nil
// without input and output.
func reportUsage(rep usage.Report) *acp.Usage {
	in, okIn := rep.Input.Get()
	out, okOut := rep.Output.Get()
	if !okIn || !okOut {
		return nil
	}
	u := &acp.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	if n, ok := rep.CacheRead.Get(); ok {
		u.CachedReadTokens = &n
	}
	if n, ok := rep.CacheWrite.Get(); ok {
		u.CachedWriteTokens = &n
	}
	return u
}

func (t *ClaudeTranslator) loc() *time.Location {
	if t.Location == nil {
		return time.UTC
	}
	return t.Location
}

// The kinds of failure [ErrorData] names.
const (
	KindRateLimit      = "rate_limit"       // a usage or rate limit refused the request
	KindAPIError       = "api_error"        // the API failed otherwise
	KindResumeNotFound = "resume_not_found" // the resumed conversation does not exist
	KindCLIError       = "cli_error"        // the CLI reported a failure of its own
	KindAuthRequired   = "auth_required"    // the API refused the CLI's credentials, or it has none
	KindCrash          = "crash"            // the CLI exited without finishing the turn
	KindTimeout        = "timeout"          // the CLI wrote nothing for too long
)

// ErrorData is the data of the JSON-RPC error a failed prompt is answered
// with, so that an editor can act on a failure without reading its words.
type ErrorData struct {
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	// ResetsAtMs is when a limit resets, in Unix epoch milliseconds;
	// 0 (omitted) when unknown.
	ResetsAtMs int64 `json:"resetsAtMs,omitempty"`
	// APIErrorStatus is the HTTP status of the failed API request; 0
	// (omitted) when unknown.
	APIErrorStatus int `json:"apiErrorStatus,omitempty"`
	// SessionID is the conversation a failed resume named.
	SessionID string `json:"sessionId,omitempty"`
}

// limitText says where a rate limit stands, in a person's terms.
func limitText(r claude.RateLimit, loc *time.Location) string {
	used := -1.0
	if r.Utilization != nil {
		used = *r.Utilization * 100
	}
	return limitSentence("Claude", windowName(r.Type), r.Status == claude.RateLimitRejected, used, r.ResetsAt, loc)
}

// limitSentence says where the rate limit window of the CLI's vendor
// stands: reached, or used percent of it (negative when unknown: only
// that it is close), and when it resets (Unix epoch milliseconds; 0 when
// unknown), in loc.
func limitSentence(vendor, window string, reached bool, used float64, resetsAt int64, loc *time.Location) string {
	var b strings.Builder
	switch {
	case reached:
		fmt.Fprintf(&b, "You have reached your %s %s", vendor, window)
	case used >= 0:
		fmt.Fprintf(&b, "You have used %.0f%% of your %s %s", used, vendor, window)
	default:
		fmt.Fprintf(&b, "You are close to your %s %s", vendor, window)
	}
	if resetsAt != 0 {
		b.WriteString("; it resets ")
		b.WriteString(time.UnixMilli(resetsAt).In(loc).Format("Mon Jan 2 at 3:04 PM MST"))
	}
	b.WriteByte('.')
	return b.String()
}

// windowName names a rate-limit window.
func windowName(typ string) string {
	switch typ {
	case "five_hour":
		return "5-hour limit"
	case "seven_day":
		return "weekly limit"
	case "seven_day_opus":
		return "weekly Opus limit"
	case "seven_day_sonnet":
		return "weekly Sonnet limit"
	case "overage":
		return "extra usage limit"
	case "":
		return "usage limit"
	}
	return strings.ReplaceAll(typ, "_", " ") + " limit"
}

// apiErrorText is an API error's notice: the CLI's own words.
func apiErrorText(e claude.APIError) string {
	if e.Text != "" {
		return e.Text
	}
	if e.Status != 0 {
		return fmt.Sprintf("Claude API error (HTTP %d)", e.Status)
	}
	return "Claude API error"
}

// retryText tells the person that the CLI retries a failed request.
func retryText(r claude.Retry) string {
	var b strings.Builder
	b.WriteString("Claude API request failed")
	if r.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", r.Status)
	}
	fmt.Fprintf(&b, "; retrying in %s", r.Delay.Round(time.Millisecond))
	if r.MaxRetries > 0 {
		fmt.Fprintf(&b, " (attempt %d of %d)", r.Attempt, r.MaxRetries)
	}
	b.WriteByte('.')
	return b.String()
}
