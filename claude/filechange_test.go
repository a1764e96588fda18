package claude_test

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

func TestToolResultDetails(t *testing.T) {
	strp := func(s string) *string { return &s }
	// The first four lines are the tool results of
	// testdata/store/tools/live-r1.jsonl (../shared/captures/claude/store/tools/r1.jsonl),
	// cut to the members read here; the others are shapes the CLI may
	// send, or not.
	const (
		create = `{"type":"create","filePath":"/w/notes.txt","content":"alpha\nbeta\n","structuredPatch":[],"originalFile":null,"userModified":false}`
		read   = `{"type":"text","file":{"filePath":"/w/notes.txt","content":"alpha\nbeta\n","numLines":3,"startLine":1,"totalLines":3}}`
		edit   = `{"filePath":"/w/notes.txt","oldString":"beta","newString":"gamma","originalFile":"alpha\nbeta\n","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" alpha","-beta","+gamma"]}],"userModified":false,"replaceAll":false}`
		bash   = `{"stdout":"alpha\ngamma","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`
		update = `{"type":"update","filePath":"/w/notes.txt","content":"one\n","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":1,"lines":["-alpha","-beta","+one"]}],"originalFile":"alpha\nbeta\n"}`
	)
	edited := []claude.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []string{" alpha", "-beta", "+gamma"}}}
	tests := []struct {
		name    string
		details string // the line's tool_use_result; "" for none
		want    *claude.FileChange
	}{
		{name: "none"},
		{name: "Write created", details: create, want: &claude.FileChange{Path: "/w/notes.txt", Type: "create", Content: strp("alpha\nbeta\n"), Hunks: []claude.Hunk{}}},
		{name: "Read", details: read},
		{name: "Edit", details: edit, want: &claude.FileChange{Path: "/w/notes.txt", Original: strp("alpha\nbeta\n"), Hunks: edited}},
		{name: "Bash", details: bash},
		{name: "Write overwrote", details: update, want: &claude.FileChange{
			Path: "/w/notes.txt", Type: "update", Original: strp("alpha\nbeta\n"), Content: strp("one\n"),
			Hunks: []claude.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 1, Lines: []string{"-alpha", "-beta", "+one"}}},
		}},
		{name: "an error's text", details: `"Error: Exit code 1"`},
		{name: "null: none", details: `null`},
		{name: "path not a string", details: `{"filePath":1,"structuredPatch":[]}`},
		{name: "no patch", details: `{"filePath":"/w/a","content":"x"}`},
		{name: "unreadable hunk", details: `{"filePath":"/w/a","structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":[" a"]},{"oldStart":"2","lines":[]}]}`,
			want: &claude.FileChange{Path: "/w/a"}},
		{name: "line not a string", details: `{"filePath":"/w/a","structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":[1]}]}`,
			want: &claude.FileChange{Path: "/w/a"}},
		{name: "fractional count", details: `{"filePath":"/w/a","structuredPatch":[{"oldStart":1.5,"oldLines":1,"newStart":1,"newLines":1,"lines":[]}]}`,
			want: &claude.FileChange{Path: "/w/a"}},
		{name: "repeated member: the last counts", details: `{"filePath":"/w/a","type":"create","type":"update","structuredPatch":[]}`,
			want: &claude.FileChange{Path: "/w/a", Type: "update", Hunks: []claude.Hunk{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"}]}`
			want := claude.ToolResult{ToolUseID: "t1", Text: "ok"}
			if tt.details != "" {
				line += `,"tool_use_result":` + tt.details
				want.FileChange = tt.want
				if tt.details != "null" { // null is no account
					want.Details = json.RawMessage(tt.details)
				}
			}
			line += "}"
			got, _, err := claude.ParseLine([]byte(line), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]claude.Event{want}, got); diff != "" {
				t.Errorf("ParseLine(%s) (-want +got):\n%s", line, diff)
			}
		})
	}
}

// TestToolResultDetailsOfSeveral checks that a line of several results,
// which names none of them for its tool_use_result, gives it to none.
func TestToolResultDetailsOfSeveral(t *testing.T) {
	line := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1"},{"type":"tool_result","tool_use_id":"t2"}]},"tool_use_result":{"filePath":"/w/a","structuredPatch":[]}}`
	got, _, err := claude.ParseLine([]byte(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []claude.Event{claude.ToolResult{ToolUseID: "t1"}, claude.ToolResult{ToolUseID: "t2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
