package claude_test

import (
	"slices"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/google/go-cmp/cmp"
)

func TestCommandLine(t *testing.T) {
	base := []string{"-p", "--output-format", "stream-json", "--verbose"}
	tests := []struct {
		name   string
		opts   claude.Options
		prompt string
		want   []string
	}{
		{"new conversation", claude.Options{}, "hello", base},
		{"resume uses the equals form", claude.Options{Resume: "-looks-like-a-flag"}, "hi",
			append(slices.Clone(base), "--resume=-looks-like-a-flag")},
		{"every option", claude.Options{
			Resume:                 "abc",
			ForkSession:            true,
			Model:                  "opus",
			Effort:                 "high",
			PermissionMode:         "acceptEdits",
			MaxTurns:               3,
			IncludePartialMessages: true,
			MCPConfig:              `{"mcpServers":{}}`,
			AppendSystemPrompt:     "Be brief.",
			AllowedTools:           []string{"Read", "", "Bash(git log:*)"},
			DisallowedTools:        []string{"WebFetch"},
			AddDirs:                []string{"/src", "", "-odd"},
			ExtraArgs:              []string{"--debug"},
		}, "x", append(slices.Clone(base),
			"--resume=abc",
			"--fork-session",
			"--model=opus",
			"--effort=high",
			"--permission-mode=acceptEdits",
			"--max-turns=3",
			"--include-partial-messages",
			`--mcp-config={"mcpServers":{}}`,
			"--append-system-prompt=Be brief.",
			"--allowedTools=Read,Bash(git log:*)",
			"--disallowedTools=WebFetch",
			"--add-dir=/src",
			"--add-dir=-odd",
			"--debug",
		)},
		{"no cap for zero or negative turns", claude.Options{MaxTurns: -1}, "x", base},
		{"a fork only of a resumed conversation", claude.Options{ForkSession: true}, "x", base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, stdin := claude.CommandLine(tt.opts, tt.prompt)
			if diff := cmp.Diff(tt.want, args); diff != "" {
				t.Errorf("args mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.prompt, string(stdin)); diff != "" {
				t.Errorf("stdin mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCommandLinePromptIsNeverAnArgument checks that prompts that look like
// flags go to stdin only: the arguments do not depend on the prompt.
func TestCommandLinePromptIsNeverAnArgument(t *testing.T) {
	opts := claude.Options{Resume: "abc", Model: "sonnet"}
	want, _ := claude.CommandLine(opts, "plain")
	for _, prompt := range []string{"-rf /", "--resume=evil", "--", "-p", "--help"} {
		args, stdin := claude.CommandLine(opts, prompt)
		if diff := cmp.Diff(want, args); diff != "" {
			t.Errorf("args for prompt %q differ (-want +got):\n%s", prompt, diff)
		}
		if diff := cmp.Diff(prompt, string(stdin)); diff != "" {
			t.Errorf("stdin mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestSessionCommandLine(t *testing.T) {
	base := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--permission-prompt-tool", "stdio"}
	tests := []struct {
		name string
		opts claude.Options
		want []string
	}{
		{"new conversation", claude.Options{}, base},
		{"the options of CommandLine", claude.Options{
			Resume:                 "-abc",
			Model:                  "claude-sonnet-4-5",
			PermissionMode:         "plan",
			IncludePartialMessages: true,
			MCPConfig:              "mcp.json",
			ExtraArgs:              []string{"--debug"},
		}, append(slices.Clone(base),
			"--resume=-abc",
			"--model=claude-sonnet-4-5",
			"--permission-mode=plan",
			"--include-partial-messages",
			"--mcp-config=mcp.json",
			"--debug",
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, claude.SessionCommandLine(tt.opts)); diff != "" {
				t.Errorf("args mismatch (-want +got):\n%s", diff)
			}
			// The flags after the mode's own are those of CommandLine.
			print, _ := claude.CommandLine(tt.opts, "")
			if diff := cmp.Diff(print[4:], claude.SessionCommandLine(tt.opts)[len(base):]); diff != "" {
				t.Errorf("options differ from CommandLine's (-print +session):\n%s", diff)
			}
		})
	}
}
