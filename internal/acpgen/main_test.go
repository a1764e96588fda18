package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var outputs = []string{"schema_gen.go", "codec_gen.go", "methods_gen.go"}

// TestGenerateACP checks that package acp's generated files are what the
// generator writes from acp/schema now, as CI's go generate check does.
func TestGenerateACP(t *testing.T) {
	dir := t.TempDir()
	if err := run("../../acp/schema", "../../acp/schema/names.txt", "acp", dir, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range outputs {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("../../acp", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("acp/%s is stale: run go generate ./acp", name)
		}
	}
}

// TestGenerateRegister checks that -register has the codecs register the
// params and results of the methods, as a package other than acp needs.
func TestGenerateRegister(t *testing.T) {
	dir := t.TempDir()
	if err := run("../../acp/schema", "../../acp/schema/names.txt", "acp", dir, true); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "codec_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func init() {",
		"wire.Register((*PromptParams).decodeFields, PromptParams.appendJSON)",
		"wire.Register((*PromptResult).decodeFields, PromptResult.appendJSON)",
		"wire.Register((*SessionNotification).decodeFields, SessionNotification.appendJSON)",
	} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("codec_gen.go lacks %q", want)
		}
	}
}

// writeSchema writes a schema directory whose both editions have the
// types defs (JSON members of $defs), and whose method tables are empty.
func writeSchema(t *testing.T, stable, all string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"schema.json":          `{"$defs":{` + stable + `}}`,
		"schema.unstable.json": `{"$defs":{` + all + `}}`,
		"meta.json":            `{"version":1,"agentMethods":{"ping":"ping"},"clientMethods":{},"protocolMethods":{}}`,
		"meta.unstable.json":   `{"version":1,"agentMethods":{"ping":"ping"},"clientMethods":{},"protocolMethods":{}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const pingDefs = `
"PingRequest": {"description": "Request parameters for ping.", "type": "object", "x-method": "ping", "x-side": "agent",
  "properties": {"count": {"description": "How many.", "type": ["integer", "null"], "format": "uint32", "x-deserialize-default-on-error": true},
    "color": {"allOf": [{"$ref": "#/$defs/Color"}]}},
  "required": ["color"]},
"PingResponse": {"type": "object", "x-method": "ping", "x-side": "agent", "properties": {}},
"Color": {"description": "A color.", "oneOf": [{"type": "string", "const": "red"}, {"type": "string", "const": "deep_blue"}]}`

// TestGenerateSmall checks the generator's output for a small schema: a
// method, its params with a lenient member, an enum, and a member only
// the unstable edition has.
func TestGenerateSmall(t *testing.T) {
	unstable := strings.Replace(pingDefs, `"color": {`, `"shade": {"type": "string"}, "color": {`, 1)
	dir := writeSchema(t, pingDefs, unstable)
	names := filepath.Join(dir, "names.txt")
	if err := os.WriteFile(names, []byte("enum Color Colour # British\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := run(dir, names, "demo", out, false); err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, name := range outputs {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		src[name] = string(b)
	}
	for file, wants := range map[string][]string{
		"schema_gen.go": {
			"// PingParams are the params of [Ping] (ping).",
			"// Read leniently, as the schema says: when invalid, count reads as its default.",
			"Count *int `json:\"count,omitempty\"`",
			"Color Color `json:\"color\"`",
			"// Unstable: ACP's unstable schema defines it, the stable one does not; it may change or be removed.\n\tShade string `json:\"shade,omitempty\"`",
			"ColourRed Color = \"red\"",
			"ColourDeepBlue Color = \"deep_blue\"",
			"// Color is a color.",
		},
		"codec_gen.go": {
			`f.OptInt("count", &p.Count, wire.Lenient, 0, math.MaxUint32)`,
			`f.String("color", (*string)(&p.Color), wire.Required)`,
		},
		"methods_gen.go": {
			`Ping = Method[PingParams, PingResult]{Name: "ping"}`,
		},
	} {
		for _, want := range wants {
			if !strings.Contains(norm(src[file]), norm(want)) {
				t.Errorf("%s lacks %q:\n%s", file, want, src[file])
			}
		}
	}
}

// norm returns Go source without its comment markers and with its white
// space collapsed, so that wrapping and alignment do not matter.
func norm(src string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(src, "//", "")), " ")
}

// TestGenerateErrors checks that the generator refuses what it cannot
// shape, and a naming table that says something of nothing.
func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name, defs, names, want string
	}{
		{"untagged union", pingDefs + `, "Shape": {"anyOf": [{"type": "string"}, {"type": "integer"}]}`, "",
			"Shape: a union without a discriminator needs custom, raw or fold"},
		{"union without a discriminator", pingDefs + `, "A": {"type": "object", "properties": {}}, "B": {"type": "object", "properties": {}},
			"Either": {"anyOf": [{"allOf": [{"$ref": "#/$defs/A"}]}, {"allOf": [{"$ref": "#/$defs/B"}]}]}`, "",
			"Either: a union without a discriminator needs custom, raw or fold"},
		{"a directive about nothing", pingDefs, "name Nothing Something\n", "about nothing in the schema: name Nothing"},
		{"an unknown directive", pingDefs, "rename Color Colour\n", `unknown directive "rename"`},
		{"a directive twice", pingDefs, "enum Color C\nenum Color D\n", "enum Color is given twice"},
		{"two types of one Go name", pingDefs, "name Color PingParams\n", "Go name PingParams is given to both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSchema(t, tt.defs, tt.defs)
			names := filepath.Join(dir, "names.txt")
			if err := os.WriteFile(names, []byte(tt.names), 0o644); err != nil {
				t.Fatal(err)
			}
			err := run(dir, names, "demo", t.TempDir(), false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestComment(t *testing.T) {
	tests := []struct{ text, want string }{
		{"One line", "// One line.\n"},
		{"See protocol docs: [Session ID](https://example.com/s#id)",
			"// See protocol docs: [Session ID].\n//\n// [Session ID]: https://example.com/s#id\n"},
		{"Kinds:\n- `a`: the first\n  and more\n- `b`", "// Kinds:\n//\n//   - `a`: the first and more\n//   - `b`\n"},
		{"Escaped \\[1\\] stays text.", "// Escaped [1] stays text.\n"},
		{strings.Repeat("word ", 20), "// " + strings.TrimSpace(strings.Repeat("word ", 15)) + "\n// " + strings.TrimSpace(strings.Repeat("word ", 5)) + ".\n"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, comment(tt.text, "")); diff != "" {
			t.Errorf("comment(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestLead(t *testing.T) {
	tests := []struct{ name, sentence, want string }{
		{"AgentCapabilities", "Capabilities supported by the agent", "AgentCapabilities are the capabilities supported by the agent"},
		{"ToolCall", "Represents a tool call", "ToolCall represents a tool call"},
		{"SessionMode", "A mode the agent can operate in", "SessionMode is a mode the agent can operate in"},
		{"Error", "JSON-RPC error object", "Error is the JSON-RPC error object"},
		{"Annotations", "Optional annotations for the client", "Annotations are the optional annotations for the client"},
	}
	for _, tt := range tests {
		if got := lead(tt.name, tt.sentence); got != tt.want {
			t.Errorf("lead(%q, %q) = %q, want %q", tt.name, tt.sentence, got, tt.want)
		}
	}
}

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{
		"sessionId": "SessionID", "McpServerHttp": "MCPServerHTTP", "max_turn_requests": "MaxTurnRequests",
		"date-time": "DateTime", "_meta": "Meta", "fs": "FS", "baseUrl": "BaseURL", "session/set_config_option": "SessionSetConfigOption",
		"LlmProtocol": "LLMProtocol", "uri": "URI",
	} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	if got := methodName("$/cancel_request"); got != "CancelRequest" {
		t.Errorf("methodName($/cancel_request) = %q", got)
	}
}
