//go:build unix

package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestOtherCLIs runs claude-acp with -cli codex and -cli gemini-headless against
// fakecodex and fakegemini, replaying the real captures of each CLI
// (codex/testdata, gemini/testdata; the two-turn Codex thread is
// bridge/testdata/codex-session): a two-turn session that resumes the
// conversation in a second process, a tool call, a usage or rate limit,
// and an API error. The golden files hold every line the editor got.
func TestOtherCLIs(t *testing.T) {
	codexData := filepath.Join("..", "..", "codex", "testdata", "cli-0.169.0")
	geminiData := filepath.Join("..", "..", "gemini", "testdata")
	tests := []struct {
		name, cli, bin, transcript string
		prompts                    int
	}{
		{"codex-two-turns", "codex", fakecodexBin, filepath.Join("..", "..", "bridge", "testdata", "codex-session"), 2},
		{"codex-tool-call", "codex", fakecodexBin, filepath.Join(codexData, "tool-call.jsonl"), 1},
		{"codex-usage-limit", "codex", fakecodexBin, filepath.Join(codexData, "rate-limit-usage-limit.jsonl"), 1},
		{"codex-api-error", "codex", fakecodexBin, filepath.Join(codexData, "api-error-401.jsonl"), 1},
		{"gemini-two-turns", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "session"), 2},
		{"gemini-tool-call", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "tool-call.jsonl"), 1},
		{"gemini-rate-limit", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "rate-limit-429.jsonl"), 1},
		{"gemini-api-error", "gemini-headless", fakegeminiBin, filepath.Join(geminiData, "api-error-401.jsonl"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEditor(t, fakeclaudeBin, tt.transcript, cliArgs(tt.cli, tt.bin)...)
			e.initialize(capabilities{notices: true})
			sid := e.newSession()
			for range tt.prompts {
				e.prompt(sid, "Say hello and tell me what 2 + 2 is.")
			}
			e.p.stdin.Close()
			if err := e.p.wait(); err != nil {
				t.Errorf("claude-acp exit: %v; want status 0", err)
			}
			got := resetsAt.ReplaceAllFunc(e.transcript(), func(m []byte) []byte {
				ms, _ := strconv.ParseInt(string(resetsAt.FindSubmatch(m)[1]), 10, 64)
				if d := time.Until(time.UnixMilli(ms)); d < -24*time.Hour || d > 24*time.Hour {
					t.Errorf("resetsAtMs %d is %v from now, not within a day", ms, d)
				}
				return []byte(`"resetsAtMs": "<within a day>"`)
			})
			checkGolden(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

// resetsAt matches a reset time in an error's data. Codex and Gemini CLI
// give theirs in words relative to the moment ("try again at 2:00 PM",
// "retry after 3s"), so the golden files hold a placeholder and the test
// checks the time is near.
var resetsAt = regexp.MustCompile(`"resetsAtMs": (\d+)`)
