package bridge

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/usage"
	"github.com/tidwall/gjson"
)

// Gemini is the Gemini CLI, one headless `gemini --output-format
// stream-json` process per turn. A headless run cannot ask for
// permission: the mode is its approval mode, which decides which tools
// run at all.
var Gemini = &CLI{
	Name: "gemini",
	modes: []acp.SessionMode{
		{ID: "default", Name: "Default", Description: "Refuse the tools that would need approval"},
		{ID: "auto_edit", Name: "Auto Edit", Description: "Edit files without approval"},
		{ID: "plan", Name: "Plan", Description: "Plan without changing anything"},
		{ID: "yolo", Name: "YOLO", Description: "Run every tool without approval"},
	},
	bypass: 1,
	models: []modelChoice{{Value: "default", Name: "Default"}},
	open:   newTurnSession(geminiCLI{}),
}

// geminiCLI runs Gemini CLI once per turn.
type geminiCLI struct{}

func (geminiCLI) commandLine(resumeID, mode, model string, extra []string, prompt string) ([]string, []byte) {
	o := gemini.Options{Resume: resumeID, Model: modelArg(model), ApprovalMode: mode, SkipTrust: true}
	if mode == "default" {
		o.ApprovalMode = ""
	}
	args, stdin := gemini.CommandLine(o, prompt)
	return append(args, extra...), stdin
}

func (geminiCLI) translator(b *base) turnTranslator {
	return &geminiTranslator{notices: notices(b.caps.AcceptsNotices()), now: b.a.cfg.Clock.Now, a: b.a}
}

// geminiTranslator turns Gemini CLI's events into updates.
type geminiTranslator struct {
	a       *Agent
	notices notices
	now     func() time.Time
	acc     usage.Accumulator
}

func (g *geminiTranslator) usageSnapshot() usage.Snapshot { return g.acc.Snapshot() }

func (g *geminiTranslator) run(resumeID string, stdout io.Reader, wait func() int, emit func([]acp.Update)) (string, acp.PromptResult, error) {
	t := gemini.NewTurn(resumeID)
	var (
		updates  []acp.Update
		res      acp.PromptResult
		streamed bool // a PartialText came since the last Text
		apiErr   *apiFailure
	)
	for ev, err := range t.Events(stdout) {
		if err != nil {
			g.a.log.Warn("Gemini CLI output skipped", "error", err)
			continue
		}
		updates = updates[:0]
		switch ev := ev.(type) {
		case gemini.PartialText:
			streamed = true
			updates = append(updates, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
		case gemini.Text:
			if !streamed {
				updates = append(updates, acp.AgentMessageChunk{Content: acp.TextContent{Text: ev.Text}})
			}
			streamed = false
		case gemini.ToolUse:
			tc := acp.ToolCall{ToolCallID: ev.ID, Title: geminiTitle(ev.Name, ev.Input), Kind: acp.ToolKind(ev.Kind), Status: acp.ToolCallStatusInProgress}
			if json.Valid(ev.Input) {
				tc.RawInput = ev.Input
			}
			if p := firstString(ev.Input, "file_path", "absolute_path", "path", "dir_path"); p != "" {
				tc.Locations = []acp.ToolCallLocation{{Path: p}}
			}
			updates = append(updates, tc)
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
				u.Content = []acp.ToolCallContent{textContent(out)}
			}
			updates = append(updates, u)
		case gemini.Notice:
			sev := acp.NoticeInfo
			switch ev.Severity {
			case "warning":
				sev = acp.NoticeWarning
			case "error":
				sev = acp.NoticeError
			}
			updates = g.notices.add(updates, sev, ev.Message)
		case gemini.Retry:
			updates = g.notices.add(updates, acp.NoticeInfo, ev.Message)
		case gemini.APIError:
			apiErr = &apiFailure{status: ev.Status}
			updates = g.notices.add(updates, acp.NoticeError, ev.Message)
		case gemini.Result:
			if stats, err := usage.ParseGeminiStats(ev.Stats); err == nil {
				tot := stats.Totals()
				rep := usage.Report{Input: tot.Input, Output: tot.Output, CacheRead: tot.CacheRead, CacheWrite: tot.CacheWrite, Total: tot.Total}
				g.acc.Add(rep)
				res.Usage = reportUsage(rep)
			}
		}
		if len(updates) > 0 {
			emit(updates)
		}
	}
	t.Finish(wait(), nil)
	err := t.Err()
	var re *gemini.RunError
	msg := ""
	if errors.As(err, &re) {
		msg = re.Message
	}
	res.StopReason, err = geminiOutcome.of(err, msg, apiErr, resumeID, func(text string) (int64, error) {
		return gemini.ParseResetTime(text, g.now())
	})
	return t.SessionID(), res, err
}

// geminiOutcome reads how a Gemini CLI run ended.
var geminiOutcome = runOutcome{
	cli:            "Gemini CLI",
	resumeNotFound: gemini.ErrResumeNotFound,
	noResult:       gemini.ErrNoResult,
	api:            gemini.ErrAPI,
	maxTurns:       gemini.ErrMaxTurns,
	noResetTime:    gemini.ErrNoResetTime,
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
