package bridge

import (
	"encoding/json"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/tidwall/gjson"
)

// This file maps Claude Code's tools onto ACP tool calls: a kind for the
// editor's icon, a title a person can read, the files a call touches, and
// the diff an edit makes.

// Claude Code tools with a behaviour of their own in ACP.
const (
	toolTodoWrite    = "TodoWrite"    // a plan update, not a tool call
	toolExitPlanMode = "ExitPlanMode" // asks before the CLI leaves plan mode
)

// toolKind maps a CLI package's tool kind (claude.ToolKind, codex.ToolKind
// or gemini.ToolKind, which share their values) onto ACP's; a kind ACP
// does not know is other.
func toolKind[K ~string](k K) acp.ToolKind {
	switch claude.ToolKind(k) {
	case claude.ToolKindRead:
		return acp.ToolKindRead
	case claude.ToolKindEdit:
		return acp.ToolKindEdit
	case claude.ToolKindDelete:
		return acp.ToolKindDelete
	case claude.ToolKindMove:
		return acp.ToolKindMove
	case claude.ToolKindSearch:
		return acp.ToolKindSearch
	case claude.ToolKindExecute:
		return acp.ToolKindExecute
	case claude.ToolKindThink:
		return acp.ToolKindThink
	case claude.ToolKindFetch:
		return acp.ToolKindFetch
	case claude.ToolKindSwitchMode:
		return acp.ToolKindSwitchMode
	}
	return acp.ToolKindOther
}

// toolCall describes a call of the tool name with input (a JSON object,
// possibly nil while it streams) as the fields of an ACP tool call.
func toolCall(id, name string, input json.RawMessage) acp.ToolCall {
	in := gjson.ParseBytes(input)
	str := func(key string) string { return in.Get(key).String() }
	tc := acp.ToolCall{
		ToolCallID: id,
		Title:      name,
		Kind:       toolKind(claude.ToolKindOf(name)),
		Status:     acp.ToolCallStatusPending,
	}
	if len(input) > 0 && json.Valid(input) {
		tc.RawInput = input
	}
	path := str("file_path")
	if path == "" {
		path = str("notebook_path")
	}
	if path != "" {
		loc := acp.ToolCallLocation{Path: path}
		if off := in.Get("offset"); name == "Read" && off.Type == gjson.Number && off.Int() > 0 {
			line := int(off.Int())
			loc.Line = &line
		}
		tc.Locations = []acp.ToolCallLocation{loc}
	}
	switch name {
	case "Bash":
		if cmd := str("command"); cmd != "" {
			tc.Title = firstLine(cmd)
		}
	case "Read":
		tc.Title = titled("Read", path)
	case "Write":
		tc.Title = titled("Write", path)
		if path != "" {
			tc.Content = []acp.ToolCallContent{acp.ToolCallDiff{Path: path, NewText: str("content")}}
		}
	case "Edit":
		tc.Title = titled("Edit", path)
		if path != "" {
			old := str("old_string")
			tc.Content = []acp.ToolCallContent{acp.ToolCallDiff{Path: path, OldText: &old, NewText: str("new_string")}}
		}
	case "MultiEdit":
		tc.Title = titled("Edit", path)
		if path != "" {
			for _, e := range in.Get("edits").Array() {
				old := e.Get("old_string").String()
				tc.Content = append(tc.Content, acp.ToolCallDiff{Path: path, OldText: &old, NewText: e.Get("new_string").String()})
			}
		}
	case "NotebookEdit":
		tc.Title = titled("Edit notebook", path)
	case "Grep":
		tc.Title = titled("grep", quoted(str("pattern"))+inPath(str("path")))
	case "Glob":
		tc.Title = titled("Find", quoted(str("pattern"))+inPath(str("path")))
	case "WebFetch":
		tc.Title = titled("Fetch", str("url"))
	case "WebSearch":
		tc.Title = searchTitle(str("query"))
	case "Task", "Agent":
		if d := str("description"); d != "" {
			tc.Title = d
		}
	case toolExitPlanMode:
		tc.Title = "Ready to code?"
		if plan := str("plan"); plan != "" {
			tc.Content = []acp.ToolCallContent{textContent(plan)}
		}
	default:
		// MCP tools are named mcp__<server>__<tool>.
		if server, tool, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__"); ok && strings.HasPrefix(name, "mcp__") {
			tc.Title = server + ": " + tool
		}
	}
	return tc
}

// plan reads TodoWrite's input ({"todos":[{"content","status",…}]}) as an
// ACP plan; ok is false when the input holds no list of todos.
func plan(input json.RawMessage) (p acp.Plan, ok bool) {
	todos := gjson.GetBytes(input, "todos")
	if !todos.IsArray() {
		return acp.Plan{}, false
	}
	p.Entries = []acp.PlanEntry{}
	for _, t := range todos.Array() {
		status := acp.PlanEntryStatus(t.Get("status").String())
		switch status {
		case acp.PlanStatusPending, acp.PlanStatusInProgress, acp.PlanStatusCompleted:
		default:
			status = acp.PlanStatusPending
		}
		p.Entries = append(p.Entries, acp.PlanEntry{
			Content:  t.Get("content").String(),
			Priority: acp.PlanPriorityMedium,
			Status:   status,
		})
	}
	return p, true
}

// textContent is text as an item of a tool call's output.
func textContent(s string) acp.ToolCallContent {
	return acp.ToolCallContentBlock{Content: acp.TextContent{Text: s}}
}

// rawText is a tool's output text as a tool call's rawOutput: a JSON
// string.
func rawText(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// searchTitle names a web search.
func searchTitle(query string) string {
	if query == "" {
		return "Search the web"
	}
	return "Search the web for " + quoted(query)
}

// titled joins a verb and its object, or returns the verb alone.
func titled(verb, object string) string {
	if object == "" {
		return verb
	}
	return verb + " " + object
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return "\"" + s + "\""
}

func inPath(p string) string {
	if p == "" {
		return ""
	}
	return " in " + p
}

// firstLine returns s up to its first newline, marked when cut.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
