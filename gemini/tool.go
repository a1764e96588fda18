package gemini

// toolKind is a built-in tool's name, kept once so that events share it,
// and its kind.
type toolKind struct {
	name string
	kind ToolKind
}

// toolKinds are the Gemini CLI's built-in tools, by the names its
// tool_use lines carry, with the kind each declares.
var toolKinds = map[string]toolKind{
	"run_shell_command":   {"run_shell_command", ToolKindExecute},
	"read_file":           {"read_file", ToolKindRead},
	"read_many_files":     {"read_many_files", ToolKindRead},
	"list_directory":      {"list_directory", ToolKindSearch},
	"glob":                {"glob", ToolKindSearch},
	"search_file_content": {"search_file_content", ToolKindSearch},
	"grep_search":         {"grep_search", ToolKindSearch},
	"replace":             {"replace", ToolKindEdit},
	"write_file":          {"write_file", ToolKindEdit},
	"web_fetch":           {"web_fetch", ToolKindFetch},
	"google_web_search":   {"google_web_search", ToolKindSearch},
	"save_memory":         {"save_memory", ToolKindThink},
	"write_todos":         {"write_todos", ToolKindThink},
}

// ToolKindOf returns the kind of action of the tool named name: the kind
// the Gemini CLI declares for its built-in tools (run_shell_command is
// [ToolKindExecute], read_file [ToolKindRead], replace and write_file
// [ToolKindEdit], …), and [ToolKindOther] for any other tool, MCP tools
// included.
func ToolKindOf(name string) ToolKind {
	if t, ok := toolKinds[name]; ok {
		return t.kind
	}
	return ToolKindOther
}
