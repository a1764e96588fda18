package acp

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The schema parity tests read the schema vendored under schema/ (see its
// README) with encoding/json, and fail when it defines something this
// package has no counterpart for, or marks stable what the package marks
// Unstable, or the other way round.

// schemaFile is the part of schema.json the tests read.
type schemaFile struct {
	Defs map[string]schemaDef `json:"$defs"`
}

type schemaDef struct {
	Method     string               `json:"x-method"`
	Side       string               `json:"x-side"`
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

func readSchemaJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("schema", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// schemaEditions are the two editions of the schema: stable, and stable
// plus unstable.
var schemaEditions = []struct{ schema, meta string }{
	{"schema.json", "meta.json"},
	{"schema.unstable.json", "meta.unstable.json"},
}

// schemaMethodNames returns the methods an edition defines: those of its
// method tables, and those of its x-method types (the proxy methods, which
// the tables leave out).
func schemaMethodNames(t *testing.T, schema, meta string) map[string]bool {
	t.Helper()
	var tables map[string]json.RawMessage
	readSchemaJSON(t, meta, &tables)
	names := map[string]bool{}
	for _, side := range []string{"agentMethods", "clientMethods", "protocolMethods"} {
		var m map[string]string
		if err := json.Unmarshal(tables[side], &m); err != nil {
			t.Fatalf("%s %s: %v", meta, side, err)
		}
		for _, name := range m {
			names[name] = true
		}
	}
	var s schemaFile
	readSchemaJSON(t, schema, &s)
	for _, def := range s.Defs {
		if def.Method != "" {
			names[def.Method] = true
		}
	}
	return names
}

// TestSchemaMethods checks that every method of the schema has a method
// value, with a params type for each of its shapes (request and
// notification, as mcp/message has both).
func TestSchemaMethods(t *testing.T) {
	byName := map[string][]method{}
	for _, m := range methods {
		byName[m.name()] = append(byName[m.name()], m)
	}
	for _, ed := range schemaEditions {
		for name := range schemaMethodNames(t, ed.schema, ed.meta) {
			if len(byName[name]) == 0 {
				t.Errorf("%s: method %s has no counterpart in acp", ed.meta, name)
			}
		}
		var s schemaFile
		readSchemaJSON(t, ed.schema, &s)
		for defName, def := range s.Defs {
			if def.Method == "" {
				continue
			}
			notification := strings.HasSuffix(defName, "Notification")
			found := false
			for _, m := range byName[def.Method] {
				_, result := m.types()
				found = found || (result == nil) == notification
			}
			if !found {
				t.Errorf("%s: %s (%s) has no method value of its kind", ed.schema, defName, def.Method)
			}
		}
	}
}

// TestSchemaStability checks that the package marks Unstable exactly what
// only the unstable edition defines: the method values, their params and
// result types, and the members of those types.
func TestSchemaStability(t *testing.T) {
	stableMethods := schemaMethodNames(t, schemaEditions[0].schema, schemaEditions[0].meta)
	var stable, all schemaFile
	readSchemaJSON(t, schemaEditions[0].schema, &stable)
	readSchemaJSON(t, schemaEditions[1].schema, &all)
	docs := packageDocs(t)
	isUnstable := func(doc string) bool { return strings.Contains(doc, "Unstable") }
	for _, m := range methods {
		if m.name() == SessionSetModel.Name {
			continue // in no edition: written by hand, Unstable
		}
		goName := docs.valueNames[m.name()+"|"+methodKind(m)]
		want := !stableMethods[m.name()]
		if got := isUnstable(docs.values[goName]); got != want {
			t.Errorf("method value %s (%s): Unstable in its doc is %v, want %v", goName, m.name(), got, want)
		}
	}
	for defName, def := range all.Defs {
		if def.Method == "" {
			continue
		}
		typ := methodType(t, def.Method, defName)
		if typ == nil || typ.Kind() != reflect.Struct {
			continue // a raw result
		}
		stableDef, inStable := stable.Defs[defName]
		if got := isUnstable(docs.types[typ.Name()]); got != !inStable {
			t.Errorf("%s (%s): Unstable in its doc is %v, want %v", typ.Name(), defName, got, !inStable)
		}
		if !inStable {
			continue
		}
		for member := range def.Properties {
			field, ok := fieldOf(typ, member)
			if !ok {
				continue // written by hand in another shape; the round trip checks it
			}
			_, memberStable := stableDef.Properties[member]
			doc := docs.fields[typ.Name()+"."+field]
			if got := isUnstable(doc); got != !memberStable {
				t.Errorf("%s.%s (%s.%s): Unstable in its doc is %v, want %v", typ.Name(), field, defName, member, got, !memberStable)
			}
		}
	}
}

func methodKind(m method) string {
	if _, result := m.types(); result == nil {
		return "notification"
	}
	return "request"
}

// methodType returns the Go type of schema type defName, the params or
// result of method name.
func methodType(t *testing.T, name, defName string) reflect.Type {
	t.Helper()
	notification := strings.HasSuffix(defName, "Notification")
	for _, m := range methods {
		params, result := m.types()
		if m.name() != name || (result == nil) != notification {
			continue
		}
		if strings.HasSuffix(defName, "Response") {
			return result
		}
		return params
	}
	t.Errorf("%s (%s): no method value", defName, name)
	return nil
}

// fieldOf returns the Go field of struct type t whose json tag names
// member.
func fieldOf(t reflect.Type, member string) (string, bool) {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == member {
			return t.Field(i).Name, true
		}
	}
	return "", false
}

// docs are the doc comments of the package's declarations, read from its
// source.
type docs struct {
	types      map[string]string // by type name
	fields     map[string]string // by "Type.Field"
	values     map[string]string // by var name: the var's comment and its group's
	valueNames map[string]string // the name of each method value, by "wire|kind"
}

func packageDocs(t *testing.T) docs {
	t.Helper()
	d := docs{types: map[string]string{}, fields: map[string]string{}, values: map[string]string{}, valueNames: map[string]string{}}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					d.types[s.Name.Name] = g.Doc.Text() + s.Doc.Text()
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							d.fields[s.Name.Name+"."+n.Name] = fl.Doc.Text()
						}
					}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						d.values[n.Name] = g.Doc.Text() + s.Doc.Text()
						if i < len(s.Values) {
							if wire, kind, ok := methodLiteral(s.Values[i]); ok {
								d.valueNames[wire+"|"+kind] = n.Name
							}
						}
					}
				}
			}
		}
	}
	return d
}

// methodLiteral reads a Method[…]{Name: "…"} or Notification[…]{…}
// literal.
func methodLiteral(e ast.Expr) (wire, kind string, ok bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok || len(lit.Elts) != 1 {
		return "", "", false
	}
	var typ ast.Expr = lit.Type
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	id, ok := typ.(*ast.Ident)
	kv, ok2 := lit.Elts[0].(*ast.KeyValueExpr)
	if !ok || !ok2 {
		return "", "", false
	}
	s, ok := kv.Value.(*ast.BasicLit)
	if !ok {
		return "", "", false
	}
	switch id.Name {
	case "Method":
		kind = "request"
	case "Notification":
		kind = "notification"
	default:
		return "", "", false
	}
	return strings.Trim(s.Value, `"`), kind, true
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
			// A known kind fails on its missing members, or decodes into a
			// variant of its own; an unknown one decodes as UnknownUpdate.
			u, err := decodeUpdate([]byte(`{"sessionUpdate":"`+kind+`"}`), "update")
			if _, unknown := u.(UnknownUpdate); err == nil && unknown {
				t.Errorf("%s: session update %s has no counterpart in acp", ed.schema, kind)
			}
		}
	}
}

// TestSchemaUnionTypes checks that every variant of the schema's tagged
// unions read as interfaces has a variant type.
func TestSchemaUnionTypes(t *testing.T) {
	unions := map[string]struct {
		key     string
		unknown func(raw []byte) (bool, error) // decodes raw, reporting whether it is the unknown variant
	}{
		"ContentBlock": {"type", func(raw []byte) (bool, error) {
			c, err := decodeContentBlock(raw, "content")
			_, u := c.(UnknownContent)
			return u, err
		}},
		"ToolCallContent": {"type", unionIsUnknown(readToolCallContent, func(v ToolCallContent) bool { _, u := v.(UnknownToolCallContent); return u })},
		"McpServer":       {"type", unionIsUnknown(readMCPServer, func(v MCPServer) bool { _, u := v.(UnknownMCPServer); return u })},
		"StateUpdate":     {"state", unionIsUnknown(readStateUpdate, func(v StateUpdate) bool { _, u := v.(OtherStateUpdate); return u })},
		"ElicitationPropertySchema": {"type", unionIsUnknown(readElicitationPropertySchema, func(v ElicitationPropertySchema) bool {
			_, u := v.(UnknownPropertySchema)
			return u
		})},
		"MultiSelectItems": {"type", unionIsUnknown(readMultiSelectItems, func(v MultiSelectItems) bool { _, u := v.(UnknownMultiSelectItems); return u })},
	}
	for _, ed := range schemaEditions {
		var s schemaFile
		readSchemaJSON(t, ed.schema, &s)
		for _, name := range slices.Sorted(maps.Keys(unions)) {
			u := unions[name]
			def, ok := s.Defs[name]
			if !ok {
				continue // an unstable union, in the unstable edition only
			}
			tags := def.variants(u.key)
			if len(tags) == 0 {
				t.Fatalf("%s: no %s tags found", ed.schema, name)
			}
			for _, tag := range tags {
				if unknown, err := u.unknown([]byte(`{"` + u.key + `":"` + tag + `"}`)); err == nil && unknown {
					t.Errorf("%s: %s %s %q has no counterpart in acp", ed.schema, name, u.key, tag)
				}
			}
		}
	}
}

func unionIsUnknown[T any](read func(*wireFields) T, unknown func(T) bool) func([]byte) (bool, error) {
	return func(raw []byte) (bool, error) {
		v, err := readUnionValue(raw, read)
		return unknown(v), err
	}
}
