package codex

// Sandbox is the CLI's sandbox policy for the commands the agent runs
// (--sandbox; the app-server's thread methods take it too, and
// [Sandbox.Policy] gives what turn/start takes).
type Sandbox string

// The CLI's sandbox policies.
const (
	SandboxReadOnly         Sandbox = "read-only"          // read files, write none
	SandboxWorkspaceWrite   Sandbox = "workspace-write"    // write in the working directory
	SandboxDangerFullAccess Sandbox = "danger-full-access" // no sandbox at all
)

// Options are the settings of one `codex exec` run. The zero value runs a
// new thread with the CLI's defaults.
type Options struct {
	// Resume is the id of the thread to continue; empty starts a new one.
	Resume string
	// Model selects the model ("gpt-5.1-codex", …); empty is the CLI's
	// configured default.
	Model string
	// Profile names a profile of the CLI's config.toml.
	Profile string
	// Sandbox is the sandbox policy; empty is the CLI's default,
	// read-only. `codex exec` never asks for approval: a command the
	// policy refuses is declined (see [StatusDeclined]).
	Sandbox Sandbox
	// DangerouslyBypassApprovalsAndSandbox runs every command without a
	// sandbox, for environments that are sandboxed from outside. It
	// overrides Sandbox.
	DangerouslyBypassApprovalsAndSandbox bool
	// WorkDir is the agent's working root (--cd); empty is the process's
	// working directory.
	WorkDir string
	// AddDirs are more directories the agent may write to.
	AddDirs []string
	// Config are config.toml overrides, each "key=value" with a TOML
	// value, e.g. `model_reasoning_effort="high"`.
	Config []string
	// SkipGitRepoCheck lets the CLI run outside a Git repository, which it
	// otherwise refuses.
	SkipGitRepoCheck bool
}

// CommandLine returns the arguments for running the codex binary with
// options o, and the bytes to write to its standard input, which carry the
// prompt. args holds no program name.
//
// The prompt argument is "-", which makes the CLI read the prompt from
// standard input: no prompt, however it begins ("-rf", "--help"), can be
// read as a flag, and its size is not limited by the system's argument
// length. Write stdin and close it; the CLI reads to the end of its input
// before it starts.
//
// Every option with a value uses the "--name=value" form, so that a value
// starting with "-" stays a value, and a resumed thread's id follows "--",
// so that it is never read as a flag either:
//
//	exec --json --model=gpt-5.1-codex resume -- 0199a213-81c0-7800-8aa1-bbab2a035a53 -
func CommandLine(o Options, prompt string) (args []string, stdin []byte) {
	args = []string{"exec", "--json"}
	if o.SkipGitRepoCheck {
		args = append(args, "--skip-git-repo-check")
	}
	if o.Model != "" {
		args = append(args, "--model="+o.Model)
	}
	if o.Profile != "" {
		args = append(args, "--profile="+o.Profile)
	}
	switch {
	case o.DangerouslyBypassApprovalsAndSandbox:
		args = append(args, "--dangerously-bypass-approvals-and-sandbox")
	case o.Sandbox != "":
		args = append(args, "--sandbox="+string(o.Sandbox))
	}
	if o.WorkDir != "" {
		args = append(args, "--cd="+o.WorkDir)
	}
	for _, d := range o.AddDirs {
		if d != "" {
			args = append(args, "--add-dir="+d)
		}
	}
	for _, c := range o.Config {
		if c != "" {
			args = append(args, "--config="+c)
		}
	}
	if o.Resume != "" {
		args = append(args, "resume", "--", o.Resume)
	}
	args = append(args, "-")
	return args, []byte(prompt)
}
