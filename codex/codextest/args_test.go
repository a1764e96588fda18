package codextest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpkit/acpkit/codex"
)

// TestParseArgsCommandLine checks that the fake accepts every command line
// codex.CommandLine builds, and reads from it what it says.
func TestParseArgsCommandLine(t *testing.T) {
	for _, o := range []codex.Options{
		{},
		{Resume: "--last", Model: "-m", Profile: "p", Sandbox: codex.SandboxDangerFullAccess, WorkDir: "-w",
			AddDirs: []string{"-a"}, Config: []string{"k=-v"}, SkipGitRepoCheck: true},
		{Resume: "01a23170-f4e4-79a3-8053-87c2b8ccf99b", DangerouslyBypassApprovalsAndSandbox: true},
	} {
		args, _ := codex.CommandLine(o, "ignored")
		inv := parseArgs(args)
		want := invocation{json: true, resume: o.Resume != "", sessionID: o.Resume, prompt: "-"}
		if diff := cmp.Diff(want, inv, cmp.AllowUnexported(invocation{})); diff != "" {
			t.Errorf("parseArgs(%q) mismatch (-want +got):\n%s", args, diff)
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"exec\x00--json\x00--skip-git-repo-check\x00hi",
		"exec\x00--json\x00resume\x00--\x00id\x00-",
		"exec\x00-mgpt\x00-s=read-only\x00--config=a=b\x00resume\x00--last\x00p",
		"e\x00--model",
		"exec\x00--sandbox\x00bad",
		"exec\x00-c\x00key=value\x00hi",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		inv := parseArgs(args)
		if inv.usageErr != "" {
			return
		}
		if args[0] != "exec" && args[0] != "e" {
			t.Fatalf("accepted %q without exec", args)
		}
		// The prompt and the session id are arguments, not made up.
		if inv.prompt != "" && !slices.Contains(args, inv.prompt) {
			t.Fatalf("prompt %q not among the arguments %q", inv.prompt, args)
		}
		if inv.sessionID != "" && !slices.Contains(args, inv.sessionID) {
			t.Fatalf("session id %q not among the arguments %q", inv.sessionID, args)
		}
		if inv.resume && !inv.last && inv.sessionID == "" {
			t.Fatal("resume without a session id or --last")
		}
		if inv.prompt != "" && inv.hasPrompt != (inv.prompt != "-") {
			t.Fatalf("hasPrompt %v for prompt %q", inv.hasPrompt, inv.prompt)
		}
	})
}
