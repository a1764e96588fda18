package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// node is a JSON Schema node. Its keywords keep the schema's order, which
// is the order of an object's members on the wire.
type node struct {
	keys []string
	vals map[string]any // string, float64, bool, nil, []any, *node
}

func (n *node) get(key string) any {
	if n == nil {
		return nil
	}
	return n.vals[key]
}

func (n *node) str(key string) string { s, _ := n.get(key).(string); return s }

func (n *node) has(key string) bool {
	if n == nil {
		return false
	}
	_, ok := n.vals[key]
	return ok
}

func (n *node) obj(key string) *node { o, _ := n.get(key).(*node); return o }

func (n *node) list(key string) []any { l, _ := n.get(key).([]any); return l }

// nodes returns the nodes of a list keyword (anyOf, oneOf, allOf).
func (n *node) nodes(key string) []*node {
	var out []*node
	for _, v := range n.list(key) {
		if o, ok := v.(*node); ok {
			out = append(out, o)
		}
	}
	return out
}

// strs returns the strings of a list keyword (required).
func (n *node) strs(key string) []string {
	var out []string
	for _, v := range n.list(key) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// types returns the node's type keyword as a list.
func (n *node) types() []string {
	switch t := n.get("type").(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			out = append(out, v.(string))
		}
		return out
	}
	return nil
}

// flag reports whether the boolean keyword key is true.
func (n *node) flag(key string) bool { b, _ := n.get(key).(bool); return b }

// parseNode reads one JSON value, keeping the order of objects' members.
func parseNode(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{vals: map[string]any{}}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key := k.(string)
				v, err := parseNode(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := n.vals[key]; !dup {
					n.keys = append(n.keys, key)
				}
				n.vals[key] = v
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			var l []any
			for dec.More() {
				v, err := parseNode(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token() // ']'
			return l, err
		}
	}
	return tok, nil
}

// schemaFile is one edition of the schema: its types by name, in the
// file's order.
type schemaFile struct {
	names []string
	defs  map[string]*node
}

func loadSchema(path string) (*schemaFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseNode(dec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: data after the schema", path)
	}
	root, ok := v.(*node)
	if !ok || root.obj("$defs") == nil {
		return nil, fmt.Errorf("%s: no $defs", path)
	}
	defs := root.obj("$defs")
	s := &schemaFile{names: defs.keys, defs: map[string]*node{}}
	for _, k := range defs.keys {
		d, ok := defs.vals[k].(*node)
		if !ok {
			return nil, fmt.Errorf("%s: $defs.%s is not an object", path, k)
		}
		s.defs[k] = d
	}
	return s, nil
}

// methodTables is one edition's meta file: the methods each side serves,
// by the SDK's name for them.
type methodTables struct {
	Version         int               `json:"version"`
	AgentMethods    map[string]string `json:"agentMethods"`
	ClientMethods   map[string]string `json:"clientMethods"`
	ProtocolMethods map[string]string `json:"protocolMethods"`
}

// methods returns the set of method names the tables hold.
func (t *methodTables) methods() map[string]bool {
	out := map[string]bool{}
	for _, m := range []map[string]string{t.AgentMethods, t.ClientMethods, t.ProtocolMethods} {
		for _, name := range m {
			out[name] = true
		}
	}
	return out
}

func loadMeta(path string) (*methodTables, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t methodTables
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// editions are the schema's two editions, as the SDK ships them: the
// stable part, and stable plus unstable.
type editions struct {
	stable, all         *schemaFile
	stableMeta, allMeta *methodTables
}

func loadEditions(dir string) (*editions, error) {
	var e editions
	var err error
	if e.stable, err = loadSchema(filepath.Join(dir, "schema.json")); err != nil {
		return nil, err
	}
	if e.all, err = loadSchema(filepath.Join(dir, "schema.unstable.json")); err != nil {
		return nil, err
	}
	if e.stableMeta, err = loadMeta(filepath.Join(dir, "meta.json")); err != nil {
		return nil, err
	}
	if e.allMeta, err = loadMeta(filepath.Join(dir, "meta.unstable.json")); err != nil {
		return nil, err
	}
	return &e, nil
}

// refName returns the type a $ref names.
func refName(ref string) string { return strings.TrimPrefix(ref, "#/$defs/") }
