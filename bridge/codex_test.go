package bridge_test

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/tidwall/gjson"
)

// TestCodexTranscripts plays each captured scenario of the real
// app-server through the bridge, and compares what the editor saw and
// what the bridge wrote to the app-server with the golden files under
// testdata/codex.
func TestCodexTranscripts(t *testing.T) {
	// The transcripts examples/claude-acp plays, kept as the bridge plays
	// them.
	kept := []string{"plain", "command-approval-accept", "rate-limit-429", "api-error-500"}
	const hello = "Say hello and tell me what 2 + 2 is."
	one := func(tr transcript) []transcript { return []transcript{tr} }
	tests := []struct {
		name        string
		transcripts func(t *testing.T) []transcript
		play        func(e *codexEnv)
	}{
		// Two turns: text as it streams, usage per turn from the
		// thread's totals, and the context window.
		{"plain", func(t *testing.T) []transcript { return one(asBridge(t, "plain", 0)) }, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
			e.say(sid, "And now say it again.")
		}},
		{"reasoning", func(t *testing.T) []transcript { return one(asBridge(t, "reasoning", 0)) }, func(e *codexEnv) {
			e.say(e.newSession(), "What is 2 + 2? Think first.")
		}},
		// A command the editor allows, and one it rejects: the tool call
		// shown, the app-server's decision, the command's end.
		{"command-approval-accept", func(t *testing.T) []transcript { return one(asBridge(t, "command-approval-accept", 0)) }, func(e *codexEnv) {
			e.say(e.newSession(), "Create cmd-ran.txt.")
		}},
		{"command-approval-decline", func(t *testing.T) []transcript { return one(asBridge(t, "command-approval-decline", 0)) }, func(e *codexEnv) {
			e.option = "reject"
			e.say(e.newSession(), "Create cmd-ran.txt.")
		}},
		// A file change, with its diff in the question and the tool call.
		{"file-change-approval", func(t *testing.T) []transcript { return one(asBridge(t, "file-change-approval", 0)) }, func(e *codexEnv) {
			e.say(e.newSession(), "Create approved.txt.")
		}},
		// session/cancel mid-stream is turn/interrupt: the prompt is
		// answered cancelled, and the next turn runs in the same thread.
		{"interrupt", func(t *testing.T) []transcript { return one(asBridge(t, "interrupt", 0)) }, func(e *codexEnv) {
			sid := e.newSession()
			e.cancelSID, e.cancelAt = sid, 3
			e.say(sid, "Tell me a long story.")
			e.say(sid, hello)
		}},
		{"api-error-500", func(t *testing.T) []transcript { return one(asBridge(t, "api-error-500", 0)) }, func(e *codexEnv) {
			e.say(e.newSession(), hello)
		}},
		// A usage limit: a notice that the window is used up, and the
		// prompt's error with when it resets.
		{"rate-limit-429", func(t *testing.T) []transcript { return one(asBridge(t, "rate-limit-429", 0)) }, func(e *codexEnv) {
			e.say(e.newSession(), hello)
		}},
		// The editor's MCP servers reach the thread's configuration, a
		// stdio one and an HTTP one, and the stdio one's tool's call is
		// shown with its result.
		{"mcp", func(t *testing.T) []transcript { return one(asBridge(t, "mcp", 0)) }, func(e *codexEnv) {
			sid := e.newSession(acp.MCPServerStdio{Name: "echo", Command: "node", Args: []string{"/tmp/cx-app/mcp/mcp-echo.mjs"}, Env: []acp.EnvVariable{{Name: "ECHO_PREFIX", Value: "echo: "}}},
				acp.MCPServerHTTP{Name: "docs", URL: "https://docs.example/mcp", Headers: []acp.HTTPHeader{{Name: "Authorization", Value: "Bearer t0ken"}}})
			e.say(sid, "Call the echo tool.")
		}},
		// An image in the prompt goes to the turn as a data URL.
		{"images", func(t *testing.T) []transcript { return one(asBridge(t, "images", 0)) }, func(e *codexEnv) {
			e.prompt(e.newSession(), acp.TextContent{Text: "How many images?"},
				acp.ImageContent{MimeType: "image/png", Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="},
				acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///work/notes.txt", Text: ptr("two images")}})
		}},
		// session/resume goes on with the thread in a new process
		// (thread/resume), whose restored totals are the turn's baseline.
		{"resume", func(t *testing.T) []transcript { return one(asBridge(t, "resume", 1)) }, func(e *codexEnv) {
			const id = "01a23b10-5ce2-7481-a826-a541a011e7ba"
			e.resume(id)
			e.say(id, "again")
		}},
		// Modes, model and effort switched between turns reach the next
		// turn/start.
		{"settings", func(t *testing.T) []transcript { return one(asBridge(t, "plain", 0)) }, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
			e.set(sid, "mode", "danger-full-access")
			e.set(sid, "model", "gpt-6.2-sol")
			e.set(sid, "effort", "high")
			e.say(sid, "And now say it again.")
		}},
		// A process stopped when idle, and one that crashed between
		// turns, are replaced for the next prompt, which resumes the
		// thread.
		{"idle", func(t *testing.T) []transcript {
			return []transcript{asBridge(t, "plain", 1), asBridge(t, "resume", 1)}
		}, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
			sleep(time.Hour)
			e.say(sid, "again")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := bridge.Config{AllowBypass: true, Idle: 30 * time.Minute}
			trs := tt.transcripts(t)
			playCodex(t, tt.name, cfg, 1, trs, tt.play)
			if slices.Contains(kept, tt.name) {
				keepTranscripts(t, tt.name, trs)
			}
		})
	}
}

// TestCodexFaults plays the faults of an app-server: it exits mid-turn,
// writes a line that is not JSON, sends a notification no release had,
// and never answers a request.
func TestCodexFaults(t *testing.T) {
	const hello = "Say hello and tell me what 2 + 2 is."
	tests := []struct {
		name        string
		timeout     time.Duration
		transcripts func(t *testing.T) []transcript
		play        func(e *codexEnv)
	}{
		// The prompt fails as a crash; the next resumes the thread in a
		// new process.
		{"exit-mid-turn", 0, func(t *testing.T) []transcript {
			plain := asBridge(t, "plain", 1)
			plain = plain.insert(plain.index(t, "< item/agentMessage/delta", 2), codextest.AppServerRecord{Dir: codextest.DirExit})
			return []transcript{plain, asBridge(t, "resume", 1)}
		}, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
			e.say(sid, "again")
		}},
		{"not-json", 0, func(t *testing.T) []transcript {
			plain := asBridge(t, "plain", 1)
			return []transcript{plain.insert(plain.index(t, "< item/agentMessage/delta", 1), codextest.AppServerRecord{Dir: codextest.DirServer, Raw: "Segmentation fault (not JSON)"})}
		}, func(e *codexEnv) { e.say(e.newSession(), hello) }},
		{"unknown-notification", 0, func(t *testing.T) []transcript {
			plain := asBridge(t, "plain", 1)
			return []transcript{plain.insert(plain.index(t, "< item/agentMessage/delta", 1),
				server(`{"method":"item/hologram/projected","params":{"threadId":"01a23b10-5ce2-7481-a826-a541a011e7ba","depth":3},"emittedAtMs":1796287300000}`))}
		}, func(e *codexEnv) { e.say(e.newSession(), hello) }},
		// turn/start is never answered: the watchdog fails the turn and
		// kills the process; the next prompt resumes in another.
		{"never-answers", time.Minute, func(t *testing.T) []transcript {
			return []transcript{asBridge(t, "plain", 0).cut(t, "> turn/start", 1), asBridge(t, "resume", 1)}
		}, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
			e.say(sid, "again")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := bridge.Config{TurnTimeout: tt.timeout, Grace: time.Second}
			if tt.timeout != 0 {
				// The watchdog's silence passes in the bubble's time.
				cfg.TurnTimeout = tt.timeout
			}
			playCodex(t, tt.name, cfg, 1, tt.transcripts(t), tt.play)
		})
	}
}

// TestCodexSessions plays what the bridge does with Codex's threads
// around the turns: a fork, a resume of a thread the CLI does not have, a
// CLI too old for the bridge, and a cancel while an approval waits.
func TestCodexSessions(t *testing.T) {
	const hello = "Say hello and tell me what 2 + 2 is."
	tests := []struct {
		name        string
		transcripts func(t *testing.T) []transcript
		play        func(e *codexEnv)
	}{
		// session/fork of an open session forks its thread in a process
		// of the new session's own (thread/fork); the fork's first turn
		// counts from the totals it inherited.
		{"fork", func(t *testing.T) []transcript {
			misc := loadTranscript(t, "misc")
			head := append(misc.span(t, "> initialize", 1, "< #2", 1), misc[misc.index(t, "> initialized", 1)])
			head = append(head, misc.span(t, "> model/list", 1, "< #4", 1)...)
			first := append(slices.Clone(head), misc.span(t, "> thread/start", 1, "< turn/completed", 1)...)
			fork := append(slices.Clone(head), misc.span(t, "> thread/fork", 1, "< turn/completed", 2)...)
			return []transcript{first, fork}
		}, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
			res, err := acp.SessionFork.Call(bg, e.client, acp.ForkSessionParams{SessionID: sid, Cwd: "/work"})
			if err != nil {
				e.t.Fatal(err)
			}
			synctest.Wait() // the fork's app-server starts
			e.record("session/fork %s -> %s", sid, res.SessionID)
			e.say(res.SessionID, "A question in the fork.")
		}},
		// A thread the CLI does not have fails the prompt as a resume not
		// found, naming it.
		{"resume-unknown", func(t *testing.T) []transcript {
			resume := loadTranscript(t, "resume")
			tr := append(resume.span(t, "> initialize", 1, "> initialized", 1), modelList(t)...)
			tr = append(tr, resume.span(t, "> thread/resume", 2, "< #5", 1)...)
			return []transcript{tr, tr}
		}, func(e *codexEnv) {
			const id = "00000000-0000-4000-8000-000000000000"
			e.resume(id)
			e.say(id, "go on")
		}},
		// A release before the one the bridge speaks to is refused by
		// name, at every prompt, each in a process of its own.
		{"too-old", func(t *testing.T) []transcript {
			plain := loadTranscript(t, "plain").span(t, "> initialize", 1, "> initialized", 1)
			plain[1].Msg = json.RawMessage(strings.Replace(string(plain[1].Msg), "cxapp_capture/0.171.0", "cxapp_capture/0.160.2", 1))
			return []transcript{plain, plain}
		}, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
		}},
		// A CLI without the app-server exits at once: the prompt's error
		// names the release the bridge needs.
		{"no-app-server", func(t *testing.T) []transcript {
			exit := transcript{{Dir: codextest.DirExit}}
			return []transcript{exit, exit}
		}, func(e *codexEnv) {
			sid := e.newSession()
			e.say(sid, hello)
		}},
		// session/cancel while an approval waits: the app-server is told
		// cancel, the question withdrawn, the prompt answered cancelled.
		{"cancel-approval", func(t *testing.T) []transcript {
			tr := asBridge(t, "command-approval-decline", 0)
			declined := tr[tr.index(t, "< item/completed", 2)]
			tr = tr.cut(t, "< item/commandExecution/requestApproval", 1)
			const ids = `"threadId":"01a23b10-6852-77c3-a1aa-cefb2599f5e2","turnId":"01a23b10-686e-7090-ac27-0a8137e1b414"`
			return []transcript{append(tr,
				client(`{"id":0,"result":{"decision":"cancel"}}`),
				server(`{"method":"serverRequest/resolved","params":{"threadId":"01a23b10-6852-77c3-a1aa-cefb2599f5e2","requestId":0},"emittedAtMs":1796287261012}`),
				declined,
				client(`{"id":9,"method":"turn/interrupt","params":{`+ids+`}}`),
				server(`{"id":9,"result":{}}`),
				server(`{"method":"turn/completed","params":{"threadId":"01a23b10-6852-77c3-a1aa-cefb2599f5e2","turn":{"id":"01a23b10-686e-7090-ac27-0a8137e1b414","items":[],"itemsView":"notLoaded","status":"interrupted","error":null}},"emittedAtMs":1796287261015}`),
			)}
		}, func(e *codexEnv) {
			e.option = "cancel"
			e.say(e.newSession(), "Create cmd-ran.txt.")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			playCodex(t, tt.name, bridge.Config{}, 1, tt.transcripts(t), tt.play)
		})
	}
}

// TestCodexV2 plays Codex turns to an ACP v2 editor: messages with ids
// (one per message of Codex's), tool calls as upserts, a file change as a
// structured change with its git patch, and the prompt's lifecycle.
func TestCodexV2(t *testing.T) {
	tests := []struct {
		name, transcript, prompt string
	}{
		{"v2-file-change", "file-change-approval", "Create approved.txt."},
		{"v2-reasoning", "reasoning", "What is 2 + 2? Think first."},
		{"v2-command", "command-approval-accept", "Create cmd-ran.txt."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			playCodex(t, tt.name, bridge.Config{}, 2, []transcript{asBridge(t, tt.transcript, 0)}, func(e *codexEnv) {
				e.sayV2(e.newSessionV2(), tt.prompt)
			})
		})
	}
}

// TestCodexLateTurnStartInterruptsNoOtherTurn checks that a turn
// cancelled before turn/start was answered is interrupted, once the
// answer comes, only while it still runs: when its end came first and
// the next turn started, the late answer must not interrupt that one.
func TestCodexLateTurnStartInterruptsNoOtherTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		results := make(chan func(bridge.Host), 10)
		cfg := bridge.ConversationConfig{Cwd: "/work", Now: time.Now, Logger: slog.New(slog.DiscardHandler),
			Go: func(work func() func(bridge.Host)) { go func() { results <- work() }() }}
		conv, err := bridge.Codex.NewConversation(cfg)
		must(t, err)
		h := &fuzzHost{t: t}
		next := func(what string) func(bridge.Host) {
			t.Helper()
			synctest.Wait()
			select {
			case f := <-results:
				return f
			default:
				t.Fatalf("no callback for %s", what)
				return nil
			}
		}
		wire := &lineLog{}
		// answer answers the last request of method the bridge wrote.
		answer := func(method, result string) {
			t.Helper()
			synctest.Wait()
			lines := wire.all()
			for i := len(lines) - 1; i >= 0; i-- {
				if m := gjson.Parse(lines[i]); m.Get("method").Str == method {
					conv.Line(h, []byte(`{"id":`+m.Get("id").Raw+`,"result":`+result+`}`))
					return
				}
			}
			t.Fatalf("no %s request in %q", method, lines)
		}
		conv.CommandLine("read-only", "default")
		conv.Start(nopCloser{wire})
		answer("initialize", `{"userAgent":"codex/0.171.0"}`)
		answer("model/list", `{"data":[]}`)
		answer("thread/start", `{"thread":{"id":"th"},"model":"gpt-5.5"}`)
		next("the thread's opening")(h)

		must(t, conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "one"}}))
		synctest.Wait()
		conv.Interrupt()
		next("the cancel")(h)
		must(t, conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "two"}}))
		answer("turn/start", `{"turn":{"id":"T1","status":"inProgress","items":[]}}`)
		late := next("turn/start of the cancelled turn")
		conv.Line(h, []byte(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"T1","status":"completed","items":[]}}}`))
		answer("turn/start", `{"turn":{"id":"T2","status":"inProgress","items":[]}}`)
		next("turn/start of the next turn")(h)
		late(h)
		synctest.Wait()
		for _, l := range wire.all() {
			if strings.Contains(l, `"turn/interrupt"`) {
				t.Errorf("the bridge wrote %s, which interrupts the turn that followed the cancelled one", l)
			}
		}
		conv.Exited(h, nil)
		synctest.Wait()
		for len(results) > 0 {
			<-results
		}
	})
}
