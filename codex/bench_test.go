package codex

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// benchLines are the lines of every real capture: a realistic mix of
// thread and turn lines, messages, reasoning, a command, a file change, a
// web search, retries, errors and usage.
func benchLines(tb testing.TB) ([][]byte, int64) {
	tb.Helper()
	paths, err := filepath.Glob("testdata/cli-0.169.0/*.jsonl")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no captures: %v", err)
	}
	return parsetest.Lines(tb, paths...)
}

func BenchmarkParseLine(b *testing.B) {
	lines, size := benchLines(b)
	parsetest.BenchParse(b, lines, size, ParseLine)
}

// BenchmarkParseLineStdJSON is the baseline: the same lines decoded with
// encoding/json into structs holding the fields ParseLine reads, turned into
// the same events.
func BenchmarkParseLineStdJSON(b *testing.B) {
	lines, size := benchLines(b)
	parsetest.BenchParse(b, lines, size, stdParseLine)
}

type stdMessage struct {
	Message string `json:"message"`
}

type stdLine struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     *stdItem        `json:"item"`
	Usage    json.RawMessage `json:"usage"`
	Error    *stdMessage     `json:"error"`
	Message  string          `json:"message"`
}

type stdItem struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	Text             string `json:"text"`
	Command          string `json:"command"`
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         *int32 `json:"exit_code"`
	Status           string `json:"status"`
	Changes          []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Query     string          `json:"query"`
	Action    json.RawMessage `json:"action"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     *stdMessage     `json:"error"`
	Message   string          `json:"message"`
	Items     []struct {
		Text      string `json:"text"`
		Completed bool   `json:"completed"`
	} `json:"items"`
}

func stdParseLine(line []byte, events []Event) ([]Event, []byte, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return events, nil, nil
	}
	var l stdLine
	if err := json.Unmarshal(line, &l); err != nil {
		return events, nil, err
	}
	var threadID []byte
	if l.ThreadID != "" {
		threadID = []byte(l.ThreadID)
	}
	switch l.Type {
	case "thread.started":
		events = append(events, ThreadStarted{ThreadID: l.ThreadID})
	case "turn.started":
		events = append(events, TurnStarted{})
	case "item.started", "item.updated", "item.completed":
		if l.Item == nil {
			break
		}
		phase := PhaseStarted
		switch l.Type {
		case "item.updated":
			phase = PhaseUpdated
		case "item.completed":
			phase = PhaseCompleted
		}
		it := l.Item
		switch it.Type {
		case "agent_message":
			if phase == PhaseCompleted {
				events = append(events, Text{ItemID: it.ID, Text: it.Text})
			}
		case "reasoning":
			if phase == PhaseCompleted {
				events = append(events, Reasoning{ItemID: it.ID, Text: it.Text})
			}
		case "command_execution":
			e := CommandExecution{ItemID: it.ID, Phase: phase, Kind: ToolKindExecute, Command: it.Command, Output: it.AggregatedOutput, Status: Status(it.Status)}
			if it.ExitCode != nil {
				e.ExitCode, e.HasExitCode = int(*it.ExitCode), true
			}
			events = append(events, e)
		case "file_change":
			e := FileChange{ItemID: it.ID, Phase: phase, Kind: ToolKindEdit, Status: Status(it.Status)}
			if it.Changes != nil {
				e.Changes = make([]Change, 0, len(it.Changes))
				deletes := 0
				for _, c := range it.Changes {
					e.Changes = append(e.Changes, Change{Path: c.Path, Kind: ChangeKind(c.Kind)})
					if c.Kind == "delete" {
						deletes++
					}
				}
				if deletes > 0 && deletes == len(it.Changes) {
					e.Kind = ToolKindDelete
				}
			}
			events = append(events, e)
		case "web_search":
			e := WebSearch{ItemID: it.ID, Phase: phase, Kind: ToolKindSearch, Query: it.Query}
			if len(it.Action) > 0 && it.Action[0] == '{' {
				var action struct {
					Type string `json:"type"`
				}
				if err := json.Unmarshal(it.Action, &action); err != nil {
					return events, nil, err
				}
				e.ActionType, e.Action = action.Type, it.Action
				if action.Type == "open_page" {
					e.Kind = ToolKindFetch
				}
			}
			events = append(events, e)
		default:
			// mcp_tool_call, todo_list, error and unknown items: absent
			// from the captures, so from this benchmark.
		}
	case "turn.completed":
		events = append(events, TurnCompleted{Usage: l.Usage})
	case "turn.failed":
		e := TurnFailed{}
		if l.Error != nil {
			e.Message, e.Status = l.Error.Message, httpStatus(l.Error.Message)
		}
		events = append(events, e)
	case "error":
		events = append(events, parseError(l.Message))
	}
	return events, threadID, nil
}

// TestStdBaselineAgrees keeps the baseline honest: on the benchmark's lines
// it must produce what ParseLine produces.
func TestStdBaselineAgrees(t *testing.T) {
	lines, _ := benchLines(t)
	for i, line := range lines {
		want, wantID, err := ParseLine(line, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gotID, err := stdParseLine(line, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(wantID) != string(gotID) {
			t.Errorf("line %d: thread id %q, baseline %q", i+1, wantID, gotID)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("line %d: baseline events differ (-ParseLine +baseline):\n%s", i+1, diff)
		}
	}
}
