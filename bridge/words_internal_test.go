package bridge

import (
	"errors"
	"fmt"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// TestMissingFile checks which of an editor's answers to fs/read_text_file
// say that the file does not exist, which Gemini CLI is told is empty:
// ACP's resource_not_found, or an error whose words say so, wrapped or
// not; nothing else.
func TestMissingFile(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"resource not found", acp.Errorf(acp.CodeResourceNotFound, "gone"), true},
		{"wrapped", fmt.Errorf("relay: %w", acp.Errorf(acp.CodeResourceNotFound, "gone")), true},
		{"no such file", acp.Errorf(acp.CodeInternalError, "open /a: No such file or directory"), true},
		{"ENOENT", acp.Errorf(acp.CodeInternalError, "ENOENT: open '/a'"), true},
		{"not found", acp.Errorf(acp.CodeInternalError, "File Not Found"), true},
		{"other error", acp.Errorf(acp.CodeInternalError, "permission denied"), false},
		{"not an ACP error", errors.New("no such file"), false},
		{"none", nil, false},
	}
	for _, tt := range tests {
		if got := missingFile(tt.err); got != tt.want {
			t.Errorf("%s: missingFile(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestGeminiContextUsed checks the tokens a Gemini CLI turn leaves in
// the context: its last model call's input and output, the turn's when
// no model is named, nothing when the _meta holds no quota.
func TestGeminiContextUsed(t *testing.T) {
	type result struct {
		Used uint64
		OK   bool
	}
	tests := []struct {
		name, meta string
		want       result
	}{
		{"last model", `{"quota":{"token_count":{"input_tokens":900,"output_tokens":90},"model_usage":[` +
			`{"model":"gemini-2.5-flash-lite","token_count":{"input_tokens":100,"output_tokens":10}},` +
			`{"model":"gemini-2.5-pro","token_count":{"input_tokens":800,"output_tokens":80}}]}}`, result{880, true}},
		{"no model", `{"quota":{"token_count":{"input_tokens":900,"output_tokens":90}}}`, result{990, true}},
		{"no quota", `{"other":1}`, result{}},
		{"no meta", ``, result{}},
	}
	for _, tt := range tests {
		used, ok := geminiDialect{}.contextUsed(acp.PromptResult{StopReason: acp.StopReasonEndTurn, Meta: []byte(tt.meta)})
		if diff := cmp.Diff(tt.want, result{used, ok}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestJoinAnswers checks that a multi-select question's answers are
// joined as Claude Code's own question UI joins them: with ", ", an
// answer that holds ", " or a quote written as a JSON string, so that
// the tool splits them back the same way.
func TestJoinAnswers(t *testing.T) {
	tests := []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"Red"}, "Red"},
		{[]string{"Red", "Blue"}, "Red, Blue"},
		{[]string{"Red, dark", "Blue"}, `"Red, dark", Blue`},
		{[]string{`Say "hi"`, "a,b"}, `"Say \"hi\"", a,b`},
	}
	for _, tt := range tests {
		if got := joinAnswers(tt.items); got != tt.want {
			t.Errorf("joinAnswers(%q) = %q, want %q", tt.items, got, tt.want)
		}
	}
}

// TestWindowLength checks the names of Codex's rate-limit windows, by
// their length in minutes.
func TestWindowLength(t *testing.T) {
	tests := []struct {
		minutes int64
		want    string
	}{
		{7 * 24 * 60, "weekly limit"},
		{2 * 24 * 60, "2-day limit"},
		{24 * 60, "1-day limit"},
		{5 * 60, "5-hour limit"},
		{90, "90-minute limit"},
		{0, "usage limit"},
		{-60, "usage limit"},
	}
	for _, tt := range tests {
		if got := windowLength(tt.minutes); got != tt.want {
			t.Errorf("windowLength(%d) = %q, want %q", tt.minutes, got, tt.want)
		}
	}
}

// TestWindowName checks the names of Claude Code's rate-limit windows,
// by their type; one the bridge does not know is named by its words.
func TestWindowName(t *testing.T) {
	tests := []struct{ typ, want string }{
		{"five_hour", "5-hour limit"},
		{"seven_day", "weekly limit"},
		{"seven_day_opus", "weekly Opus limit"},
		{"seven_day_sonnet", "weekly Sonnet limit"},
		{"overage", "extra usage limit"},
		{"", "usage limit"},
		{"thirty_day_haiku", "thirty day haiku limit"},
	}
	for _, tt := range tests {
		if got := windowName(tt.typ); got != tt.want {
			t.Errorf("windowName(%q) = %q, want %q", tt.typ, got, tt.want)
		}
	}
}

// TestAPIErrorText checks a Claude API error's notice: the CLI's words,
// else its HTTP status, else that it failed.
func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		e    claude.APIError
		want string
	}{
		{claude.APIError{Text: "API Error: 529 Overloaded", Status: 529}, "API Error: 529 Overloaded"},
		{claude.APIError{Status: 500}, "Claude API error (HTTP 500)"},
		{claude.APIError{}, "Claude API error"},
	}
	for _, tt := range tests {
		if got := apiErrorText(tt.e); got != tt.want {
			t.Errorf("apiErrorText(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
}
