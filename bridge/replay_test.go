package bridge_test

import (
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/codex"
	gocmp "github.com/google/go-cmp/cmp"
)

// A prompt the bridge wrote into a CLI's text reads back as the blocks
// the editor sent.
func TestPromptBlocks(t *testing.T) {
	link := acp.ResourceLink{Name: "main.go", URI: "file:///w/main.go"}
	file := acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///w/a b.txt", Text: ptr("line 1\n\n</context>\nline 3")}}
	tests := [][]acp.ContentBlock{
		{text("Hello.")},
		{text("Two\n\nparagraphs.")},
		{text("Look at"), link, text("and"), file},
		{link},
		{file, text("Why?")},
		{text("[@not a link\n\n<context ref=nope>\n\n<context ref=\"\\x41\">\nx\n</context>")},
	}
	for _, blocks := range tests {
		joined, err := bridge.PromptText(blocks)
		must(t, err)
		if diff := gocmp.Diff(blocks, bridge.PromptBlocks(joined)); diff != "" {
			t.Errorf("%q reads back as (-want +got):\n%s", joined, diff)
		}
	}
	if got := bridge.TextBlock("[@main.go](file:///w/main.go)"); !gocmp.Equal(got, []acp.ContentBlock{link}) {
		t.Errorf("a link block reads back as %v", got)
	}
	if got := bridge.TextBlock("[@main.go](file:///w/main.go) and more"); !gocmp.Equal(got, []acp.ContentBlock{text("[@main.go](file:///w/main.go) and more")}) {
		t.Errorf("a text block with a link in it reads back as %v", got)
	}
}

// FuzzPromptBlocks splits arbitrary text: joined again with blank lines,
// the blocks are the text.
func FuzzPromptBlocks(f *testing.F) {
	f.Add("Look at\n\n[@main.go](file:///w/main.go)\n\n<context ref=\"file:///a\">\nx\n</context>")
	f.Add("[@x](y)\n\n")
	f.Add("<context ref=\"\\\"\">\n\n</context>\n\n</context>")
	f.Fuzz(func(t *testing.T, s string) {
		var parts []string
		for _, b := range bridge.PromptBlocks(s) {
			one, err := bridge.PromptText([]acp.ContentBlock{b})
			if err != nil {
				one = "" // an empty text block
			}
			parts = append(parts, one)
		}
		if got := strings.Join(parts, "\n\n"); got != s {
			t.Fatalf("%q splits into %q", s, parts)
		}
	})
}

// The replay announces a Codex tool call as its start did live, before
// its end.
func TestCodexStart(t *testing.T) {
	tests := []struct {
		done, want codex.Event
	}{
		{codex.CommandExecution{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindExecute, Command: "ls", Output: "a", ExitCode: 0, HasExitCode: true, Status: codex.StatusCompleted},
			codex.CommandExecution{ItemID: "i", Phase: codex.PhaseStarted, Kind: codex.ToolKindExecute, Command: "ls", Status: codex.StatusInProgress}},
		{codex.FileChange{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindEdit, Changes: []codex.Change{{Path: "/a"}}, Status: codex.StatusCompleted},
			codex.FileChange{ItemID: "i", Phase: codex.PhaseStarted, Kind: codex.ToolKindEdit, Changes: []codex.Change{{Path: "/a"}}, Status: codex.StatusInProgress}},
		{codex.WebSearch{ItemID: "i", Phase: codex.PhaseCompleted, Kind: codex.ToolKindSearch, Query: "q"},
			codex.WebSearch{ItemID: "i", Phase: codex.PhaseStarted, Kind: codex.ToolKindSearch}},
		{codex.MCPToolCall{ItemID: "i", Phase: codex.PhaseCompleted, Server: "s", Tool: "t", Result: []byte(`{}`), Status: codex.StatusCompleted},
			codex.MCPToolCall{ItemID: "i", Phase: codex.PhaseStarted, Server: "s", Tool: "t", Status: codex.StatusInProgress}},
		{codex.Text{Text: "hi"}, nil},
		{codex.CommandExecution{ItemID: "i", Phase: codex.PhaseStarted}, nil},
	}
	for _, tt := range tests {
		got, ok := bridge.CodexStart(tt.done)
		if diff := gocmp.Diff(tt.want, got); diff != "" || ok != (tt.want != nil) {
			t.Errorf("the start of %#v (-want +got):\n%s", tt.done, diff)
		}
	}
}

// The stores of Codex and Gemini CLI: session/list finds their sessions
// by directory, and session/delete removes them.
func TestOtherStores(t *testing.T) {
	tests := []struct {
		cli       bridge.CLI
		scenarios []string
		cwd, id   string
	}{
		{bridge.Codex, []string{"plain", "resume", "tool-call", "reasoning"}, "/tmp/cx-store/resume/work", "01a23365-0657-7662-80b4-4726987395b1"},
		{bridge.Gemini, []string{"resume"}, "/tmp/gm-store/resume/work", "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1"},
	}
	for _, tt := range tests {
		t.Run(tt.cli.Info().Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := memStore{fstest.MapFS{}}
				for _, s := range tt.scenarios {
					for name, f := range capturedStore(t, tt.cli, s).MapFS {
						store.MapFS[name] = f
					}
				}
				e := newEnv(t, bridge.Config{CLI: tt.cli, Store: store}, acp.ClientCapabilities{})
				e.stayAtEOF = true
				defer e.close()
				all, _ := listAll(t, e, "")
				if len(all) != len(tt.scenarios) {
					t.Errorf("session/list shows %q, want one session per scenario", all)
				}
				ids, _ := listAll(t, e, tt.cwd)
				if diff := gocmp.Diff([]string{tt.id}, ids); diff != "" {
					t.Errorf("session/list in %s (-want +got):\n%s", tt.cwd, diff)
				}
				_, err := acp.SessionDelete.Call(bg, e.client, acp.DeleteSessionParams{SessionID: tt.id})
				must(t, err)
				if ids, _ := listAll(t, e, ""); len(ids) != len(all)-1 {
					t.Errorf("after the delete, session/list shows %q", ids)
				}
				e.noProcess()
			})
		})
	}
}

// Each CLI's store is where the CLI keeps its sessions.
func TestStoreDir(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	tests := []struct {
		cli  bridge.CLI
		env  map[string]string
		want string
	}{
		{bridge.Claude, nil, "/home/u/.claude/projects"},
		{bridge.Claude, map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}, "/cfg/projects"},
		{bridge.Codex, nil, "/home/u/.codex/sessions"},
		{bridge.Codex, map[string]string{"CODEX_HOME": "/cx"}, "/cx/sessions"},
		{bridge.Gemini, nil, "/home/u/.gemini"},
	}
	for _, tt := range tests {
		if got := tt.cli.(bridge.Keeper).StoreDir("/home/u", env(tt.env)); got != tt.want {
			t.Errorf("%s's store with %v is %s, want %s", tt.cli.Info().Name, tt.env, got, tt.want)
		}
	}
}
