package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/wire"
)

// This file holds the machinery shared by the typed decoders (params,
// content blocks, session updates): a JSON object read once into a list of
// raw members, then read field by field so that every error names the
// member it is about.
//
// The root object's list is filled in one pass of jsonscan, which
// validates the whole value (JSON, UTF-8, depth) as it goes; the objects
// nested in it are then listed with jsonscan.Skip, which only finds where
// each member ends, so that every byte is validated once however deep it
// sits. The members alias the object's bytes, so whatever a decoder keeps
// is copied. A duplicated member resolves the way encoding/json resolves
// it everywhere else: the last occurrence wins. A member whose value is
// null is treated as absent, as the ACP schema does for every optional
// member.

// fieldError is a decoding failure about one member, named by its path from
// the decoded value's root ("cwd", "mcpServers[1].name", "prompt[0].text").
type fieldError struct {
	path   string
	reason string // "is required", "must be a string", …
}

func (e *fieldError) Error() string { return fmt.Sprintf("%q %s", e.path, e.reason) }

// invalidParams converts a decoding failure into the -32602 error replied to
// the peer. Its message reads `invalid params: "cwd" is required` and its
// data is {"field":"cwd"}, so a program can tell which member was wrong.
func invalidParams(err error) *Error {
	fe, ok := err.(*fieldError)
	if !ok {
		return &Error{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	data, _ := json.Marshal(struct {
		Field string `json:"field"`
	}{fe.path}) // a struct of one string always marshals
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + fe.Error(), Data: data}
}

// fields reads the members of one JSON object. The first failure is kept in
// err and every later read is a no-op, so a decoder is a flat list of reads
// followed by one check.
type fields struct {
	m    []member // in order; of a repeated name the last counts
	src  []byte   // the object as read, aliasing the caller's bytes
	path string   // prefix for member paths; "" at the root
	err  error
	buf  [4]member // m's first array: one allocation for the reader and its members
}

// readFields reads raw, bytes from outside the package such as a peer's
// params, as an object: it validates them whole (JSON, UTF-8, depth) in
// the pass that finds the members. Absent (empty) or null raw is an empty
// object, so a method whose params are omitted fails on its first required
// member rather than on the envelope. path names raw in errors ("" =
// root).
func readFields(raw []byte, path string) *fields { return newFields(raw, path, true) }

// readValid is readFields for bytes validated already: a member of an
// object read with readFields or readValid (what f.get returns), or an
// element of an array member. It finds the members without validating
// them again, so that a long string nested n levels deep is checked once,
// not n times. Every reader below the root uses it.
func readValid(raw []byte, path string) *fields { return newFields(raw, path, false) }

func newFields(raw []byte, path string, validate bool) *fields {
	f := &fields{path: path}
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return f
	}
	f.src = raw
	if f.m = scanObject(f.buf[:0], raw, validate); f.m == nil {
		name := path
		if name == "" && validate {
			name = "params" // the root; a nested value's readers use "" as a relative path
		}
		if !utf8.Valid(raw) {
			// encoding/json would let invalid UTF-8 through in raw
			// members, and a value rebuilt from them would be a line no
			// peer accepts.
			f.err = &fieldError{name, "must be valid UTF-8"}
		} else {
			f.err = &fieldError{name, "must be an object"}
		}
	}
	return f
}

// member is one member of an object: its unescaped name and its raw value,
// both slices of the object's bytes unless the name held an escape.
type member struct {
	name []byte
	val  json.RawMessage
}

// scanObject appends the members of the JSON object raw (white space
// trimmed) to m, or returns nil when raw is not a valid object; validate
// says whether raw still needs validating. An ACP object has a handful of
// members, so a slice searched from the end (where the last of a repeated
// name is) beats a map.
func scanObject(m []member, raw []byte, validate bool) []member {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	i := jsonscan.SkipSpace(raw, 1)
	if i < len(raw) && raw[i] == '}' {
		return objectEnd(raw, i, m)
	}
	for {
		var key, val []byte
		var escaped bool
		var next int
		if validate {
			key, escaped, val, next = jsonscan.Member(raw, i, jsonscan.MaxDepth-1)
		} else {
			key, escaped, val, next = skipMember(raw, i)
		}
		if next < 0 {
			return nil
		}
		if escaped {
			key = []byte(wire.Unescape(key))
		}
		m = append(m, member{key, val})
		if raw[next] == '}' {
			return objectEnd(raw, next, m)
		}
		i = jsonscan.SkipSpace(raw, next+1)
	}
}

// skipMember is [jsonscan.Member] for an object validated already.
func skipMember(b []byte, i int) (key []byte, escaped bool, val []byte, next int) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, nil, -1
	}
	end := jsonscan.Skip(b, i)
	if end < 0 {
		return nil, false, nil, -1
	}
	key = b[i+1 : end-1]
	i = jsonscan.SkipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, false, nil, -1
	}
	i = jsonscan.SkipSpace(b, i+1)
	if end = jsonscan.Skip(b, i); end < 0 {
		return nil, false, nil, -1
	}
	val = b[i:end]
	if i = jsonscan.SkipSpace(b, end); i >= len(b) || (b[i] != ',' && b[i] != '}') {
		return nil, false, nil, -1
	}
	return key, bytes.IndexByte(key, '\\') >= 0, val, i
}

// objectEnd returns m when the '}' at raw[i] ends raw, and nil otherwise.
func objectEnd(raw []byte, i int, m []member) []member {
	if jsonscan.SkipSpace(raw, i+1) != len(raw) {
		return nil
	}
	return m
}

// readObject is readFields for a value the schema requires to be an object,
// such as an array element or a content block: null there is an error
// naming path, not an empty object.
func readObject(raw []byte, path string) *fields {
	return objectFields(raw, path, true)
}

// readValidObject is readObject for bytes validated already, as readValid
// is readFields.
func readValidObject(raw []byte, path string) *fields {
	return objectFields(raw, path, false)
}

func objectFields(raw []byte, path string, validate bool) *fields {
	if isNull(raw) {
		return &fields{path: path, err: &fieldError{path, "must be an object"}}
	}
	return newFields(raw, path, validate)
}

// isNull reports whether raw, white space aside, is the JSON null.
func isNull(raw []byte) bool { return string(trimSpace(raw)) == "null" }

// trimSpace returns raw without the JSON white space around it: only
// space, tab, CR and LF, which bytes.TrimSpace would go beyond (a vertical
// tab before an object is not JSON).
func trimSpace(raw []byte) []byte {
	raw = raw[jsonscan.SkipSpace(raw, 0):]
	for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	return raw
}

// sub returns the path of member key.
func (f *fields) sub(key string) string {
	if f.path == "" {
		return key
	}
	return f.path + "." + key
}

// lookup returns the member's raw value and whether it is present (null
// included).
func (f *fields) lookup(key string) (json.RawMessage, bool) {
	for i := len(f.m) - 1; i >= 0; i-- {
		if string(f.m[i].name) == key {
			return f.m[i].val, true
		}
	}
	return nil, false
}

// get returns the member's raw value, or nil when absent or null.
func (f *fields) get(key string) json.RawMessage {
	v, _ := f.lookup(key)
	if string(v) == "null" {
		return nil
	}
	return v
}

func (f *fields) fail(key, reason string) {
	if f.err == nil {
		f.err = &fieldError{f.sub(key), reason}
	}
}

// failWith records err (from a nested decoder) unless an error is already
// recorded.
func (f *fields) failWith(err error) {
	if f.err == nil && err != nil {
		f.err = err
	}
}

// has reports whether the member is present and not null.
func (f *fields) has(key string) bool { return f.get(key) != nil }

// member returns the raw value of key for a read: nil when an error is
// already recorded or the member is absent or null, in which case a
// required member records "is required".
func (f *fields) member(key string, required bool) json.RawMessage {
	if f.err != nil {
		return nil
	}
	v := f.get(key)
	if v == nil && required {
		f.fail(key, "is required")
	}
	return v
}

// require records "is required" when the member is absent or null.
func (f *fields) require(key string) bool { return f.member(key, true) != nil }

// str reads a string member; required makes absence an error.
func (f *fields) str(key string, dst *string, required bool) {
	v := f.member(key, required)
	if v == nil {
		return
	}
	switch {
	case v[0] != '"':
		f.fail(key, "must be a string")
	case bytes.IndexByte(v, '\\') < 0: // validated: no escape, no control character
		*dst = string(v[1 : len(v)-1])
	default:
		*dst = wire.Unescape(v[1 : len(v)-1])
	}
}

// tag reads a required discriminator ("type", "sessionUpdate") as str
// does, but without allocating when it is one the package knows.
func (f *fields) tag(key string, dst *string) {
	v := f.member(key, true)
	if v == nil {
		return
	}
	if t, ok := knownTags[string(v)]; ok {
		*dst = t
		return
	}
	f.str(key, dst, true)
}

// knownTags maps the discriminators of the package's variants, quoted, to
// themselves.
var knownTags = func() map[string]string {
	m := map[string]string{}
	for _, c := range []ContentBlock{TextContent{}, ImageContent{}, AudioContent{}, ResourceLink{}, EmbeddedResource{}} {
		m[`"`+c.contentType()+`"`] = c.contentType()
	}
	for _, u := range []Update{UserMessageChunk{}, AgentMessageChunk{}, AgentThoughtChunk{}, ToolCall{}, ToolCallUpdate{},
		Plan{}, AvailableCommandsUpdate{}, CurrentModeUpdate{}, ConfigOptionUpdate{}, SessionInfoUpdate{}, UsageUpdate{}, Notice{},
		PlanUpdate{}, PlanRemoved{}, CompactionUpdate{}, CompactionSummaryChunk{}} {
		m[`"`+u.updateKind()+`"`] = u.updateKind()
	}
	return m
}()

// boolean reads a true or false member; required makes absence an error.
func (f *fields) boolean(key string, dst *bool, required bool) {
	switch v := f.member(key, required); string(v) {
	case "":
	case "true", "false":
		*dst = string(v) == "true"
	default:
		f.fail(key, "must be true or false")
	}
}

// optStr reads an optional string member into a pointer, so that absent
// (nil) and "" stay distinct.
func (f *fields) optStr(key string, dst **string) {
	if f.err != nil || !f.has(key) {
		return
	}
	var s string
	f.str(key, &s, true)
	if f.err == nil {
		*dst = &s
	}
}

// id reads a JSON-RPC id member: a string, a number or null. A null id is
// present (a request may carry one), so unlike other members null is not
// read as absent; required makes absence an error.
func (f *fields) id(key string, dst *ID, required bool) {
	if f.err != nil {
		return
	}
	raw, ok := f.lookup(key)
	if !ok {
		if required {
			f.fail(key, "is required")
		}
		return
	}
	id, err := ParseID(raw)
	if err != nil {
		f.fail(key, "must be a string, a number or null")
		return
	}
	*dst = id
}

// uint reads a non-negative integer member.
func (f *fields) uint(key string, dst *uint64, required bool) {
	v := f.member(key, required)
	if v == nil {
		return
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		f.fail(key, "must be a non-negative integer")
		return
	}
	*dst = n
}

// optUint reads an optional non-negative integer into a pointer, so that
// absent (nil) and 0 stay distinct.
func (f *fields) optUint(key string, dst **uint64) {
	if f.err != nil || !f.has(key) {
		return
	}
	var n uint64
	f.uint(key, &n, true)
	if f.err == nil {
		*dst = &n
	}
}

// strings reads an optional array of strings.
func (f *fields) strings(key string, dst *[]string) {
	if f.err != nil || !f.has(key) {
		return
	}
	v := f.get(key)
	if v[0] != '[' || json.Unmarshal(v, dst) != nil {
		f.fail(key, "must be an array of strings")
	}
}

// raw keeps a member's JSON as sent (nil when absent or null). The bytes are
// a copy owned by dst.
func (f *fields) raw(key string, dst *json.RawMessage) {
	if f.err != nil {
		return
	}
	if v := f.get(key); v != nil {
		*dst = bytes.Clone(v)
	}
}

// meta keeps the _meta member, which must be an object when present.
func (f *fields) meta(dst *json.RawMessage) {
	if f.err != nil {
		return
	}
	if v := f.get("_meta"); v != nil {
		if v[0] != '{' {
			f.fail("_meta", "must be an object")
			return
		}
		*dst = bytes.Clone(v)
	}
}

// value decodes a member with encoding/json into dst, for nested values the
// package does not validate member by member (capabilities, annotations).
func (f *fields) value(key string, dst any, required bool) {
	v := f.member(key, required)
	if v == nil {
		return
	}
	if json.Unmarshal(v, dst) != nil {
		f.fail(key, "is malformed")
	}
}

// object decodes a member that is an object with its own field decoder.
func (f *fields) object(key string, required bool, decode func(*fields)) {
	v := f.member(key, required)
	if v == nil {
		return
	}
	sub := readValid(v, f.sub(key))
	if sub.err == nil {
		decode(sub)
	}
	f.failWith(sub.err)
}

// array walks a member that is an array, handing each element's raw JSON and
// path to elem. It reports whether the member was present (an empty array
// is present).
func (f *fields) array(key string, required bool, elem func(raw json.RawMessage, path string) error) bool {
	v := f.member(key, required)
	if v == nil {
		return false
	}
	items := scanArray(v, false)
	if items == nil {
		f.fail(key, "must be an array")
		return false
	}
	path := f.sub(key)
	for i, item := range items {
		if err := elem(item, indexPath(path, i)); err != nil {
			f.failWith(err)
			return false
		}
	}
	return true
}

// indexPath returns the path of element i of the array at path.
func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// scanArray returns the elements of the JSON array raw (white space
// trimmed), slices of raw, or nil when raw is not a valid array; validate
// says whether raw still needs validating. An empty array gives an empty,
// non-nil slice.
func scanArray(raw []byte, validate bool) []json.RawMessage {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	items := make([]json.RawMessage, 0, 4)
	i := jsonscan.SkipSpace(raw, 1)
	if i < len(raw) && raw[i] == ']' {
		if jsonscan.SkipSpace(raw, i+1) != len(raw) {
			return nil
		}
		return items
	}
	for {
		var val []byte
		var next int
		if validate {
			val, next = jsonscan.Element(raw, i, jsonscan.MaxDepth-1)
		} else if end := jsonscan.Skip(raw, i); end >= 0 {
			val = raw[i:end]
			if next = jsonscan.SkipSpace(raw, end); next >= len(raw) || (raw[next] != ',' && raw[next] != ']') {
				next = -1
			}
		} else {
			next = -1
		}
		if next < 0 {
			return nil
		}
		items = append(items, val)
		if raw[next] == ']' {
			if jsonscan.SkipSpace(raw, next+1) != len(raw) {
				return nil
			}
			return items
		}
		i = jsonscan.SkipSpace(raw, next+1)
	}
}

// objects decodes an array member whose elements are objects read with
// decode, appending each to *dst. A present empty array yields a non-nil
// empty slice, so absent and [] stay distinct where the schema cares.
func objects[T any](f *fields, key string, dst *[]T, required bool, decode func(*fields, *T)) {
	out := []T{}
	if f.array(key, required, func(raw json.RawMessage, path string) error {
		var v T
		sub := readValidObject(raw, path)
		if sub.err == nil {
			decode(sub, &v)
		}
		out = append(out, v)
		return sub.err
	}) {
		*dst = out
	}
}
