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
	if err := run("../../acp/schema", "../../acp/schema/names.txt", "acp", dir, options{}); err != nil {
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
	if err := run("../../acp/schema", "../../acp/schema/names.txt", "acp", dir, options{register: true}); err != nil {
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
	if err := run(dir, names, "demo", out, options{}); err != nil {
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
			`Ping = acp.Method[PingParams, PingResult]{Name: "ping"}`,
		},
	} {
		for _, want := range wants {
			if !strings.Contains(norm(src[file]), norm(want)) {
				t.Errorf("%s lacks %q:\n%s", file, want, src[file])
			}
		}
	}
}

// TestGenerateACPV2 checks that package acpv2's generated files are what
// the generator writes from acp/acpv2/schema now.
func TestGenerateACPV2(t *testing.T) {
	dir := t.TempDir()
	if err := run("../../acp/acpv2/schema", "../../acp/acpv2/schema/names.txt", "acpv2", dir, options{register: true, experimental: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range outputs {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("../../acp/acpv2", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("acp/acpv2/%s is stale: run go generate ./acp/...", name)
		}
	}
}

// v2Defs are the shapes ACP v2 adds to v1's: the members of an upsert,
// which null clears, acp's own types, and a union variant that is a union
// tagged again.
const v2Defs = `
"PingRequest": {"type": "object", "x-method": "ping", "x-side": "agent",
  "properties": {
    "title": {"type": ["string", "null"]},
    "kind": {"anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}]},
    "items": {"type": ["array", "null"], "items": {"type": "string"}},
    "box": {"anyOf": [{"$ref": "#/$defs/Box"}, {"type": "null"}]},
    "requestId": {"$ref": "#/$defs/RequestId"},
    "update": {"$ref": "#/$defs/Update"},
    "_meta": {"type": ["object", "null"], "additionalProperties": true}},
  "required": ["requestId", "update"]},
"PingResponse": {"type": "object", "x-method": "ping", "x-side": "agent", "properties": {"error": {"$ref": "#/$defs/Error"}}},
"Color": {"oneOf": [{"type": "string", "const": "red"}, {"type": "string"}]},
"Box": {"type": "object", "properties": {"n": {"type": "integer", "format": "uint16"}}},
"RequestId": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
"Error": {"type": "object", "properties": {"code": {"type": "integer"}}},
"Update": {"oneOf": [{"allOf": [{"$ref": "#/$defs/State"}], "properties": {"kind": {"const": "state", "type": "string"}}, "required": ["kind"]}]},
"State": {"oneOf": [{"allOf": [{"$ref": "#/$defs/Idle"}], "properties": {"state": {"const": "idle", "type": "string"}}, "required": ["state"]}]},
"Idle": {"type": "object", "properties": {}}`

// TestGenerateV2Shapes checks the generator's output for a package other
// than acp: acp's declarations named qualified, acp's types used through
// its registered codecs, every declaration marked Experimental, members
// that null clears, and a variant that is a union.
func TestGenerateV2Shapes(t *testing.T) {
	dir := writeSchema(t, v2Defs, v2Defs)
	names := filepath.Join(dir, "names.txt")
	table := `custom RequestId acp.ID value
custom Error acp.Error object
variant Update state StateUpdate
union State OtherState State
clearable PingRequest.title
clearable PingRequest.kind
clearable PingRequest.items
clearable PingRequest.box
clearable PingRequest._meta
`
	if err := os.WriteFile(names, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := run(dir, names, "demo", out, options{register: true, experimental: true}); err != nil {
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
			`"github.com/acpkit/acpkit/acp"`,
			"RequestID acp.ID `json:\"requestId\"`",
			"Error *acp.Error `json:\"error,omitempty\"`",
			"Title *string `json:\"title,omitempty\"`",
			"Kind *Color `json:\"kind,omitempty\"`",
			"nil leaves it unchanged; a pointer to the zero value clears it (sent as null), and null reads as one.",
			"nil leaves it unchanged; a non-nil empty slice clears it (sent as []), and null reads as one.",
			"type StateUpdate struct { // State is the state, which must not be nil. State State }",
			"Experimental: ACP v1 is a draft, and this follows it", // the version of the test's method tables
		},
		"codec_gen.go": {
			"readID = wire.ValueReaderFor[acp.ID]()",
			"decodeError = wire.DecoderFor[acp.Error]()",
			`wire.Clearable(f, "kind", &p.Kind, wire.Optional)`,
			`if f.Null("items") { p.Items = []string{} } else {`,
			`if f.Null("box") { p.Box = new(Box) // null clears: the zero value } else {`,
			`f.RawObject("_meta", &p.Meta, wire.Lenient|wire.KeepNull)`,
			`if wire.IsZero(*p.Box) { e.Null() } else { p.Box.appendJSON(e) }`,
			`e.Tagged("kind", "state", func(e *wire.Encoder) { appendState(s.State, e) })`,
			"wire.Register((*PingParams).decodeFields, PingParams.appendJSON)",
			"return wire.UnmarshalParams(data, p, (*PingParams).decodeFields)",
		},
		"methods_gen.go": {
			`Ping = acp.Method[PingParams, PingResult]{Name: "ping"}`,
			"var schemaMethods = []any{",
		},
	} {
		for _, want := range wants {
			if !strings.Contains(norm(src[file]), norm(want)) {
				t.Errorf("%s lacks %q:\n%s", file, want, src[file])
			}
		}
	}
	if strings.Contains(src["codec_gen.go"], "wire.Register((*acp.") {
		t.Error("codec_gen.go registers a type of package acp's, which acp registers itself")
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
		{"a type of acp's in acp", pingDefs, "custom Color acp.Color value\n", "is package acp's, for a package that registers its codecs"},
		{"clearable for a number", pingDefs, "clearable PingRequest.count\n", "clearable for a member of type int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSchema(t, tt.defs, tt.defs)
			names := filepath.Join(dir, "names.txt")
			if err := os.WriteFile(names, []byte(tt.names), 0o644); err != nil {
				t.Fatal(err)
			}
			err := run(dir, names, "demo", t.TempDir(), options{})
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
