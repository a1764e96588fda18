//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// featuresRun is what testdata/sdk-features.mjs saw.
type featuresRun struct {
	Scenario    string
	Error       string
	Exit        int
	AuthMethods []string
	Logout      bool
	Fork        bool
	Texts       []string
	PromptError string
	Effort      string
	EffortAfter string
	Elicitation string
	StopReason  string
	ForkIsNew   bool
	Listed      []bool
}

// TestSDKFeatures drives claude-acp, with fakeclaude replaying sessions
// recorded from the real Claude Code 2.1.328 (../../claude/testdata/
// capture), with the official TypeScript SDK's v1 client through the
// features of issue 32: a prompt that needs a sign-in (auth_required,
// and the terminal method the client may run), an effort change between
// two turns, a question answered as a form and one declined, a fork, and
// /context.
func TestSDKFeatures(t *testing.T) {
	capture := func(name string) string {
		p, err := filepath.Abs(filepath.Join("..", "..", "claude", "testdata", "capture", name+".ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := featuresRun{AuthMethods: []string{"terminal login login"}, Logout: true, Fork: true, Texts: []string{}}
	with := func(f func(*featuresRun)) featuresRun {
		r := base
		f(&r)
		return r
	}
	const question = "form Which language should the script use? [question_0 question_0_custom]"
	tests := []struct {
		scenario, transcript string
		want                 featuresRun
	}{
		{"auth", capture("auth-invalid-key"), with(func(r *featuresRun) {
			r.PromptError = "-32000 Claude Code needs you to sign in (Invalid API key · Fix external API key)"
		})},
		{"effort", capture("effort"), with(func(r *featuresRun) {
			r.Effort, r.EffortAfter = "thought_level default default low medium high xhigh max", "low"
			r.Texts = []string{"This conversation holds 1 prompt(s); effort medium.", "This conversation holds 2 prompt(s); effort low."}
		})},
		{"elicitation-accept", capture("ask-user-accept"), with(func(r *featuresRun) {
			r.Elicitation, r.StopReason = question, "end_turn"
			r.Texts = []string{`The answer came back: Your questions have been answered: "Which language should the script use?"="Go". You can now continue with these answers in mind.`}
		})},
		{"elicitation-decline", capture("ask-user-decline"), with(func(r *featuresRun) {
			r.Elicitation, r.StopReason = question, "end_turn"
			r.Texts = []string{"The answer came back: The user did not answer the questions."}
		})},
		{"fork", forkTranscripts(t, capture("fork"), capture("fork-forked")), with(func(r *featuresRun) {
			r.ForkIsNew, r.Listed = true, []bool{true, true}
			r.Texts = []string{"This conversation holds 1 prompt(s); effort medium.", "This conversation holds 2 prompt(s); effort medium."}
		})},
		{"context", capture("commands"), with(func(r *featuresRun) {
			r.StopReason, r.Texts = "end_turn", []string{"## Context Usage"}
		})},
	}
	tssdk.Dir(t)
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			tt.want.Scenario = tt.scenario
			stdout, stderr := runSDKScript(t, "testdata/sdk-features.mjs", tt.transcript, tt.scenario, t.TempDir(), agentBin, "-claude", fakeclaudeBin, "-model", "sonnet")
			var got featuresRun
			if err := json.Unmarshal(stdout, &got); err != nil {
				t.Fatalf("sdk-features.mjs printed %q: %v\n%s", stdout, err, stderr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("what the SDK's client saw (-want +got):\n%s\nstderr:\n%s", diff, stderr)
			}
		})
	}
}

// forkTranscripts returns a folder that fakeclaude reads as a session of
// two processes: first (new.jsonl, run without --resume) and then
// forked (resume.jsonl, run with --resume … --fork-session).
func forkTranscripts(t *testing.T, first, forked string) string {
	dir := t.TempDir()
	for name, target := range map[string]string{"new.jsonl": first, "resume.jsonl": forked} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
