package claude_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// stdValue is the oracle for repeated member names: it decodes line with
// encoding/json one level at a time, member names into a map (exact names,
// the last occurrence replacing earlier ones) and arrays into a slice, and
// returns the value at path as encoding/json decodes it into an any; nil
// when a step is absent or of another kind.
func stdValue(t *testing.T, line string, path ...any) any {
	t.Helper()
	raw := json.RawMessage(line)
	for _, step := range path {
		switch step := step.(type) {
		case string:
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return nil
			}
			v, ok := obj[step]
			if !ok {
				return nil
			}
			raw = v
		case int:
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) != nil || step >= len(arr) {
				return nil
			}
			raw = arr[step]
		default:
			t.Fatalf("bad path step %v", step)
		}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// from returns a reader of ParseLine's output: get applied to its first
// event of type T, nil when there is none.
func from[T claude.Event](get func(T) any) func([]claude.Event, []byte) any {
	return func(events []claude.Event, _ []byte) any {
		for _, e := range events {
			if v, ok := e.(T); ok {
				return get(v)
			}
		}
		return nil
	}
}

// lineType is the line type that ParseLine's events show it read.
func lineType(events []claude.Event, _ []byte) any {
	if len(events) == 0 {
		return nil
	}
	switch events[0].(type) {
	case claude.Heartbeat, claude.Retry, claude.PermissionDenied:
		return "system"
	case claude.Text, claude.Thinking, claude.ToolUse, claude.UnknownBlock, claude.APIError:
		return "assistant"
	case claude.ToolResult:
		return "user"
	case claude.PartialText, claude.PartialThinking, claude.PartialToolUse, claude.PartialToolInput:
		return "stream_event"
	case claude.RateLimit:
		return "rate_limit_event"
	case claude.Result:
		return "result"
	}
	return nil
}

// denial is the result's first permission denial; zero when it has none.
func denial(r claude.Result) claude.PermissionDenial {
	if len(r.PermissionDenials) == 0 {
		return claude.PermissionDenial{}
	}
	return r.PermissionDenials[0]
}

// decoded is raw decoded by encoding/json into an any; nil for nil.
func decoded(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestParseLineDuplicatesAgreeWithEncodingJSON checks that of a member name
// repeated at any level, ParseLine reads the occurrence encoding/json keeps:
// the last.
func TestParseLineDuplicatesAgreeWithEncodingJSON(t *testing.T) {
	const textBlocks = `{"type":"assistant","message":{"content":[{"type":"text","text":"a"}]},"message":{"content":[{"type":"text","text":"b"}]}}`
	const result = `{"type":"result","subtype":"error_during_execution","subtype":"success",` +
		`"is_error":true,"is_error":false,"result":"a","result":"b","num_turns":1,"num_turns":2,` +
		`"duration_ms":5,"duration_ms":7,"total_cost_usd":1,"total_cost_usd":0.5,` +
		`"errors":["a"],"errors":["b","c"],"usage":{"input_tokens":1},"usage":{"output_tokens":2},` +
		`"permission_denials":[{"tool_name":"Bash","tool_name":"Write","tool_input":{"a":1},"tool_input":{"b":2}}],` +
		`"terminal_reason":"a","terminal_reason":"completed","api_error_type":"a","api_error_type":"b","api_error":"a","api_error":"b",` +
		`"model_usage_since_last_result":{"m":{"inputTokens":1}},"model_usage_since_last_result":{"n":{"outputTokens":2}}}`
	const apiError = `{"type":"assistant","message":{"content":[]},"error":"rate_limit","api_error_status":500,"api_error_status":429,` +
		`"api_error":"a","api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"resetsAt":1}},` +
		`"api_error_params":{"rate_limit_info":{"resetsAt":1796054400},"rate_limit_info":{"resetsAt":1796054400,"resetsAt":1796400000}}}`
	tests := []struct {
		name string
		line string
		path []any
		got  func(events []claude.Event, sid []byte) any
	}{
		{"type", `{"type":"result","type":"system","subtype":"init"}`, []any{"type"}, lineType},
		{"type, other order", `{"type":"system","type":"result","subtype":"init"}`, []any{"type"}, lineType},
		{"system subtype", `{"type":"system","subtype":"init","subtype":"status"}`, []any{"subtype"},
			from(func(h claude.Heartbeat) any { return h.Subtype })},
		{"init model", `{"type":"system","subtype":"init","model":"a","model":"b"}`, []any{"model"},
			from(func(h claude.Heartbeat) any { return h.Model })},
		{"retry attempt", `{"type":"system","subtype":"api_retry","attempt":1,"attempt":2}`, []any{"attempt"},
			from(func(r claude.Retry) any { return float64(r.Attempt) })},
		{"session id", `{"type":"x","session_id":"one","session_id":"two"}`, []any{"session_id"},
			func(_ []claude.Event, sid []byte) any { return string(sid) }},
		{"parent tool use id", `{"type":"assistant","parent_tool_use_id":"p","parent_tool_use_id":"q","message":{"content":[{"type":"text","text":"a"}]}}`,
			[]any{"parent_tool_use_id"}, from(func(e claude.Text) any { return e.ParentToolUseID })},
		{"error, last null", `{"type":"assistant","error":"rate_limit","error":null,"message":{"content":[{"type":"text","text":"a"}]}}`,
			[]any{"error"}, from(func(e claude.APIError) any { return e.Kind })},
		{"message", textBlocks, []any{"message", "content", 0, "text"},
			from(func(e claude.Text) any { return e.Text })},
		{"message replaced whole", `{"type":"assistant","message":{"content":[{"type":"text","text":"a"}]},"message":{"id":"m"}}`,
			[]any{"message", "content"}, from(func(e claude.Text) any { return e.Text })},
		{"message content", `{"type":"assistant","message":{"content":[{"type":"text","text":"a"}],"content":[{"type":"text","text":"b"}]}}`,
			[]any{"message", "content", 0, "text"}, from(func(e claude.Text) any { return e.Text })},
		{"block type", `{"type":"assistant","message":{"content":[{"type":"thinking","type":"text","text":"a","thinking":"t"}]}}`,
			[]any{"message", "content", 0, "text"}, from(func(e claude.Text) any { return e.Text })},
		{"block text", `{"type":"assistant","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`,
			[]any{"message", "content", 0, "text"}, from(func(e claude.Text) any { return e.Text })},
		{"tool use input", `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","input":{"a":1},"input":{"b":2}}]}}`,
			[]any{"message", "content", 0, "input"}, func(ev []claude.Event, _ []byte) any {
				return from(func(e claude.ToolUse) any { return decoded(t, e.Input) })(ev, nil)
			}},
		{"tool result content", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"a","content":"b"}]}}`,
			[]any{"message", "content", 0, "content"}, from(func(e claude.ToolResult) any { return e.Text })},
		{"tool result id", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","tool_use_id":"u","content":"a"}]}}`,
			[]any{"message", "content", 0, "tool_use_id"}, from(func(e claude.ToolResult) any { return e.ToolUseID })},
		{"tool result text block", `{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"a","text":"b"}]}]}}`,
			[]any{"message", "content", 0, "content", 0, "text"}, from(func(e claude.ToolResult) any { return e.Text })},
		{"stream event type", `{"type":"stream_event","event":{"type":"message_stop","type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}}`,
			[]any{"event", "type"}, from(func(claude.PartialText) any { return "content_block_delta" })},
		{"stream event delta", `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"},"delta":{"type":"thinking_delta","thinking":"b"}}}`,
			[]any{"event", "delta", "thinking"}, from(func(e claude.PartialThinking) any { return e.Text })},
		{"stream event delta type", `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","type":"thinking_delta","text":"a","thinking":"b"}}}`,
			[]any{"event", "delta", "thinking"}, from(func(e claude.PartialThinking) any { return e.Text })},
		{"stream event delta text", `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a","text":"b"}}}`,
			[]any{"event", "delta", "text"}, from(func(e claude.PartialText) any { return e.Text })},
		{"result subtype", result, []any{"subtype"}, from(func(r claude.Result) any { return r.Subtype })},
		{"result is_error", result, []any{"is_error"}, from(func(r claude.Result) any { return r.IsError })},
		{"result text", result, []any{"result"}, from(func(r claude.Result) any { return r.Text })},
		{"result num_turns", result, []any{"num_turns"}, from(func(r claude.Result) any { return float64(r.NumTurns) })},
		{"result duration_ms", result, []any{"duration_ms"}, from(func(r claude.Result) any { return float64(r.Duration.Milliseconds()) })},
		{"result total_cost_usd", result, []any{"total_cost_usd"}, from(func(r claude.Result) any {
			f, _ := r.TotalCostUSD.Float64()
			return f
		})},
		{"result errors", result, []any{"errors"}, from(func(r claude.Result) any {
			var errs []any
			for _, e := range r.Errors {
				errs = append(errs, e)
			}
			return errs
		})},
		{"result terminal_reason", result, []any{"terminal_reason"}, from(func(r claude.Result) any { return r.TerminalReason })},
		{"result api_error_type", result, []any{"api_error_type"}, from(func(r claude.Result) any { return r.APIErrorType })},
		{"result api_error", result, []any{"api_error"}, from(func(r claude.Result) any { return r.APIErrorCode })},
		{"result run usage", result, []any{"model_usage_since_last_result"}, func(ev []claude.Event, _ []byte) any {
			return from(func(r claude.Result) any { return decoded(t, r.RunModelUsage) })(ev, nil)
		}},
		{"api error status", apiError, []any{"api_error_status"}, from(func(e claude.APIError) any { return float64(e.Status) })},
		{"api error code", apiError, []any{"api_error"}, from(func(e claude.APIError) any { return e.Code })},
		{"api error reset", apiError, []any{"api_error_params", "rate_limit_info", "resetsAt"},
			from(func(e claude.APIError) any { return float64(e.RateLimit.ResetsAt / 1000) })},
		{"timestamp", `{"type":"system","subtype":"status","timestamp":"2026-11-30T13:48:39Z","timestamp":"2026-11-30T13:48:40Z"}`, []any{"timestamp"},
			from(func(h claude.Heartbeat) any { return time.UnixMilli(h.Timestamp).UTC().Format(time.RFC3339) })},
		{"permission denied tool", `{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_name":"Write","message":"a","message":"b"}`,
			[]any{"tool_name"}, from(func(e claude.PermissionDenied) any { return e.ToolName })},
		{"partial tool input", `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"index":2,"delta":{"type":"input_json_delta","partial_json":"a","partial_json":"b"}}}`,
			[]any{"event", "delta", "partial_json"}, from(func(e claude.PartialToolInput) any { return e.JSON })},
		{"partial tool index", `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"index":2,"delta":{"type":"input_json_delta","partial_json":"a"}}}`,
			[]any{"event", "index"}, from(func(e claude.PartialToolInput) any { return float64(e.Index) })},
		{"result usage", result, []any{"usage"}, func(ev []claude.Event, _ []byte) any {
			return from(func(r claude.Result) any { return decoded(t, r.Usage) })(ev, nil)
		}},
		{"permission denial name", result, []any{"permission_denials", 0, "tool_name"},
			from(func(r claude.Result) any { return denial(r).ToolName })},
		{"permission denial input", result, []any{"permission_denials", 0, "tool_input"}, func(ev []claude.Event, _ []byte) any {
			return from(func(r claude.Result) any { return decoded(t, denial(r).Input) })(ev, nil)
		}},
		{"rate limit info", `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected"},"rate_limit_info":{"status":"allowed"}}`,
			[]any{"rate_limit_info", "status"}, from(func(r claude.RateLimit) any { return string(r.Status) })},
		{"rate limit status", `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","status":"allowed"}}`,
			[]any{"rate_limit_info", "status"}, from(func(r claude.RateLimit) any { return string(r.Status) })},
		{"rate limit resetsAt", `{"type":"rate_limit_event","rate_limit_info":{"resetsAt":1,"resetsAt":1778598000}}`,
			[]any{"rate_limit_info", "resetsAt"}, from(func(r claude.RateLimit) any { return float64(r.ResetsAt / 1000) })},
		{"rate limit utilization", `{"type":"rate_limit_event","rate_limit_info":{"utilization":0.5,"utilization":0.75}}`,
			[]any{"rate_limit_info", "utilization"}, from(func(r claude.RateLimit) any { return *r.Utilization })},
		{"rate limit window", `{"type":"rate_limit_event","rate_limit_info":{"unifiedWindows":{"five_hour":{"utilization":0.5},"seven_day":{},"five_hour":{"utilization":0.75,"utilization":0.8}}}}`,
			[]any{"rate_limit_info", "unifiedWindows", "five_hour", "utilization"}, from(func(r claude.RateLimit) any {
				if len(r.Windows) != 2 || r.Windows[0].Name != "five_hour" {
					return r.Windows
				}
				return *r.Windows[0].Utilization
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !json.Valid([]byte(tt.line)) {
				t.Fatal("test line is not valid JSON")
			}
			want := stdValue(t, tt.line, tt.path...)
			events, sid, err := claude.ParseLine([]byte(tt.line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, tt.got(events, sid)); diff != "" {
				t.Errorf("value at %v (-encoding/json +ParseLine):\n%s", tt.path, diff)
			}
		})
	}
}
