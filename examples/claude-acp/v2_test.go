//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// This file holds the end-to-end tests of ACP v2: the official SDK's
// clients against the binary, and the golden transcripts of one turn over
// v1 and over v2, side by side (testdata/turn-v1.golden and
// turn-v2.golden; testdata/README.md says what a v2 editor gains).

// sdkRun is what testdata/sdk-client.mjs saw.
type sdkRun struct {
	ProtocolVersion int
	Agent           string
	Error           string
	Exit            int    // claude-acp's exit status
	Permission      string // the permission question: its title, and what it is about

	// v2
	Ack  string   // the prompt's acknowledgement: its user message's id
	Turn []string // the turn's updates, up to its end

	// v1
	StopReason string
	Text       string // the turn's agent text
}

// TestSDKClients drives claude-acp, with fakeclaude replaying a turn that
// asks permission for a tool call, with the official TypeScript SDK's
// clients: its experimental/v2 client gets ACP v2 from the same binary
// whose v1 client gets v1, and each sees what its version promises.
func TestSDKClients(t *testing.T) {
	const tool = "toolu_01QknL9fkG3HZGu1EZc4xb0C"
	v2 := sdkRun{
		ProtocolVersion: 2,
		Agent:           "claude-acp",
		Permission:      "touch x / tool_call " + tool,
		Ack:             "user-<nonce>-1",
		Turn: []string{
			"user_message user-<nonce>-1 Create an empty file named x.",
			"state running",
			"tool " + tool + " pending touch x",
			"tool " + tool + " completed",
			`chunk agent-<nonce>-2 "Created the file x."`,
			"usage_update",
			"stop end_turn",
		},
	}
	v1 := sdkRun{ProtocolVersion: 1, Agent: "claude-acp", Permission: "touch x / toolCall " + tool, StopReason: "end_turn", Text: "Created the file x."}
	tests := []struct {
		name   string
		client string
		args   []string
		want   sdkRun
	}{
		{"v2 client, -protocol auto", "v2", nil, v2},
		{"v2 client, -protocol v2", "v2", []string{"-protocol", "v2"}, v2},
		{"v1 client, -protocol auto", "v1", nil, v1},
		{"v1 client, -protocol v1", "v1", []string{"-protocol", "v1"}, v1},
	}
	tssdk.Dir(t)
	transcript, err := filepath.Abs(filepath.Join("testdata", "permission-allow.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{tt.client, t.TempDir(), agentBin, "-claude", fakeclaudeBin}, tt.args...)
			stdout, stderr := runSDKScript(t, "testdata/sdk-client.mjs", transcript, args...)
			var got sdkRun
			if err := json.Unmarshal(normaliseIDs(stdout), &got); err != nil {
				t.Fatalf("sdk-client.mjs printed %q: %v\n%s", stdout, err, stderr)
			}
			// The CLI, started with the session, announces its commands
			// (and the options they come with) when it is up, before or
			// after the prompt's turn starts.
			got.Turn = slices.DeleteFunc(got.Turn, func(l string) bool {
				return l == "available_commands_update" || l == "config_option_update"
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("what the SDK's client saw (-want +got):\n%s\nstderr:\n%s", diff, stderr)
			}
		})
	}
}

// runSDKScript runs the node script with args beside the official SDK,
// claude-acp's fakeclaude replaying transcript in a HOME of its own, and
// returns what it printed (see runScript).
func runSDKScript(t *testing.T, script, transcript string, args ...string) (stdout []byte, stderr string) {
	t.Helper()
	home := t.TempDir()
	cmd := tssdk.Command(t, script, args...)
	cmd.Env = append(os.Environ(),
		claudetest.EnvTranscript+"="+transcript,
		"HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"GORACE=atexit_sleep_ms=0")
	return runScript(t, cmd)
}

// runScript runs cmd, a node script of tssdk.Command's, and returns what
// it printed on its standard output and error; it fails the test when the
// script fails, or runs past testwait.Limit (tssdk.Command then kills
// it, so Run returns).
func runScript(t *testing.T, cmd *exec.Cmd) (stdout []byte, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd.Args[1], err, errs.String())
	}
	return out.Bytes(), errs.String()
}

// messageIDs matches the ids claude-acp gives v2 messages and plans,
// whose middle part, a nonce, changes from run to run.
var messageIDs = regexp.MustCompile(`\b(user|agent|thought|plan)-[0-9a-f]{8}\b`)

// normaliseIDs replaces the nonce of the message ids in b.
func normaliseIDs(b []byte) []byte { return messageIDs.ReplaceAll(b, []byte("$1-<nonce>")) }

// TestTurnV1V2 plays one Claude Code turn over ACP v1 and the same turn
// over v2, and keeps both transcripts side by side. A v2 prompt's answer
// is sent beside the turn's updates, and where it lands among them is a
// matter of timing: the v2 transcripts leave it out, and editorV2.prompt
// checks it. The turns: turn-* is a turn of
// text, a plan, reads, an edit and a shell command; permission-* one
// that asks before running a tool; error-* one the API fails.
func TestTurnV1V2(t *testing.T) {
	tests := []struct {
		name, transcript, prompt string
		answers                  []string
	}{
		{"turn", "tools.ndjson", "Fix the bug in main.go and run the tests.", nil},
		{"permission", "permission-allow.ndjson", "Create an empty file named x.", []string{answerAllow}},
		{"error", "api-error.ndjson", "Say hello and tell me what 2 + 2 is.", nil},
	}
	for _, tt := range tests {
		path := filepath.Join("testdata", tt.transcript)
		t.Run(tt.name+"-v1", func(t *testing.T) {
			t.Parallel()
			e := startEditor(t, fakeclaudeBin, path)
			e.answer(tt.answers...)
			e.initialize(capabilities{notices: true})
			e.prompt(e.newSession(), tt.prompt)
			e.quit()
			checkGolden(t, filepath.Join("testdata", tt.name+"-v1.golden"), e.transcript())
		})
		t.Run(tt.name+"-v2", func(t *testing.T) {
			t.Parallel()
			e := startEditorV2(t, fakeclaudeBin, path)
			e.answer(tt.answers...)
			e.initialize()
			sid := e.newSession()
			// The CLI, started with the session, announces its commands
			// when it is up; in v2 the turn's first updates come from
			// the bridge, at once, so the editor waits for them first.
			e.waitFor("config_option_update")
			e.prompt(sid, tt.prompt)
			e.quit()
			checkGolden(t, filepath.Join("testdata", tt.name+"-v2.golden"), normaliseIDs(e.transcript(acpv2.SessionPrompt.Name)))
		})
	}
}

// TestV2Resume replays a session the real CLI stored, over v2's
// session/resume with replayFrom, through the replay of v1's
// session/load; then a turn goes on with the conversation.
func TestV2Resume(t *testing.T) {
	const id = "06bc54a4-f6e8-415f-a965-41995b28a3b2"
	e := startEditorV2(t, fakeclaudeBin, filepath.Join("testdata", "resume.ndjson"))
	e.copyStore(filepath.Join("..", "..", "claude", "testdata", "store", "resume", "projects"), filepath.Join(".claude", "projects"))
	e.initialize()
	e.resume(id, acpv2.ReplayFromStart{})
	e.waitFor("config_option_update") // as in TestTurnV1V2
	e.prompt(id, "again")
	e.quit()
	checkGolden(t, filepath.Join("testdata", "resume-v2.golden"), normaliseIDs(e.transcript(acpv2.SessionPrompt.Name)))
}

// TestV2OtherCLIs serves a Codex and a Gemini CLI turn with a tool call
// over v2: their events go through the same translation and rendering.
func TestV2OtherCLIs(t *testing.T) {
	tests := []struct {
		name, cli, bin, transcript string
		answers                    []string
	}{
		{"codex-tool-call-v2", "codex", fakecodexBin, filepath.Join("..", "..", "bridge", "testdata", "codex", "command-approval-accept.ndjson"), []string{answerAllow}},
		{"gemini-tool-call-v2", "gemini-headless", fakegeminiBin, filepath.Join("..", "..", "gemini", "testdata", "tool-call.jsonl"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEditorV2(t, fakeclaudeBin, tt.transcript, cliArgs(tt.cli, tt.bin)...)
			e.answer(tt.answers...)
			e.initialize()
			e.prompt(e.newSession(), "Say hello and tell me what 2 + 2 is.")
			e.quit()
			checkGolden(t, filepath.Join("testdata", tt.name+".golden"), normaliseIDs(e.transcript(acpv2.SessionPrompt.Name)))
		})
	}
}

// editorV2 is an editor that speaks ACP v2.
type editorV2 struct {
	*editor
	idle chan acpv2.IdleStateUpdate // each turn's end
}

// startEditorV2 is startEditor for an editor of ACP v2.
func startEditorV2(t testing.TB, claudePath, transcript string, args ...string) *editorV2 {
	t.Helper()
	v2 := &editorV2{idle: make(chan acpv2.IdleStateUpdate, 10)}
	v2.editor = newEditorWith(t, false, startAgent(t, claudePath, transcript, args...), func(e *editor, m *acp.Methods) {
		acpv2.SessionUpdate.Handle(m, v2.sessionUpdate)
		acpv2.SessionRequestPermission.Handle(m, v2.requestPermission)
	})
	return v2
}

func (e *editorV2) sessionUpdate(_ context.Context, _ *acp.Conn, n acpv2.SessionNotification) {
	e.mu.Lock()
	e.updates++
	e.mu.Unlock()
	switch u := n.Update.(type) {
	case acpv2.UnknownUpdate:
		e.t.Errorf("an update of a kind the editor does not know: %+v", n.Update)
	case acpv2.SessionStateUpdate:
		if idle, ok := u.State.(acpv2.IdleStateUpdate); ok {
			e.idle <- idle
		}
	}
}

// requestPermission answers with the option of the kind the test queued.
func (e *editorV2) requestPermission(ctx context.Context, _ *acp.Conn, p acpv2.RequestPermissionParams) (acpv2.RequestPermissionResult, error) {
	e.mu.Lock()
	answer := answerReject
	if len(e.answers) > 0 {
		answer, e.answers = e.answers[0], e.answers[1:]
	} else {
		e.t.Errorf("a permission request the test did not expect: %+v", p)
	}
	e.mu.Unlock()
	for _, o := range p.Options {
		if string(o.Kind) == answer {
			return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionSelected, OptionID: o.OptionID}}, nil
		}
	}
	e.t.Errorf("no %s option in %+v", answer, p.Options)
	return acpv2.RequestPermissionResult{Outcome: acpv2.PermissionOutcome{Outcome: acpv2.PermissionCancelled}}, nil
}

func (e *editorV2) initialize() acpv2.InitializeResult {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	res, err := acpv2.Initialize.Call(ctx, e.conn, acpv2.InitializeParams{
		ProtocolVersion: acpv2.ProtocolVersion,
		Info:            acpv2.Implementation{Name: "e2e-editor", Version: "1.0.0"},
	})
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	return res
}

func (e *editorV2) newSession() string {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	res, err := acpv2.SessionNew.Call(ctx, e.conn, acpv2.NewSessionParams{Cwd: e.cwd})
	if err != nil {
		e.t.Fatalf("session/new: %v", err)
	}
	e.mu.Lock()
	e.sessionIDs = append(e.sessionIDs, res.SessionID)
	if e.first == "" {
		e.first = res.SessionID
	}
	e.mu.Unlock()
	return res.SessionID
}

// resume calls session/resume, replaying from replay (nil for none).
func (e *editorV2) resume(id string, replay acpv2.ReplayFrom) {
	e.t.Helper()
	e.known(id)
	ctx, cancel := bounded()
	defer cancel()
	if _, err := acpv2.SessionResume.Call(ctx, e.conn, acpv2.ResumeSessionParams{SessionID: id, Cwd: e.cwd, ReplayFrom: replay}); err != nil {
		e.t.Fatalf("session/resume: %v", err)
	}
	// The resumed session, idle, says so before the response; taken
	// here, that state cannot pass for the end of the next turn.
	within(e.t, e.idle, "the resumed session's state")
}

// prompt sends a prompt, checks that its acknowledgement names the user
// message the agent inserted, and waits for the turn's idle state.
func (e *editorV2) prompt(sid, text string) acpv2.IdleStateUpdate {
	e.t.Helper()
	ctx, cancel := bounded()
	defer cancel()
	res, err := acpv2.SessionPrompt.Call(ctx, e.conn, acpv2.PromptParams{SessionID: sid, Prompt: acpv2.ContentBlocks{acpv2.TextContent{Text: text}}})
	if err != nil {
		e.t.Fatalf("session/prompt: %v", err)
	}
	if !bytes.Contains(e.wire.Bytes(), []byte(`"sessionUpdate":"user_message","messageId":"`+res.MessageID+`"`)) {
		e.t.Errorf("the prompt's acknowledgement names %q, which no user_message update before it did", res.MessageID)
	}
	return within(e.t, e.idle, "idle state")
}
