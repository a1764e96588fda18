package bridge_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/bridge"
)

var clis = []bridge.CLI{bridge.Claude, bridge.Codex, bridge.Gemini}

// TestInitializeCapabilities checks that initialize, in v1 and v2,
// advertises what each CLI takes, as CLIInfo.Accepts says, compared with
// testdata/initialize/PROGRAM.golden.
func TestInitializeCapabilities(t *testing.T) {
	for _, cli := range clis {
		t.Run(cli.Info().Program, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newAgentEnv(t, bridge.Config{CLI: cli, Store: memStore{fstest.MapFS{}}})
				defer e.close()
				v1, err := acp.Initialize.Call(bg, e.dial(1), acp.InitializeParams{ProtocolVersion: 1})
				must(t, err)
				v2, err := acpv2.Initialize.Call(bg, e.dial(2), acpv2.InitializeParams{ProtocolVersion: 2, Info: acpv2.Implementation{Name: "editor", Version: "1"}})
				must(t, err)
				got, _ := json.MarshalIndent(map[string]any{"v1": v1.AgentCapabilities, "v2": v2.Capabilities}, "", "  ")
				checkGolden(t, filepath.Join("testdata", "initialize", cli.Info().Program+".golden"), string(got)+"\n")
			})
		})
	}
}

// TestRefusedContent checks that a prompt block or an MCP server of a kind
// the CLI does not take is refused -32602 naming it, over v1 and v2,
// before the CLI sees anything, and that the kinds the CLI takes pass.
func TestRefusedContent(t *testing.T) {
	image := acp.ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png"}
	audio := acp.AudioContent{Data: "UklGRg==", MimeType: "audio/wav"}
	stdio := acp.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{}, Env: []acp.EnvVariable{}}
	sse := acp.MCPServerSSE{Name: "docs", URL: "http://127.0.0.1:9/sse", Headers: []acp.HTTPHeader{}}
	for _, cli := range clis {
		acc := cli.Info().Accepts
		t.Run(cli.Info().Program, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				ids := func() string { n++; return fmt.Sprintf("11111111-2222-4333-8444-%012d", n) }
				e := newEnv(t, bridge.Config{CLI: cli, NewSessionID: ids}, acp.ClientCapabilities{})
				defer e.close()
				sid := e.newSession() // its CLI, if it starts one, is the first
				for _, tt := range []struct {
					name    string
					servers []acp.MCPServer
					ok      bool
				}{{"stdio", []acp.MCPServer{stdio}, acc.MCPStdio}, {"sse", []acp.MCPServer{sse}, acc.MCPSSE}} {
					_, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", MCPServers: tt.servers})
					refused(t, "session/new with an MCP server of "+tt.name, err, tt.ok, "mcpServers[0]")
				}
				for _, tt := range []struct {
					block acp.ContentBlock
					ok    bool
				}{{image, acc.Image}, {audio, acc.Audio}} {
					if tt.ok {
						continue // a prompt the CLI takes starts a turn, which other tests play
					}
					_, err := acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextContent{Text: "see"}, tt.block}})
					refused(t, fmt.Sprintf("a prompt with %T", tt.block), err, false, "prompt[1]")
				}
				// The CLI saw none of it: a per-turn CLI was not started, and
				// Claude Code's, started with the session, got no turn.
				if cli.Info().PerTurn {
					e.noProcess()
				} else if kinds := e.process().kinds(); slices.Contains(kinds, "user") {
					t.Errorf("the CLI got %q", kinds)
				}
			})
		})
	}
}

// TestStdioMCPShortfall marks where this bridge falls short of ACP, which
// requires every agent to take stdio MCP servers: `gemini -p` takes none
// of the editor's, so the bridge refuses them; Codex's app-server and
// Gemini CLI's ACP mode take them. When this test fails, a CLI has
// gained them: update the package doc's shortfalls and this test.
func TestStdioMCPShortfall(t *testing.T) {
	for _, cli := range append(clis, bridge.GeminiACP) {
		want := cli != bridge.Gemini
		if got := cli.Info().Accepts.MCPStdio; got != want {
			t.Errorf("%s: Accepts.MCPStdio = %v, the package doc says %v: the shortfall it lists has changed", cli.Info().Name, got, want)
		}
	}
}

// refused checks err, the answer to what, against ok: nil when the CLI
// takes it, -32602 naming field when not.
func refused(t *testing.T, what string, err error, ok bool, field string) {
	t.Helper()
	if ok {
		if err != nil {
			t.Errorf("%s: %v, want it taken", what, err)
		}
		return
	}
	got, _ := acp.InvalidField(err)
	if !asErrorCode(err, acp.CodeInvalidParams) || got != field {
		t.Errorf("%s: %v (naming %q), want -32602 naming %s", what, err, got, field)
	}
}

func asErrorCode(err error, code int) bool {
	var e *acp.Error
	return asError(err, &e) && e.Code == code
}
