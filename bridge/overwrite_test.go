package bridge_test

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// TestTranslateOverwrite checks the final diff of a Write, whose input
// cannot say whether the file existed: its result can.
func TestTranslateOverwrite(t *testing.T) {
	const path = "/w/notes.txt"
	write := claude.ToolUse{ID: "t1", Name: "Write", Input: json.RawMessage(`{"file_path":"/w/notes.txt","content":"one\n"}`)}
	// Shaped as the CLI's results: testdata/store/tools (a created file)
	// in ../claude, from ../shared/captures/claude/store/tools/r1.jsonl.
	created := &claude.FileChange{Path: path, Type: "create", Content: ptr("one\n"), Hunks: []claude.Hunk{}}
	updated := &claude.FileChange{Path: path, Type: "update", Original: ptr("alpha\n"), Content: ptr("one\n"),
		Hunks: []claude.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-alpha", "+one"}}}}
	result := func(c *claude.FileChange, isErr bool) claude.ToolResult {
		return claude.ToolResult{ToolUseID: "t1", IsError: isErr, Text: "done", FileChange: c}
	}
	done := acp.ToolCallContentBlock{Content: acp.TextContent{Text: "done"}}
	tests := []struct {
		name   string
		use    claude.ToolUse
		result claude.ToolResult
		want   []acp.ToolCallContent
	}{
		{name: "overwrite", use: write, result: result(updated, false),
			want: []acp.ToolCallContent{acp.ToolCallDiff{Path: path, OldText: ptr("alpha\n"), NewText: "one\n"}, done}},
		{name: "new file", use: write, result: result(created, false), want: []acp.ToolCallContent{done}},
		{name: "no account", use: write, result: result(nil, false), want: []acp.ToolCallContent{done}},
		{name: "failed", use: write, result: result(updated, true), want: []acp.ToolCallContent{done}},
		{name: "no original", use: write, result: result(&claude.FileChange{Path: path, Type: "update", Content: ptr("one\n")}, false),
			want: []acp.ToolCallContent{done}},
		{name: "not a Write", use: claude.ToolUse{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"x"}`)},
			result: result(updated, false), want: []acp.ToolCallContent{done}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr bridge.ClaudeTranslator
			got := tr.Translate(tr.Translate(nil, tt.use, now), tt.result, now)
			u, ok := got[len(got)-1].(acp.ToolCallUpdate)
			if !ok {
				t.Fatalf("last update %T, want a tool call update", got[len(got)-1])
			}
			if diff := cmp.Diff(tt.want, u.Content); diff != "" {
				t.Errorf("final content (-want +got):\n%s", diff)
			}
		})
	}
}
