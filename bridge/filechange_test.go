package bridge_test

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

// TestTranslateFileChange checks the final content of a Write or an
// Edit, whose result says what the call did to the file: it leads with
// the diff of the file's whole text, before and after, where the
// announcement had only the call's input (a Write's new text, an Edit's
// strings), so that the editor keeps a diff once the call is done.
func TestTranslateFileChange(t *testing.T) {
	const path = "/w/notes.txt"
	write := claude.ToolUse{ID: "t1", Name: "Write", Input: json.RawMessage(`{"file_path":"/w/notes.txt","content":"one\n"}`)}
	edit := claude.ToolUse{ID: "t1", Name: "Edit", Input: json.RawMessage(`{"file_path":"/w/notes.txt","old_string":"beta","new_string":"gamma"}`)}
	// Shaped as the CLI's results: testdata/store/tools in ../claude,
	// from ../shared/captures/claude/store/tools/r1.jsonl.
	created := &claude.FileChange{Path: path, Type: "create", Content: ptr("one\n"), Hunks: []claude.Hunk{}}
	updated := &claude.FileChange{Path: path, Type: "update", Original: ptr("alpha\n"), Content: ptr("one\n"),
		Hunks: []claude.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-alpha", "+one"}}}}
	editHunks := []claude.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []string{" alpha", "-beta", "+gamma"}}}
	edited := &claude.FileChange{Path: path, Original: ptr("alpha\nbeta\n"), Hunks: editHunks}
	result := func(c *claude.FileChange, isErr bool) claude.ToolResult {
		return claude.ToolResult{ToolUseID: "t1", IsError: isErr, Text: "done", FileChange: c}
	}
	done := acp.ToolCallContentBlock{Content: acp.TextContent{Text: "done"}}
	hunk := acp.ToolCallDiff{Path: path, OldText: ptr("alpha\nbeta"), NewText: "alpha\ngamma"}
	tests := []struct {
		name   string
		use    claude.ToolUse
		result claude.ToolResult
		want   []acp.ToolCallContent
	}{
		{name: "overwrite", use: write, result: result(updated, false),
			want: []acp.ToolCallContent{acp.ToolCallDiff{Path: path, OldText: ptr("alpha\n"), NewText: "one\n"}, done}},
		{name: "new file", use: write, result: result(created, false),
			want: []acp.ToolCallContent{acp.ToolCallDiff{Path: path, NewText: "one\n"}, done}},
		{name: "edit", use: edit, result: result(edited, false),
			want: []acp.ToolCallContent{acp.ToolCallDiff{Path: path, OldText: ptr("alpha\nbeta\n"), NewText: "alpha\ngamma\n"}, done}},
		{name: "edit without the original: its hunks", use: edit, result: result(&claude.FileChange{Path: path, Hunks: editHunks}, false),
			want: []acp.ToolCallContent{hunk, done}},
		{name: "edit whose hunks are not the original's: its hunks", use: edit,
			result: result(&claude.FileChange{Path: path, Original: ptr("alpha\ndelta\n"), Hunks: editHunks}, false),
			want:   []acp.ToolCallContent{hunk, done}},
		{name: "no account", use: write, result: result(nil, false), want: []acp.ToolCallContent{done}},
		{name: "failed", use: write, result: result(updated, true), want: []acp.ToolCallContent{done}},
		{name: "no original, no hunk", use: edit, result: result(&claude.FileChange{Path: path}, false),
			want: []acp.ToolCallContent{done}},
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
