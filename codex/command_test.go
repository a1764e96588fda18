package codex_test

import (
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/google/go-cmp/cmp"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name string
		o    codex.Options
		want []string
	}{
		{"defaults", codex.Options{}, []string{"exec", "--json", "-"}},
		{"resume", codex.Options{Resume: "01a23170-f4e4-79a3-8053-87c2b8ccf99b"},
			[]string{"exec", "--json", "resume", "--", "01a23170-f4e4-79a3-8053-87c2b8ccf99b", "-"}},
		{"resume id like a flag", codex.Options{Resume: "--last"}, []string{"exec", "--json", "resume", "--", "--last", "-"}},
		{"everything", codex.Options{
			Resume: "t", Model: "-m", Profile: "ci", Sandbox: codex.SandboxWorkspaceWrite, WorkDir: "/w",
			AddDirs: []string{"/a", "", "/b"}, Config: []string{`model_reasoning_effort="high"`, ""}, SkipGitRepoCheck: true,
		}, []string{
			"exec", "--json", "--skip-git-repo-check", "--model=-m", "--profile=ci", "--sandbox=workspace-write",
			"--cd=/w", "--add-dir=/a", "--add-dir=/b", `--config=model_reasoning_effort="high"`, "resume", "--", "t", "-",
		}},
		{"bypass wins over sandbox", codex.Options{Sandbox: codex.SandboxReadOnly, DangerouslyBypassApprovalsAndSandbox: true},
			[]string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, stdin := codex.CommandLine(tt.o, "--help me")
			if diff := cmp.Diff([]any{tt.want, "--help me"}, []any{args, string(stdin)}); diff != "" {
				t.Errorf("[args stdin] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExitStatus(t *testing.T) {
	var got []string
	for _, code := range []int{0, 1, 2, -1, 130} {
		s := codex.ExitStatus(code)
		got = append(got, s.Kind().String()+": "+s.String())
	}
	want := []string{
		"success: exit status 0 (success)",
		"failure: exit status 1 (failure)",
		"usage error: exit status 2 (usage error)",
		"killed by a signal: killed by a signal",
		"unknown: exit status 130 (unknown)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if got := codex.ExitKind(200).String(); got != "ExitKind(200)" {
		t.Errorf("ExitKind(200).String() = %q", got)
	}
}

func TestResumeNotFound(t *testing.T) {
	tests := []struct {
		stderr string
		want   bool
	}{
		{"ERROR: No saved session found with ID 0199a213-0000-7000-8000-000000000000.\n", true},
		{"Error: thread/resume failed: no rollout found for thread id 0199", true},
		{"WARNING: proceeding, even though we could not create PATH aliases\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := codex.ResumeNotFound([]byte(tt.stderr)); got != tt.want {
			t.Errorf("ResumeNotFound(%q) = %v, want %v", tt.stderr, got, tt.want)
		}
	}
}
