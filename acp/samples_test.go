package acp

import "encoding/json"

// Sample values shared by the golden, round-trip and fuzz tests: one per
// variant, filled with every optional member so that nothing escapes the
// comparison.

func ptrOf[T any](v T) *T { return &v }

func sampleAnnotations() *Annotations {
	return &Annotations{Audience: []Role{RoleUser}, Priority: ptrOf(0.5), LastModified: "2026-01-02T03:04:05Z"}
}

var sampleMeta = json.RawMessage(`{"trace":"t-1"}`)

// sampleBlocks holds one content block of each known type.
func sampleBlocks() []struct {
	name  string
	block ContentBlock
} {
	return []struct {
		name  string
		block ContentBlock
	}{
		{"text", TextContent{Text: "Fix the bug\nin main.go", Annotations: sampleAnnotations(), Meta: sampleMeta}},
		{"image", ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png", URI: "file:///tmp/a.png"}},
		{"audio", AudioContent{Data: "UklGRg==", MimeType: "audio/wav", Annotations: &Annotations{Audience: []Role{RoleAssistant}}}},
		{"resource_link", ResourceLink{URI: "file:///src/main.go", Name: "main.go", Title: "Main", Description: "entry point", MimeType: "text/x-go", Size: ptrOf(int64(1024))}},
		{"resource_text", EmbeddedResource{Resource: ResourceContents{URI: "file:///src/a.go", MimeType: "text/x-go", Text: ptrOf("package a\n")}}},
		{"resource_blob", EmbeddedResource{Resource: ResourceContents{URI: "file:///a.bin", Blob: ptrOf("AAEC")}, Annotations: &Annotations{Priority: ptrOf(1.0)}}},
		{"unknown", UnknownContent{Type: "hologram", Raw: json.RawMessage(`{"type":"hologram","frames":[1,2]}`)}},
	}
}

// sampleUpdates holds one session update of each known variant, plus the
// goose-meta case.
func sampleUpdates() []struct {
	name   string
	update Update
} {
	// An extension's _meta, as goose sends its run metadata.
	gooseMeta := json.RawMessage(`{"goose":{"activeRunId":"run-7","queuedSteer":{"steerId":"s-1"}}}`)
	return []struct {
		name   string
		update Update
	}{
		{"user_message_chunk", UserMessageChunk{Content: TextContent{Text: "hello"}, MessageID: "m-1"}},
		{"agent_message_chunk", AgentMessageChunk{Content: TextContent{Text: "Hi! Looking at it."}}},
		{"agent_thought_chunk", AgentThoughtChunk{Content: TextContent{Text: "The bug is in parse."}, Meta: sampleMeta}},
		{"tool_call", ToolCall{
			ToolCallID: "call-1", Title: "Read main.go", Kind: ToolKindRead, Status: ToolCallStatusPending,
			Content: []ToolCallContent{
				ToolCallContentBlock{Content: TextContent{Text: "reading"}},
				ToolCallDiff{Path: "/src/main.go", OldText: ptrOf("a"), NewText: "b"},
				ToolCallTerminal{TerminalID: "term-1"},
			},
			Locations: []ToolCallLocation{{Path: "/src/main.go", Line: ptrOf(12)}},
			RawInput:  json.RawMessage(`{"path":"/src/main.go"}`),
		}},
		{"tool_call_update", ToolCallUpdate{
			ToolCallID: "call-1", Status: ToolCallStatusCompleted,
			Content:   []ToolCallContent{ToolCallDiff{Path: "/src/new.go", NewText: ""}},
			Locations: []ToolCallLocation{},
			RawOutput: json.RawMessage(`{"ok":true}`),
		}},
		{"plan", Plan{Entries: []PlanEntry{
			{Content: "Read the code", Priority: PlanPriorityHigh, Status: PlanStatusCompleted},
			{Content: "Write the fix", Priority: PlanPriorityMedium, Status: PlanStatusInProgress},
			{Content: "Run tests", Priority: PlanPriorityLow, Status: PlanStatusPending},
		}}},
		{"available_commands_update", AvailableCommandsUpdate{AvailableCommands: []AvailableCommand{
			{Name: "review", Description: "Review the diff"},
			{Name: "search", Description: "Search the web", Input: &CommandInput{Hint: "query"}},
		}}},
		{"current_mode_update", CurrentModeUpdate{CurrentModeID: "code"}},
		{"config_option_update", ConfigOptionUpdate{ConfigOptions: []SessionConfigOption{{
			ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: "sonnet",
			Options: SessionConfigSelectOptions{Options: []SessionConfigSelectOption{{Value: "sonnet", Name: "Sonnet"}, {Value: "opus", Name: "Opus", Description: "slower"}}},
		}, {
			ID: "plan", Name: "Plan first", Type: "boolean", CurrentBool: true,
		}}}},
		{"config_option_update_other", ConfigOptionUpdate{ConfigOptions: []SessionConfigOption{{
			ID: "depth", Name: "Depth", Type: "slider",
			Raw: json.RawMessage(`{"id":"depth","name":"Depth","type":"slider","min":1,"max":5}`),
		}}}},
		{"session_info_update", SessionInfoUpdate{Title: ptrOf("Fix parser"), UpdatedAt: ptrOf("")}},
		{"usage_update", UsageUpdate{Used: 53000, Size: 200000, Cost: &Cost{Amount: 0.42, Currency: "USD"}}},
		{"notice", Notice{Severity: NoticeWarning, Title: "Rate limited", Description: "Retrying in 5s."}},
		{"plan_update_items", PlanUpdate{Plan: PlanContent{Type: PlanItems, PlanID: "p-1", Entries: []PlanEntry{
			{Content: "Read the code", Priority: PlanPriorityHigh, Status: PlanStatusInProgress},
		}}}},
		{"plan_update_file", PlanUpdate{Plan: PlanContent{Type: PlanFile, PlanID: "p-2", URI: "file:///w/PLAN.md"}, Meta: sampleMeta}},
		{"plan_update_markdown", PlanUpdate{Plan: PlanContent{Type: PlanMarkdown, PlanID: "p-3", Content: "# Plan\n- fix"}}},
		{"plan_update_other", PlanUpdate{Plan: PlanContent{Type: "_board", PlanID: "p-4",
			Raw: json.RawMessage(`{"type":"_board","planId":"p-4","columns":[]}`)}}},
		{"plan_removed", PlanRemoved{PlanID: "p-1"}},
		{"compaction_update", CompactionUpdate{CompactionID: "c-1", Status: CompactionCompleted,
			Summary: ContentBlocks{TextContent{Text: "We fixed the parser."}}}},
		{"compaction_update_failed", CompactionUpdate{CompactionID: "c-2", Status: CompactionFailed, Error: "model refused"}},
		{"compaction_summary_chunk", CompactionSummaryChunk{CompactionID: "c-1", Content: TextContent{Text: "We fixed"}}},
		{"goose_meta", SessionInfoUpdate{Meta: gooseMeta}},
		{"unknown", UnknownUpdate{Kind: "future_update", Raw: json.RawMessage(`{"sessionUpdate":"future_update","x":[1,2]}`)}},
	}
}
