package bridge

import (
	"encoding/json"
	"errors"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/usage"
	"github.com/tidwall/gjson"
)

// Gemini is the Gemini CLI, one headless `gemini --output-format
// stream-json` process per turn. A headless run cannot ask for
// permission: the mode is its approval mode, which decides which tools
// run at all.
var Gemini CLI = geminiCLI{}

type geminiCLI struct{}

var geminiInfo = CLIInfo{
	Name:    "Gemini CLI",
	Program: "gemini",
	Tested:  gemini.TestedVersion,
	Modes: []acp.SessionMode{
		{ID: "default", Name: "Default", Description: "Refuse the tools that would need approval"},
		{ID: "auto_edit", Name: "Auto Edit", Description: "Edit files without approval"},
		{ID: "plan", Name: "Plan", Description: "Plan without changing anything"},
		{ID: "yolo", Name: "YOLO", Description: "Run every tool without approval"},
	},
	Bypass:  "yolo",
	Models:  []Model{{ID: "default", Name: "Default"}},
	PerTurn: true,
	// `gemini -p` takes a prompt of text alone, on stdin, and no MCP
	// server of the editor's.
	Accepts: Accepts{EmbeddedContext: true},
}

func (geminiCLI) Info() CLIInfo { return geminiInfo }

func (geminiCLI) NewConversation(c ConversationConfig) (Conversation, error) {
	return &geminiConversation{cfg: c, sessionID: c.ResumeID, notices: notices(c.Notices)}, nil
}

// geminiConversation is a Gemini CLI session, one process per turn.
type geminiConversation struct {
	oneShot
	cfg       ConversationConfig
	notices   notices
	sessionID string // the session the next turn resumes; "" for a new one
	acc       usage.Accumulator

	// Of the turn under way.
	turn     *gemini.Turn
	resumed  string
	res      acp.PromptResult
	streamed bool // a PartialText came since the last Text
	scratch  []gemini.Event
	updates  []acp.Update
}

func (g *geminiConversation) CommandLine(mode, model string) []string {
	o := gemini.Options{Resume: g.sessionID, Model: modelArg(model), ApprovalMode: mode, IncludeDirectories: g.cfg.AdditionalDirectories, SkipTrust: true}
	if mode == "default" {
		o.ApprovalMode = ""
	}
	args, stdin := gemini.CommandLine(o, g.text)
	g.stdin = stdin
	g.turn, g.resumed, g.res, g.streamed = gemini.NewTurn(g.sessionID), g.sessionID, acp.PromptResult{}, false
	return append(args, g.cfg.ExtraArgs...)
}

func (g *geminiConversation) Usage() usage.Snapshot { return g.acc.Snapshot() }

func (g *geminiConversation) Line(h Host, line []byte) {
	events, err := g.turn.Feed(line, g.scratch[:0])
	g.scratch = events
	if err != nil {
		g.cfg.Logger.Warn("Gemini CLI output skipped", "error", err)
		return
	}
	for _, ev := range events {
		g.updates = g.translate(g.updates[:0], ev)
		h.Notify(g.updates...)
	}
}

// translate appends the updates of one event to dst.
func (g *geminiConversation) translate(dst []acp.Update, ev gemini.Event) []acp.Update {
	switch ev := ev.(type) {
	case gemini.PartialText:
		g.streamed = true
		dst = append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
	case gemini.Text:
		if !g.streamed {
			dst = append(dst, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
		}
		g.streamed = false
	case gemini.ToolUse:
		tc := acp.ToolCall{ToolCallID: ev.ID, Title: geminiTitle(ev.Name, ev.Input), Kind: toolKind(ev.Kind), Status: acp.ToolCallStatusInProgress}
		if json.Valid(ev.Input) {
			tc.RawInput = ev.Input
		}
		if p := firstString(ev.Input, "file_path", "absolute_path", "path", "dir_path"); p != "" {
			tc.Locations = []acp.ToolCallLocation{{Path: p}}
		}
		dst = append(dst, tc)
	case gemini.ToolResult:
		u := acp.ToolCallUpdate{ToolCallID: ev.ID, Status: acp.ToolCallStatusCompleted}
		out := ev.Output
		if ev.Status != gemini.ToolSuccess {
			u.Status = acp.ToolCallStatusFailed
			if ev.ErrorMessage != "" {
				out = ev.ErrorMessage
			}
		}
		if out != "" {
			u.Content, u.RawOutput = []acp.ToolCallContent{textContent(out)}, rawText(out)
		}
		dst = append(dst, u)
	case gemini.Notice:
		sev := acp.NoticeInfo
		switch ev.Severity {
		case "warning":
			sev = acp.NoticeWarning
		case "error":
			sev = acp.NoticeError
		}
		dst = g.notices.add(dst, sev, ev.Message)
	case gemini.Retry:
		dst = g.notices.add(dst, acp.NoticeInfo, ev.Message)
	case gemini.APIError:
		dst = g.notices.add(dst, acp.NoticeError, ev.Message)
	case gemini.Result:
		if stats, err := usage.ParseGeminiStats(ev.Stats); err == nil {
			tot := stats.Totals()
			rep := usage.Report{Input: tot.Input, Output: tot.Output, CacheRead: tot.CacheRead, CacheWrite: tot.CacheWrite, Total: tot.Total}
			g.acc.Add(rep)
			g.res.Usage = reportUsage(rep)
		}
	}
	return dst
}

func (g *geminiConversation) Exited(h Host, exit error) {
	t := g.turn
	g.turn = nil
	if !g.inTurn || t == nil {
		return
	}
	g.inTurn = false
	t.Finish(exitCode(exit), nil)
	err := t.Err()
	var re *gemini.RunError
	msg, status := "", 0
	if errors.As(err, &re) {
		msg, status = re.Message, re.Status
	}
	res := g.res
	res.StopReason, err = geminiOutcome.of(err, msg, status, g.resumed, g.cfg.Now(), g.cfg.Zones)
	if id := t.SessionID(); id != "" {
		g.sessionID = id
	}
	h.EndTurn(res, err)
}

// geminiOutcome reads how a Gemini CLI run ended.
var geminiOutcome = runOutcome{
	cli:            "Gemini CLI",
	resumeNotFound: gemini.ErrResumeNotFound,
	noResult:       gemini.ErrNoResult,
	api:            gemini.ErrAPI,
	maxTurns:       gemini.ErrMaxTurns,
	noResetTime:    gemini.ErrNoResetTime,
	parseReset:     gemini.ParseResetTime,
}

// geminiTitle names a tool call by its tool and what it acts on.
func geminiTitle(name string, input json.RawMessage) string {
	if v := firstString(input, "command", "file_path", "absolute_path", "path", "dir_path", "pattern", "url", "query"); v != "" {
		return name + ": " + firstLine(v)
	}
	return name
}

// firstString returns the first of keys that input holds as a non-empty
// string.
func firstString(input json.RawMessage, keys ...string) string {
	for _, k := range keys {
		if v := gjson.GetBytes(input, k); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}
