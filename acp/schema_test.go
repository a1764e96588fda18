package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The schema parity test reads the official ACP schema vendored under
// testdata/schema (see its README) with encoding/json, and fails when the
// schema defines something this package has no counterpart for.

// notYetSupported lists, by name, the methods of the schema this package
// leaves out for now: the unstable nes/*, document/*, providers/* and
// mcp/* families. The test fails when one of them gains a counterpart or
// leaves the schema, so the list can only shrink.
var notYetSupported = []string{
	"nes/start", "nes/suggest", "nes/accept", "nes/reject", "nes/close",
	"document/didOpen", "document/didChange", "document/didClose",
	"document/didSave", "document/didFocus",
	"providers/list", "providers/set", "providers/disable",
	"mcp/connect", "mcp/message", "mcp/disconnect",
}

// schemaFile is the part of schema.json the test reads.
type schemaFile struct {
	Defs map[string]schemaDef `json:"$defs"`
}

type schemaDef struct {
	Method     string               `json:"x-method"`
	Required   []string             `json:"required"`
	Properties map[string]schemaDef `json:"properties"`
	Const      any                  `json:"const"` // a string in the unions read here
	OneOf      []schemaDef          `json:"oneOf"`
	AnyOf      []schemaDef          `json:"anyOf"`
}

// variants returns the discriminator values of a tagged union: the const
// of member key in each alternative.
func (d schemaDef) variants(key string) []string {
	var out []string
	for _, alt := range append(slices.Clone(d.OneOf), d.AnyOf...) {
		if c, ok := alt.Properties[key].Const.(string); ok {
			out = append(out, c)
		}
	}
	return out
}

// required returns the members d requires: those of its required list and
// those every alternative of its union requires.
func (d schemaDef) required() []string {
	out := slices.Clone(d.Required)
	alts := append(slices.Clone(d.OneOf), d.AnyOf...)
	if len(alts) == 0 {
		return out
	}
	for _, name := range alts[0].Required {
		if !slices.ContainsFunc(alts, func(a schemaDef) bool { return !slices.Contains(a.Required, name) }) {
			out = append(out, name)
		}
	}
	return out
}

func readSchemaJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schema", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// schemaEditions are the two editions of the schema: stable and unstable.
var schemaEditions = []struct{ schema, meta string }{
	{"schema.json", "meta.json"},
	{"schema.unstable.json", "meta.unstable.json"},
}

func TestSchemaMethods(t *testing.T) {
	byName := make(map[string]method)
	for _, m := range methods {
		byName[m.name()] = m
	}
	inSchema := make(map[string]bool)
	for _, ed := range schemaEditions {
		var meta map[string]json.RawMessage
		readSchemaJSON(t, ed.meta, &meta)
		for _, side := range []string{"agentMethods", "clientMethods", "protocolMethods"} {
			var names map[string]string
			if err := json.Unmarshal(meta[side], &names); err != nil {
				t.Fatalf("%s %s: %v", ed.meta, side, err)
			}
			for _, name := range names {
				inSchema[name] = true
				_, ok := byName[name]
				switch left := slices.Contains(notYetSupported, name); {
				case !ok && !left:
					t.Errorf("%s: method %s has no counterpart in acp", ed.meta, name)
				case ok && left:
					t.Errorf("%s: method %s is supported now: remove it from notYetSupported", ed.meta, name)
				}
			}
		}
	}
	for _, name := range notYetSupported {
		if !inSchema[name] {
			t.Errorf("notYetSupported lists %s, which the schema no longer has", name)
		}
	}
}

// TestSchemaRequiredMembers checks that every member the schema requires
// of a method's params or result is a member of the Go type that carries
// it, and that a result type requires no member the schema does not.
func TestSchemaRequiredMembers(t *testing.T) {
	byName := make(map[string]method)
	for _, m := range methods {
		byName[m.name()] = m
	}
	for _, ed := range schemaEditions {
		var s schemaFile
		readSchemaJSON(t, ed.schema, &s)
		for defName, def := range s.Defs {
			m, ok := byName[def.Method]
			if def.Method == "" || !ok {
				continue // a family not yet supported: TestSchemaMethods reports
			}
			params, result := m.types()
			typ := params
			if strings.HasSuffix(defName, "Response") {
				typ = result
			}
			members := jsonMembers(typ)
			for _, req := range def.Required {
				if !members[req] {
					t.Errorf("%s: %s requires %q, which %v (for %s) lacks", ed.schema, defName, req, typ, def.Method)
				}
			}
			// DecodeResult must not refuse what the schema allows.
			for _, tagged := range requiredTagged(typ) {
				if !slices.Contains(def.required(), tagged) {
					t.Errorf("%s: %v (for %s) requires %q, which %s does not", ed.schema, typ, def.Method, tagged, defName)
				}
			}
		}
	}
}

// requiredTagged returns the JSON member names of struct type t's fields
// tagged acp:"required".
func requiredTagged(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("acp") == "required" {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// jsonMembers returns the JSON member names of struct type t's fields.
func jsonMembers(t reflect.Type) map[string]bool {
	out := make(map[string]bool)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

func TestSchemaSessionUpdateKinds(t *testing.T) {
	for _, ed := range schemaEditions {
		var s schemaFile
		readSchemaJSON(t, ed.schema, &s)
		kinds := s.Defs["SessionUpdate"].variants("sessionUpdate")
		if len(kinds) == 0 {
			t.Fatalf("%s: no sessionUpdate kinds found", ed.schema)
		}
		for _, kind := range kinds {
			// A known kind fails on its missing members; an unknown one
			// decodes as UnknownUpdate.
			u, err := decodeUpdate([]byte(`{"sessionUpdate":"`+kind+`"}`), "update")
			if _, unknown := u.(UnknownUpdate); err == nil && unknown {
				t.Errorf("%s: session update %s has no counterpart in acp", ed.schema, kind)
			}
		}
	}
}

func TestSchemaContentBlockTypes(t *testing.T) {
	for _, ed := range schemaEditions {
		var s schemaFile
		readSchemaJSON(t, ed.schema, &s)
		for _, union := range []struct{ def, key string }{{"ContentBlock", "type"}, {"ToolCallContent", "type"}} {
			types := s.Defs[union.def].variants(union.key)
			if len(types) == 0 {
				t.Fatalf("%s: no %s types found", ed.schema, union.def)
			}
			for _, typ := range types {
				var unknown bool
				var err error
				switch union.def {
				case "ContentBlock":
					var c ContentBlock
					c, err = decodeContentBlock([]byte(`{"type":"`+typ+`"}`), "content")
					_, unknown = c.(UnknownContent)
				case "ToolCallContent":
					var u Update
					u, err = decodeUpdate([]byte(`{"sessionUpdate":"tool_call_update","toolCallId":"c","content":[{"type":"`+typ+`"}]}`), "update")
					if tc, ok := u.(ToolCallUpdate); ok {
						_, unknown = tc.Content[0].(UnknownToolCallContent)
					}
				}
				if err == nil && unknown {
					t.Errorf("%s: %s type %s has no counterpart in acp", ed.schema, union.def, typ)
				}
			}
		}
	}
}
