package gemini

import "strings"

// Options are the settings of one run of the Gemini CLI. The zero value
// runs a new session with the CLI's defaults.
type Options struct {
	// Resume is the session to continue: a session id, "latest", or an
	// index from --list-sessions; empty starts a new session. The CLI
	// exits with [ExitInput] when it names no session.
	Resume string
	// Model selects the model ("gemini-2.5-pro", "auto", …); empty keeps
	// the CLI's setting.
	Model string
	// ApprovalMode is "default", "auto_edit", "yolo" or "plan": which
	// tool calls run without asking. Headless runs cannot ask, so in
	// "default" mode a tool that needs approval is refused.
	ApprovalMode string
	// Sandbox runs tools in the CLI's sandbox (--sandbox).
	Sandbox bool
	// SkipTrust runs in a folder the user has not trusted
	// (--skip-trust); without it the CLI exits with
	// [ExitUntrustedFolder] there.
	SkipTrust bool
	// IncludeDirectories adds directories to the workspace.
	IncludeDirectories []string
	// Extensions lists the extensions to use; nil uses all of them.
	Extensions []string
	// AllowedMCPServerNames lists the MCP servers to use; nil uses all.
	AllowedMCPServerNames []string
}

// CommandLine returns the arguments for running the gemini binary with
// options o, and the bytes to write to its standard input, which carry the
// prompt: when its standard input is not a terminal the CLI reads it to the
// end and runs headless with it as the prompt. Passing the prompt there
// means that no prompt, however it begins ("-rf", "--help"), can be read as
// a flag, and that its size is not limited by the system's argument length.
// The CLI appends "\n\n" to a prompt read this way. args holds no program
// name.
//
// Write stdin as soon as the process starts, then close it: the CLI stops
// waiting for its standard input when nothing has arrived 500 ms after it
// starts reading, and runs with no prompt (exiting with [ExitInput]). It
// also cuts a prompt longer than 8 Mi characters.
//
// Every option with a value uses the "--name=value" form, so that a value
// starting with "-" stays a value. Lists are joined with commas, the form
// the CLI splits.
func CommandLine(o Options, prompt string) (args []string, stdin []byte) {
	args = []string{"--output-format=stream-json"}
	if o.Resume != "" {
		args = append(args, "--resume="+o.Resume)
	}
	if o.Model != "" {
		args = append(args, "--model="+o.Model)
	}
	if o.ApprovalMode != "" {
		args = append(args, "--approval-mode="+o.ApprovalMode)
	}
	if o.Sandbox {
		args = append(args, "--sandbox")
	}
	if o.SkipTrust {
		args = append(args, "--skip-trust")
	}
	if s := join(o.IncludeDirectories); s != "" {
		args = append(args, "--include-directories="+s)
	}
	if s := join(o.Extensions); s != "" {
		args = append(args, "--extensions="+s)
	}
	if s := join(o.AllowedMCPServerNames); s != "" {
		args = append(args, "--allowed-mcp-server-names="+s)
	}
	return args, []byte(prompt)
}

// join joins the non-empty items with commas.
func join(items []string) string {
	var b strings.Builder
	for _, s := range items {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	return b.String()
}
