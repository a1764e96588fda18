// Package schematest runs the schema-driven tests of a schema layer that
// internal/acpgen generates (package acp's from ACP v1's schema, package
// acpv2's from v2's) from the schema files themselves: every method of
// the schema has a method value; the package marks Unstable exactly what
// only the unstable edition defines; and the largest instances of every
// params, result and notification type, with each union variant and enum
// value in turn, come back from a decode and an encode, with every member
// read as strictly or as leniently as the schema's annotations say. Only
// tests import it.
package schematest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// A Layer is a package's schema layer, as the tests see it.
type Layer struct {
	// Dir is the folder of the schema files (schema.json and
	// schema.unstable.json, meta.json and meta.unstable.json) and of the
	// naming table, names.txt, relative to the package's directory.
	Dir string
	// Methods are the package's method values.
	Methods []Method
	// HandWritten lists, with the reason, the methods of Methods that no
	// edition of the schema defines.
	HandWritten map[string]string
	// Codecs decodes the params and result of each method of Methods and
	// encodes them back, by [Method.Key].
	Codecs map[string]Codec
	// NotRoundTripped lists, with the reason, the schema types no
	// method's params or result reaches.
	NotRoundTripped map[string]string
	// AlternativeKeys maps the path of a member that tells a union's
	// alternatives apart by being present ("CreateElicitationRequest
	// .requestId") to the member the decoder may name instead when it is
	// absent: the other alternative's, which it then reads.
	AlternativeKeys map[string]string
	// InvalidField returns the member a decoding error names
	// (acp.InvalidField).
	InvalidField func(error) (field string, ok bool)
}

// A Method is one method value of the package.
type Method struct {
	Name         string // on the wire, such as "session/prompt"
	Notification bool
	// Params and Result are its types; Result is nil for a notification.
	Params, Result reflect.Type
}

// Key returns the method's key in [Layer.Codecs]: its name, and for a
// notification " notification" after it, since mcp/message is both.
func (m Method) Key() string {
	if m.Notification {
		return m.Name + " notification"
	}
	return m.Name
}

// A Codec decodes a method's params or result the way a user does and
// encodes the typed value back, returning each encoding: with
// encoding/json, and as the member of the line the package's envelope
// encoder writes, when that differs ([Encodings] makes them).
type Codec struct {
	Params func(raw []byte) (encodings [][]byte, err error)
	Result func(raw []byte) (encodings [][]byte, err error) // nil for a notification
}

// Encodings returns v encoded with encoding/json and, when it differs, the
// member of the line marshalLine returns.
func Encodings(v any, member string, marshalLine func() ([]byte, error)) ([][]byte, error) {
	direct, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("json.Marshal: %w", err)
	}
	line, err := marshalLine()
	if err != nil {
		return nil, err
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return nil, fmt.Errorf("line %s: %w", line, err)
	}
	if bytes.Equal(direct, msg[member]) {
		return [][]byte{direct}, nil
	}
	return [][]byte{direct, msg[member]}, nil
}

// editions are the two editions of the schema: stable, and stable plus
// unstable.
var editions = []struct{ schema, meta string }{
	{"schema.json", "meta.json"},
	{"schema.unstable.json", "meta.unstable.json"},
}

func (l Layer) readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(l.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// schemaFile is the part of a schema file the method tests read.
type schemaFile struct {
	Defs map[string]schemaDef `json:"$defs"`
}

type schemaDef struct {
	Method     string               `json:"x-method"`
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

// methodNames returns the methods an edition defines: those of its method
// tables, and those of its x-method types (the proxy methods, which the
// tables leave out).
func (l Layer) methodNames(t *testing.T, schema, meta string) map[string]bool {
	t.Helper()
	var tables map[string]json.RawMessage
	l.readJSON(t, meta, &tables)
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
	l.readJSON(t, schema, &s)
	for _, def := range s.Defs {
		if def.Method != "" {
			names[def.Method] = true
		}
	}
	return names
}

// CheckMethods checks that every method of the schema has a method value,
// with a params type for each of its shapes (request and notification, as
// mcp/message has both).
func (l Layer) CheckMethods(t *testing.T) {
	byName := map[string][]Method{}
	for _, m := range l.Methods {
		byName[m.Name] = append(byName[m.Name], m)
	}
	for _, ed := range editions {
		for name := range l.methodNames(t, ed.schema, ed.meta) {
			if len(byName[name]) == 0 {
				t.Errorf("%s: method %s has no method value", ed.meta, name)
			}
		}
		var s schemaFile
		l.readJSON(t, ed.schema, &s)
		for defName, def := range s.Defs {
			if def.Method == "" {
				continue
			}
			notification := strings.HasSuffix(defName, "Notification")
			if !slices.ContainsFunc(byName[def.Method], func(m Method) bool { return m.Notification == notification }) {
				t.Errorf("%s: %s (%s) has no method value of its kind", ed.schema, defName, def.Method)
			}
		}
	}
}

// CheckStability checks that the package marks Unstable exactly what only
// the unstable edition defines: the method values, their params and
// result types, and the members of those types. It reads the doc
// comments from the package's source, in the current directory.
func (l Layer) CheckStability(t *testing.T) {
	stableMethods := l.methodNames(t, editions[0].schema, editions[0].meta)
	var stable, all schemaFile
	l.readJSON(t, editions[0].schema, &stable)
	l.readJSON(t, editions[1].schema, &all)
	docs := packageDocs(t)
	isUnstable := func(doc string) bool { return strings.Contains(doc, "Unstable") }
	for _, m := range l.Methods {
		if _, ok := l.HandWritten[m.Name]; ok {
			continue
		}
		goName := docs.valueNames[m.Key()]
		want := !stableMethods[m.Name]
		if got := isUnstable(docs.values[goName]); got != want {
			t.Errorf("method value %s (%s): Unstable in its doc is %v, want %v", goName, m.Name, got, want)
		}
	}
	for defName, def := range all.Defs {
		if def.Method == "" {
			continue
		}
		typ := l.methodType(t, def.Method, defName)
		if typ == nil || typ.Kind() != reflect.Struct {
			continue // a raw result
		}
		if typ.PkgPath() != l.Methods[0].Params.PkgPath() {
			continue // a type of another package's (acp's)
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

// CheckDocsSay checks that the doc comment of every exported declaration
// of the package (types, functions, and the groups of constants and
// variables) says word, as an experimental package's say "Experimental".
// A method belongs to its type, whose doc comment says it.
func CheckDocsSay(t *testing.T, word string) {
	docs := packageDocs(t)
	for _, name := range slices.Sorted(maps.Keys(docs.all)) {
		if !strings.Contains(docs.all[name], word) {
			t.Errorf("the doc comment of %s does not say %s", name, word)
		}
	}
}

// methodType returns the Go type of schema type defName, the params or
// result of method name.
func (l Layer) methodType(t *testing.T, name, defName string) reflect.Type {
	t.Helper()
	notification := strings.HasSuffix(defName, "Notification")
	for _, m := range l.Methods {
		if m.Name != name || m.Notification != notification {
			continue
		}
		if strings.HasSuffix(defName, "Response") {
			return m.Result
		}
		return m.Params
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

// A Union is a tagged union the package reads as an interface.
type Union struct {
	// Key is the discriminator's member, such as "type".
	Key string
	// Unknown decodes raw, a variant holding only its tag, and reports
	// whether it decoded as the union's unknown variant.
	Unknown func(raw []byte) (unknown bool, err error)
}

// CheckUnionTags checks that every variant the schema gives the unions,
// by schema name, has a variant type: a known tag fails on its missing
// members, or decodes into a variant of its own, never into the unknown
// variant.
func (l Layer) CheckUnionTags(t *testing.T, unions map[string]Union) {
	for _, ed := range editions {
		var s schemaFile
		l.readJSON(t, ed.schema, &s)
		for _, name := range slices.Sorted(maps.Keys(unions)) {
			u := unions[name]
			def, ok := s.Defs[name]
			if !ok {
				continue // an unstable union, in the unstable edition only
			}
			tags := def.variants(u.Key)
			if len(tags) == 0 {
				t.Fatalf("%s: no %s tags found", ed.schema, name)
			}
			for _, tag := range tags {
				if unknown, err := u.Unknown([]byte(`{"` + u.Key + `":"` + tag + `"}`)); err == nil && unknown {
					t.Errorf("%s: %s %s %q has no variant type", ed.schema, name, u.Key, tag)
				}
			}
		}
	}
}

// docs are the doc comments of the package's declarations, read from its
// source.
type docs struct {
	types      map[string]string // by type name
	fields     map[string]string // by "Type.Field"
	values     map[string]string // by var name: the var's comment and its group's
	valueNames map[string]string // the name of each method value, by Method.Key
	all        map[string]string // every exported declaration's but methods', by name
}

func packageDocs(t *testing.T) docs {
	t.Helper()
	d := docs{types: map[string]string{}, fields: map[string]string{}, values: map[string]string{}, valueNames: map[string]string{}, all: map[string]string{}}
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
			if fn, ok := decl.(*ast.FuncDecl); ok {
				if fn.Name.IsExported() && fn.Recv == nil {
					d.all[fn.Name.Name] = fn.Doc.Text()
				}
				continue
			}
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					doc := g.Doc.Text() + s.Doc.Text()
					d.types[s.Name.Name] = doc
					if s.Name.IsExported() {
						d.all[s.Name.Name] = doc
					}
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
						doc := g.Doc.Text() + s.Doc.Text()
						d.values[n.Name] = doc
						if n.IsExported() {
							d.all[n.Name] = doc
						}
						if i < len(s.Values) {
							if wire, notification, ok := methodLiteral(s.Values[i]); ok {
								d.valueNames[Method{Name: wire, Notification: notification}.Key()] = n.Name
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
// literal, qualified (acp.Method) or not.
func methodLiteral(e ast.Expr) (wire string, notification, ok bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok || len(lit.Elts) != 1 {
		return "", false, false
	}
	var typ ast.Expr = lit.Type
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if sel, ok := typ.(*ast.SelectorExpr); ok {
		typ = sel.Sel
	}
	id, ok := typ.(*ast.Ident)
	kv, ok2 := lit.Elts[0].(*ast.KeyValueExpr)
	if !ok || !ok2 {
		return "", false, false
	}
	s, ok := kv.Value.(*ast.BasicLit)
	if !ok {
		return "", false, false
	}
	switch id.Name {
	case "Method":
	case "Notification":
		notification = true
	default:
		return "", false, false
	}
	return strings.Trim(s.Value, `"`), notification, true
}

// table returns the members the naming table makes keep their null
// (clearable) and their [] (keepempty, and clearable arrays), as
// Type.member: the normalisations the round trip allows do not apply to
// them.
func (l Layer) table(t testing.TB) (nullKept, emptyKept map[string]bool) {
	t.Helper()
	f, err := os.Open(filepath.Join(l.Dir, "names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nullKept, emptyKept = map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		switch w := strings.Fields(line); {
		case len(w) == 2 && w[0] == "clearable":
			nullKept[w[1]] = true
			emptyKept[w[1]] = true // an array's [] clears as null does
		case len(w) == 2 && w[0] == "keepempty":
			emptyKept[w[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return nullKept, emptyKept
}

// schemaDefs reads the $defs of one edition as JSON Schema nodes.
func (l Layer) schemaDefs(t testing.TB, name string) map[string]jsonNode {
	var file struct {
		Defs map[string]jsonNode `json:"$defs"`
	}
	l.readJSON(t, name, &file)
	return file.Defs
}

// Seeds returns the largest instance of every params and result type of
// the unstable edition.
func (l Layer) Seeds(t testing.TB) [][]byte {
	nullKept, emptyKept := l.table(t)
	defs := l.schemaDefs(t, editions[1].schema)
	g := newInstanceGen(defs, nullKept, emptyKept)
	var out [][]byte
	for _, root := range schemaRoots(defs) {
		if vals := g.values(jsonNode{"$ref": "#/$defs/" + root.def}, "", ""); len(vals) > 0 {
			raw, err := json.Marshal(vals[0].in)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, raw)
		}
	}
	return out
}

// FuzzCodecs is the body of a fuzz target over every codec: it decodes
// the same bytes with each, and checks that nothing panics, that a
// failure is one named reports a member for (or one skip says is no
// failure, such as a value nested too deep to fit in a line), and that
// whatever decodes encodes to valid JSON that decodes again. Its seeds
// are the largest instance of every params and result type.
func (l Layer) FuzzCodecs(f *testing.F, skip, named func(error) bool) {
	for _, seed := range l.Seeds(f) {
		f.Add(seed)
	}
	keys := slices.Sorted(maps.Keys(l.Codecs))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, key := range keys {
			c := l.Codecs[key]
			for _, decode := range []func([]byte) ([][]byte, error){c.Params, c.Result} {
				if decode == nil {
					continue
				}
				encs, err := decode(data)
				if err != nil && skip(err) {
					continue
				}
				if err != nil {
					if !named(err) {
						t.Fatalf("%s: %q: error %v names no member", key, data, err)
					}
					continue
				}
				for _, enc := range encs {
					if !json.Valid(enc) || !utf8.Valid(enc) {
						t.Fatalf("%s: %q encodes to %q, not valid JSON", key, data, enc)
					}
					if _, err := decode(enc); err != nil {
						t.Fatalf("%s: %q encodes to %q, which does not decode: %v", key, data, enc, err)
					}
				}
			}
		}
	})
}

// CheckRoundTrip builds, from the schema itself, the largest instances of
// every params, result and notification type the package decodes (every
// optional member present, each union variant and enum value in turn,
// _meta included; then each member null, false or [] in turn where the
// schema allows it), decodes each with its Codec and compares what the
// encodings give back, failing when a member the schema defines does not
// come back as it went in.
//
// It checks, from the same instances, how every member is read. For each
// member, at any depth, it sends the largest instance with that member of
// a JSON type the schema does not allow, null where the schema does not
// allow it, and, when it is required, without it; for an array, with an
// item of such a type. Where the member's annotations say so
// (x-deserialize-default-on-error, -default-on-null, -skip-invalid-items)
// the instance must decode with the member at its default or the item
// dropped; a failure inside a member read leniently reads that member as
// its default, as the schema reads it. Everywhere else the decoder must
// refuse the instance naming the member. A member the schema reads
// leniently that no instance checks fails the test.
//
// An object type's variations are made in the first method, in name
// order, whose params or result reach it; later methods hold only its
// largest instance. Every method decodes a type with the same function,
// and carrying each variation of a type shared by many methods through
// each of them multiplied the work without checking more.
//
// The normalisations the packages apply are allowed: an optional member
// may come back absent when it was sent
//
//   - null, since the packages read null as absence, as the schema says
//     ("Omitted or null both mean …"), except for the members the naming
//     table makes clearable, whose null must come back (an array's as
//     null or [], which both clear it);
//   - as an empty array, since the packages keep an optional list in a
//     slice whose nil and empty they send alike, except for the members
//     the naming table makes keepempty or clearable;
//   - at the default the schema gives it, such as a capability's false,
//     since the packages leave out a member at its zero value where the
//     schema's default is that value.
func (l Layer) CheckRoundTrip(t *testing.T) {
	for _, m := range l.Methods {
		if _, ok := l.Codecs[m.Key()]; !ok {
			t.Errorf("method %s has no entry in Codecs", m.Key())
		}
	}
	nullKept, emptyKept := l.table(t)
	reached := map[string]bool{} // types, in either edition
	var unreached []string       // types reached in neither edition yet
	inSchema := map[string]bool{}
	for _, ed := range editions {
		t.Run(ed.schema, func(t *testing.T) {
			defs := l.schemaDefs(t, ed.schema)
			checked := newInstanceGen(defs, nullKept, emptyKept)
			var instances int
			for _, root := range schemaRoots(defs) {
				ref := root.ref()
				c, ok := l.Codecs[root.key()]
				if !ok {
					t.Errorf("%s (%s) has no codec", root.def, root.key())
					continue
				}
				decode := c.Params
				if root.result {
					decode = c.Result
				}
				if decode == nil {
					t.Errorf("%s: %s is a notification, which has no result", root.def, root.method)
					continue
				}
				clear(checked.paths)
				vals := checked.values(ref, "", "")
				maps.Copy(checked.varied, checked.varying)
				if len(vals) == 0 {
					t.Errorf("%s: no instance generated", root.def)
				}
				instances += len(vals)
				for _, d := range l.roundTripDiffs(root, decode, vals) {
					t.Error(d.msg)
				}
			}
			for name := range defs {
				inSchema[name] = true
				reached[name] = reached[name] || checked.types[name]
				_, listed := l.NotRoundTripped[name]
				if !checked.types[name] && !listed {
					unreached = append(unreached, name) // perhaps by the other edition
				}
			}
			if d := checked.dangling; d != nil {
				t.Errorf("$ref to types the schema lacks: %v", d)
			}
			// Every member the schema reads leniently is probed, but those
			// of any JSON value, of which none is invalid, and those of
			// the types reached only as an alternative to any value.
			for name, def := range defs {
				if checked.types[name] && !checked.probedTypes[name] {
					continue
				}
				props, _ := def["properties"].(map[string]any)
				for member, p := range props {
					a := annotationsOf(nodeOf(p))
					key := name + "." + member
					if (a.onError || a.onNull || a.skipItems) && !checked.probed[key] &&
						invalidValue(checked.alternatives(nodeOf(p), name)) != nil {
						t.Errorf("%s is read leniently, but no instance checks it", key)
					}
				}
			}
			t.Logf("checked %d types, %d members, %d instances", len(checked.types), len(checked.members), instances)
		})
	}
	for _, name := range slices.Compact(slices.Sorted(slices.Values(unreached))) {
		if !reached[name] {
			t.Errorf("schema type %s is neither reached by a method's params or result nor listed in NotRoundTripped", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(l.NotRoundTripped)) {
		switch {
		case !inSchema[name]:
			t.Errorf("NotRoundTripped lists %s, which the schema no longer has", name)
		case reached[name]:
			t.Errorf("NotRoundTripped lists %s, which the test now checks: remove it", name)
		}
	}
}

// orAbsent stands in a want for an optional member that may come back
// as value or not at all (see nullKept).
type orAbsent struct{ Value any }

// orEmpty stands in a want for an optional array sent null, which clears
// it as [] does, and may come back as either.
type orEmpty struct{}

// matchAbsent returns got with the members that want holds as orAbsent,
// and got holds at that value or not at all, set to the orAbsent (and
// likewise for orDefault and orEmpty).
func matchAbsent(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		g = maps.Clone(g)
		for k, wv := range w {
			gv, present := g[k]
			if oa, ok := wv.(orAbsent); ok && (!present || reflect.DeepEqual(gv, oa.Value)) {
				g[k] = oa
			} else if od, ok := wv.(orDefault); ok && (!present || od.Value != nil && matchesDefault(gv, od.Value)) {
				g[k] = od
			} else if oe, ok := wv.(orEmpty); ok && present && (gv == nil || isEmptyArray(gv)) {
				g[k] = oe
			} else if present {
				g[k] = matchAbsent(wv, gv)
			}
		}
		return g
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return got
		}
		g = slices.Clone(g)
		for i := range w {
			g[i] = matchAbsent(w[i], g[i])
		}
		return g
	}
	return got
}

// jsonNode is a node of the schema: an object of JSON Schema keywords.
type jsonNode = map[string]any

// shape is one alternative of a schema node: a node with its $ref, allOf,
// oneOf and anyOf resolved into plain constraints.
type shape struct {
	types    []string // JSON types allowed; nil means any
	konst    any
	hasConst bool
	props    []schemaProp
	required map[string]bool
	items    jsonNode // the items of an array
	addl     any      // additionalProperties: a node, true, or nil
	refs     []string // the types the shape was resolved through
	// catchAll is set for a union's alternative for the variants it does
	// not name, which a decoder keeps whole, as received.
	catchAll bool
}

// schemaProp is a member of an object shape and the schema type that
// defines it.
type schemaProp struct {
	name, owner string
	schema      jsonNode
}

// instance is a value generated from the schema: in is sent, want is what
// must come back (in, but for the normalisations the package applies), or,
// when err is not "", the decoder must refuse it naming the member at path
// err (array indices written "[]").
type instance struct {
	in, want any
	label    string // the variation, for messages
	err      string
	// skipped is want with the items that make err dropped, for an array
	// member whose invalid items the schema skips.
	skipped any
	// probe is set for the instances that check how a member is read
	// (invalid, null, absent), and for those that hold one.
	probe bool
}

// instanceGen generates instances from one edition of the schema.
type instanceGen struct {
	defs    map[string]jsonNode
	stack   []string        // the types being expanded, to bound recursion
	types   map[string]bool // the types reached
	members map[string]bool // the members reached, as Type.member
	// paths maps the path of each member generated (".update.content",
	// array elements as "[]") to the member, as Type.member.
	paths    map[string]string
	dangling []string // the $refs to no type of the schema
	// probed holds the members, as Type.member, of which instances check
	// how an invalid value or null is read.
	probed map[string]bool
	// nullKept and emptyKept are the members, as Type.member, whose null
	// and [] must come back as they went (see Layer).
	nullKept, emptyKept map[string]bool
	// underAny counts the unions being expanded one of whose alternatives
	// is any value, under which nothing is probed; probedTypes holds the
	// types reached elsewhere, whose lenient members must be probed.
	underAny    int
	probedTypes map[string]bool
	// varied holds the object types whose variants an earlier root's
	// instances checked, and varying those the current root's do: the
	// decoders are the same functions whichever method reaches them, so
	// a later root holds only their largest instance.
	varied, varying map[string]bool
}

func newInstanceGen(defs map[string]jsonNode, nullKept, emptyKept map[string]bool) *instanceGen {
	return &instanceGen{defs: defs, types: map[string]bool{}, members: map[string]bool{}, paths: map[string]string{}, probed: map[string]bool{},
		nullKept: nullKept, emptyKept: emptyKept, probedTypes: map[string]bool{}, varied: map[string]bool{}, varying: map[string]bool{}}
}

// alternatives resolves n, found in type owner, into its shapes. A type
// already being expanded is not expanded again: it yields no shape, and
// the member holding it is left out.
func (g *instanceGen) alternatives(n jsonNode, owner string) []shape {
	if ref, ok := n["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		if slices.Contains(g.stack, name) {
			return nil
		}
		def, ok := g.defs[name]
		if !ok {
			g.dangling = append(g.dangling, name)
			return nil
		}
		g.types[name] = true
		g.stack = append(g.stack, name)
		shapes := g.alternatives(def, name)
		g.stack = g.stack[:len(g.stack)-1]
		for i := range shapes {
			shapes[i].refs = append([]string{name}, shapes[i].refs...)
		}
		return shapes
	}
	base := shape{required: map[string]bool{}, items: nodeOf(n["items"]), addl: n["additionalProperties"], catchAll: n["not"] != nil}
	switch t := n["type"].(type) {
	case string:
		base.types = []string{t}
	case []any:
		for _, v := range t {
			base.types = append(base.types, v.(string))
		}
	}
	if c, ok := n["const"]; ok {
		base.konst, base.hasConst = c, true
	}
	props, _ := n["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		base.props = append(base.props, schemaProp{name, owner, nodeOf(props[name])})
	}
	for _, r := range listOf(n["required"]) {
		base.required[r.(string)] = true
	}
	out := []shape{base}
	if enum := listOf(n["enum"]); enum != nil {
		out = nil
		for _, v := range enum {
			s := base
			s.konst, s.hasConst = v, true
			out = append(out, s)
		}
	}
	for _, sub := range listOf(n["allOf"]) {
		out = crossShapes(out, g.alternatives(nodeOf(sub), owner))
	}
	if alts := append(listOf(n["oneOf"]), listOf(n["anyOf"])...); len(alts) > 0 {
		var union []shape
		for _, alt := range alts {
			union = append(union, crossShapes(out, g.alternatives(nodeOf(alt), owner))...)
		}
		out = union
	}
	return out
}

func nodeOf(v any) jsonNode { n, _ := v.(map[string]any); return n }

func listOf(v any) []any { l, _ := v.([]any); return l }

// crossShapes returns every shape of a merged with every shape of b.
func crossShapes(a, b []shape) []shape {
	var out []shape
	for _, x := range a {
		for _, y := range b {
			if s, ok := mergeShapes(x, y); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// mergeShapes returns the shape that satisfies both x and y, and false when
// their types exclude each other. Of a member both define, the definition
// with a const wins: it is a union's discriminator.
func mergeShapes(x, y shape) (shape, bool) {
	s := x
	switch {
	case x.types == nil:
		s.types = y.types
	case y.types != nil:
		s.types = nil
		for _, t := range x.types {
			if slices.Contains(y.types, t) {
				s.types = append(s.types, t)
			}
		}
		if s.types == nil {
			return shape{}, false
		}
	}
	if y.hasConst {
		s.konst, s.hasConst = y.konst, true
	}
	s.props = slices.Clone(x.props)
	for _, p := range y.props {
		i := slices.IndexFunc(s.props, func(q schemaProp) bool { return q.name == p.name })
		switch {
		case i < 0:
			s.props = append(s.props, p)
		case p.schema["const"] != nil, p.schema["type"] != nil:
			// A union's discriminator, or an alternative's narrower type
			// for a member the object defines (a tag that may not be null
			// there), read as the object says.
			merged := maps.Clone(s.props[i].schema)
			maps.Copy(merged, p.schema)
			s.props[i] = schemaProp{p.name, p.owner, merged}
		}
	}
	slices.SortFunc(s.props, func(a, b schemaProp) int { return strings.Compare(a.name, b.name) })
	s.required = maps.Clone(x.required)
	maps.Copy(s.required, y.required)
	if y.items != nil {
		s.items = y.items
	}
	if y.addl != nil {
		s.addl = y.addl
	}
	s.refs = append(slices.Clone(x.refs), y.refs...)
	s.catchAll = x.catchAll || y.catchAll
	return s, true
}

// values returns the instances of node n, found in type owner, at path.
func (g *instanceGen) values(n jsonNode, owner, path string) []instance {
	shapes := g.alternatives(n, owner)
	// A union one of whose alternatives is any value (an error's data)
	// accepts whatever the others would refuse, and reads nothing of it
	// as a default: its other alternatives give values, not probes.
	anyOf := len(shapes) > 1 && slices.ContainsFunc(shapes, isAny)
	var probed map[string]bool
	if anyOf {
		probed = maps.Clone(g.probed)
		g.underAny++
		defer func() { g.underAny--; g.probed = probed }()
	}
	var out []instance
	for _, s := range shapes {
		for _, v := range g.shapeValues(s, owner, path) {
			if anyOf && (v.probe || v.err != "") {
				continue
			}
			out = append(out, v)
		}
	}
	return out
}

// isAny reports whether s allows any value.
func isAny(s shape) bool {
	return s.types == nil && !s.hasConst && s.props == nil && s.addl == nil && s.items == nil
}

// shapeValues returns the instances of shape s, the largest first: a
// string is "s", an integer 1, a number 0.5, a boolean true then false,
// an array holds one element of each variant of its items then none, and
// an object is as objectValues makes it.
func (g *instanceGen) shapeValues(s shape, owner, path string) []instance {
	depth := len(g.stack)
	g.stack = append(g.stack, s.refs...)
	if g.underAny == 0 {
		for _, r := range s.refs {
			g.probedTypes[r] = true
		}
	}
	defer func() { g.stack = g.stack[:depth] }()
	if len(s.refs) > 0 {
		owner = s.refs[len(s.refs)-1]
	}
	if s.hasConst {
		return []instance{{in: s.konst, want: s.konst}}
	}
	types := s.types
	if types == nil {
		switch {
		case s.props != nil || s.addl != nil:
			types = []string{"object"}
		case s.items != nil:
			types = []string{"array"}
		default:
			types = []string{"any"}
		}
	}
	// The largest values first; null, absence for an optional member,
	// last.
	types = slices.Clone(types)
	slices.SortStableFunc(types, func(a, b string) int {
		return boolCmp(a == "null", b == "null")
	})
	var out []instance
	for _, t := range types {
		switch t {
		case "null":
			out = append(out, instance{label: path + "=null"})
		case "string":
			out = append(out, instance{in: "s", want: "s"})
		case "integer":
			out = append(out, instance{in: 1.0, want: 1.0})
		case "number":
			out = append(out, instance{in: 0.5, want: 0.5})
		case "boolean":
			out = append(out, instance{in: true, want: true}, instance{in: false, want: false, label: path + "=false"})
		case "array":
			// One array holding every valid variant of its items, and an
			// array for each item that must be refused: a valid item and
			// it.
			in, want := []any{}, []any{}
			var bad []instance
			for _, v := range g.values(s.items, owner, path+"[]") {
				if v.err != "" {
					bad = append(bad, v)
					continue
				}
				in, want = append(in, v.in), append(want, v.want)
			}
			out = append(out, instance{in: in, want: want}, instance{in: []any{}, want: []any{}, label: path + "=[]"})
			if len(in) > 0 {
				bad = append(bad, instance{in: invalidValue(g.alternatives(s.items, owner)), err: path + "[]", label: path + "[]=invalid", probe: true})
			}
			for _, b := range bad {
				if len(in) == 0 || b.in == nil && b.err == path+"[]" {
					continue // no valid item to keep, or items of any type
				}
				out = append(out, instance{in: []any{in[0], b.in}, err: b.err, skipped: []any{want[0]}, label: b.label, probe: true})
			}
		case "object":
			out = append(out, g.objectValues(s, path)...)
		case "any":
			v := map[string]any{"k": "s"}
			out = append(out, instance{in: v, want: v})
		}
	}
	return out
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func isEmptyArray(v any) bool {
	a, ok := v.([]any)
	return ok && len(a) == 0
}

// objectValues returns the largest instance of object shape s, then, for
// each member in turn, the instances with that member's other variants,
// and those that check how the member is read: an invalid value, null,
// and an absent required member, refused or read leniently as the
// member's annotations say.
func (g *instanceGen) objectValues(s shape, path string) []instance {
	type member struct {
		prop schemaProp
		vals []instance
	}
	var members []member
	for _, p := range s.props {
		g.members[p.owner+"."+p.name] = true
		g.paths[path+"."+p.name] = p.owner + "." + p.name
		vals := g.values(p.schema, p.owner, path+"."+p.name)
		if len(vals) == 0 || vals[0].err != "" {
			if s.required[p.name] {
				return nil // a required member recursion cut off
			}
			continue
		}
		members = append(members, member{p, vals})
	}
	in, want := map[string]any{}, map[string]any{}
	put := func(in, want map[string]any, p schemaProp, v instance) {
		in[p.name], want[p.name] = v.in, v.want
		if s.catchAll {
			want[p.name] = v.in // a variant kept whole, as received
			return
		}
		def, hasDefault := p.schema["default"]
		key := p.owner + "." + p.name
		switch {
		case s.required[p.name]:
		case v.in == nil && g.nullKept[key] && g.emptyKept[key]:
			want[p.name] = orEmpty{} // null and [] both clear
		case v.in == nil && !g.nullKept[key],
			isEmptyArray(v.in) && !g.emptyKept[key],
			hasDefault && reflect.DeepEqual(v.in, def):
			want[p.name] = orAbsent{v.want}
		}
	}
	for _, m := range members {
		put(in, want, m.prop, m.vals[0])
	}
	switch addl := s.addl.(type) {
	case map[string]any:
		for i, v := range g.values(addl, "", path+".*") {
			if v.err == "" {
				key := fmt.Sprintf("k%d", i)
				in[key], want[key] = v.in, v.want
			}
		}
	case bool:
		if addl && len(s.props) == 0 {
			in["k"], want["k"] = "s", "s"
		}
	}
	out := []instance{{in: in, want: want, label: path}}
	if len(s.refs) > 0 && g.underAny == 0 && !s.catchAll {
		name := s.refs[len(s.refs)-1]
		if g.varied[name] {
			return out
		}
		g.varying[name] = true
	}
	variant := func(p schemaProp, v instance) {
		if v.probe && s.catchAll {
			return // a variant kept whole: its members are not read
		}
		vin, vwant := maps.Clone(in), maps.Clone(want)
		a := annotationsOf(p.schema)
		switch {
		case v.err == "":
			put(vin, vwant, p, v)
		case a.skipItems && v.skipped != nil:
			vin[p.name], vwant[p.name] = v.in, v.skipped // the invalid item is dropped
			v.err, v.label = "", v.label+" (skipped)"
		case a.onError:
			vin[p.name], vwant[p.name] = v.in, defaultOf(p, s.required[p.name]) // read as the default
			v.err, v.label = "", v.label+" (read as the default)"
		default:
			vin[p.name] = v.in
		}
		out = append(out, instance{in: vin, want: vwant, label: v.label, err: v.err, probe: v.probe})
	}
	for _, m := range members {
		for i, v := range m.vals[1:] {
			if v.label == "" {
				v.label = fmt.Sprintf("%s.%s#%d", path, m.prop.name, i+1)
			}
			variant(m.prop, v)
		}
		p := m.prop
		if p.schema["const"] != nil {
			continue // a union's discriminator: another value is another variant
		}
		mpath := path + "." + p.name
		if s.catchAll {
			continue
		}
		if bad := invalidValue(g.alternatives(p.schema, p.owner)); bad != nil {
			variant(p, instance{in: bad, err: mpath, label: mpath + "=invalid", probe: true})
			g.probed[p.owner+"."+p.name] = true
		}
		a := annotationsOf(p.schema)
		if a.onNull && !allowsNull(g.alternatives(p.schema, p.owner)) {
			g.probed[p.owner+"."+p.name] = true
			vin, vwant := maps.Clone(in), maps.Clone(want)
			vin[p.name], vwant[p.name] = nil, defaultOf(p, s.required[p.name])
			out = append(out, instance{in: vin, want: vwant, label: mpath + "=null (read as the default)", probe: true})
		}
		if s.required[p.name] {
			vin := maps.Clone(in)
			delete(vin, p.name)
			out = append(out, instance{in: vin, err: mpath, label: mpath + " absent", probe: true})
		}
	}
	return out
}

// annotations are a member's x-deserialize annotations.
type annotations struct{ onError, onNull, skipItems bool }

func annotationsOf(n jsonNode) annotations {
	return annotations{n["x-deserialize-default-on-error"] == true, n["x-deserialize-default-on-null"] == true, n["x-deserialize-skip-invalid-items"] == true}
}

// allowsNull reports whether null is a value of one of shapes.
func allowsNull(shapes []shape) bool {
	for _, s := range shapes {
		if s.types == nil || slices.Contains(s.types, "null") {
			return true
		}
	}
	return false
}

// invalidValue returns a value of none of the JSON types shapes allow,
// or nil when they allow any. An enum's values are strings, and any
// string is read, as an unknown value is kept: a number is invalid.
func invalidValue(shapes []shape) any {
	allowed := map[string]bool{}
	for _, s := range shapes {
		if s.types == nil && !s.hasConst && s.props == nil && s.addl == nil && s.items == nil {
			return nil // any
		}
		types := s.types
		switch {
		case types != nil:
		case s.hasConst:
			types = []string{jsonType(s.konst)}
		case s.props != nil || s.addl != nil:
			types = []string{"object"}
		case s.items != nil:
			types = []string{"array"}
		}
		for _, t := range types {
			allowed[t] = true
		}
	}
	switch {
	case !allowed["integer"] && !allowed["number"]:
		return 42.0
	case !allowed["string"]:
		return "s"
	}
	return nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "object"
}

// orDefault stands in a want for a member read as its default: absent, or
// the schema's default (with members at false or empty perhaps left out).
type orDefault struct{ Value any }

// defaultOf returns what a member read as its default comes back as.
func defaultOf(p schemaProp, required bool) any {
	if def, ok := p.schema["default"]; ok {
		return orDefault{def}
	}
	if required {
		return []any{} // the required members read leniently are arrays, sent as [] when empty
	}
	return orDefault{nil}
}

// matchesDefault reports whether got is def, but for members of def at
// false or empty that got leaves out.
func matchesDefault(got, def any) bool {
	d, ok := def.(map[string]any)
	if !ok {
		return reflect.DeepEqual(got, def)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, gv := range gm {
		if !matchesDefault(gv, d[k]) {
			return false
		}
	}
	for k, dv := range d {
		if _, ok := gm[k]; !ok && !isZeroJSON(dv) {
			return false
		}
	}
	return true
}

func isZeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, x := range v {
			if !isZeroJSON(x) {
				return false
			}
		}
		return true
	}
	return false
}

// schemaRoot is a params, result or notification type of the schema.
type schemaRoot struct {
	def, method string
	result      bool
}

// key returns the key of the root's method in Codecs.
func (r schemaRoot) key() string {
	if strings.HasSuffix(r.def, "Notification") {
		return r.method + " notification"
	}
	return r.method
}

// schemaRoots returns the types of defs that are a method's params or
// result, sorted by name.
func schemaRoots(defs map[string]jsonNode) []schemaRoot {
	var out []schemaRoot
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		if m, ok := defs[name]["x-method"].(string); ok {
			out = append(out, schemaRoot{name, m, strings.HasSuffix(name, "Response")})
		}
	}
	return out
}

func (r schemaRoot) ref() jsonNode { return jsonNode{"$ref": "#/$defs/" + r.def} }

// roundTripDiff is a member that did not come back: its path, as
// diffPaths gives it, and a message describing the first instance that
// showed it.
type roundTripDiff struct{ path, msg string }

// roundTripDiffs decodes each instance of root with decode and compares
// what its encodings give back with the instance's want. It returns each
// differing member once, and each decoding error once as a member "".
func (l Layer) roundTripDiffs(root schemaRoot, decode func([]byte) ([][]byte, error), vals []instance) []roundTripDiff {
	var out []roundTripDiff
	seen := map[string]bool{}
	for _, v := range vals {
		raw, err := json.Marshal(v.in)
		if err != nil {
			panic(err) // maps of JSON values always marshal
		}
		encs, err := decode(raw)
		if v.err != "" {
			if msg := l.refusal(err, root.def, v.err); msg != "" {
				out = append(out, roundTripDiff{"", fmt.Sprintf("%s %s: decoding %s: %s", root.def, v.label, raw, msg)})
			}
			continue
		}
		if err != nil {
			if key := "error " + err.Error(); !seen[key] {
				seen[key] = true
				out = append(out, roundTripDiff{"", fmt.Sprintf("%s %s: decoding %s: %v", root.def, v.label, raw, err)})
			}
			continue
		}
		for i, enc := range encs {
			var got any
			if err := json.Unmarshal(enc, &got); err != nil {
				out = append(out, roundTripDiff{"", fmt.Sprintf("%s %s: encoding %d is not JSON: %s", root.def, v.label, i, enc)})
				continue
			}
			got = matchAbsent(v.want, got)
			if reflect.DeepEqual(v.want, got) { // cmp.Diff is slow on equal values
				continue
			}
			diff := cmp.Diff(v.want, got)
			for _, p := range diffPaths(v.want, got, "") {
				path := p[1:] // without its -, + or ~
				if seen[path] {
					continue
				}
				seen[path] = true
				out = append(out, roundTripDiff{path, fmt.Sprintf("%s %s: %s does not round-trip (encoding %d; - lost, + added, ~ changed)\nsent: %s\n(-want +got):\n%s",
					root.def, v.label, p, i, raw, diff)})
			}
		}
	}
	return out
}

// refusal checks err, the decoding error of an instance the decoder must
// refuse naming the member at path (".prompt[].text"), and returns what is
// wrong, or "". A decoder that cannot tell which member of an object is
// missing (one of text and blob, say) may name another member of the same
// object.
func (l Layer) refusal(err error, def, path string) string {
	if err == nil {
		return "decoded, want it refused naming " + path
	}
	field, ok := l.InvalidField(err)
	if !ok {
		return fmt.Sprintf("%v, which names no member; want %s", err, path)
	}
	paths := []string{path}
	if other, ok := l.AlternativeKeys[def+" "+path]; ok {
		paths = append(paths, other)
	}
	for _, p := range paths {
		p = strings.TrimPrefix(p, ".")
		exact := regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(p), `\[\]`, `\[\d+\]`) + `$`)
		parent, _ := splitLast(p)
		sibling := regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(parent), `\[\]`, `\[\d+\]`) + `\.[^.\[]+$`)
		if exact.MatchString(field) || parent != "" && sibling.MatchString(field) {
			return ""
		}
	}
	return fmt.Sprintf("refused naming %q, want %s", field, path)
}

// splitLast splits a member path at its last member name: "a.b[].c" is
// "a.b[]" and "c".
func splitLast(path string) (parent, name string) {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}

// diffPaths returns the paths at which want and got differ, with array
// indices left out so that one difference is reported once.
func diffPaths(want, got any, path string) []string {
	w, wok := want.(map[string]any)
	g, gok := got.(map[string]any)
	if wok && gok {
		keys := maps.Clone(w)
		maps.Copy(keys, g)
		var out []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			wv, win := w[k]
			gv, gin := g[k]
			switch {
			case !gin:
				out = append(out, "-"+path+"."+k)
			case !win:
				out = append(out, "+"+path+"."+k)
			default:
				out = append(out, diffPaths(wv, gv, path+"."+k)...)
			}
		}
		return out
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		var out []string
		for i := range wl {
			out = append(out, diffPaths(wl[i], gl[i], path+"[]")...)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	if cmp.Equal(want, got) {
		return nil
	}
	return []string{"~" + path}
}
