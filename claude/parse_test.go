package claude_test

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    []claude.Event
		session string
	}{
		{name: "blank", line: ""},
		{name: "white space", line: " \t\r\n"},
		{name: "empty object", line: "{}"},
		{name: "unknown type", line: `{"type":"something_new","session_id":"s1"}`, session: "s1"},
		{name: "type not a string", line: `{"type":["assistant"]}`},
		{name: "empty session id is none", line: `{"type":"x","session_id":""}`},
		{name: "session id not a string", line: `{"type":"x","session_id":42}`},
		{
			name:    "init",
			line:    `{"type":"system","subtype":"init","model":"claude-opus-4-1","session_id":"s1","tools":["Bash"]}`,
			want:    []claude.Event{claude.Heartbeat{Subtype: "init", Model: "claude-opus-4-1"}},
			session: "s1",
		},
		{
			name: "system without subtype",
			line: `{"type":"system"}`,
			want: []claude.Event{claude.Heartbeat{}},
		},
		{
			name: "api retry with missing fields",
			line: `{"type":"system","subtype":"api_retry","attempt":3,"retry_delay_ms":"soon"}`,
			want: []claude.Event{claude.Retry{Attempt: 3}},
		},
		{
			name: "permission denied",
			line: `{"type":"system","subtype":"permission_denied","tool_name":"Write","tool_use_id":"toolu_01","message":"Claude requested permissions to write to /etc/hosts, but you haven't granted it yet.","parent_tool_use_id":null,"timestamp":"2026-11-30T13:48:39.975Z"}`,
			want: []claude.Event{claude.PermissionDenied{
				ToolName: "Write", ToolUseID: "toolu_01", Timestamp: 1796046519975,
				Message: "Claude requested permissions to write to /etc/hosts, but you haven't granted it yet.",
			}},
		},
		{
			name: "permission denied with nothing else",
			line: `{"type":"system","subtype":"permission_denied","message":{"not":"a string"}}`,
			want: []claude.Event{claude.PermissionDenied{}},
		},
		{
			name: "escaped session id is unescaped",
			line: `{"type":"x","session_id":"a\u002db"}`, session: "a-b",
		},
		{
			name: "duplicate keys keep the last",
			line: `{"type":"result","type":"system","subtype":"init","subtype":"status","session_id":"one","session_id":"two"}`,
			want: []claude.Event{claude.Heartbeat{Subtype: "status"}}, session: "two",
		},
		{
			name: "duplicate session id whose last is not a string is none",
			line: `{"type":"x","session_id":"one","session_id":7}`,
		},
		{
			name: "several blocks in order",
			line: `{"type":"assistant","message":{"content":[` +
				`{"type":"thinking","thinking":"hmm","signature":"x"},` +
				`{"type":"text","text":"a"},` +
				`{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/x"}},` +
				`{"type":"text","text":"b \"quoted\" \u00e9"}]}}`,
			want: []claude.Event{
				claude.Thinking{Text: "hmm"},
				claude.Text{Text: "a"},
				claude.ToolUse{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)},
				claude.Text{Text: `b "quoted" é`},
			},
		},
		{
			name: "timestamp in epoch milliseconds",
			line: `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"timestamp":"2026-11-30T13:48:39.975Z"}`,
			want: []claude.Event{claude.ToolResult{ToolUseID: "t1", Text: "ok", Timestamp: 1796046519975}},
		},
		{
			name: "timestamp with an offset, last of two",
			line: `{"type":"system","subtype":"status","timestamp":"bogus","timestamp":"2026-11-30T14:48:39+01:00"}`,
			want: []claude.Event{claude.Heartbeat{Subtype: "status", Timestamp: 1796046519000}},
		},
		{
			name: "unreadable timestamps are absent",
			line: `{"type":"assistant","message":{"content":[{"type":"text","text":"a"}]},"timestamp":"yesterday"}`,
			want: []claude.Event{claude.Text{Text: "a"}},
		},
		{
			name: "numeric timestamp, read as an epoch",
			line: `{"type":"system","subtype":"status","timestamp":1796046519.975}`,
			want: []claude.Event{claude.Heartbeat{Subtype: "status", Timestamp: 1796046519975}},
		},
		{
			name: "a message's usage follows its blocks",
			line: `{"type":"assistant","message":{"id":"msg_01","content":[{"type":"text","text":"a"}],` +
				`"usage":{"input_tokens":4357,"cache_creation_input_tokens":0,"cache_read_input_tokens":17424,"output_tokens":1}},"timestamp":"2026-11-30T13:48:39.975Z"}`,
			want: []claude.Event{
				claude.Text{Text: "a", Timestamp: 1796046519975},
				claude.MessageUsage{MessageID: "msg_01", Timestamp: 1796046519975,
					Usage: json.RawMessage(`{"input_tokens":4357,"cache_creation_input_tokens":0,"cache_read_input_tokens":17424,"output_tokens":1}`)},
			},
		},
		{
			name: "a subagent's usage carries its parent",
			line: `{"type":"assistant","message":{"id":"msg_02","content":[],"usage":{"input_tokens":1}},"parent_tool_use_id":"toolu_task"}`,
			want: []claude.Event{claude.MessageUsage{MessageID: "msg_02", Usage: json.RawMessage(`{"input_tokens":1}`), ParentToolUseID: "toolu_task"}},
		},
		{
			name: "usage without content or id",
			line: `{"type":"assistant","message":{"content":"text","usage":{}}}`,
			want: []claude.Event{claude.MessageUsage{Usage: json.RawMessage(`{}`)}},
		},
		{
			name: "usage not an object",
			line: `{"type":"assistant","message":{"id":"msg_03","content":[],"usage":[1]}}`,
		},
		{
			name: "an api error has no usage",
			line: `{"type":"assistant","message":{"id":"6f0c","model":"<synthetic>","content":[{"type":"text","text":"API Error: 529"}],"usage":{"input_tokens":0,"output_tokens":0}},"error":"server_error"}`,
			want: []claude.Event{claude.APIError{Kind: "server_error", Text: "API Error: 529"}},
		},
		{
			name: "usage at a message's start",
			line: `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_04","content":[],"usage":{"input_tokens":4336,"output_tokens":1}}},"parent_tool_use_id":null}`,
			want: []claude.Event{claude.MessageUsage{MessageID: "msg_04", Usage: json.RawMessage(`{"input_tokens":4336,"output_tokens":1}`)}},
		},
		{
			name: "usage at a message's end names no message",
			line: `{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":16}},"parent_tool_use_id":"p"}`,
			want: []claude.Event{claude.MessageUsage{Usage: json.RawMessage(`{"output_tokens":16}`), ParentToolUseID: "p"}},
		},
		{
			name: "a message's start without usage",
			line: `{"type":"stream_event","event":{"type":"message_start","message":"msg_05"}}`,
		},
		{
			name: "subagent lines carry their parent",
			line: `{"type":"assistant","message":{"content":[{"type":"text","text":"sub"}]},"parent_tool_use_id":"toolu_task"}`,
			want: []claude.Event{claude.Text{Text: "sub", ParentToolUseID: "toolu_task"}},
		},
		{
			name: "api error is not text",
			line: `{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your limit · resets 3pm"}]},"error":"rate_limit"}`,
			want: []claude.Event{claude.APIError{Kind: "rate_limit", Text: "You've hit your limit · resets 3pm"}},
		},
		{
			name: "api error with its structure",
			line: `{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your 5-hour limit · resets 4pm (UTC)"}]},` +
				`"timestamp":"2026-11-30T13:48:45.722Z","error":"rate_limit","is_api_error_message":true,"api_error_status":429,"api_error":"usage_limit_reached",` +
				`"api_error_params":{"rate_limit_info":{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour","isUsingOverage":false}},"api_error_type":"rate_limit_error"}`,
			want: []claude.Event{claude.APIError{
				Kind: "rate_limit", Status: 429, Type: "rate_limit_error", Code: "usage_limit_reached",
				RateLimit: &claude.RateLimit{
					Status: claude.RateLimitRejected, Type: "five_hour", ResetsAt: 1796054400000, Timestamp: 1796046525722,
					Raw: json.RawMessage(`{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour","isUsingOverage":false}`),
				},
				Text: "You've hit your 5-hour limit · resets 4pm (UTC)", Timestamp: 1796046525722,
			}},
		},
		{
			name: "api error params without a rate limit",
			line: `{"type":"assistant","message":{"content":[]},"error":"server_error","api_error_status":529,"api_error_type":"overloaded_error","api_error_params":{"rate_limit_info":null}}`,
			want: []claude.Event{claude.APIError{Kind: "server_error", Status: 529, Type: "overloaded_error"}},
		},
		{
			name: "api error with several text blocks",
			line: `{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]},"error":"unknown"}`,
			want: []claude.Event{claude.APIError{Kind: "unknown", Text: "a\nb"}},
		},
		{
			name: "error kind that is not a string is kept as JSON",
			line: `{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]},"error":{"code":7}}`,
			want: []claude.Event{claude.APIError{Kind: `{"code":7}`, Text: "x"}},
		},
		{
			name: "null error is no error",
			line: `{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"error":null}`,
			want: []claude.Event{claude.Text{Text: "hi"}},
		},
		{
			name: "unknown block kept raw",
			line: `{"type":"assistant","message":{"content":[{"type":"redacted_thinking","data":"xyz"},42]}}`,
			want: []claude.Event{claude.UnknownBlock{Type: "redacted_thinking", Raw: json.RawMessage(`{"type":"redacted_thinking","data":"xyz"}`)}},
		},
		{
			name: "content not an array",
			line: `{"type":"assistant","message":{"content":{"type":"text","text":"hi"}}}`,
		},
		{
			name: "tool results",
			line: `{"type":"user","message":{"content":[` +
				`{"type":"tool_result","tool_use_id":"t1","content":"ok"},` +
				`{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"x"},{"type":"image","source":{}},{"type":"text","text":"y"}],"is_error":true},` +
				`{"type":"tool_result","tool_use_id":"t3"},` +
				`{"type":"text","text":"not a result"}]}}`,
			want: []claude.Event{
				claude.ToolResult{ToolUseID: "t1", Text: "ok"},
				claude.ToolResult{ToolUseID: "t2", IsError: true, Text: "x\ny"},
				claude.ToolResult{ToolUseID: "t3"},
			},
		},
		{
			name: "user prompt as a string",
			line: `{"type":"user","message":{"role":"user","content":"hello"}}`,
		},
		{
			name: "partial text and thinking",
			line: `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"He"}},"parent_tool_use_id":"p"}`,
			want: []claude.Event{claude.PartialText{Text: "He", ParentToolUseID: "p"}},
		},
		{
			name: "partial thinking",
			line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"Hm"}}}`,
			want: []claude.Event{claude.PartialThinking{Text: "Hm"}},
		},
		{
			name: "tool call start",
			line: `{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"Bash","input":{}}},"parent_tool_use_id":"p"}`,
			want: []claude.Event{claude.PartialToolUse{Index: 1, ID: "toolu_01", Name: "Bash", ParentToolUseID: "p"}},
		},
		{
			name: "tool input piece",
			line: `{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"go t"}}}`,
			want: []claude.Event{claude.PartialToolInput{Index: 1, JSON: `{"command": "go t`}},
		},
		{
			name: "tool input without an index",
			line: `{"type":"stream_event","event":{"type":"content_block_delta","index":1.5,"delta":{"type":"input_json_delta","partial_json":""}}}`,
			want: []claude.Event{claude.PartialToolInput{Index: -1}},
		},
		{
			name: "text block start is no event",
			line: `{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}`,
		},
		{
			name: "other stream events",
			line: `{"type":"stream_event","event":{"type":"message_stop"}}`,
		},
		{
			name: "rate limit",
			line: `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1778598000,"rateLimitType":"five_hour","utilization":0}}`,
			want: []claude.Event{claude.RateLimit{
				Status: claude.RateLimitRejected, Type: "five_hour", Utilization: ptr(0.0), ResetsAt: 1778598000000,
				Raw: json.RawMessage(`{"status":"rejected","resetsAt":1778598000,"rateLimitType":"five_hour","utilization":0}`),
			}},
		},
		{
			name: "rate limit windows and overage",
			line: `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1796054400,"rateLimitType":"five_hour","utilization":0.92,` +
				`"overageStatus":"rejected","isUsingOverage":false,"unifiedWindows":{` +
				`"seven_day":{"utilization":0.41,"resetsAt":1796400000,"status":"allowed"},` +
				`"five_hour":{"utilization":0.92,"resetsAt":"2026-11-30T16:00:00Z","status":"allowed_warning","surpassedThreshold":0.9},` +
				`"overage":{},"junk":7}}}`,
			want: []claude.Event{claude.RateLimit{
				Status: claude.RateLimitWarning, Type: "five_hour", Utilization: ptr(0.92), ResetsAt: 1796054400000,
				OverageStatus: claude.RateLimitRejected,
				Windows: []claude.RateLimitWindow{
					{Name: "five_hour", Status: claude.RateLimitWarning, Utilization: ptr(0.92), ResetsAt: 1796054400000},
					{Name: "overage"},
					{Name: "seven_day", Status: claude.RateLimitAllowed, Utilization: ptr(0.41), ResetsAt: 1796400000000},
				},
				Raw: json.RawMessage(`{"status":"allowed_warning","resetsAt":1796054400,"rateLimitType":"five_hour","utilization":0.92,` +
					`"overageStatus":"rejected","isUsingOverage":false,"unifiedWindows":{` +
					`"seven_day":{"utilization":0.41,"resetsAt":1796400000,"status":"allowed"},` +
					`"five_hour":{"utilization":0.92,"resetsAt":"2026-11-30T16:00:00Z","status":"allowed_warning","surpassedThreshold":0.9},` +
					`"overage":{},"junk":7}}`),
			}},
		},
		{
			name: "using overage, windows not an object",
			line: `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","isUsingOverage":true,"overageStatus":"allowed","unifiedWindows":[]}}`,
			want: []claude.Event{claude.RateLimit{
				Status: claude.RateLimitAllowed, UsingOverage: true, OverageStatus: claude.RateLimitAllowed,
				Raw: json.RawMessage(`{"status":"allowed","isUsingOverage":true,"overageStatus":"allowed","unifiedWindows":[]}`),
			}},
		},
		{
			name: "result without text",
			line: `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":7,"duration_ms":1234,"total_cost_usd":0.5,"usage":null,"errors":["a",{"b":1}]}`,
			want: []claude.Event{claude.Result{
				Subtype: "error_max_turns", IsError: true, NumTurns: 7, Duration: 1234 * time.Millisecond,
				TotalCostUSD: "0.5", Errors: []string{"a", `{"b":1}`},
			}},
		},
		{
			name: "result with permission denials",
			line: `{"type":"result","subtype":"success","result":"Could not write the file.","permission_denials":[` +
				`{"tool_name":"Write","tool_use_id":"toolu_1","tool_input":{"file_path":"/etc/x","content":"y"}},` +
				`"junk",{"tool_name":"Bash","tool_use_id":"toolu_2"}]}`,
			want: []claude.Event{claude.Result{
				Subtype: "success", Text: "Could not write the file.",
				PermissionDenials: []claude.PermissionDenial{
					{ToolName: "Write", ToolUseID: "toolu_1", Input: json.RawMessage(`{"file_path":"/etc/x","content":"y"}`)},
					{ToolName: "Bash", ToolUseID: "toolu_2"},
				},
			}},
		},
		{
			name: "result of an api error",
			line: `{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":429,"api_error_type":"rate_limit_error","api_error":"usage_limit_reached","result":"x"}`,
			want: []claude.Event{claude.Result{
				Subtype: "success", IsError: true, Text: "x", TerminalReason: "api_error",
				APIErrorStatus: 429, APIErrorType: "rate_limit_error", APIErrorCode: "usage_limit_reached",
			}},
		},
		{
			name: "result cost kept as sent",
			line: `{"type":"result","subtype":"success","total_cost_usd":1.250E-2}`,
			want: []claude.Event{claude.Result{Subtype: "success", TotalCostUSD: "1.250E-2"}},
		},
		{
			name: "result cost not a number",
			line: `{"type":"result","subtype":"success","total_cost_usd":"0.5"}`,
			want: []claude.Event{claude.Result{Subtype: "success"}},
		},
		{
			name: "result with absurd numbers",
			line: `{"type":"result","subtype":"success","duration_ms":1e300,"duration_api_ms":-5,"num_turns":"3","api_error_status":429.9}`,
			want: []claude.Event{claude.Result{Subtype: "success", Duration: time.Duration(1<<63 - 1), APIErrorStatus: 429}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prior := []claude.Event{claude.Heartbeat{Subtype: "before"}}
			got, sid, err := claude.ParseLine([]byte(tt.line), prior)
			if err != nil {
				t.Fatalf("ParseLine: %v", err)
			}
			want := append([]claude.Event{claude.Heartbeat{Subtype: "before"}}, tt.want...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.session, string(sid)); diff != "" {
				t.Errorf("session id mismatch (-want +got):\n%s", diff)
			}
			if tt.session == "" && sid != nil {
				t.Errorf("session id = %q, want nil", sid)
			}
		})
	}
}

func TestParserReportUnknown(t *testing.T) {
	tests := []struct {
		line string
		want []claude.Event // from Parser{ReportUnknown: true}
	}{
		{`{"type":"keep_alive"}`, []claude.Event{claude.Unknown{Type: "keep_alive"}}},
		{`{"type":"control_request","subtype":"x","timestamp":"2026-11-30T13:48:39.975Z"}`,
			[]claude.Event{claude.Unknown{Type: "control_request", Subtype: "x", Timestamp: 1796046519975}}},
		{`{"type":42}`, []claude.Event{claude.Unknown{}}},
		{`{}`, []claude.Event{claude.Unknown{}}},
		{`{"type":"system","subtype":"some_future_subtype"}`, []claude.Event{claude.Unknown{Type: "system", Subtype: "some_future_subtype"}}},
		{`{"type":"system"}`, []claude.Event{claude.Unknown{Type: "system"}}},
		{`{"type":"system","subtype":"hook_started"}`, []claude.Event{claude.Heartbeat{Subtype: "hook_started"}}},
		{`{"type":"system","subtype":"status"}`, []claude.Event{claude.Heartbeat{Subtype: "status"}}},
		{`{"type":"stream_event","event":{"type":"message_stop"}}`, nil},
		{`{"type":"user","message":{"content":"a prompt"}}`, nil},
		{"  ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, _, err := claude.Parser{ReportUnknown: true}.ParseLine([]byte(tt.line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			// Turn.ReportUnknown asks for the same.
			turn := &claude.Turn{ReportUnknown: true}
			fed, err := turn.Feed([]byte(tt.line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, fed); diff != "" {
				t.Errorf("Turn.Feed events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLineSyntaxError(t *testing.T) {
	tests := []struct {
		line       string
		wantLength int
		wantOffset int
	}{
		{"not json", 8, 1},
		{`{"type":"assistant","message":{"con`, 35, 35},
		{`{"type":"assistant"}{"type":"user"}`, 35, 20},
		{`{"a":01}`, 8, 6},
		{`{"a":"\x"}`, 10, 7},
		{"{\"a\":\"tab\there\"}", 16, 9},
		{`  {"a":tru}  `, 9, 8},
		{`{"a" 1}`, 7, 5},
		{`{"a":[1 2]}`, 11, 8},
		{`{"a":1,}`, 8, 7},
		{`{"a":-}`, 7, 6},
		{`{"a":1.}`, 8, 7},
		{`{"a":1e}`, 8, 7},
		{`{"a":"\u12g4"}`, 14, 10},
		{`[1,2]`, 5, 0},
		{`"text"`, 6, 0},
		{`42`, 2, 0},
		{`null`, 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			prior := []claude.Event{claude.Heartbeat{}}
			got, sid, err := claude.ParseLine([]byte(tt.line), prior)
			var se *claude.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseLine(%q) error = %v, want a *SyntaxError", tt.line, err)
			}
			if diff := cmp.Diff([2]int{tt.wantLength, tt.wantOffset}, [2]int{se.Length, se.Offset}); diff != "" {
				t.Errorf("[Length Offset] mismatch (-want +got):\n%s", diff)
			}
			if len(got) != 1 || sid != nil {
				t.Errorf("ParseLine changed its output on error: %d events, session %q", len(got), sid)
			}
		})
	}
}

// TestSyntaxErrorHidesContent checks that no part of a bad line, which may
// hold a secret, reaches the error text.
func TestSyntaxErrorHidesContent(t *testing.T) {
	secret := "sk-ant-api03-SECRETSECRET"
	for _, line := range []string{
		"export ANTHROPIC_API_KEY=" + secret,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"` + secret,
		`"` + secret + `"`,
	} {
		_, _, err := claude.ParseLine([]byte(line), nil)
		if err == nil {
			t.Fatalf("ParseLine(%q) succeeded", line)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("error %q echoes the line", err)
		}
	}
}

// TestParseLineCopies checks that events do not alias the line, which
// callers reuse.
func TestParseLineCopies(t *testing.T) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"hello"},{"type":"tool_use","id":"t","name":"Bash","input":{"c":1}}]},"parent_tool_use_id":"p","session_id":"s"}`)
	events, _, err := claude.ParseLine(line, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range line {
		line[i] = 'X'
	}
	result := []byte(`{"type":"result","subtype":"success","total_cost_usd":0.0512}`)
	events, _, err = claude.ParseLine(result, events)
	if err != nil {
		t.Fatal(err)
	}
	for i := range result {
		result[i] = '9'
	}
	want := []claude.Event{
		claude.Text{Text: "hello", ParentToolUseID: "p"},
		claude.ToolUse{ID: "t", Name: "Bash", Input: json.RawMessage(`{"c":1}`), ParentToolUseID: "p"},
		claude.Result{Subtype: "success", TotalCostUSD: "0.0512"},
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events changed with the line (-want +got):\n%s", diff)
	}
}

// TestResultUsageCopies checks that the three usage members, which share
// one backing array, cannot overwrite each other.
func TestResultUsageCopies(t *testing.T) {
	line := `{"type":"result","usage":{"a":1},"modelUsage":{"b":2},"model_usage_since_last_result":{"c":3}}`
	events, _, err := claude.ParseLine([]byte(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := events[0].(claude.Result)
	_ = append(r.Usage, "XXXX"...)
	_ = append(r.ModelUsage, "YYYY"...)
	got := []string{string(r.Usage), string(r.ModelUsage), string(r.RunModelUsage)}
	if diff := cmp.Diff([]string{`{"a":1}`, `{"b":2}`, `{"c":3}`}, got); diff != "" {
		t.Errorf("[Usage ModelUsage RunModelUsage] after appends (-want +got):\n%s", diff)
	}
}

func TestResultHelpers(t *testing.T) {
	tests := []struct {
		name               string
		r                  claude.Result
		failed, resumeGone bool
	}{
		{"success", claude.Result{Subtype: "success"}, false, false},
		{"usage limit", claude.Result{Subtype: "success", IsError: true}, true, false},
		{"max turns", claude.Result{Subtype: "error_max_turns", IsError: true}, true, false},
		{"resume gone", claude.Result{Subtype: "error_during_execution", IsError: true, Errors: []string{"No conversation found with session ID: x"}}, true, true},
		{"resume gone in text", claude.Result{Subtype: "error_during_execution", Text: "No conversation found with session ID: x"}, true, true},
		{"other execution error", claude.Result{Subtype: "error_during_execution", Errors: []string{"boom"}}, true, false},
		{"wording on success", claude.Result{Subtype: "success", Text: "No conversation found with session ID: x"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := [2]bool{tt.r.Failed(), tt.r.ResumeNotFound()}
			if diff := cmp.Diff([2]bool{tt.failed, tt.resumeGone}, got); diff != "" {
				t.Errorf("[Failed ResumeNotFound] mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if !(claude.RateLimit{Status: claude.RateLimitRejected}).Blocked() || (claude.RateLimit{Status: claude.RateLimitWarning}).Blocked() {
		t.Error("Blocked must be true for rejected only")
	}
}

func TestParseLineDeepNesting(t *testing.T) {
	tests := []struct {
		name   string
		depth  int
		closed bool
		offset int // -1: no error
	}{
		{"shallow", 100, true, -1},
		{"at the limit", 9999, true, -1}, // the object itself is level one
		{"over the limit", 10000, true, 10004},
		{"ten million, unclosed", 10_000_000, false, 10004},
		{"ten million, closed", 10_000_000, true, 10004},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := []byte(`{"a":` + strings.Repeat("[", tt.depth))
			if tt.closed {
				line = append(line, strings.Repeat("]", tt.depth)+"}"...)
			}
			_, _, err := claude.ParseLine(line, nil)
			var se *claude.SyntaxError
			switch {
			case tt.offset < 0 && err != nil:
				t.Fatalf("ParseLine: %v", err)
			case tt.offset >= 0 && !errors.As(err, &se):
				t.Fatalf("ParseLine error = %v, want a *SyntaxError", err)
			case tt.offset >= 0 && se.Offset != tt.offset:
				t.Errorf("Offset = %d, want %d", se.Offset, tt.offset)
			}
		})
	}
	// Brackets inside strings do not count.
	line := []byte(`{"a":"` + strings.Repeat("[", 20000) + `\"{"}`)
	if _, _, err := claude.ParseLine(line, nil); err != nil {
		t.Errorf("brackets in a string: %v", err)
	}
}

// TestEventsOutliveTheLine checks, for every line of every transcript, that
// the events stay as they were after the line's buffer is overwritten:
// no string or raw JSON in them aliases the line.
func TestEventsOutliveTheLine(t *testing.T) {
	for _, path := range parsetest.Transcripts(t, "testdata") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for n, text := range strings.Split(string(data), "\n") {
			want, _, _ := claude.ParseLine([]byte(text), nil)
			line := []byte(text)
			got, _, _ := claude.ParseLine(line, nil)
			for i := range line {
				line[i] = 'X'
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s:%d: events changed with the line (-want +got):\n%s", path, n+1, diff)
			}
		}
	}
}

// TestParseLineEventAllocs checks the promise that an emitted event costs
// at most a few small allocations: the event itself and copies of its
// strings and raw JSON: at most 4, or 5 for a Result (its text, its cost,
// and its three usage members, which share one copy). Run with -v to see
// each event's count.
func TestParseLineEventAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, line := range []string{
		`{"type":"system","subtype":"init","model":"claude-sonnet-4-5-20250929","session_id":"s"}`,
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":529,"error":"overloaded","session_id":"s"}`,
		`{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"toolu_01","message":"Permission to use Bash has been denied.","session_id":"s"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Looking at the retry loop now."}]},"session_id":"s","timestamp":"2026-11-30T13:48:39.284Z"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"/a.go"}}]},"session_id":"s"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"You've hit your 5-hour limit · resets 4pm (UTC)"}]},"session_id":"s","timestamp":"2026-11-30T13:48:45.722Z","error":"rate_limit","api_error_status":429,"api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"status":"rejected","resetsAt":1796054400,"rateLimitType":"five_hour","overageStatus":"rejected","isUsingOverage":false}},"api_error_type":"rate_limit_error"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"package a\n"}]},"session_id":"s"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"He"}},"session_id":"s"}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"Bash","input":{}}},"session_id":"s"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"go t"}},"session_id":"s"}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1778598000,"rateLimitType":"five_hour"},"session_id":"s"}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1796054400,"rateLimitType":"five_hour","utilization":0.92,"overageStatus":"rejected","overageDisabledReason":"org_level_disabled","isUsingOverage":false,"surpassedThreshold":0.9,"unifiedWindows":{"five_hour":{"utilization":0.92,"resetsAt":1796054400,"status":"allowed_warning","surpassedThreshold":0.9},"seven_day":{"utilization":0.41,"resetsAt":1796400000,"status":"allowed"}}},"session_id":"s"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Done.","num_turns":1,"total_cost_usd":0.0123,"usage":{"input_tokens":1},"modelUsage":{},"session_id":"s"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Done.","num_turns":1,"total_cost_usd":0.0967893,"usage":{"input_tokens":4350,"output_tokens":16},` +
			`"modelUsage":{"claude-sonnet-4-5":{"inputTokens":8686,"outputTokens":32,"costUSD":0.0967893}},"terminal_reason":"completed","api_error_status":null,` +
			`"model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":4350,"outputTokens":16,"costUSD":0.0185088}},"session_id":"s"}`,
	} {
		b := []byte(line)
		events := make([]claude.Event, 0, 4)
		allocs := testing.AllocsPerRun(100, func() {
			events, _, _ = claude.ParseLine(b, events[:0])
		})
		if len(events) != 1 {
			t.Fatalf("%s: %d events, want 1", line, len(events))
		}
		most := 4.0
		if _, ok := events[0].(claude.Result); ok {
			most = 5
		}
		if allocs > most {
			t.Errorf("%T event costs %v allocations, want at most %v", events[0], allocs, most)
		}
		t.Logf("%T: %v allocations", events[0], allocs)
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// TestTerminalCommands checks that the terminal-only slash commands are
// read from an init line of the real CLI 2.1.328, and from no other.
func TestTerminalCommands(t *testing.T) {
	tests := []struct {
		line string
		want []string
		ok   bool
	}{
		{`{"type":"system","subtype":"init","session_id":"s","terminal_slash_commands":["doctor","color","focus","reload-plugins"],"model":"m"}`, []string{"doctor", "color", "focus", "reload-plugins"}, true},
		{`{"type":"system","subtype":"init","terminal_slash_commands":[]}`, []string{}, true},
		{`{"type":"system","subtype":"init","terminal_slash_commands":["ok",3,""]}`, []string{"ok"}, true},
		{`{"type":"system","subtype":"init"}`, nil, false},
		{`{"type":"system","subtype":"status","terminal_slash_commands":["doctor"]}`, nil, false},
		{`not json`, nil, false},
	}
	for _, tt := range tests {
		got, ok := claude.TerminalCommands([]byte(tt.line))
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("TerminalCommands(%s) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
