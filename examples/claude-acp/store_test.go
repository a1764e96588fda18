//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// These tests run claude-acp twice for one user, as an editor that
// reopens yesterday's threads sees it: the first agent runs sessions
// live, the CLI keeps them in the user's home folder (fakeclaude as
// Claude Code does; for Codex and Gemini CLI the files the real CLIs
// wrote in the captured runs the fakes replay), and a second agent lists
// them and loads them.

// scenarioNamed returns the scenario of e2e_test.go with the name.
func scenarioNamed(t *testing.T, name string) scenario {
	t.Helper()
	for _, sc := range scenarios {
		if sc.name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return scenario{}
}

// TestReplayEqualsLive runs multi-turn sessions live through fakeclaude,
// which keeps each as the CLI does, then loads each in a new claude-acp:
// the updates replayed are the ones the live turns sent, once deltas are
// merged into whole messages and the permission questions left out, and
// the prompts the editor sent are replayed as the person's messages. A
// turn that failed shows its error again as the live turn did: as a
// notice, or, to a client without notices, which saw it as the prompt's
// error, as agent text: the CLI's words, exactly. The golden files hold every line the second
// agent wrote.
func TestReplayEqualsLive(t *testing.T) {
	for _, tt := range []struct {
		scenario  string
		noNotices bool // the client declares no notices
	}{
		{scenario: "two-turns"}, {scenario: "image"}, {scenario: "thinking"}, {scenario: "partial"},
		{scenario: "partial-tool"}, {scenario: "tools"}, {scenario: "tools-plan"},
		{scenario: "permission-allow"}, {scenario: "permission-deny"}, {scenario: "cancel"},
		{scenario: "max-turns"}, {scenario: "api-error"}, {scenario: "api-error", noNotices: true},
	} {
		name := tt.scenario
		if tt.noNotices {
			name += "-no-notices"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := scenarioNamed(t, tt.scenario)
			sc.caps.notices = sc.caps.notices && !tt.noNotices
			home := t.TempDir()
			transcript := filepath.Join("testdata", sc.transcript)
			live := newEditorIn(t, home, fakeclaudeBin, transcript)
			live.initialize(sc.caps)
			sc.play(live)
			live.quit()
			want := live.live(sc.caps.notices)

			e := newEditorIn(t, home, fakeclaudeBin, transcript)
			e.cwd = live.cwd
			e.initialize(sc.caps)
			sid := live.first
			e.known(sid)
			e.load(sid)
			e.waitFor("config_option_update") // the last update the CLI started for it brings
			e.quit()
			got := conversation(e.sessionUpdates(""))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the replay differs from the live turns (-live +replay):\n%s", diff)
			}
			checkGolden(t, filepath.Join("testdata", "replay-"+name+".golden"), e.transcript())
		})
	}
}

// TestLoadAfterRestart runs a session of each CLI, then loads it in a new
// claude-acp, whose every line the golden file holds: the replay, the
// answer, the commands of the Claude Code started for it. session/list
// shows the session first, with its directory and first prompt.
func TestLoadAfterRestart(t *testing.T) {
	codexStore := filepath.Join("..", "..", "codex", "testdata", "store")
	geminiStore := filepath.Join("..", "..", "gemini", "testdata", "store")
	tests := []struct {
		name, cli, bin, transcript string
		loadTranscript             string // the CLI's for the load; "" for transcript
		prompts                    []string
		store, dst                 string // the CLI's store of the run, and where it goes in the home folder
		storeCwd                   string // the directory the run was in, which the copy moves to a real one
		title                      string
	}{
		{name: "claude", cli: "claude", bin: fakeclaudeBin, transcript: filepath.Join("testdata", "tools.ndjson"),
			prompts: []string{"Fix the bug in main.go and run the tests."}, title: "Fix the bug in main.go and run the tests."},
		// The live Codex is an app-server's capture; the thread loaded is
		// one the real CLI stored, whose app-server for the load exits at
		// once, having started nothing.
		{name: "codex", cli: "codex", bin: fakecodexBin, transcript: filepath.Join("..", "..", "bridge", "testdata", "codex", "plain.ndjson"),
			loadTranscript: filepath.Join("testdata", "codex-exit.ndjson"),
			prompts:        []string{"Say hello and tell me what 2 + 2 is."},
			store:          filepath.Join(codexStore, "tool-call", "sessions"), dst: filepath.Join(".codex", "sessions"),
			storeCwd: "/tmp/cx-store/tool-call/work",
			title:    "Run echo hi in the shell and tell me what it printed."},
		{name: "gemini", cli: "gemini-headless", bin: fakegeminiBin, transcript: filepath.Join(geminiStore, "tool-call", "live-r1.jsonl"),
			prompts: []string{"Run echo hi in the shell and tell me what it printed."},
			store:   filepath.Join(geminiStore, "tool-call"), dst: ".gemini",
			storeCwd: "/tmp/gm-store/tool-call/work",
			title:    "Run echo hi in the shell and tell me what it printed."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			args := cliArgs(tt.cli, tt.bin)
			live := newEditorIn(t, home, fakeclaudeBin, tt.transcript, args...)
			live.initialize(capabilities{notices: true})
			sid := live.newSession()
			for _, p := range tt.prompts {
				if _, err := live.prompt(sid, p); err != nil {
					t.Fatal(err)
				}
			}
			live.quit()
			if tt.store != "" {
				// The files the real CLI wrote in the run the fake replayed,
				// in a directory that exists here, as claude-acp requires.
				// Gemini CLI's files name their directory's hash too.
				cwd := t.TempDir()
				copyStore(t, tt.store, filepath.Join(home, tt.dst), strings.NewReplacer(
					tt.storeCwd, cwd, gemini.ProjectHash(tt.storeCwd), gemini.ProjectHash(cwd)))
			}

			load := tt.transcript
			if tt.loadTranscript != "" {
				load = tt.loadTranscript
			}
			e := newEditorIn(t, home, fakeclaudeBin, load, args...)
			e.initialize(capabilities{notices: true})
			list := e.list("", "")
			if len(list.Sessions) == 0 {
				t.Fatal("session/list shows no session")
			}
			s := list.Sessions[0]
			if s.Title != tt.title || s.Cwd == "" || s.UpdatedAt == "" {
				t.Errorf("session/list shows %+v, want the title %q, a cwd and a time", s, tt.title)
			}
			e.known(s.SessionID)
			e.cwd = s.Cwd
			e.loadIn(s.SessionID, s.Cwd)
			if tt.cli == "claude" {
				e.waitFor("config_option_update") // the last update the CLI started for it brings
			}
			e.quit()
			// What the list shows changes from run to run; the load does not.
			checkGolden(t, filepath.Join("testdata", "load-"+tt.name+".golden"), e.transcript(acp.SessionList.Name))
		})
	}
}

// copyStore copies the CLI store src to dst, its files' contents
// rewritten by r.
func copyStore(t *testing.T, src, dst string, r *strings.Replacer) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(r.Replace(string(b))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestListAcrossAgents runs two claude-acp for one user at once: each
// lists the sessions the other's CLIs stored, and its own before the CLI
// stored them; both page through a store of more sessions than a page
// holds; a session one deletes is gone from the disk and from its list
// (the other, which has it open, still lists it).
func TestListAcrossAgents(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	transcript := filepath.Join("testdata", "two-turns.ndjson")
	a := newEditorIn(t, home, fakeclaudeBin, transcript)
	a.initialize(capabilities{notices: true})
	b := newEditorIn(t, home, fakeclaudeBin, transcript)
	b.initialize(capabilities{notices: true})

	stored := a.newSession()
	if _, err := a.prompt(stored, "Say hello and tell me what 2 + 2 is."); err != nil {
		t.Fatal(err)
	}
	unprompted := a.newSession()
	if got := ids(a.list(a.cwd, "")); !slices.Equal(got, []string{unprompted, stored}) && !slices.Equal(got, []string{stored, unprompted}) {
		t.Errorf("the first agent lists %q, want its two sessions", got)
	}
	if got := ids(b.list(a.cwd, "")); !slices.Equal(got, []string{stored}) {
		t.Errorf("the second agent lists %q, want %s, the one stored", got, stored)
	}

	// 150 more sessions, as the CLI stored them, in another directory.
	template, err := os.ReadFile(filepath.Join("..", "..", "claude", "testdata", "store", "plain", "projects", "-tmp-cc-store-plain-work", "5474356c-702e-48b0-8ecb-5f54d4bff9a2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 150 {
		id := fmt.Sprintf("%08d-702e-48b0-8ecb-5f54d4bff9a2", i)
		writeSession(t, home, "/tmp/cc-store/plain/work", id, bytes.ReplaceAll(template, []byte("5474356c-702e-48b0-8ecb-5f54d4bff9a2"), []byte(id)))
	}
	for _, e := range []*editor{a, b} {
		var all []string
		pages := 0
		for cursor := ""; pages == 0 || cursor != ""; pages++ {
			res := e.list("", cursor)
			all, cursor = append(all, ids(res)...), res.NextCursor
		}
		if n := len(slices.Compact(slices.Sorted(slices.Values(all)))); pages != 2 || n != len(all) || n < 151 {
			t.Errorf("session/list showed %d sessions in %d pages, %d of them different; want at least 151 in 2 pages, each once", len(all), pages, n)
		}
	}

	ctx, cancel := bounded()
	defer cancel()
	if _, err := acp.SessionDelete.Call(ctx, b.conn, acp.DeleteSessionParams{SessionID: stored}); err != nil {
		t.Fatal(err)
	}
	file, _ := claude.SessionFile(a.cwd, stored)
	if _, err := os.Stat(filepath.Join(home, ".claude", "projects", file)); !os.IsNotExist(err) {
		t.Errorf("the deleted session's file: %v, want it gone", err)
	}
	if got := ids(b.list(a.cwd, "")); len(got) != 0 {
		t.Errorf("after the delete, the second agent lists %q in the directory", got)
	}
}

// writeSession writes a Claude Code session file into home.
func writeSession(t *testing.T, home, cwd, id string, data []byte) {
	t.Helper()
	name, err := claude.SessionFile(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".claude", "projects", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFaultyStore loads a session whose file has a corrupt line, a line
// of a type the bridge does not know and a last line cut short, as a
// crash leaves it: the rest is replayed. An id that names a path is
// refused, and nothing outside the store is read.
func TestFaultyStore(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const id = "06bc54a4-f6e8-415f-a965-41995b28a3b2"
	data, err := os.ReadFile(filepath.Join("..", "..", "claude", "testdata", "store", "resume", "projects", "-tmp-cc-store-resume-work", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var faulty []byte
	for i, l := range lines {
		faulty = append(faulty, l...)
		if i == 3 {
			faulty = append(faulty, "{\"type\":\"user\",\"message\":\n"...)
			faulty = append(faulty, `{"type":"a-type-from-a-later-release","sessionId":"`+id+`","timestamp":"2026-12-01T20:50:39.500Z"}`+"\n"...)
		}
	}
	faulty = append(faulty, `{"parentUuid":"4a2187dd-e451-4efa-8502-f06e360b7f74","isSidechain":false,"type":"user","message":{"role":"user","content":"Fif`...)
	writeSession(t, home, "/tmp/cc-store/resume/work", id, faulty)
	if err := os.WriteFile(filepath.Join(home, "secret.jsonl"), []byte(`{"type":"user","message":{"role":"user","content":"secret"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	e := newEditorIn(t, home, fakeclaudeBin, filepath.Join("testdata", "resume.ndjson"))
	e.initialize(capabilities{notices: true})
	e.known(id)
	for _, bad := range []string{"../../secret", "../secret.jsonl", "/etc/passwd"} {
		e.load(bad)
	}
	e.load(id)
	e.waitFor("config_option_update") // the last update the CLI started for it brings
	e.quit()
	checkGolden(t, filepath.Join("testdata", "load-faulty.golden"), e.transcript())
}

// TestWarmStart checks that the CLI of a new session starts at once: its
// commands and the model option reach the editor before any prompt, the
// CLI got nothing but its initialize, and -idle stops it all the same.
func TestWarmStart(t *testing.T) {
	t.Parallel()
	claudePath, stdinLog := teeClaude(t, false)
	e := startEditor(t, claudePath, filepath.Join("testdata", "text.ndjson"), "-idle", "200ms")
	e.initialize(capabilities{notices: true})
	e.newSession()
	e.waitFor("config_option_update") // the last update the CLI started for it brings
	e.p.waitCLIsGone(t)
	e.quit()
	var kinds []string
	for _, u := range e.sessionUpdates("") {
		kinds = append(kinds, u["sessionUpdate"].(string))
	}
	if diff := cmp.Diff([]string{"available_commands_update", "config_option_update"}, kinds); diff != "" {
		t.Errorf("before any prompt, the editor got (-want +got):\n%s", diff)
	}
	written, _ := os.ReadFile(stdinLog)
	if n := bytes.Count(written, []byte("\n")); n != 1 || !bytes.Contains(written, []byte(`"subtype":"initialize"`)) {
		t.Errorf("the CLI got %q, want its initialize only", written)
	}
}

// ids returns the ids of a session/list page.
func ids(res acp.ListSessionsResult) []string {
	var out []string
	for _, s := range res.Sessions {
		out = append(out, s.SessionID)
	}
	return out
}

// conversation returns what of updates makes the conversation an editor
// shows: the messages, each merged into one, the tool calls and plans,
// the notices of errors and warnings; not the session's state (its
// commands, options, mode, usage, title), nor the information notices of
// the CLI's retries, which it reports as it waits and does not keep.
func conversation(updates []map[string]any) []map[string]any {
	var out []map[string]any
	for _, u := range updates {
		switch kind := u["sessionUpdate"]; kind {
		case "notice":
			if u["severity"] != "info" {
				out = append(out, u)
			}
		case "user_message_chunk", "agent_message_chunk", "agent_thought_chunk":
			text, isText := u["content"].(map[string]any)["text"].(string)
			if n := len(out); isText && n > 0 && out[n-1]["sessionUpdate"] == kind {
				if prev, ok := out[n-1]["content"].(map[string]any)["text"].(string); ok {
					out[n-1] = map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": prev + text}}
					continue
				}
			}
			out = append(out, u)
		case "tool_call", "tool_call_update", "plan":
			out = append(out, u)
		}
	}
	return out
}

// sessionUpdates returns the session/update notifications claude-acp sent, of
// the session sid ("" for any), in order.
func (e *editor) sessionUpdates(sid string) []map[string]any {
	var out []map[string]any
	for line := range bytes.Lines(e.wire.Bytes()) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				SessionID string         `json:"sessionId"`
				Update    map[string]any `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == acp.SessionUpdate.Name && (sid == "" || m.Params.SessionID == sid) {
			out = append(out, m.Params.Update)
		}
	}
	return out
}

// live returns the conversation the editor saw live: each prompt it sent,
// as the user_message_chunk updates that show it, then the updates of its
// turn, up to its answer. For a client without notices (notices false),
// a prompt's error, which the answer alone showed, is agent text: its
// message as a paragraph of its own.
func (e *editor) live(notices bool) []map[string]any {
	var prompts [][]map[string]any
	methods := map[string]string{}
	for line := range bytes.Lines(e.sent.Bytes()) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Prompt []map[string]any `json:"prompt"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.Method == "" {
			continue
		}
		methods[string(m.ID)] = m.Method
		if m.Method == acp.SessionPrompt.Name {
			var chunks []map[string]any
			for _, b := range m.Params.Prompt {
				chunks = append(chunks, map[string]any{"sessionUpdate": "user_message_chunk", "content": b})
			}
			prompts = append(prompts, chunks)
		}
	}
	var out []map[string]any
	next := func() {
		if len(prompts) > 0 {
			out, prompts = append(out, prompts[0]...), prompts[1:]
		}
	}
	next()
	for line := range bytes.Lines(e.wire.Bytes()) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Update map[string]any `json:"update"`
			} `json:"params"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		switch {
		case json.Unmarshal(line, &m) != nil:
		case m.Method == acp.SessionUpdate.Name:
			out = append(out, m.Params.Update)
		case m.Method == "" && methods[string(m.ID)] == acp.SessionPrompt.Name:
			if m.Error != nil && !notices {
				text := m.Error.Message
				out = append(out, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
			}
			next() // a turn ended: the next prompt's come next
		}
	}
	return conversation(out)
}

// TestQuietExit checks that an orderly end, the editor closing its input
// after a prompt and after a session/load, logs nothing above info.
func TestQuietExit(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	transcript := filepath.Join("testdata", "tools.ndjson")
	live := newEditorIn(t, home, fakeclaudeBin, transcript)
	live.initialize(capabilities{notices: true})
	sid := live.newSession()
	if _, err := live.prompt(sid, "Fix the bug in main.go and run the tests."); err != nil {
		t.Fatal(err)
	}
	live.quit()

	e := newEditorIn(t, home, fakeclaudeBin, transcript)
	e.initialize(capabilities{notices: true})
	e.cwd = live.cwd
	e.known(sid)
	e.loadIn(sid, live.cwd)
	e.quit() // before the load's CLI has started, or after: both are orderly
	for _, p := range []*agentProc{live.p, e.p} {
		for line := range strings.Lines(p.stderr.String()) {
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				t.Errorf("claude-acp logged at an orderly exit: %s", line)
			}
		}
	}
}
