package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// table is the naming table: the Go names of the schema's types and
// members where the schema's own do not fit, and the shape of the types
// the generator cannot shape by itself. Each line is a directive; words
// are separated by white space; "#" starts a comment, which for a
// directive is its reason.
//
//	name      Schema Go                    the Go name of a schema type
//	member    Schema.member Go             the Go name of a member (Schema/tag.member for a union's alternative written inline)
//	enum      Schema Prefix                the prefix of an enum's constants
//	const     Schema value Go              the name of one constant
//	union     Schema Unknown Field         an interface union: the type of its unknown variants and their tag's field
//	variant   Schema tag Go                a variant with a Go type of its own (variants sharing a schema type, a variant that is a union)
//	list      Schema Go                    the named slice type of a union's arrays
//	flatten   Schema [TagType]             a union read into one struct, its tag a TagType (default string)
//	fold      Schema                       a union of one variant, read as that variant
//	custom    Schema Go object|value       a type written by hand beside the generated code, or package acp's (acp.Name), which acp registers
//	raw       Schema                       a value kept as raw JSON
//	skip      Schema                       no Go type (the JSON-RPC envelopes, read by Classify)
//	ptr       Schema.member                an optional string kept behind a pointer: absent and "" differ
//	clearable Schema.member                null clears the value: nil is absent; a pointer to the zero value, an empty slice or raw null is null
//	keepempty Schema.member                an optional array sent when non-nil, even empty
//	method    wire request|notification Go the Go name of a method value
//	doc       Schema text…                 the first sentence of a type's doc comment
type table struct {
	names     map[string]string
	members   map[string]string // "Type.member" → Go field
	prefixes  map[string]string
	consts    map[string]string // "Type value" → Go constant
	unions    map[string][2]string
	variants  map[string]string // "Type tag" → Go type
	lists     map[string]string
	flatten   map[string]string // → tag type ("" for string)
	fold      map[string]bool
	custom    map[string][2]string // → Go name, object|value
	raw       map[string]bool
	skip      map[string]bool
	ptr       map[string]bool
	clearable map[string]bool
	keepEmpty map[string]bool
	methods   map[string]string // "wire kind" → Go name
	docs      map[string]string
	reasons   map[string]string // "directive Type" → the line's comment
	used      map[string]bool   // the directives the generator consulted, by "directive key"
}

func loadTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &table{
		names: map[string]string{}, members: map[string]string{}, prefixes: map[string]string{},
		consts: map[string]string{}, unions: map[string][2]string{}, variants: map[string]string{},
		lists: map[string]string{}, flatten: map[string]string{}, fold: map[string]bool{},
		custom: map[string][2]string{}, raw: map[string]bool{}, skip: map[string]bool{},
		ptr: map[string]bool{}, clearable: map[string]bool{}, keepEmpty: map[string]bool{},
		methods: map[string]string{}, docs: map[string]string{}, reasons: map[string]string{},
		used: map[string]bool{},
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, reason, _ := strings.Cut(sc.Text(), "#")
		w := strings.Fields(line)
		if len(w) == 0 {
			continue
		}
		if err := t.add(w, strings.TrimSpace(reason)); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return t, sc.Err()
}

// arity is the number of words each directive takes after its own.
var arity = map[string][2]int{ // min, max
	"name": {2, 2}, "member": {2, 2}, "enum": {2, 2}, "const": {3, 3}, "union": {3, 3},
	"variant": {3, 3}, "list": {2, 2}, "flatten": {1, 2}, "fold": {1, 1}, "custom": {3, 3},
	"raw": {1, 1}, "skip": {1, 1}, "ptr": {1, 1}, "clearable": {1, 1}, "keepempty": {1, 1},
	"method": {3, 3}, "doc": {2, 1 << 10},
}

func (t *table) add(w []string, reason string) error {
	d, args := w[0], w[1:]
	a, ok := arity[d]
	if !ok {
		return fmt.Errorf("unknown directive %q", d)
	}
	if len(args) < a[0] || len(args) > a[1] {
		return fmt.Errorf("%s takes %d to %d words, not %d", d, a[0], a[1], len(args))
	}
	key := d + " " + args[0]
	switch d {
	case "name":
		t.names[args[0]] = args[1]
	case "member":
		t.members[args[0]] = args[1]
	case "enum":
		t.prefixes[args[0]] = args[1]
	case "const":
		key = d + " " + args[0] + " " + args[1]
		t.consts[args[0]+" "+args[1]] = args[2]
	case "union":
		t.unions[args[0]] = [2]string{args[1], args[2]}
	case "variant":
		key = d + " " + args[0] + " " + args[1]
		t.variants[args[0]+" "+args[1]] = args[2]
	case "list":
		t.lists[args[0]] = args[1]
	case "flatten":
		t.flatten[args[0]] = ""
		if len(args) == 2 {
			t.flatten[args[0]] = args[1]
		}
	case "fold":
		t.fold[args[0]] = true
	case "custom":
		if args[2] != "object" && args[2] != "value" {
			return fmt.Errorf("custom %s: %q is neither object nor value", args[0], args[2])
		}
		t.custom[args[0]] = [2]string{args[1], args[2]}
	case "raw":
		t.raw[args[0]] = true
	case "skip":
		t.skip[args[0]] = true
	case "ptr":
		t.ptr[args[0]] = true
	case "clearable":
		t.clearable[args[0]] = true
	case "keepempty":
		t.keepEmpty[args[0]] = true
	case "method":
		if args[1] != "request" && args[1] != "notification" {
			return fmt.Errorf("method %s: %q is neither request nor notification", args[0], args[1])
		}
		key = d + " " + args[0] + " " + args[1]
		t.methods[args[0]+" "+args[1]] = args[2]
	case "doc":
		t.docs[args[0]] = strings.Join(args[1:], " ")
	}
	if _, dup := t.reasons[key]; dup {
		return fmt.Errorf("%s is given twice", key)
	}
	t.reasons[key] = reason
	return nil
}

// use marks the directive key as consulted, and reports whether the
// table has it.
func (t *table) use(key string, ok bool) bool {
	if ok {
		t.used[key] = true
	}
	return ok
}

// unused returns the directives the generator never consulted: a
// directive about a type or member the schema no longer has.
func (t *table) unused() []string {
	var out []string
	for key := range t.reasons {
		if !t.used[key] {
			out = append(out, key)
		}
	}
	return out
}
