package bridge_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/claude"
	gocmp "github.com/google/go-cmp/cmp"
)

// These tests serve the sessions that the CLIs keep on disk, from an
// in-memory copy of the captured stores (../claude/testdata/store and its
// codex and gemini siblings): session/load's replay, session/list and
// session/delete.

// memStore is a Store in memory.
type memStore struct{ fstest.MapFS }

func (m memStore) RemoveAll(name string) error {
	for k := range m.MapFS {
		if k == name || strings.HasPrefix(k, name+"/") {
			delete(m.MapFS, k)
		}
	}
	return nil
}

// epoch is the modification time of the files copied into a memStore,
// one second apart in the order they are added: before the time of a
// synctest bubble, which starts at 2000-01-01.
var epoch = time.Date(1999, 12, 31, 12, 0, 0, 0, time.UTC)

// copyStore adds the files under dir (the .golden files and the live
// stream beside the store left out) to m, under prefix.
func (m memStore) copy(t *testing.T, dir, prefix string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m.add(filepath.ToSlash(filepath.Join(prefix, rel)), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (m memStore) add(name, data string) {
	m.MapFS[name] = &fstest.MapFile{Data: []byte(data), ModTime: epoch.Add(time.Duration(len(m.MapFS)) * time.Second)}
}

// capturedStore returns a CLI's captured store of scenario.
func capturedStore(t *testing.T, cli bridge.CLI, scenario string) memStore {
	m := memStore{fstest.MapFS{}}
	switch cli {
	case bridge.Claude:
		m.copy(t, filepath.Join("..", "claude", "testdata", "store", scenario, "projects"), ".")
	case bridge.Codex:
		m.copy(t, filepath.Join("..", "codex", "testdata", "store", scenario, "sessions"), ".")
	case bridge.Gemini:
		dir := filepath.Join("..", "gemini", "testdata", "store", scenario)
		m.copy(t, filepath.Join(dir, "tmp"), "tmp")
		data, err := os.ReadFile(filepath.Join(dir, "projects.json"))
		if err != nil {
			t.Fatal(err)
		}
		m.add("projects.json", string(data))
	}
	return m
}

// updatesJSON renders the editor's updates, one JSON object a line.
func (e *env) updatesJSON() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, u := range e.updates {
		j, _ := json.Marshal(u)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkGolden compares got with the golden file at path, or rewrites the
// file with -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", golden, diff)
	}
}

// TestLoad loads every captured session of each CLI, and the fixtures in
// their formats, and compares what the editor sees with the golden files
// under testdata/store: the prompts, the text and thinking, the tool calls
// with their results, the subagent's calls inside its task, the API
// errors; not the CLI's bookkeeping, the interrupt marker or the meta
// entries.
func TestLoad(t *testing.T) {
	tests := []struct {
		name     string
		cli      bridge.CLI
		scenario string
		id, cwd  string
	}{
		{"claude-resume", bridge.Claude, "resume", "06bc54a4-f6e8-415f-a965-41995b28a3b2", "/tmp/cc-store/resume/work"},
		{"claude-fork", bridge.Claude, "resume", "30bae6ba-d396-42f8-8b00-011c53ca0896", ""},
		{"claude-tools", bridge.Claude, "tools", "eaca3c35-d13e-4c1d-a95b-a66cef48d210", "/tmp/cc-store/tools/work"},
		{"claude-thinking", bridge.Claude, "thinking", "dc485482-1765-4952-9d28-514fd2a660b5", "/tmp/cc-store/thinking/work"},
		{"claude-cancel", bridge.Claude, "cancel", "10e3cd16-479b-4860-9d83-0d44031f097b", "/tmp/cc-store/cancel/work"},
		{"claude-permission-deny", bridge.Claude, "permission-deny-stdio", "69755242-e22e-4c09-92a9-29c0b2b99807", "/tmp/cc-store/permission-deny-stdio/work"},
		{"claude-subagent", bridge.Claude, "subagent", "6d0706c6-94f5-4004-a4aa-42746a618990", "/tmp/cc-store/subagent/work"},
		{"claude-tui-title", bridge.Claude, "tui-title", "d5464bb8-88f1-410d-8933-83f4fd7c37c6", "/tmp/cc-store/tui-title/work"},
		{"claude-background-agent", bridge.Claude, "background-agent", "b7e2a9c4-5d1f-4e6a-8b3c-2f9d0e1a7c65", "/tmp/cc-store/background-agent/work"},
		{"claude-api-error", bridge.Claude, "api-error", "3f1c9a52-7d4e-4b8a-9c2e-5a6b7c8d9e01", "/tmp/cc-store/api-error/work"},
		{"claude-api-error-notices", bridge.Claude, "api-error", "3f1c9a52-7d4e-4b8a-9c2e-5a6b7c8d9e01", "/tmp/cc-store/api-error/work"},
		{"codex-resume", bridge.Codex, "resume", "01a23365-0657-7662-80b4-4726987395b1", "/tmp/cx-store/resume/work"},
		{"codex-tool-call", bridge.Codex, "tool-call", "01a23365-5f5f-7923-b1f2-69bd6d41c2c7", "/tmp/cx-store/tool-call/work"},
		{"codex-reasoning", bridge.Codex, "reasoning", "01a23365-bee2-7d02-958a-929b55ee4338", "/tmp/cx-store/reasoning/work"},
		{"codex-apply-patch", bridge.Codex, "apply-patch", "01a23390-2a3b-7c4d-8e5f-6a7b8c9d0e1f", "/tmp/cx-store/apply-patch/work"},
		{"codex-failed-turn", bridge.Codex, "failed-turn", "01a233a0-3b4c-7d5e-8f6a-7b8c9d0e1f2a", "/tmp/cx-store/failed-turn/work"},
		{"gemini-resume", bridge.Gemini, "resume", "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1", "/tmp/gm-store/resume/work"},
		{"gemini-tool-call", bridge.Gemini, "tool-call", "70c7e5f7-0000-0000-0000-000000000000", ""},
		{"gemini-thinking", bridge.Gemini, "thinking", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := capturedStore(t, tt.cli, tt.scenario)
				var caps acp.ClientCapabilities
				if strings.HasSuffix(tt.name, "-notices") { // a client that takes notices
					caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
				}
				e := newEnv(t, bridge.Config{CLI: tt.cli, Store: store}, caps)
				e.stayAtEOF = tt.cli.Info().PerTurn
				defer e.close()
				id := tt.id
				if id == "" || strings.HasSuffix(id, "0000-000000000000") {
					id = onlySession(t, e, tt.cwd)
				}
				if _, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: id, Cwd: cmp.Or(tt.cwd, "/elsewhere")}); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				checkGolden(t, filepath.Join("testdata", "store", tt.name+".golden"), e.updatesJSON())
			})
		})
	}
}

// onlySession returns the id of the one session session/list shows.
func onlySession(t *testing.T, e *env, cwd string) string {
	t.Helper()
	res, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cwd: cwd})
	must(t, err)
	if len(res.Sessions) != 1 {
		t.Fatalf("session/list shows %+v, want one session", res.Sessions)
	}
	return res.Sessions[0].SessionID
}

// A stored session as the CLI writes it, with what the replay must get
// through: a prompt of a text, an image, a link and an embedded file as
// the bridge sent them, the CLI's retry and its API error, a corrupt
// line, a line of an unknown type, and a last line cut short.
const (
	faultyID  = "5474356c-702e-48b0-8ecb-5f54d4bff9a2"
	faultyCwd = "/work"
)

var faultyFile = strings.Join([]string{
	`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-01T20:50:37.300Z","sessionId":"` + faultyID + `"}`,
	`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"text","text":"Look:"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0K"}},` +
		`{"type":"text","text":"[@main.go](file:///work/main.go)"},` +
		`{"type":"text","text":"<context ref=\"file:///work/a.txt\">\na\n</context>"}]},` +
		`"uuid":"u1","timestamp":"2026-12-01T20:50:37.365Z","cwd":"/work","sessionId":"` + faultyID + `"}`,
	`{"not json`,
	`{"type":"brand-new-line-type","sessionId":"` + faultyID + `","timestamp":"2026-12-01T20:50:37.400Z"}`,
	`{"parentUuid":"u1","isSidechain":false,"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":574,"error_status":529,"uuid":"s1","timestamp":"2026-12-01T20:50:37.500Z","cwd":"/work","sessionId":"` + faultyID + `"}`,
	`{"parentUuid":"s1","isSidechain":false,"type":"assistant","message":{"id":"m1","model":"<synthetic>","role":"assistant","type":"message","content":[{"type":"text","text":"API Error: 529 Overloaded."}]},` +
		`"error":"overloaded","isApiErrorMessage":true,"uuid":"a1","timestamp":"2026-12-01T20:50:38.000Z","cwd":"/work","sessionId":"` + faultyID + `"}`,
	`{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":"Again."},"uuid":"u2","timestamp":"2026-12-01T20:51:00.000Z","cwd":"/work","sessionId":"` + faultyID + `"}`,
	`{"parentUuid":"u2","isSidechain":false,"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Hel`,
}, "\n")

func faultyStore() memStore {
	m := memStore{fstest.MapFS{}}
	m.add("-work/"+faultyID+".jsonl", faultyFile)
	return m
}

// The replay gets through a store's faults, shows the prompt's blocks as
// the editor sent them, and shows the API error as a notice, or as agent
// text to a client without notices: the stored text, exactly.
func TestLoadFaultyStore(t *testing.T) {
	for _, notices := range []bool{true, false} {
		var caps acp.ClientCapabilities
		apiError := acp.Update(acp.AgentMessageChunk{Content: text("API Error: 529 Overloaded.")})
		if notices {
			caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
			apiError = acp.Notice{Severity: acp.NoticeError, Title: "API Error: 529 Overloaded."}
		}
		t.Run(map[bool]string{true: "notices", false: "no notices"}[notices], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{Store: faultyStore()}, caps)
				defer e.close()
				_, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: faultyID, Cwd: faultyCwd})
				must(t, err)
				want := []acp.Update{
					acp.UserMessageChunk{Content: text("Look:")},
					acp.UserMessageChunk{Content: acp.ImageContent{Data: "iVBORw0K", MimeType: "image/png"}},
					acp.UserMessageChunk{Content: acp.ResourceLink{Name: "main.go", URI: "file:///work/main.go"}},
					acp.UserMessageChunk{Content: acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///work/a.txt", Text: ptr("a")}}},
				}
				if notices {
					want = append(want, acp.Notice{Severity: acp.NoticeInfo, Title: "Claude API request failed (HTTP 529); retrying in 574ms (attempt 1 of 1)."})
				}
				want = append(want, apiError, acp.UserMessageChunk{Content: text("Again.")})
				e.mu.Lock()
				got := e.updates
				e.mu.Unlock()
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("the replay (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// readSizes is a Store that records how its files are read.
type readSizes struct {
	memStore
	mu             sync.Mutex
	largest, total int
}

func (r *readSizes) Open(name string) (fs.File, error) {
	f, err := r.memStore.Open(name)
	if err != nil {
		return nil, err
	}
	return &readSizesFile{File: f, r: r}, nil
}

type readSizesFile struct {
	fs.File
	r *readSizes
}

func (f *readSizesFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.r.mu.Lock()
	f.r.largest, f.r.total = max(f.r.largest, len(p)), f.r.total+n
	f.r.mu.Unlock()
	return n, err
}

// session/load streams the stored file: it reads it once, a buffer of a
// few lines at a time, never the whole file, and replays every turn.
func TestLoadStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const turns = 8000 // 8 MB
		var b strings.Builder
		for i := range turns {
			b.WriteString(claudeSession(faultyID, faultyCwd, fmt.Sprintf("Task %d", i), epoch))
		}
		store := &readSizes{memStore: memStore{fstest.MapFS{}}}
		store.add("-work/"+faultyID+".jsonl", b.String())
		e := newEnv(t, bridge.Config{Store: store}, acp.ClientCapabilities{})
		defer e.close()
		_, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: faultyID, Cwd: faultyCwd})
		must(t, err)
		synctest.Wait()
		prompts := 0
		for _, k := range e.kinds() {
			if k == "user_message_chunk" {
				prompts++
			}
		}
		if prompts != turns {
			t.Errorf("the replay showed %d prompts, want %d", prompts, turns)
		}
		store.mu.Lock()
		defer store.mu.Unlock()
		if store.total != b.Len() || store.largest > 1<<20 {
			t.Errorf("the replay read %d bytes of the %d, at most %d at once; want each once, at most 1 MB at once", store.total, b.Len(), store.largest)
		}
	})
}

// session/load and session/delete refuse what they cannot serve: no
// Store, a CLI that keeps no sessions the Agent can read, an id that is
// not the CLI's (a path, say), a session the Store does not have; and
// without a Store or such a CLI, neither is advertised.
func TestLoadRefusals(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  bridge.Config
	}{
		{"no Store", bridge.Config{}},
		{"a CLI that is no Keeper", bridge.Config{CLI: lineCLI{}, Store: faultyStore()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, tt.cfg, acp.ClientCapabilities{})
				defer e.close()
				res, err := acp.Initialize.Call(bg, e.client, acp.InitializeParams{ProtocolVersion: 1})
				must(t, err)
				if res.AgentCapabilities.LoadSession || res.AgentCapabilities.SupportsSessionDelete() {
					t.Error("session/load or session/delete is advertised")
				}
				_, err = acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: faultyID, Cwd: faultyCwd})
				code(t, "a load", err, acp.CodeMethodNotFound)
				_, err = acp.SessionDelete.Call(bg, e.client, acp.DeleteSessionParams{SessionID: faultyID})
				code(t, "a delete", err, acp.CodeMethodNotFound)
				list, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{})
				must(t, err)
				if len(list.Sessions) != 0 {
					t.Errorf("session/list shows %+v, want none: no session is open", list.Sessions)
				}
			})
		})
	}
	synctest.Test(t, func(t *testing.T) {
		store := faultyStore()
		e := newEnv(t, bridge.Config{Store: store}, acp.ClientCapabilities{})
		defer e.close()
		res, err := acp.Initialize.Call(bg, e.client, acp.InitializeParams{ProtocolVersion: 1})
		must(t, err)
		if !res.AgentCapabilities.LoadSession || !res.AgentCapabilities.SupportsSessionDelete() {
			t.Error("an Agent with a Store does not advertise session/load and session/delete")
		}
		for _, id := range []string{"../../etc/passwd", "/etc/passwd", "-work/" + faultyID, "*", ""} {
			_, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: id, Cwd: faultyCwd})
			code(t, "loading "+id, err, acp.CodeInvalidParams)
			if id != "" {
				// An id the CLI never makes names a session that never
				// existed: its deletion succeeds, touching nothing.
				_, err = acp.SessionDelete.Call(bg, e.client, acp.DeleteSessionParams{SessionID: id})
				if err != nil {
					t.Errorf("deleting %s: %v, want success", id, err)
				}
			}
		}
		if _, ok := store.MapFS["-work/"+faultyID+".jsonl"]; !ok {
			t.Error("deleting ids the CLI never makes removed a stored session")
		}
		const other = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
		_, err = acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: other, Cwd: faultyCwd})
		code(t, "loading a session not stored", err, acp.CodeResourceNotFound)
		if _, err := acp.SessionDelete.Call(bg, e.client, acp.DeleteSessionParams{SessionID: other}); err != nil {
			t.Errorf("deleting a session not stored: %v, want success", err)
		}
		if len(store.MapFS) != 1 {
			t.Errorf("the store holds %d files after the refusals, want 1", len(store.MapFS))
		}
		e.noProcess()
	})
}

// code checks that err is an *acp.Error with the code.
func code(t *testing.T, what string, err error, want int) {
	t.Helper()
	var ae *acp.Error
	if !asError(err, &ae) || ae.Code != want {
		t.Errorf("%s: %v, want error %d", what, err, want)
	}
}

// claudeSession is a small session file in the shapes of Claude Code's
// (../claude/testdata/store/plain): a prompt and its answer.
func claudeSession(id, cwd, prompt string, at time.Time) string {
	ts := at.UTC().Format("2006-01-02T15:04:05.000Z")
	common := `"cwd":"` + cwd + `","sessionId":"` + id + `","version":"2.1.328","gitBranch":"HEAD"}`
	return `{"type":"queue-operation","operation":"enqueue","timestamp":"` + ts + `","sessionId":"` + id + `","content":"` + prompt + `"}` + "\n" +
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"` + prompt + `"},"uuid":"u-` + id + `","timestamp":"` + ts + `","userType":"external",` + common + "\n" +
		`{"parentUuid":"u-` + id + `","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Done."}]},"type":"assistant","uuid":"a-` + id + `","timestamp":"` + ts + `","userType":"external",` + common + "\n" +
		`{"type":"last-prompt","lastPrompt":"` + prompt + `","leafUuid":"a-` + id + `","sessionId":"` + id + `"}` + "\n"
}

// sessionID is the n-th session id of a generated store.
func sessionID(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-000000000000", n) }

// listAll pages through session/list.
func listAll(t *testing.T, e *env, cwd string) (ids []string, pages int) {
	t.Helper()
	cursor := ""
	for {
		res, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cwd: cwd, Cursor: cursor})
		must(t, err)
		pages++
		for _, s := range res.Sessions {
			ids = append(ids, s.SessionID)
		}
		if res.NextCursor == "" {
			return ids, pages
		}
		cursor = res.NextCursor
	}
}

// session/list shows the stored sessions newest first, a page at a time,
// in every directory or in one, and the sessions open here before their
// file exists, once.
func TestList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := memStore{fstest.MapFS{}}
		const n = 250
		var want, inA []string
		for i := range n {
			cwd := map[bool]string{true: "/a", false: "/b"}[i%2 == 0]
			id := sessionID(i)
			store.add(claude.ProjectFolder(cwd)+"/"+id+".jsonl", claudeSession(id, cwd, fmt.Sprintf("Task %d", i), epoch.Add(time.Duration(i)*time.Second)))
			want = append([]string{id}, want...)
			if cwd == "/a" {
				inA = append([]string{id}, inA...)
			}
		}
		store.add("-a/not-a-session.txt", "x")
		store.add("-a/"+sessionID(999)+".jsonl", "") // a file with no session in it yet
		e := newEnv(t, bridge.Config{Store: store}, acp.ClientCapabilities{})
		defer e.close()

		ids, pages := listAll(t, e, "")
		if diff := gocmp.Diff(want, ids); diff != "" || pages != 3 {
			t.Errorf("session/list in %d pages (-want +got):\n%s", pages, diff)
		}
		ids, _ = listAll(t, e, "/a")
		if diff := gocmp.Diff(inA, ids); diff != "" {
			t.Errorf("session/list in /a (-want +got):\n%s", diff)
		}
		res, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cwd: "/b"})
		must(t, err)
		wantFirst := acp.SessionInfo{SessionID: sessionID(n - 1), Cwd: "/b", Title: fmt.Sprintf("Task %d", n-1), UpdatedAt: "1999-12-31T12:04:09.000Z"}
		if diff := gocmp.Diff(wantFirst, res.Sessions[0]); diff != "" {
			t.Errorf("the newest session in /b (-want +got):\n%s", diff)
		}
		_, err = acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cursor: "not a cursor"})
		code(t, "an invalid cursor", err, acp.CodeInvalidParams)
		_, err = acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cwd: "work"})
		code(t, "a relative cwd", err, acp.CodeInvalidParams)

		// A session opened here is listed first, before its CLI writes
		// its file, with its first prompt as its title once it has one;
		// then its file takes its place.
		sid := e.newSession()
		p := e.process()
		res, err = acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{Cwd: "/work"})
		must(t, err)
		if len(res.Sessions) != 1 || res.Sessions[0].SessionID != sid || res.Sessions[0].Cwd != "/work" || res.Sessions[0].UpdatedAt == "" {
			t.Errorf("the open session is listed as %+v", res.Sessions)
		}
		ch := e.promptAsync(bg, sid, "Fix the\nlogin bug.")
		p.turn(resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		res, err = acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{})
		must(t, err)
		if s := res.Sessions[0]; s.SessionID != sid || s.Title != "Fix the login bug." {
			t.Errorf("the open session after its first turn is listed as %+v", s)
		}
		store.add(claude.ProjectFolder("/work")+"/"+sid+".jsonl", claudeSession(sid, "/work", "Fix the login bug.", epoch.Add(time.Hour)))
		ids, _ = listAll(t, e, "")
		if len(ids) != n+1 || ids[0] != sid {
			t.Errorf("with its file, session/list shows %d sessions, the first %s; want %d, the first %s", len(ids), ids[0], n+1, sid)
		}
	})
}

// session/delete removes a session's file and its subagents' from the
// Store, closing it first when it is open here; session/list then leaves
// it out.
func TestDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := capturedStore(t, bridge.Claude, "subagent")
		const id = "6d0706c6-94f5-4004-a4aa-42746a618990"
		store.add("-tmp-cc-store-subagent-work/"+faultyID+".jsonl", claudeSession(faultyID, "/tmp/cc-store/subagent/work", "Another", epoch))
		e := newEnv(t, bridge.Config{Store: store}, acp.ClientCapabilities{})
		defer e.close()
		_, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: id, Cwd: "/tmp/cc-store/subagent/work"})
		must(t, err)
		p := e.process()
		if _, err := acp.SessionDelete.Call(bg, e.client, acp.DeleteSessionParams{SessionID: id}); err != nil {
			t.Fatal(err)
		}
		if !p.exited() {
			t.Error("the deleted session's CLI still runs")
		}
		var left []string
		for name := range store.MapFS {
			left = append(left, name)
		}
		if diff := gocmp.Diff([]string{"-tmp-cc-store-subagent-work/" + faultyID + ".jsonl"}, left); diff != "" {
			t.Errorf("the store after the delete (-want +got):\n%s", diff)
		}
		ids, _ := listAll(t, e, "")
		if diff := gocmp.Diff([]string{faultyID}, ids); diff != "" {
			t.Errorf("session/list after the delete (-want +got):\n%s", diff)
		}
		_, err = acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: id, Prompt: []acp.ContentBlock{text("x")}})
		code(t, "a prompt to the deleted session", err, acp.CodeResourceNotFound)
		if _, err := acp.SessionDelete.Call(bg, e.client, acp.DeleteSessionParams{SessionID: id}); err != nil {
			t.Errorf("deleting it again: %v, want success", err)
		}
	})
}

// A title the CLI writes into the session's file during the session
// reaches the editor after the turn, once.
func TestLiveTitle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := memStore{fstest.MapFS{}}
		e := newEnv(t, bridge.Config{Store: store}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p := e.begin("Fix the login bug.")
		file := claude.ProjectFolder("/work") + "/" + sid + ".jsonl"
		store.add(file, claudeSession(sid, "/work", "Fix the login bug.", epoch))
		p.turn(resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
		synctest.Wait()
		if kinds := e.kinds(); slices.Contains(kinds, "session_info_update") {
			t.Errorf("a session without a title of its own got %v", kinds)
		}
		store.add(file, string(store.MapFS[file].Data)+`{"type":"ai-title","aiTitle":"Login bug fix","sessionId":"`+sid+`"}`+"\n")
		for range 2 {
			ch := e.promptAsync(bg, sid, "And a test.")
			synctest.Wait()
			p.write(resultLine)
			stopReason(t, got(t, ch), acp.StopReasonEndTurn)
			synctest.Wait()
		}
		var infos []acp.SessionInfoUpdate
		e.mu.Lock()
		for _, u := range e.updates {
			if u, ok := u.(acp.SessionInfoUpdate); ok {
				infos = append(infos, u)
			}
		}
		e.mu.Unlock()
		want := []acp.SessionInfoUpdate{{Title: ptr("Login bug fix"), UpdatedAt: ptr("1999-12-31T12:00:00.000Z")}}
		if diff := gocmp.Diff(want, infos); diff != "" {
			t.Errorf("the title updates (-want +got):\n%s", diff)
		}
		res, err := acp.SessionList.Call(bg, e.client, acp.ListSessionsParams{})
		must(t, err)
		if res.Sessions[0].Title != "Login bug fix" {
			t.Errorf("session/list shows the session as %+v", res.Sessions[0])
		}
	})
}

// replayed loads session id (the one session/list shows, for "") of a
// CLI's captured store of scenario, run in cwd, into an editor without
// notices, and returns the updates it got.
func replayed(t *testing.T, cli bridge.CLI, scenario, id, cwd string) []acp.Update {
	t.Helper()
	e := newEnv(t, bridge.Config{CLI: cli, Store: capturedStore(t, cli, scenario)}, acp.ClientCapabilities{})
	e.stayAtEOF = cli.Info().PerTurn
	defer e.close()
	if id == "" {
		id = onlySession(t, e, cwd)
	}
	_, err := acp.SessionLoad.Call(bg, e.client, acp.LoadSessionParams{SessionID: id, Cwd: cwd})
	must(t, err)
	synctest.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.updates)
}

// lastUpdate returns the last update of tool call id among updates; nil
// for none.
func lastUpdate(updates []acp.Update, id string) acp.Update {
	var last acp.Update
	for _, u := range updates {
		if u, ok := u.(acp.ToolCallUpdate); ok && u.ToolCallID == id {
			last = u
		}
	}
	return last
}

// A background subagent's task notification, which the CLI stored as a
// user entry, is no prompt of the person's: the replay shows the
// subagent's report as the result of the Agent call that started it.
func TestLoadTaskNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		updates := replayed(t, bridge.Claude, "background-agent", "b7e2a9c4-5d1f-4e6a-8b3c-2f9d0e1a7c65", "/tmp/cc-store/background-agent/work")
		for _, u := range updates {
			if u, ok := u.(acp.UserMessageChunk); ok {
				if c, ok := u.Content.(acp.TextContent); ok && strings.Contains(c.Text, "task-notification") {
					t.Errorf("the notification replayed as the person's: %q", c.Text)
				}
			}
		}
		want := acp.ToolCallUpdate{ToolCallID: "toolu_01Bg7Research", Status: acp.ToolCallStatusCompleted,
			Content: []acp.ToolCallContent{acp.ToolCallContentBlock{Content: text("The README says hello.")}}, RawOutput: []byte(`"The README says hello."`)}
		if diff := gocmp.Diff(acp.Update(want), lastUpdate(updates, "toolu_01Bg7Research")); diff != "" {
			t.Errorf("the Agent call's last update (-want +got):\n%s", diff)
		}
	})
}

// A stored apply_patch of Codex replays with what it did: the diff of
// each file (an update's hunks, an added file's text), what applying it
// printed, and that output as rawOutput.
func TestLoadApplyPatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		updates := replayed(t, bridge.Codex, "apply-patch", "01a23390-2a3b-7c4d-8e5f-6a7b8c9d0e1f", "/tmp/cx-store/apply-patch/work")
		const dir = "/tmp/cx-store/apply-patch/work/"
		const out = "Success. Updated the following files:\nA hello.txt\nM notes.txt\n"
		want := acp.ToolCallUpdate{ToolCallID: "call_Ap7Qm2Xw9Rt3", Title: "Edit " + dir + "notes.txt, " + dir + "hello.txt", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusCompleted,
			Content: []acp.ToolCallContent{
				acp.ToolCallDiff{Path: dir + "notes.txt", OldText: ptr("alpha\nbeta"), NewText: "alpha\ngamma",
					Meta: []byte(`{"acpkit.dev/fileChange":{"operation":"modify","path":"` + dir + `notes.txt","patch":"diff --git ` + dir + `notes.txt ` + dir + `notes.txt\n--- ` + dir + `notes.txt\n+++ ` + dir + `notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"}}`)},
				acp.ToolCallDiff{Path: dir + "hello.txt", NewText: "hello\n",
					Meta: []byte(`{"acpkit.dev/fileChange":{"operation":"add","path":"` + dir + `hello.txt","patch":"diff --git ` + dir + `hello.txt ` + dir + `hello.txt\nnew file mode 100644\n--- /dev/null\n+++ ` + dir + `hello.txt\n@@ -0,0 +1 @@\n+hello\n"}}`)},
				acp.ToolCallContentBlock{Content: text(out)},
			},
			Locations: []acp.ToolCallLocation{{Path: dir + "notes.txt"}, {Path: dir + "hello.txt"}},
			RawOutput: []byte(`{"stdout":"Success. Updated the following files:\nA hello.txt\nM notes.txt\n","stderr":""}`)}
		if diff := gocmp.Diff(acp.Update(want), lastUpdate(updates, "call_Ap7Qm2Xw9Rt3")); diff != "" {
			t.Errorf("the apply_patch call's last update (-want +got):\n%s", diff)
		}
	})
}

// Gemini CLI's thoughts, which it stores with the model's message and the
// live stream never shows, replay as agent thoughts before the answer,
// each with its subject, as the CLI's own ACP mode shows them.
func TestLoadGeminiThoughts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		updates := replayed(t, bridge.Gemini, "thinking", "", "/tmp/gm-store/thinking/work")
		want := []acp.Update{
			acp.UserMessageChunk{Content: text("What is 2 + 2? Think first.")},
			acp.AgentThoughtChunk{Content: text("**Adding numbers**\nThe user asks for 2 + 2.")},
			acp.AgentThoughtChunk{Content: text("\n\nThat is 4.")},
			acp.AgentMessageChunk{Content: text("2 + 2 = 4.")},
		}
		if diff := gocmp.Diff(want, updates); diff != "" {
			t.Errorf("the replay (-want +got):\n%s", diff)
		}
	})
}

// Gemini CLI's chat of a run that sent no prompt (its authentication
// failed) holds nothing to replay, and the CLI leaves it out of its list:
// session/list does too, beside the sessions that hold a conversation.
func TestListGeminiEmptyChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := capturedStore(t, bridge.Gemini, "auth-failed")
		for name, f := range capturedStore(t, bridge.Gemini, "resume").MapFS {
			if name != "projects.json" {
				store.MapFS[name] = f
			}
		}
		// The store's projects are those of both scenarios, in folders
		// of their own.
		store.MapFS["tmp/resumed"] = &fstest.MapFile{Mode: fs.ModeDir}
		for name, f := range store.MapFS {
			if rest, ok := strings.CutPrefix(name, "tmp/work/chats/session-2026-12-01T21-06"); ok {
				delete(store.MapFS, name)
				store.MapFS["tmp/resumed/chats/session-2026-12-01T21-06"+rest] = f
			}
		}
		store.add("projects.json", `{"projects":{"/tmp/gm-store/auth-failed/work":"work","/tmp/gm-store/resume/work":"resumed"}}`)
		e := newEnv(t, bridge.Config{CLI: bridge.Gemini, Store: store}, acp.ClientCapabilities{})
		e.stayAtEOF = true
		defer e.close()
		ids, _ := listAll(t, e, "")
		if diff := gocmp.Diff([]string{"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1"}, ids); diff != "" {
			t.Errorf("session/list (-want +got):\n%s", diff)
		}
		if ids, _ := listAll(t, e, "/tmp/gm-store/auth-failed/work"); len(ids) != 0 {
			t.Errorf("session/list in the failed run's directory shows %q", ids)
		}
	})
}
