package bridge

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/google/go-cmp/cmp"
)

// TestOpeningV2 checks that a v2 editor's session/new params open the
// session as v1's do: its MCP servers as v1's, each transport as it is.
func TestOpeningV2(t *testing.T) {
	tests := []struct {
		name    string
		servers []acpv2.MCPServer
		want    opening
	}{
		{"no servers", nil, opening{id: "s", cwd: "/work", dirs: []string{"/lib"}}},
		{"servers", []acpv2.MCPServer{
			acpv2.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{"--root", "/work"}, Env: []acpv2.EnvVariable{{Name: "A", Value: "1"}}},
			acpv2.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: []acpv2.HTTPHeader{{Name: "X", Value: "y"}}},
			acpv2.MCPServerACP{Name: "peer", ServerID: "p1"},
		}, opening{id: "s", cwd: "/work", dirs: []string{"/lib"}, servers: []acp.MCPServer{
			acp.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{"--root", "/work"}, Env: []acp.EnvVariable{{Name: "A", Value: "1"}}},
			acp.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: []acp.HTTPHeader{{Name: "X", Value: "y"}}},
			acp.MCPServerACP{Name: "peer", ServerID: "p1"},
		}}},
		// v2 lets a stdio server leave out its args and env, and an HTTP
		// server its headers, which v1 requires: none, in v1's terms.
		{"optional members left out", []acpv2.MCPServer{
			acpv2.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs"},
			acpv2.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp"},
		}, opening{id: "s", cwd: "/work", dirs: []string{"/lib"}, servers: []acp.MCPServer{
			acp.MCPServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{}, Env: []acp.EnvVariable{}},
			acp.MCPServerHTTP{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: []acp.HTTPHeader{}},
		}}},
	}
	for _, tt := range tests {
		got, err := openingV2("s", "/work", []string{"/lib"}, tt.servers)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(opening{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestToolContentV2 checks a v1 tool call's content in v2: a content
// block's content as v2's, a terminal by its id, and a kind the bridge
// does not know passed on as it came.
func TestToolContentV2(t *testing.T) {
	const gallery = `{"type":"gallery","items":[1,2]}`
	tests := []struct {
		name string
		in   acp.ToolCallContent
		want acpv2.ToolCallContent
	}{
		{"content", acp.ToolCallContentBlock{Content: acp.TextContent{Text: "ok"}, Meta: json.RawMessage(`{"m":1}`)},
			acpv2.ToolCallContentBlock{Content: acpv2.TextContent{Text: "ok"}, Meta: json.RawMessage(`{"m":1}`)}},
		{"terminal", acp.ToolCallTerminal{TerminalID: "term-1"}, acpv2.ToolCallTerminal{TerminalID: "term-1"}},
		{"unknown kind", acp.UnknownToolCallContent{Type: "gallery", Raw: json.RawMessage(gallery)},
			acpv2.UnknownToolCallContent{Type: "gallery", Raw: json.RawMessage(gallery)}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, toolContentV2(tt.in)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
