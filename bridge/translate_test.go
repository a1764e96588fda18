package bridge_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/codex"
	"github.com/google/go-cmp/cmp"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func text(s string) acp.ContentBlock { return acp.TextContent{Text: s} }

func TestTranslate(t *testing.T) {
	editInput := json.RawMessage(`{"file_path":"/w/a.go","old_string":"a","new_string":"b"}`)
	tests := []struct {
		name    string
		notices bool
		events  []claude.Event
		want    []acp.Update
	}{
		{
			name:   "complete text and thinking",
			events: []claude.Event{claude.Thinking{Text: "hm"}, claude.Text{Text: "hi"}},
			want: []acp.Update{
				acp.AgentThoughtChunk{Content: text("hm")},
				acp.AgentMessageChunk{Content: text("hi")},
			},
		},
		{
			name: "streamed text is not repeated by its complete block",
			events: []claude.Event{
				claude.PartialThinking{Text: "h"}, claude.PartialThinking{Text: "m"}, claude.Thinking{Text: "hm"},
				claude.PartialText{Text: "h"}, claude.PartialText{Text: "i"}, claude.Text{Text: "hi"},
				claude.Text{Text: "not streamed"},
			},
			want: []acp.Update{
				acp.AgentThoughtChunk{Content: text("h")}, acp.AgentThoughtChunk{Content: text("m")},
				acp.AgentMessageChunk{Content: text("h")}, acp.AgentMessageChunk{Content: text("i")},
				acp.AgentMessageChunk{Content: text("not streamed")},
			},
		},
		{
			name: "a subagent's thinking, text and tool calls stay inside its task, in order",
			events: []claude.Event{
				claude.ToolUse{ID: "toolu_task", Name: "Agent", Input: json.RawMessage(`{"description":"Check","prompt":"p"}`)},
				claude.PartialThinking{Text: "I should ", ParentToolUseID: "toolu_task"},
				claude.PartialThinking{Text: "look.", ParentToolUseID: "toolu_task"},
				claude.Thinking{Text: "I should look.", ParentToolUseID: "toolu_task"},
				claude.Text{Text: "Looking.", ParentToolUseID: "toolu_task"},
				claude.ToolUse{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`), ParentToolUseID: "toolu_task"},
				claude.ToolResult{ToolUseID: "t1", Text: "a.go", ParentToolUseID: "toolu_task"},
				claude.Text{Text: "Found a.go.", ParentToolUseID: "toolu_task"},
				claude.ToolResult{ToolUseID: "toolu_task", Text: "Found a.go."},
			},
			want: func() []acp.Update {
				parent := json.RawMessage(`{"claudeCode":{"parentToolUseId":"toolu_task"}}`)
				thought := func(s string) acp.ToolCallContent {
					return acp.ToolCallContentBlock{Content: acp.TextContent{Text: s, Meta: json.RawMessage(`{"claudeCode":{"thinking":true}}`)}}
				}
				said := func(s string) acp.ToolCallContent { return acp.ToolCallContentBlock{Content: text(s)} }
				return []acp.Update{
					acp.ToolCall{ToolCallID: "toolu_task", Title: "Check", Kind: acp.ToolKindThink, Status: acp.ToolCallStatusPending,
						RawInput: json.RawMessage(`{"description":"Check","prompt":"p"}`)},
					acp.ToolCallUpdate{ToolCallID: "toolu_task", Content: []acp.ToolCallContent{thought("I should ")}},
					acp.ToolCallUpdate{ToolCallID: "toolu_task", Content: []acp.ToolCallContent{thought("I should look.")}},
					acp.ToolCallUpdate{ToolCallID: "toolu_task", Content: []acp.ToolCallContent{thought("I should look."), said("Looking.")}},
					acp.ToolCall{ToolCallID: "t1", Title: "ls", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending,
						RawInput: json.RawMessage(`{"command":"ls"}`), Meta: parent},
					acp.ToolCallUpdate{ToolCallID: "t1", Status: acp.ToolCallStatusCompleted,
						Content: []acp.ToolCallContent{said("a.go")}, RawOutput: json.RawMessage(`"a.go"`), Meta: parent},
					acp.ToolCallUpdate{ToolCallID: "toolu_task", Content: []acp.ToolCallContent{thought("I should look."), said("Looking."), said("Found a.go.")}},
					acp.ToolCallUpdate{ToolCallID: "toolu_task", Status: acp.ToolCallStatusCompleted,
						Content:   []acp.ToolCallContent{thought("I should look."), said("Looking."), said("Found a.go."), said("Found a.go.")},
						RawOutput: json.RawMessage(`"Found a.go."`)},
				}
			}(),
		},
		{
			name: "tool call and its result",
			events: []claude.Event{
				claude.ToolUse{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"/w/a.go","offset":10}`)},
				claude.ToolResult{ToolUseID: "t1", Text: "package a"},
				claude.ToolUse{ID: "t2", Name: "Bash", Input: json.RawMessage(`{"command":"false"}`)},
				claude.ToolResult{ToolUseID: "t2", IsError: true, Text: "exit 1"},
			},
			want: []acp.Update{
				acp.ToolCall{ToolCallID: "t1", Title: "Read /w/a.go", Kind: acp.ToolKindRead, Status: acp.ToolCallStatusPending,
					Locations: []acp.ToolCallLocation{{Path: "/w/a.go", Line: ptr(10)}},
					RawInput:  json.RawMessage(`{"file_path":"/w/a.go","offset":10}`)},
				acp.ToolCallUpdate{ToolCallID: "t1", Status: acp.ToolCallStatusCompleted,
					Content: []acp.ToolCallContent{acp.ToolCallContentBlock{Content: text("package a")}}, RawOutput: json.RawMessage(`"package a"`)},
				acp.ToolCall{ToolCallID: "t2", Title: "false", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending,
					RawInput: json.RawMessage(`{"command":"false"}`)},
				acp.ToolCallUpdate{ToolCallID: "t2", Status: acp.ToolCallStatusFailed,
					Content: []acp.ToolCallContent{acp.ToolCallContentBlock{Content: text("exit 1")}}, RawOutput: json.RawMessage(`"exit 1"`)},
			},
		},
		{
			name: "a streamed tool call is announced once its input is whole",
			events: []claude.Event{
				claude.PartialToolUse{Index: 1, ID: "t1", Name: "Edit"},
				claude.PartialToolInput{Index: 1, JSON: `{"file_path":"/w/a.go",`},
				claude.PartialToolInput{Index: 1, JSON: `"old_string":"a","new_string":"b"}`},
				claude.ToolUse{ID: "t1", Name: "Edit", Input: json.RawMessage(`{"new_string": "b", "file_path": "/w/a.go", "old_string": "a"}`)},
			},
			want: []acp.Update{
				acp.ToolCall{ToolCallID: "t1", Title: "Edit /w/a.go", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending,
					Content:   []acp.ToolCallContent{acp.ToolCallDiff{Path: "/w/a.go", OldText: ptr("a"), NewText: "b"}},
					Locations: []acp.ToolCallLocation{{Path: "/w/a.go"}},
					RawInput:  editInput},
			},
		},
		{
			name: "TodoWrite is a plan",
			events: []claude.Event{
				claude.ToolUse{ID: "t1", Name: "TodoWrite", Input: json.RawMessage(`{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]}`)},
				claude.ToolResult{ToolUseID: "t1", Text: "ok"},
			},
			want: []acp.Update{acp.Plan{Entries: []acp.PlanEntry{
				{Content: "a", Priority: acp.PlanPriorityMedium, Status: acp.PlanStatusCompleted},
				{Content: "b", Priority: acp.PlanPriorityMedium, Status: acp.PlanStatusInProgress},
			}}},
		},
		{
			name:    "rate-limit warning and rejection as notices",
			notices: true,
			events: []claude.Event{
				claude.RateLimit{Status: claude.RateLimitAllowed, Type: "five_hour"},
				claude.RateLimit{Status: claude.RateLimitWarning, Type: "five_hour", Utilization: ptr(0.8), ResetsAt: now.Add(3 * time.Hour).UnixMilli()},
				claude.RateLimit{Status: claude.RateLimitRejected, Type: "seven_day", ResetsAt: now.Add(50 * time.Hour).UnixMilli()},
			},
			want: []acp.Update{
				acp.Notice{Severity: acp.NoticeWarning, Title: "You have used 80% of your Claude 5-hour limit; it resets Tue Dec 1 at 3:00 PM UTC."},
				acp.Notice{Severity: acp.NoticeError, Title: "You have reached your Claude weekly limit; it resets Thu Dec 3 at 2:00 PM UTC."},
			},
		},
		{
			name:    "a rejected rate limit is shown once, whichever line says it first",
			notices: true,
			events: []claude.Event{
				claude.RateLimit{Status: claude.RateLimitRejected, Type: "five_hour"},
				claude.APIError{Kind: "rate_limit", Status: 429, Text: "You've hit your limit"},
				claude.RateLimit{Status: claude.RateLimitRejected, Type: "five_hour"},
				claude.APIError{Kind: "server_error", Status: 500, Text: "Internal server error"},
			},
			want: []acp.Update{
				acp.Notice{Severity: acp.NoticeError, Title: "You have reached your Claude 5-hour limit."},
				acp.Notice{Severity: acp.NoticeError, Title: "Internal server error"},
			},
		},
		{
			name:    "a rate limit's error first",
			notices: true,
			events: []claude.Event{
				claude.APIError{Kind: "rate_limit", Status: 429, Text: "You've hit your limit"},
				claude.RateLimit{Status: claude.RateLimitRejected, Type: "five_hour"},
			},
			want: []acp.Update{acp.Notice{Severity: acp.NoticeError, Title: "You've hit your limit"}},
		},
		{
			name: "rate-limit warning as text for a client without notices",
			events: []claude.Event{
				claude.RateLimit{Status: claude.RateLimitWarning},
				claude.APIError{Kind: "rate_limit", Text: "You've hit your limit"},
				claude.Retry{Attempt: 1, MaxRetries: 3, Delay: time.Second},
			},
			want: []acp.Update{acp.AgentMessageChunk{Content: text("You are close to your Claude usage limit.\n\n")}},
		},
		{
			name: "a warning as text is a paragraph of its own",
			events: []claude.Event{
				claude.Text{Text: "Hello."},
				claude.RateLimit{Status: claude.RateLimitWarning},
				claude.Text{Text: "Bye."},
			},
			want: []acp.Update{
				acp.AgentMessageChunk{Content: text("Hello.")},
				acp.AgentMessageChunk{Content: text("\n\nYou are close to your Claude usage limit.\n\n")},
				acp.AgentMessageChunk{Content: text("Bye.")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &bridge.ClaudeTranslator{Notices: tt.notices}
			var got []acp.Update
			for _, ev := range tt.events {
				got = tr.Translate(got, ev, now)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTranslatorEnd(t *testing.T) {
	resetsAt := now.Add(time.Hour).UnixMilli()
	tests := []struct {
		name      string
		events    []claude.Event
		cancelled bool
		resumed   string
		exit      error
		want      acp.StopReason
		wantErr   *acp.Error
	}{
		{name: "success", events: []claude.Event{claude.Result{Subtype: "success"}}, want: acp.StopReasonEndTurn},
		{name: "refusal", events: []claude.Event{claude.Result{Subtype: "success", StopReason: "refusal"}}, want: acp.StopReasonRefusal},
		{name: "max turns", events: []claude.Event{claude.Result{Subtype: "error_max_turns", IsError: true}}, want: acp.StopReasonMaxTurnRequests},
		{name: "cancelled whatever the CLI says", cancelled: true,
			events: []claude.Event{claude.Result{Subtype: "error_during_execution", IsError: true}}, want: acp.StopReasonCancelled},
		{name: "usage limit", events: []claude.Event{
			claude.APIError{Kind: "rate_limit", Status: 429, Text: "You've hit your limit · resets 1pm (UTC)",
				RateLimit: &claude.RateLimit{Status: claude.RateLimitRejected, ResetsAt: resetsAt}},
			claude.Result{Subtype: "success", IsError: true, APIErrorStatus: 429},
		}, wantErr: acp.Errorf(acp.CodeInternalError, "You've hit your limit · resets 1pm (UTC)").
			WithData(bridge.ErrorData{Kind: bridge.KindRateLimit, ResetsAtMs: resetsAt, APIErrorStatus: 429})},
		{name: "usage limit in words only", events: []claude.Event{
			claude.APIError{Kind: "rate_limit", Text: "You've hit your limit · resets 1pm (UTC)"},
			claude.Result{Subtype: "success", IsError: true},
		}, wantErr: acp.Errorf(acp.CodeInternalError, "You've hit your limit · resets 1pm (UTC)").
			WithData(bridge.ErrorData{Kind: bridge.KindRateLimit, ResetsAtMs: resetsAt})},
		{name: "API error", events: []claude.Event{
			claude.APIError{Kind: "server_error", Status: 529, Text: "API Error: 529 Overloaded"},
			claude.Result{Subtype: "success", IsError: true, APIErrorStatus: 529, TerminalReason: "api_error"},
		}, wantErr: acp.Errorf(acp.CodeInternalError, "API Error: 529 Overloaded").
			WithData(bridge.ErrorData{Kind: bridge.KindAPIError, APIErrorStatus: 529})},
		{name: "resume of an unknown conversation", resumed: "abc",
			events: []claude.Event{claude.Result{Subtype: "error_during_execution", IsError: true, Errors: []string{"No conversation found with session ID: abc"}}},
			wantErr: acp.Errorf(acp.CodeResourceNotFound, "Claude Code has no conversation abc to resume").
				WithData(bridge.ErrorData{Kind: bridge.KindResumeNotFound, SessionID: "abc"})},
		{name: "crash", exit: errors.New("exit status 2"),
			wantErr: acp.Errorf(acp.CodeInternalError, "Claude Code exited without finishing the turn: exit status 2").
				WithData(bridge.ErrorData{Kind: bridge.KindCrash})},
		{name: "CLI failure", events: []claude.Event{claude.Result{Subtype: "error_during_execution", IsError: true, Errors: []string{"boom"}}},
			wantErr: acp.Errorf(acp.CodeInternalError, "boom").WithData(bridge.ErrorData{Kind: bridge.KindCLIError})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &bridge.ClaudeTranslator{Notices: true}
			for _, ev := range tt.events {
				tr.Translate(nil, ev, now)
			}
			res, err := tr.End(tt.cancelled, tt.resumed, tt.exit, now)
			if tt.wantErr != nil {
				var got *acp.Error
				if !errors.As(err, &got) {
					t.Fatalf("End: %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, got); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil || res.StopReason != tt.want {
				t.Errorf("End = %q, %v; want %q", res.StopReason, err, tt.want)
			}
			// The next turn starts afresh.
			if res, err := tr.End(false, "", nil, now); err == nil || res.StopReason != "" {
				t.Errorf("End of a turn without events = %q, %v; want a crash", res.StopReason, err)
			}
		})
	}
}

// TestToolKind checks the mapping of the CLI packages' tool kinds onto
// ACP's: every kind the three share has an ACP kind of the same name.
func TestToolKind(t *testing.T) {
	for _, k := range []claude.ToolKind{claude.ToolKindRead, claude.ToolKindEdit, claude.ToolKindDelete, claude.ToolKindMove,
		claude.ToolKindSearch, claude.ToolKindExecute, claude.ToolKindThink, claude.ToolKindFetch, claude.ToolKindSwitchMode, claude.ToolKindOther} {
		if got := bridge.ACPToolKind(k); string(got) != string(k) {
			t.Errorf("the ACP kind of %q is %q", k, got)
		}
	}
	if got := bridge.ACPToolKind(codex.ToolKind("teleport")); got != acp.ToolKindOther {
		t.Errorf("an unknown kind maps to %q, want other", got)
	}
}

// TestClaudeTranslatorUsed checks the used figure of each turn's
// usage_update: how full the context window is, the last model call's
// input (cache included) and output, never the run's sum over its calls.
func TestClaudeTranslatorUsed(t *testing.T) {
	msg := func(id string, fresh, write, read, out int) claude.Event {
		return claude.MessageUsage{MessageID: id, Usage: json.RawMessage(fmt.Sprintf(
			`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, fresh, write, read, out))}
	}
	delta := func(out int) claude.Event {
		return claude.MessageUsage{Usage: json.RawMessage(fmt.Sprintf(`{"output_tokens":%d}`, out))}
	}
	sub := func(id string, fresh int) claude.Event {
		return claude.MessageUsage{MessageID: id, ParentToolUseID: "toolu_task",
			Usage: json.RawMessage(fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}`, fresh))}
	}
	result := func(fresh, write, read, out int) claude.Event {
		return claude.Result{Subtype: "success", Usage: json.RawMessage(fmt.Sprintf(
			`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, fresh, write, read, out)),
			ModelUsage: json.RawMessage(`{"claude-sonnet-4-5":{"contextWindow":200000}}`)}
	}
	tests := []struct {
		name  string
		turns [][]claude.Event
		want  []uint64
	}{
		{
			// The real tool-use capture: two calls, their sum 43,510.
			name: "a run of two calls, then one of one",
			turns: [][]claude.Event{
				{msg("msg_1", 4337, 17346, 0, 1), msg("msg_2", 4357, 0, 17424, 1), result(8694, 17346, 17424, 46)},
				{msg("msg_3", 4565, 0, 18259, 1), result(4565, 0, 18259, 16)},
			},
			want: []uint64{4357 + 17424 + 1, 4565 + 18259 + 16},
		},
		{
			name: "streamed: a delta gives the last call's final output",
			turns: [][]claude.Event{{
				msg("msg_1", 4336, 17342, 0, 1), msg("msg_1", 4336, 17342, 0, 1), delta(30),
				msg("msg_2", 10, 0, 21708, 1), msg("msg_2", 10, 0, 21708, 1), delta(16),
				result(4346, 17342, 21708, 46),
			}},
			want: []uint64{10 + 21708 + 16},
		},
		{
			name: "a subagent's calls are not the session's context",
			turns: [][]claude.Event{{
				msg("msg_1", 4338, 17348, 0, 1), sub("msg_s1", 2443), sub("msg_s2", 9000),
				msg("msg_2", 4408, 0, 17629, 1), result(8746, 17348, 17629, 107),
			}},
			want: []uint64{4408 + 17629 + 1},
		},
		{
			name:  "one call: its output is the result's, the final count",
			turns: [][]claude.Event{{msg("msg_1", 4336, 17342, 0, 1), result(4336, 17342, 0, 16)}},
			want:  []uint64{4336 + 17342 + 16},
		},
		{
			name:  "one call seen, a result of more: the input is the call's",
			turns: [][]claude.Event{{msg("msg_1", 4337, 17346, 0, 1), result(8694, 17346, 17424, 46)}},
			want:  []uint64{4337 + 17346 + 46},
		},
		{
			name:  "no call's usage: the run's own",
			turns: [][]claude.Event{{result(100, 0, 200, 5)}},
			want:  []uint64{305},
		},
		{
			name: "a call whose usage is incomplete: the run's own",
			turns: [][]claude.Event{{
				msg("msg_1", 1, 2, 3, 4),
				claude.MessageUsage{MessageID: "msg_2", Usage: json.RawMessage(`{"output_tokens":9}`)},
				result(100, 0, 200, 5),
			}},
			want: []uint64{305},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr bridge.ClaudeTranslator
			var got []uint64
			for _, turn := range tt.turns {
				var updates []acp.Update
				for _, ev := range turn {
					updates = tr.Translate(updates, ev, now)
				}
				for _, u := range updates {
					if u, ok := u.(acp.UsageUpdate); ok {
						got = append(got, u.Used)
					}
				}
				if _, err := tr.End(false, "", nil, now); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("used by turn (-want +got):\n%s", diff)
			}
		})
	}
}
