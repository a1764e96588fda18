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

// TestFileChangeNewText checks the file's text after a change: Write's
// content, or the original with the hunks applied, in the shapes of the
// CLI's structuredPatch (the diff package's hunks, context lines
// included); no text when the hunks are not the original's.
func TestFileChangeNewText(t *testing.T) {
	strp := func(s string) *string { return &s }
	h := func(oldStart, oldLines, newStart, newLines int, lines ...string) claude.Hunk {
		return claude.Hunk{OldStart: oldStart, OldLines: oldLines, NewStart: newStart, NewLines: newLines, Lines: lines}
	}
	tests := []struct {
		name   string
		change claude.FileChange
		want   string
		ok     bool
	}{
		{"Write's content", claude.FileChange{Original: strp("a\n"), Content: strp("b\n"), Hunks: []claude.Hunk{h(1, 1, 1, 1, "-a", "+b")}}, "b\n", true},
		{"Edit", claude.FileChange{Original: strp("alpha\nbeta\n"), Hunks: []claude.Hunk{h(1, 2, 1, 2, " alpha", "-beta", "+gamma")}}, "alpha\ngamma\n", true},
		{"two hunks, lines between and after", claude.FileChange{
			Original: strp("1\n2\n3\n4\n5\n6\n7\n8\n9\n"),
			Hunks:    []claude.Hunk{h(1, 2, 1, 3, " 1", "+1.5", " 2"), h(7, 2, 8, 1, " 7", "-8")},
		}, "1\n1.5\n2\n3\n4\n5\n6\n7\n9\n", true},
		{"no newline at the end, kept", claude.FileChange{Original: strp("a\nb"), Hunks: []claude.Hunk{h(1, 2, 1, 2, "-a", "+x", " b", `\ No newline at end of file`)}}, "x\nb", true},
		{"no newline at the end, added", claude.FileChange{Original: strp("a"), Hunks: []claude.Hunk{h(1, 1, 1, 2, "-a", `\ No newline at end of file`, "+a", "+b")}}, "a\nb\n", true},
		{"no newline at the end, made", claude.FileChange{Original: strp("a\n"), Hunks: []claude.Hunk{h(1, 1, 1, 1, "-a", "+b", `\ No newline at end of file`)}}, "b", true},
		{"an empty file", claude.FileChange{Original: strp(""), Hunks: []claude.Hunk{h(1, 0, 1, 1, "+a")}}, "a\n", true},
		{"no change", claude.FileChange{Original: strp("a\n"), Hunks: []claude.Hunk{}}, "a\n", true},
		{"context not the original's", claude.FileChange{Original: strp("a\nc\n"), Hunks: []claude.Hunk{h(1, 2, 1, 2, " a", "-b", "+x")}}, "", false},
		{"counts that do not add up", claude.FileChange{Original: strp("a\nb\n"), Hunks: []claude.Hunk{h(1, 2, 1, 1, " a", "-b", "+x")}}, "", false},
		{"hunks out of order", claude.FileChange{Original: strp("a\nb\n"), Hunks: []claude.Hunk{h(2, 1, 2, 1, "-b", "+y"), h(1, 1, 1, 1, "-a", "+x")}}, "", false},
		{"past the end", claude.FileChange{Original: strp("a\n"), Hunks: []claude.Hunk{h(3, 1, 3, 1, "-c", "+d")}}, "", false},
		{"an insertion into a file that is not empty", claude.FileChange{Original: strp("a\n"), Hunks: []claude.Hunk{h(1, 0, 2, 1, "+b")}}, "", false},
		{"a line of no kind", claude.FileChange{Original: strp("a\n"), Hunks: []claude.Hunk{h(1, 1, 1, 1, "a")}}, "", false},
		{"no original", claude.FileChange{Hunks: []claude.Hunk{h(1, 1, 1, 1, "-a", "+b")}}, "", false},
		{"hunks that did not read", claude.FileChange{Original: strp("a\n")}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.change.NewText()
			if got != tt.want || ok != tt.ok {
				t.Errorf("NewText() = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
