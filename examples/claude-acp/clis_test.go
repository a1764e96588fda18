//go:build unix

package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestOtherCLIs runs claude-acp with -cli codex and -cli gemini-headless
// against fakecodex and fakegemini, replaying the real captures of each
// CLI: for Codex, the app-server's, as the bridge plays them
// (bridge/testdata/codex); for Gemini CLI run headless, gemini/testdata.
// A two-turn session (Gemini CLI's resumes the conversation in a second
// process), a tool call (Codex's approved by the editor), a usage or rate
// limit, and an API error. The golden files hold every line the editor
// got.
func TestOtherCLIs(t *testing.T) {
	codexData := filepath.Join("..", "..", "bridge", "testdata", "codex")
	geminiData := filepath.Join("..", "..", "gemini", "testdata")
	tests := []struct {
		name, cli, bin, transcript string
		prompts                    int
		answers                    []string
	}{
		{"codex-two-turns", "codex", fakecodexBin, filepath.Join(codexData, "plain.ndjson"), 2, nil},
		{"codex-tool-call", "codex", fakecodexBin, filepath.Join(codexData, "command-approval-accept.ndjson"), 1, []string{answerAllow}},
		{"codex-usage-limit", "codex", fakecodexBin, filepath.Join(codexData, "rate-limit-429.ndjson"), 1, nil},
		{"codex-api-error", "codex", fakecodexBin, filepath.Join(codexData, "api-error-500.ndjson"), 1, nil},
		{"gemini-two-turns", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "session"), 2, nil},
		{"gemini-tool-call", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "tool-call.jsonl"), 1, nil},
		{"gemini-rate-limit", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "rate-limit-429.jsonl"), 1, nil},
		{"gemini-api-error", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "api-error-401.jsonl"), 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEditor(t, fakeclaudeBin, tt.transcript, cliArgs(tt.cli, tt.bin)...)
			e.answer(tt.answers...)
			e.initialize(capabilities{notices: true})
			sid := e.newSession()
			for range tt.prompts {
				e.prompt(sid, "Say hello and tell me what 2 + 2 is.")
			}
			e.p.stdin.Close()
			if err := e.p.wait(); err != nil {
				t.Errorf("claude-acp exit: %v; want status 0", err)
			}
			got := e.transcript()
			if tt.cli == "gemini-headless" {
				got = resetsAt.ReplaceAllFunc(got, func(m []byte) []byte {
					ms, _ := strconv.ParseInt(string(resetsAt.FindSubmatch(m)[1]), 10, 64)
					if d := time.Until(time.UnixMilli(ms)); d < -24*time.Hour || d > 24*time.Hour {
						t.Errorf("resetsAtMs %d is %v from now, not within a day", ms, d)
					}
					return []byte(`"resetsAtMs": "<within a day>"`)
				})
			}
			checkGolden(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

// resetsAt matches a reset time in an error's data. Gemini CLI gives its
// in words relative to the moment ("retry after 3s"), so the golden files
// hold a placeholder and the test checks the time is near. Codex's
// app-server gives the time itself, which the golden files hold.
var resetsAt = regexp.MustCompile(`"resetsAtMs": (\d+)`)
