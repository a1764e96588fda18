package claude_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/acpkit/acpkit/timeparse"
	"github.com/google/go-cmp/cmp"
)

// benchFiles are realistic mixed runs: system init, text, tool uses, a tool
// result with a few KiB of output, another with content blocks, and the
// result line; then a real Claude Code 2.1.328 run, whose lines carry
// timestamps and whose result the per-run usage.
var benchFiles = []string{"testdata/tool_roundtrip.jsonl", "testdata/cli-2.1.328/tool-use.jsonl"}

// benchLines returns the lines of benchFiles and their total size.
func benchLines(tb testing.TB) ([][]byte, int64) { return parsetest.Lines(tb, benchFiles...) }

func BenchmarkParseLine(b *testing.B) {
	lines, size := benchLines(b)
	parsetest.BenchParse(b, lines, size, claude.ParseLine)
}

// BenchmarkParseLineStdJSON is the baseline: the same lines decoded with
// encoding/json into structs holding the fields ParseLine reads, turned into
// the same events.
func BenchmarkParseLineStdJSON(b *testing.B) {
	lines, size := benchLines(b)
	parsetest.BenchParse(b, lines, size, stdParseLine)
}

// BenchmarkParseLineQuiet measures a line that emits nothing and repeats
// the session id: it must not allocate.
func BenchmarkParseLineQuiet(b *testing.B) {
	line := []byte(`{"type":"stream_event","event":{"type":"message_stop"},"session_id":"5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19","parent_tool_use_id":null,"uuid":"0f5e3f7a-3c1d-4b2a-9e8f-7a6b5c4d3e2f"}`)
	turn := claude.NewTurn("5f2c8a4e-1b7d-4c3e-9a61-2d8f0e7b4c19")
	events := make([]claude.Event, 0, 4)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		events, _ = turn.Feed(line, events[:0])
	}
}

type stdBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type stdMessage struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	Usage   json.RawMessage `json:"usage"`
}

type stdLine struct {
	Type            string      `json:"type"`
	Subtype         string      `json:"subtype"`
	SessionID       string      `json:"session_id"`
	Timestamp       string      `json:"timestamp"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	Error           *string     `json:"error"`
	Model           string      `json:"model"`
	Message         *stdMessage `json:"message"`
	Event           *struct {
		Type  string `json:"type"`
		Delta struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Thinking string `json:"thinking"`
		} `json:"delta"`
	} `json:"event"`
	RateLimitInfo  json.RawMessage `json:"rate_limit_info"`
	Attempt        int             `json:"attempt"`
	MaxRetries     int             `json:"max_retries"`
	RetryDelayMS   int64           `json:"retry_delay_ms"`
	ErrorStatus    int             `json:"error_status"`
	IsError        bool            `json:"is_error"`
	Result         string          `json:"result"`
	Errors         []string        `json:"errors"`
	APIErrorStatus int             `json:"api_error_status"`
	APIErrorType   string          `json:"api_error_type"`
	APIError       string          `json:"api_error"`
	TerminalReason string          `json:"terminal_reason"`
	RunModelUsage  json.RawMessage `json:"model_usage_since_last_result"`
	NumTurns       int             `json:"num_turns"`
	DurationMS     int64           `json:"duration_ms"`
	DurationAPIMS  int64           `json:"duration_api_ms"`
	TotalCostUSD   json.Number     `json:"total_cost_usd"`
	StopReason     string          `json:"stop_reason"`
	Usage          json.RawMessage `json:"usage"`
	ModelUsage     json.RawMessage `json:"modelUsage"`
	ToolUseResult  json.RawMessage `json:"tool_use_result"`
	Denials        []struct {
		ToolName  string          `json:"tool_name"`
		ToolUseID string          `json:"tool_use_id"`
		ToolInput json.RawMessage `json:"tool_input"`
	} `json:"permission_denials"`
}

func stdParseLine(line []byte, events []claude.Event) ([]claude.Event, string, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return events, "", nil
	}
	var l stdLine
	if err := json.Unmarshal(line, &l); err != nil {
		return events, "", err
	}
	parent := ""
	if l.ParentToolUseID != nil {
		parent = *l.ParentToolUseID
	}
	ts, _ := timeparse.ParseMillis(l.Timestamp)
	var blocks []stdBlock
	if l.Message != nil && len(l.Message.Content) > 0 && l.Message.Content[0] == '[' {
		if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
			return events, "", err
		}
	}
	switch l.Type {
	case "system":
		switch l.Subtype {
		case "api_retry":
			events = append(events, claude.Retry{Attempt: l.Attempt, MaxRetries: l.MaxRetries,
				Delay: time.Duration(l.RetryDelayMS) * time.Millisecond, Status: l.ErrorStatus, Timestamp: ts})
		default:
			events = append(events, claude.Heartbeat{Subtype: l.Subtype, Model: l.Model, Timestamp: ts})
		}
	case "assistant":
		for _, k := range blocks {
			switch k.Type {
			case "text":
				events = append(events, claude.Text{Text: k.Text, ParentToolUseID: parent, Timestamp: ts})
			case "thinking":
				events = append(events, claude.Thinking{Text: k.Thinking, ParentToolUseID: parent, Timestamp: ts})
			case "tool_use":
				events = append(events, claude.ToolUse{ID: k.ID, Name: k.Name, Input: k.Input, ParentToolUseID: parent, Timestamp: ts})
			}
		}
		if l.Message != nil && len(l.Message.Usage) > 0 && l.Message.Usage[0] == '{' {
			events = append(events, claude.MessageUsage{MessageID: l.Message.ID, Usage: l.Message.Usage, ParentToolUseID: parent, Timestamp: ts})
		}
	case "user":
		for _, k := range blocks {
			if k.Type != "tool_result" {
				continue
			}
			r := claude.ToolResult{ToolUseID: k.ToolUseID, IsError: k.IsError, ParentToolUseID: parent, Timestamp: ts}
			if len(k.Content) > 0 && k.Content[0] == '"' {
				if err := json.Unmarshal(k.Content, &r.Text); err != nil {
					return events, "", err
				}
			} else if len(k.Content) > 0 {
				var parts []stdBlock
				if err := json.Unmarshal(k.Content, &parts); err != nil {
					return events, "", err
				}
				var texts []string
				for _, p := range parts {
					if p.Type == "text" {
						texts = append(texts, p.Text)
					}
				}
				r.Text = strings.Join(texts, "\n")
			}
			events = append(events, r)
		}
		if n := len(events); n > 0 && len(l.ToolUseResult) > 0 {
			if r, ok := events[n-1].(claude.ToolResult); ok && (n == 1 || !isToolResult(events[n-2])) {
				r.Details = l.ToolUseResult
				r.FileChange = stdFileChange(l.ToolUseResult)
				events[n-1] = r
			}
		}
	case "rate_limit_event":
		var rl claude.RateLimit
		var info struct {
			Status        string   `json:"status"`
			ResetsAt      *float64 `json:"resetsAt"`
			RateLimitType string   `json:"rateLimitType"`
			Utilization   *float64 `json:"utilization"`
		}
		if len(l.RateLimitInfo) > 0 && l.RateLimitInfo[0] == '{' {
			if err := json.Unmarshal(l.RateLimitInfo, &info); err != nil {
				return events, "", err
			}
			rl.Status, rl.Type, rl.Raw = claude.RateLimitStatus(info.Status), info.RateLimitType, l.RateLimitInfo
			if info.ResetsAt != nil {
				rl.ResetsAt = int64(*info.ResetsAt) * 1000
			}
			if info.Utilization != nil {
				rl.Utilization = info.Utilization
			}
		}
		events = append(events, rl)
	case "result":
		r := claude.Result{
			Subtype: l.Subtype, IsError: l.IsError, Text: l.Result, Errors: l.Errors,
			APIErrorStatus: l.APIErrorStatus, APIErrorType: l.APIErrorType, APIErrorCode: l.APIError, TerminalReason: l.TerminalReason,
			NumTurns: l.NumTurns, RunModelUsage: l.RunModelUsage, Timestamp: ts,
			Duration:     time.Duration(l.DurationMS) * time.Millisecond,
			APIDuration:  time.Duration(l.DurationAPIMS) * time.Millisecond,
			TotalCostUSD: l.TotalCostUSD, StopReason: l.StopReason, Usage: l.Usage, ModelUsage: l.ModelUsage,
		}
		if l.Denials != nil {
			r.PermissionDenials = make([]claude.PermissionDenial, 0, len(l.Denials))
			for _, d := range l.Denials {
				r.PermissionDenials = append(r.PermissionDenials, claude.PermissionDenial{ToolName: d.ToolName, ToolUseID: d.ToolUseID, Input: d.ToolInput})
			}
		}
		events = append(events, r)
	}
	return events, l.SessionID, nil
}

func isToolResult(e claude.Event) bool { _, ok := e.(claude.ToolResult); return ok }

// stdFileChange decodes a tool_use_result that describes a change to a
// file, as encoding/json reads it.
func stdFileChange(raw json.RawMessage) *claude.FileChange {
	var v struct {
		FilePath        *string        `json:"filePath"`
		Type            string         `json:"type"`
		OriginalFile    *string        `json:"originalFile"`
		Content         *string        `json:"content"`
		StructuredPatch *[]claude.Hunk `json:"structuredPatch"`
	}
	if json.Unmarshal(raw, &v) != nil || v.FilePath == nil || v.StructuredPatch == nil {
		return nil
	}
	c := &claude.FileChange{Path: *v.FilePath, Type: v.Type, Original: v.OriginalFile, Content: v.Content, Hunks: *v.StructuredPatch}
	for i, h := range c.Hunks {
		if h.Lines == nil {
			c.Hunks[i].Lines = []string{}
		}
	}
	return c
}

// TestStdBaselineAgrees keeps the baseline honest: on the benchmark's
// transcripts it must produce what ParseLine produces.
func TestStdBaselineAgrees(t *testing.T) {
	lines, _ := benchLines(t)
	for i, line := range lines {
		want, wantSID, err := claude.ParseLine(line, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gotSID, err := stdParseLine(line, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("line %d: baseline events differ (-ParseLine +baseline):\n%s", i+1, diff)
		}
		if string(wantSID) != gotSID {
			t.Errorf("line %d: baseline session %q, want %q", i+1, gotSID, wantSID)
		}
	}
}
