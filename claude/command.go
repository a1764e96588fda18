package claude

import "strconv"

// Options are the settings of one `claude -p` run ([CommandLine]) or of
// one long-lived process in streaming-input mode ([SessionCommandLine]).
// The zero value runs a new conversation with the CLI's defaults.
type Options struct {
	// Resume is the session id of the conversation to continue; empty
	// starts a new one.
	Resume string
	// ForkSession makes a resumed conversation go on as a new session, a
	// copy of it, leaving the resumed one as it was (--fork-session); it
	// is ignored without Resume. Pass --session-id in ExtraArgs to name
	// the copy.
	ForkSession bool
	// Model selects the model ("sonnet", "opus", or a full model name).
	Model string
	// Effort is how hard the model thinks (--effort: "low", "medium",
	// "high", "xhigh", "max", as the model's supportedEffortLevels in the
	// initialize answer list them); empty leaves the CLI's default.
	Effort string
	// PermissionMode is "default", "acceptEdits", "plan",
	// "bypassPermissions", …
	PermissionMode string
	// MaxTurns caps the agentic turns of the run; 0 means no cap.
	MaxTurns int
	// IncludePartialMessages asks for stream_event lines, which become
	// [PartialText], [PartialThinking], [PartialToolUse] and
	// [PartialToolInput] events.
	IncludePartialMessages bool
	// MCPConfig is a path to an MCP configuration file, or the JSON itself.
	MCPConfig string
	// AppendSystemPrompt is added to the CLI's system prompt.
	AppendSystemPrompt string
	// AllowedTools and DisallowedTools are tool rules such as "Read" or
	// "Bash(git log:*)".
	AllowedTools    []string
	DisallowedTools []string
	// AddDirs are more directories, besides the one it runs in, whose
	// files the CLI's tools may use (--add-dir, once each).
	AddDirs []string
	// ExtraArgs are added after all the others, as given: flags this type
	// does not model. Use the "--name=value" form for values that may start
	// with "-".
	ExtraArgs []string
}

// CommandLine returns the arguments for running the claude binary with
// options o, and the bytes to write to its standard input, which carry the
// prompt: the CLI reads the prompt from stdin when its arguments name none.
// Write them and then close stdin: the CLI reads to the end of its input
// before it starts. Passing the prompt there means that no prompt, however
// it begins ("-rf", "--help"), can be read as a flag, and that its size is
// not limited by the system's argument length. args holds no program name.
//
// Every option with a value uses the "--name=value" form, so that a value
// starting with "-" (a session id, a prompt fragment) stays a value. Tool
// lists are joined with commas, the form the CLI splits.
func CommandLine(o Options, prompt string) (args []string, stdin []byte) {
	return o.appendArgs([]string{"-p", "--output-format", "stream-json", "--verbose"}), []byte(prompt)
}

// SessionCommandLine returns the arguments for running the claude binary
// as one long-lived process in streaming-input mode with options o, the
// mode the official Claude Agent SDKs use: user turns and control requests
// on its standard input, events and control messages on its standard
// output, both one JSON object per line (see [Session]). It asks for
// permission prompts on that channel (--permission-prompt-tool stdio), so
// that every tool call needing permission comes as a [PermissionRequest];
// without it, the CLI denies such calls silently. args holds no program
// name and no prompt. The options are written as [CommandLine] writes
// them.
func SessionCommandLine(o Options) (args []string) {
	return o.appendArgs([]string{
		"--output-format", "stream-json", "--verbose",
		"--input-format", "stream-json",
		"--permission-prompt-tool", "stdio",
	})
}

// appendArgs appends the flags for o, common to both modes, to args.
func (o Options) appendArgs(args []string) []string {
	if o.Resume != "" {
		args = append(args, "--resume="+o.Resume)
		if o.ForkSession {
			args = append(args, "--fork-session")
		}
	}
	if o.Model != "" {
		args = append(args, "--model="+o.Model)
	}
	if o.Effort != "" {
		args = append(args, "--effort="+o.Effort)
	}
	if o.PermissionMode != "" {
		args = append(args, "--permission-mode="+o.PermissionMode)
	}
	if o.MaxTurns > 0 {
		args = append(args, "--max-turns="+strconv.Itoa(o.MaxTurns))
	}
	if o.IncludePartialMessages {
		args = append(args, "--include-partial-messages")
	}
	if o.MCPConfig != "" {
		args = append(args, "--mcp-config="+o.MCPConfig)
	}
	if o.AppendSystemPrompt != "" {
		args = append(args, "--append-system-prompt="+o.AppendSystemPrompt)
	}
	if tools := joinTools(o.AllowedTools); tools != "" {
		args = append(args, "--allowedTools="+tools)
	}
	if tools := joinTools(o.DisallowedTools); tools != "" {
		args = append(args, "--disallowedTools="+tools)
	}
	for _, d := range o.AddDirs {
		if d != "" {
			args = append(args, "--add-dir="+d)
		}
	}
	return append(args, o.ExtraArgs...)
}

func joinTools(tools []string) string {
	s := ""
	for _, t := range tools {
		if t == "" {
			continue
		}
		if s != "" {
			s += ","
		}
		s += t
	}
	return s
}
