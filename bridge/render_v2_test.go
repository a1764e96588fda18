package bridge

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestV2Render(t *testing.T) {
	old := "a - b"
	tests := []struct {
		name string
		in   []acp.Update
		want []acpv2.Update
	}{
		{
			name: "a run of text is one message, cut by a tool call",
			in: []acp.Update{
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "Let me "}},
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "look."}},
				acp.UsageUpdate{Used: 1, Size: 2}, // beside the conversation: no cut
				acp.AgentMessageChunk{Content: acp.TextContent{Text: " Now."}},
				acp.ToolCall{ToolCallID: "t1", Title: "ls", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending},
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "Done."}},
			},
			want: []acpv2.Update{
				acpv2.AgentMessageChunk{MessageID: "agent-n-1", Content: acpv2.TextContent{Text: "Let me "}},
				acpv2.AgentMessageChunk{MessageID: "agent-n-1", Content: acpv2.TextContent{Text: "look."}},
				acpv2.UsageUpdate{Used: 1, Size: 2},
				acpv2.AgentMessageChunk{MessageID: "agent-n-1", Content: acpv2.TextContent{Text: " Now."}},
				acpv2.ToolCallUpdate{ToolCallID: "t1", Title: ptr("ls"), Kind: ptr(acpv2.ToolKindExecute), Status: ptr(acpv2.ToolCallStatusPending)},
				acpv2.AgentMessageChunk{MessageID: "agent-n-2", Content: acpv2.TextContent{Text: "Done."}},
			},
		},
		{
			name: "thought, text and user text each have ids of their own",
			in: []acp.Update{
				acp.UserMessageChunk{Content: acp.TextContent{Text: "hi"}},
				acp.UserMessageChunk{Content: acp.ImageContent{Data: "AA==", MimeType: "image/png"}},
				acp.AgentThoughtChunk{Content: acp.TextContent{Text: "hmm"}},
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "hello"}},
				acp.AgentThoughtChunk{Content: acp.TextContent{Text: "again"}},
			},
			want: []acpv2.Update{
				acpv2.UserMessageChunk{MessageID: "user-n-1", Content: acpv2.TextContent{Text: "hi"}},
				acpv2.UserMessageChunk{MessageID: "user-n-1", Content: acpv2.ImageContent{Data: "AA==", MimeType: "image/png"}},
				acpv2.AgentThoughtChunk{MessageID: "thought-n-2", Content: acpv2.TextContent{Text: "hmm"}},
				acpv2.AgentMessageChunk{MessageID: "agent-n-3", Content: acpv2.TextContent{Text: "hello"}},
				acpv2.AgentThoughtChunk{MessageID: "thought-n-4", Content: acpv2.TextContent{Text: "again"}},
			},
		},
		{
			name: "text keeps its annotations and _meta",
			in: []acp.Update{
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "a", Meta: json.RawMessage(`{"k":1}`)}},
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "b", Annotations: &acp.Annotations{Audience: []acp.Role{acp.RoleUser}, Priority: ptr(0.5)}}},
			},
			want: []acpv2.Update{
				acpv2.AgentMessageChunk{MessageID: "agent-n-1", Content: acpv2.TextContent{Text: "a", Meta: json.RawMessage(`{"k":1}`)}},
				acpv2.AgentMessageChunk{MessageID: "agent-n-1", Content: acpv2.TextContent{Text: "b", Annotations: &acpv2.Annotations{Audience: []acpv2.Role{acpv2.RoleUser}, Priority: ptr(0.5)}}},
			},
		},
		{
			name: "an edit modifies a file; a new file is an add with its patch",
			in: []acp.Update{
				acp.ToolCall{ToolCallID: "e", Title: "Edit /w/a.go", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending,
					Content:   []acp.ToolCallContent{acp.ToolCallDiff{Path: "/w/a.go", OldText: &old, NewText: "a + b"}},
					Locations: []acp.ToolCallLocation{{Path: "/w/a.go"}}, RawInput: json.RawMessage(`{"file_path":"/w/a.go"}`)},
				acp.ToolCall{ToolCallID: "w", Title: "Write /w/n.txt", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending,
					Content: []acp.ToolCallContent{acp.ToolCallDiff{Path: "/w/n.txt", NewText: "alpha\nbeta"}}},
			},
			want: []acpv2.Update{
				acpv2.ToolCallUpdate{ToolCallID: "e", Title: ptr("Edit /w/a.go"), Kind: ptr(acpv2.ToolKindEdit), Status: ptr(acpv2.ToolCallStatusPending),
					Content: []acpv2.ToolCallContent{acpv2.ToolCallDiff{Changes: []acpv2.DiffChange{
						{Operation: acpv2.DiffModify, FileType: acpv2.DiffFileTypeText, Path: "/w/a.go"},
					}}},
					Locations: []acpv2.ToolCallLocation{{Path: "/w/a.go"}}, RawInput: json.RawMessage(`{"file_path":"/w/a.go"}`)},
				acpv2.ToolCallUpdate{ToolCallID: "w", Title: ptr("Write /w/n.txt"), Kind: ptr(acpv2.ToolKindEdit), Status: ptr(acpv2.ToolCallStatusPending),
					Content: []acpv2.ToolCallContent{acpv2.ToolCallDiff{
						Changes: []acpv2.DiffChange{{Operation: acpv2.DiffAdd, FileType: acpv2.DiffFileTypeText, Path: "/w/n.txt"}},
						Patch: &acpv2.DiffPatch{Format: acpv2.DiffPatchFormatGitPatch, Text: "diff --git /w/n.txt /w/n.txt\nnew file mode 100644\n" +
							"--- /dev/null\n+++ /w/n.txt\n@@ -0,0 +1,2 @@\n+alpha\n+beta\n\\ No newline at end of file\n"},
					}}},
			},
		},
		{
			name: "an update patches only what it names",
			in: []acp.Update{
				acp.ToolCallUpdate{ToolCallID: "t1", Status: acp.ToolCallStatusFailed,
					Content: []acp.ToolCallContent{textContent("exit 1")}, RawOutput: json.RawMessage(`"exit 1"`)},
				acp.ToolCallUpdate{ToolCallID: "t2", Title: "ls -l"},
			},
			want: []acpv2.Update{
				acpv2.ToolCallUpdate{ToolCallID: "t1", Status: ptr(acpv2.ToolCallStatusFailed),
					Content:   []acpv2.ToolCallContent{acpv2.ToolCallContentBlock{Content: acpv2.TextContent{Text: "exit 1"}}},
					RawOutput: json.RawMessage(`"exit 1"`)},
				acpv2.ToolCallUpdate{ToolCallID: "t2", Title: ptr("ls -l")},
			},
		},
		{
			name: "plans, notices, commands, options and titles",
			in: []acp.Update{
				acp.Plan{Entries: []acp.PlanEntry{{Content: "Fix", Priority: acp.PlanPriorityMedium, Status: acp.PlanStatusPending}}},
				acp.Notice{Severity: acp.NoticeWarning, Title: "90% of your limit"},
				acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{{Name: "init", Description: "Start", Input: &acp.CommandInput{Hint: "[dir]"}}}},
				acp.CurrentModeUpdate{CurrentModeID: "plan"}, // v2 has none: the option below says it
				acp.ConfigOptionUpdate{ConfigOptions: []acp.SessionConfigOption{{ID: "mode", Name: "Mode", Type: acp.ConfigOptionSelect, CurrentValue: "plan",
					Options: acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "plan", Name: "Plan"}}}}}},
				acp.SessionInfoUpdate{Title: ptr("Fix Sum")},
			},
			want: []acpv2.Update{
				acpv2.PlanUpdate{Plan: acpv2.PlanContent{Type: acpv2.PlanItems, PlanID: "plan-n",
					Entries: []acpv2.PlanEntry{{Content: "Fix", Priority: acpv2.PlanPriorityMedium, Status: acpv2.PlanStatusPending}}}},
				acpv2.Notice{Severity: acpv2.NoticeWarning, Title: "90% of your limit"},
				acpv2.AvailableCommandsUpdate{AvailableCommands: []acpv2.AvailableCommand{{Type: acpv2.CommandKind, Name: "init", Description: "Start", Input: acpv2.TextCommandInput{Hint: "[dir]"}}}},
				acpv2.ConfigOptionUpdate{ConfigOptions: []acpv2.SessionConfigOption{{ConfigID: "mode", Name: "Mode", Type: acpv2.ConfigOptionSelect, CurrentValue: "plan",
					Options: acpv2.SessionConfigSelectOptions{Options: []acpv2.SessionConfigSelectOption{{Value: "plan", Name: "Plan"}}}}}},
				acpv2.SessionInfoUpdate{Title: ptr("Fix Sum")},
			},
		},
		{
			name: "a CLI that names its messages starts a new one with each",
			in: []acp.Update{
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "Let me look."}, MessageID: "msg_1"},
				acp.AgentMessageChunk{Content: acp.TextContent{Text: "Done."}, MessageID: "msg_2"},
				acp.AgentMessageChunk{Content: acp.TextContent{Text: " Really."}, MessageID: "msg_2"},
				acp.AgentThoughtChunk{Content: acp.TextContent{Text: "a"}, MessageID: "rs_1"},
				acp.AgentThoughtChunk{Content: acp.TextContent{Text: "b"}, MessageID: "rs_2"},
			},
			want: []acpv2.Update{
				acpv2.AgentMessageChunk{MessageID: "agent-n-1", Content: acpv2.TextContent{Text: "Let me look."}},
				acpv2.AgentMessageChunk{MessageID: "agent-n-2", Content: acpv2.TextContent{Text: "Done."}},
				acpv2.AgentMessageChunk{MessageID: "agent-n-2", Content: acpv2.TextContent{Text: " Really."}},
				acpv2.AgentThoughtChunk{MessageID: "thought-n-3", Content: acpv2.TextContent{Text: "a"}},
				acpv2.AgentThoughtChunk{MessageID: "thought-n-4", Content: acpv2.TextContent{Text: "b"}},
			},
		},
		{
			name: "a change a diff carries whole is one structured change with its patch",
			in: []acp.Update{
				acp.ToolCallUpdate{ToolCallID: "p", Status: acp.ToolCallStatusCompleted, Content: []acp.ToolCallContent{
					acp.ToolCallDiff{Path: "/w/a.go", OldText: ptr("x"), NewText: "y",
						Meta: fileChange{Operation: acpv2.DiffModify, Path: "/w/a.go", Patch: "diff --git /w/a.go /w/a.go\n"}.meta()},
					acp.ToolCallDiff{Path: "/w/a.go", OldText: ptr("z"), NewText: "w"}, // its second hunk
					acp.ToolCallDiff{Path: "/w/old.txt", OldText: ptr("bye\n"),
						Meta: fileChange{Operation: acpv2.DiffDelete, Path: "/w/old.txt"}.meta()},
					acp.ToolCallDiff{Path: "/w/b.go", OldText: ptr("p"), NewText: "q"}, // a diff of its own
				}},
			},
			want: []acpv2.Update{
				acpv2.ToolCallUpdate{ToolCallID: "p", Status: ptr(acpv2.ToolCallStatusCompleted), Content: []acpv2.ToolCallContent{
					acpv2.ToolCallDiff{Changes: []acpv2.DiffChange{{Operation: acpv2.DiffModify, FileType: acpv2.DiffFileTypeText, Path: "/w/a.go"}},
						Patch: &acpv2.DiffPatch{Format: acpv2.DiffPatchFormatGitPatch, Text: "diff --git /w/a.go /w/a.go\n"}},
					acpv2.ToolCallDiff{Changes: []acpv2.DiffChange{{Operation: acpv2.DiffDelete, FileType: acpv2.DiffFileTypeText, Path: "/w/old.txt"}}},
					acpv2.ToolCallDiff{Changes: []acpv2.DiffChange{{Operation: acpv2.DiffModify, FileType: acpv2.DiffFileTypeText, Path: "/w/b.go"}}},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &v2Render{nonce: "n"}
			var got []acpv2.Update
			for _, u := range tt.in {
				got = r.render(got, u)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("v2 updates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestV2RenderTurns checks that a prompt's user message ends the messages
// under way, so that a turn's text never continues the last turn's.
func TestV2RenderTurns(t *testing.T) {
	r := &v2Render{nonce: "n"}
	var got []acpv2.Update
	got = append(got, r.userMessage([]acp.ContentBlock{acp.TextContent{Text: "one"}}))
	got = r.render(got, acp.AgentMessageChunk{Content: acp.TextContent{Text: "1"}})
	got = append(got, r.userMessage([]acp.ContentBlock{acp.TextContent{Text: "two"}}))
	got = r.render(got, acp.AgentMessageChunk{Content: acp.TextContent{Text: "2"}})
	want := []acpv2.Update{
		acpv2.UserMessage{MessageID: "user-n-1", Content: acpv2.ContentBlocks{acpv2.TextContent{Text: "one"}}},
		acpv2.AgentMessageChunk{MessageID: "agent-n-2", Content: acpv2.TextContent{Text: "1"}},
		acpv2.UserMessage{MessageID: "user-n-3", Content: acpv2.ContentBlocks{acpv2.TextContent{Text: "two"}}},
		acpv2.AgentMessageChunk{MessageID: "agent-n-4", Content: acpv2.TextContent{Text: "2"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("v2 updates (-want +got):\n%s", diff)
	}
}

func TestNewFilePatch(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", "diff --git /f /f\nnew file mode 100644\n"},
		{"one\n", "diff --git /f /f\nnew file mode 100644\n--- /dev/null\n+++ /f\n@@ -0,0 +1 @@\n+one\n"},
		{"a\nb\n", "diff --git /f /f\nnew file mode 100644\n--- /dev/null\n+++ /f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"a", "diff --git /f /f\nnew file mode 100644\n--- /dev/null\n+++ /f\n@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, newFilePatch("/f", tt.text)); diff != "" {
			t.Errorf("newFilePatch(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestDeletedFilePatch(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", "diff --git /f /f\ndeleted file mode 100644\n"},
		{"one\n", "diff --git /f /f\ndeleted file mode 100644\n--- /f\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n"},
		{"a\nb\n", "diff --git /f /f\ndeleted file mode 100644\n--- /f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"a", "diff --git /f /f\ndeleted file mode 100644\n--- /f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, deletedFilePatch("/f", tt.text)); diff != "" {
			t.Errorf("deletedFilePatch(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestPermissionV2(t *testing.T) {
	q := Question{ID: "r1", ToolCall: acp.PermissionToolCall{ToolCallID: "t1", Title: "touch x", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending},
		Options: permissionOptions}
	want := acpv2.RequestPermissionParams{
		SessionID: "s", Title: "touch x",
		Subject: acpv2.ToolCallPermissionSubject{ToolCall: acpv2.PermissionToolCall{
			ToolCallID: "t1", Title: ptr("touch x"), Kind: ptr(acpv2.ToolKindExecute), Status: ptr(acpv2.ToolCallStatusPending)}},
		Options: []acpv2.PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: acpv2.PermissionAllowOnce},
			{OptionID: "allow_always", Name: "Always allow", Kind: acpv2.PermissionAllowAlways},
			{OptionID: "reject", Name: "Reject", Kind: acpv2.PermissionRejectOnce},
		},
	}
	if diff := cmp.Diff(want, permissionV2("s", q)); diff != "" {
		t.Errorf("permission params (-want +got):\n%s", diff)
	}
}
