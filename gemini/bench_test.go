package gemini_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// benchFiles are real runs: an answer in chunks, tool calls, an API error.
var benchFiles = []string{"multi-part", "tool-call", "tool-call-read", "max-turns", "api-error-401", "rate-limit-429"}

func benchLines(tb testing.TB) ([][]byte, int64) {
	tb.Helper()
	var lines [][]byte
	var size int64
	for _, name := range benchFiles {
		data, err := os.ReadFile("testdata/" + name + ".jsonl")
		if err != nil {
			tb.Fatal(err)
		}
		size += int64(len(data))
		lines = append(lines, bytes.Split(bytes.TrimSpace(data), []byte("\n"))...)
	}
	return lines, size
}

func BenchmarkParseLine(b *testing.B) {
	lines, size := benchLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	events := make([]gemini.Event, 0, 4)
	session := ""
	for b.Loop() {
		for _, line := range lines {
			var sid []byte
			var err error
			events, sid, err = gemini.ParseLine(line, events[:0])
			if err != nil {
				b.Fatal(err)
			}
			if sid != nil && string(sid) != session {
				session = string(sid)
			}
		}
	}
}

// BenchmarkParseLineStdJSON is the baseline: the same lines decoded with
// encoding/json into structs holding the fields ParseLine reads, turned
// into the same events.
func BenchmarkParseLineStdJSON(b *testing.B) {
	lines, size := benchLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	events := make([]gemini.Event, 0, 4)
	session := ""
	for b.Loop() {
		for _, line := range lines {
			var sid string
			var err error
			events, sid, err = stdParseLine(line, events[:0])
			if err != nil {
				b.Fatal(err)
			}
			if sid != "" && sid != session {
				session = sid
			}
		}
	}
}

type stdError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type stdLine struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	Delta      bool            `json:"delta"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     string          `json:"output"`
	Error      *stdError       `json:"error"`
	Severity   string          `json:"severity"`
	Message    string          `json:"message"`
	Stats      json.RawMessage `json:"stats"`
}

type stdStats struct {
	DurationMS int64 `json:"duration_ms"`
	ToolCalls  int   `json:"tool_calls"`
}

type stdAPIBody struct {
	Error struct {
		Code int `json:"code"`
	} `json:"error"`
}

func stdParseLine(line []byte, events []gemini.Event) ([]gemini.Event, string, error) {
	var l stdLine
	if err := json.Unmarshal(line, &l); err != nil {
		return events, "", err
	}
	if l.Error == nil {
		l.Error = &stdError{}
	}
	switch l.Type {
	case "init":
		events = append(events, gemini.Init{Model: l.Model})
	case "message":
		switch {
		case l.Role == "user":
			events = append(events, gemini.UserMessage{Text: l.Content})
		case l.Role == "assistant" && l.Delta:
			events = append(events, gemini.PartialText{Text: l.Content})
		case l.Role == "assistant":
			events = append(events, gemini.Text{Text: l.Content})
		}
	case "tool_use":
		events = append(events, gemini.ToolUse{ID: l.ToolID, Name: l.ToolName, Kind: gemini.ToolKindOf(l.ToolName), Input: l.Parameters})
	case "tool_result":
		events = append(events, gemini.ToolResult{ID: l.ToolID, Status: gemini.ToolStatus(l.Status), Output: l.Output,
			ErrorType: l.Error.Type, ErrorMessage: l.Error.Message})
	case "error":
		events = append(events, gemini.Notice{Severity: l.Severity, Message: l.Message})
	case "result":
		r := gemini.Result{Status: l.Status, ErrorType: l.Error.Type, ErrorMessage: l.Error.Message, Stats: l.Stats}
		var s stdStats
		if len(l.Stats) > 0 {
			if err := json.Unmarshal(l.Stats, &s); err != nil {
				return events, "", err
			}
		}
		r.Duration, r.ToolCalls = time.Duration(s.DurationMS)*time.Millisecond, s.ToolCalls
		if body, ok := strings.CutPrefix(r.ErrorMessage, "[API Error: "); ok {
			e := gemini.APIError{Message: r.ErrorMessage}
			var api stdAPIBody
			if end := strings.LastIndexByte(body, ']'); end > 0 && json.Unmarshal([]byte(body[:end]), &api) == nil {
				e.Status = api.Error.Code
			}
			events = append(events, e)
		}
		events = append(events, r)
	}
	return events, l.SessionID, nil
}

// TestStdBaselineAgrees keeps the baseline honest: on the benchmark's
// lines it must produce what ParseLine produces.
func TestStdBaselineAgrees(t *testing.T) {
	lines, _ := benchLines(t)
	for i, line := range lines {
		want, wantSID, err := gemini.ParseLine(line, nil)
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
