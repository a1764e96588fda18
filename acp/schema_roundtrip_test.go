package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The schema round-trip test builds, from the vendored schema itself, the
// largest instances of every params, result and notification type the
// package decodes (every optional member present, each union variant and
// enum value in turn, _meta included; then each member null, false or []
// in turn where the schema allows it), decodes each the way a user does
// (DecodeParams, DecodeResult) and encodes the typed value back (with
// encoding/json and with the package's envelope encoders), and fails when
// a member the schema defines does not come back as it went in.
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

// codec decodes a method's params or result into its Go type and encodes
// the typed value back: with encoding/json, and within the line the
// package's envelope encoder writes.
type codec struct {
	params func(raw []byte) (encodings [][]byte, err error)
	result func(raw []byte) (encodings [][]byte, err error) // nil for a notification
}

func methodCodec[P, R any](m Method[P, R]) codec {
	return codec{
		params: func(raw []byte) ([][]byte, error) {
			p, err := DecodeParams[P](raw)
			if err != nil {
				return nil, err
			}
			return encodings(p, "params", func() ([]byte, error) { return MarshalRequest(IntID(1), m.Name, p) })
		},
		result: func(raw []byte) ([][]byte, error) {
			r, err := DecodeResult[R](raw)
			if err != nil {
				return nil, err
			}
			return encodings(r, "result", func() ([]byte, error) { return MarshalResponse(IntID(1), r) })
		},
	}
}

func notificationCodec[P any](n Notification[P]) codec {
	return codec{params: func(raw []byte) ([][]byte, error) {
		p, err := DecodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return encodings(p, "params", func() ([]byte, error) { return MarshalNotification(n.Name, p) })
	}}
}

// encodings returns v encoded with encoding/json and, when it differs, the
// member of the line marshalLine returns.
func encodings(v any, member string, marshalLine func() ([]byte, error)) ([][]byte, error) {
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

// codecs maps each method of the package to its codec: the table from the
// schema's x-method names to the Go types. A notification is keyed by its
// name and " notification", since mcp/message is both.
var codecs = map[string]codec{
	Initialize.Name:                                   methodCodec(Initialize),
	Authenticate.Name:                                 methodCodec(Authenticate),
	Logout.Name:                                       methodCodec(Logout),
	AuthStatus.Name:                                   methodCodec(AuthStatus),
	ProvidersList.Name:                                methodCodec(ProvidersList),
	ProvidersSet.Name:                                 methodCodec(ProvidersSet),
	ProvidersDisable.Name:                             methodCodec(ProvidersDisable),
	SessionNew.Name:                                   methodCodec(SessionNew),
	SessionLoad.Name:                                  methodCodec(SessionLoad),
	SessionResume.Name:                                methodCodec(SessionResume),
	SessionList.Name:                                  methodCodec(SessionList),
	SessionDelete.Name:                                methodCodec(SessionDelete),
	SessionClose.Name:                                 methodCodec(SessionClose),
	SessionArchive.Name:                               methodCodec(SessionArchive),
	SessionUnarchive.Name:                             methodCodec(SessionUnarchive),
	SessionStatus.Name:                                methodCodec(SessionStatus),
	SessionSetTitle.Name:                              methodCodec(SessionSetTitle),
	SessionSetMode.Name:                               methodCodec(SessionSetMode),
	SessionSetConfigOption.Name:                       methodCodec(SessionSetConfigOption),
	SessionPrompt.Name:                                methodCodec(SessionPrompt),
	SessionCancel.Name + " notification":              notificationCodec(SessionCancel),
	SessionFork.Name:                                  methodCodec(SessionFork),
	SessionSetModel.Name:                              methodCodec(SessionSetModel),
	SessionUpdate.Name + " notification":              notificationCodec(SessionUpdate),
	SessionRequestPermission.Name:                     methodCodec(SessionRequestPermission),
	FSReadTextFile.Name:                               methodCodec(FSReadTextFile),
	FSWriteTextFile.Name:                              methodCodec(FSWriteTextFile),
	TerminalCreate.Name:                               methodCodec(TerminalCreate),
	TerminalOutput.Name:                               methodCodec(TerminalOutput),
	TerminalRelease.Name:                              methodCodec(TerminalRelease),
	TerminalWaitForExit.Name:                          methodCodec(TerminalWaitForExit),
	TerminalKill.Name:                                 methodCodec(TerminalKill),
	ElicitationCreate.Name:                            methodCodec(ElicitationCreate),
	ElicitationComplete.Name + " notification":        notificationCodec(ElicitationComplete),
	AuthStatusUpdate.Name + " notification":           notificationCodec(AuthStatusUpdate),
	MCPMessage.Name:                                   methodCodec(MCPMessage),
	MCPMessageNotification.Name + " notification":     notificationCodec(MCPMessageNotification),
	CancelRequest.Name + " notification":              notificationCodec(CancelRequest),
	ProxyInitialize.Name:                              methodCodec(ProxyInitialize),
	ProxySuccessor.Name:                               methodCodec(ProxySuccessor),
	ProxySuccessorNotification.Name + " notification": notificationCodec(ProxySuccessorNotification),
}

// codecKey returns the key of method m in codecs.
func codecKey(m method) string {
	if _, result := m.types(); result == nil {
		return m.name() + " notification"
	}
	return m.name()
}

// notRoundTripped lists the schema types no method's params or result
// reaches, with the reason the test leaves them out. The test fails when
// a type of the schema is neither reached nor listed, and when a listed
// type is reached or gone.
var notRoundTripped = map[string]string{
	"AgentRequest":       "the union of requests: the envelope, read by Classify",
	"AgentResponse":      "the union of responses: the envelope, read by Classify",
	"AgentNotification":  "the union of notifications: the envelope, read by Classify",
	"ClientRequest":      "the union of requests: the envelope, read by Classify",
	"ClientResponse":     "the union of responses: the envelope, read by Classify",
	"ClientNotification": "the union of notifications: the envelope, read by Classify",
	"ProxyRequest":       "the union of requests: the envelope, read by Classify",
	"ProxyResponse":      "the union of responses: the envelope, read by Classify",
	"ProxyNotification":  "the union of notifications: the envelope, read by Classify",
	"ExtRequest":         "an extension method's params: opaque to the package",
	"ExtResponse":        "an extension method's result: opaque to the package",
	"ExtNotification":    "an extension notification's params: opaque to the package",
}

// The normalisations the package applies, which the test allows: an
// optional member may come back absent when it was sent
//
//   - null, since the package reads null as absence, as the schema says
//     ("Omitted or null both mean …"), except for the members of nullKept;
//   - as an empty array, since the package keeps an optional list in a
//     slice whose nil and empty it sends alike, except for the members of
//     emptyKept;
//   - at the default the schema gives it, such as a capability's false,
//     since the package leaves out a member at its zero value where the
//     schema's default is that value.
//
// nullKept lists, as Type.member, the optional members whose null is not
// absence and must come back as null.
var nullKept = map[string]string{
	"SessionInfoUpdate.title":     "null clears the title; absent leaves it unchanged",
	"SessionInfoUpdate.updatedAt": "null clears the timestamp; absent leaves it unchanged",
}

// emptyKept lists, as Type.member, the optional arrays whose [] is not
// absence and must come back as [].
var emptyKept = map[string]string{
	"ToolCallUpdate.content":   "[] clears the tool call's content; absent leaves it unchanged",
	"ToolCallUpdate.locations": "[] clears the tool call's locations; absent leaves them unchanged",
}

// orAbsent stands in a want for an optional member that may come back
// as value or not at all (see nullKept).
type orAbsent struct{ Value any }

// matchAbsent returns got with the members that want holds as orAbsent,
// and got holds at that value or not at all, set to the orAbsent.
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
}

func newInstanceGen(defs map[string]jsonNode) *instanceGen {
	return &instanceGen{defs: defs, types: map[string]bool{}, members: map[string]bool{}, paths: map[string]string{}, probed: map[string]bool{}}
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
	var out []instance
	for _, s := range g.alternatives(n, owner) {
		out = append(out, g.shapeValues(s, owner, path)...)
	}
	return out
}

// shapeValues returns the instances of shape s, the largest first: a
// string is "s", an integer 1, a number 0.5, a boolean true then false,
// an array holds one element of each variant of its items then none, and
// an object is as objectValues makes it.
func (g *instanceGen) shapeValues(s shape, owner, path string) []instance {
	depth := len(g.stack)
	g.stack = append(g.stack, s.refs...)
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
		def, hasDefault := p.schema["default"]
		switch {
		case s.required[p.name]:
		case v.in == nil && nullKept[p.owner+"."+p.name] == "",
			isEmptyArray(v.in) && emptyKept[p.owner+"."+p.name] == "",
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

// key returns the key of the root's method in codecs.
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

func TestSchemaRoundTrip(t *testing.T) {
	for _, m := range methods {
		if _, ok := codecs[codecKey(m)]; !ok {
			t.Errorf("method %s has no entry in codecs", codecKey(m))
		}
	}
	reached := map[string]bool{}        // types, in either edition
	var unreached []string              // types reached in neither edition yet
	reachedMembers := map[string]bool{} // members, in either edition
	inSchema := map[string]bool{}
	for _, ed := range schemaEditions {
		t.Run(ed.schema, func(t *testing.T) {
			var file struct {
				Defs map[string]jsonNode `json:"$defs"`
			}
			readSchemaJSON(t, ed.schema, &file)
			checked := newInstanceGen(file.Defs)
			var instances int
			for _, root := range schemaRoots(file.Defs) {
				ref := jsonNode{"$ref": "#/$defs/" + root.def}
				c, ok := codecs[root.key()]
				if !ok {
					t.Errorf("%s (%s) has no codec", root.def, root.key())
					continue
				}
				decode := c.params
				if root.result {
					decode = c.result
				}
				if decode == nil {
					t.Errorf("%s: %s is a notification, which has no result", root.def, root.method)
					continue
				}
				clear(checked.paths)
				vals := checked.values(ref, "", "")
				if len(vals) == 0 {
					t.Errorf("%s: no instance generated", root.def)
				}
				instances += len(vals)
				for _, d := range roundTripDiffs(root, decode, vals) {
					t.Error(d.msg)
				}
			}
			for name := range file.Defs {
				inSchema[name] = true
				reached[name] = reached[name] || checked.types[name]
				_, listed := notRoundTripped[name]
				if !checked.types[name] && !listed {
					unreached = append(unreached, name) // perhaps by the other edition
				}
			}
			if d := checked.dangling; d != nil {
				t.Errorf("$ref to types the schema lacks: %v", d)
			}
			maps.Copy(reachedMembers, checked.members)
			// Every member the schema reads leniently is probed, but those
			// of any JSON value, of which none is invalid.
			for name, def := range file.Defs {
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
			t.Errorf("schema type %s is neither reached by a method's params or result nor listed in notRoundTripped", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(notRoundTripped)) {
		switch {
		case !inSchema[name]:
			t.Errorf("notRoundTripped lists %s, which the schema no longer has", name)
		case reached[name]:
			t.Errorf("notRoundTripped lists %s, which the test now checks: remove it", name)
		}
	}
	for list, members := range map[string]map[string]string{"nullKept": nullKept, "emptyKept": emptyKept} {
		for _, m := range slices.Sorted(maps.Keys(members)) {
			if !reachedMembers[m] {
				t.Errorf("%s lists %s, which the schema no longer has", list, m)
			}
		}
	}
}

// roundTripDiff is a member that did not come back: its path, as
// diffPaths gives it, and a message describing the first instance that
// showed it.
type roundTripDiff struct{ path, msg string }

// roundTripDiffs decodes each instance of root with decode and compares
// what its encodings give back with the instance's want. It returns each
// differing member once, and each decoding error once as a member "".
func roundTripDiffs(root schemaRoot, decode func([]byte) ([][]byte, error), vals []instance) []roundTripDiff {
	var out []roundTripDiff
	seen := map[string]bool{}
	for _, v := range vals {
		raw, err := json.Marshal(v.in)
		if err != nil {
			panic(err) // maps of JSON values always marshal
		}
		encs, err := decode(raw)
		if v.err != "" {
			if msg := refusal(err, root.def, v.err); msg != "" {
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
func refusal(err error, def, path string) string {
	if err == nil {
		return "decoded, want it refused naming " + path
	}
	field, ok := InvalidField(err)
	if !ok {
		return fmt.Sprintf("%v, which names no member; want %s", err, path)
	}
	paths := []string{path}
	if other, ok := alternativeKeys[def+" "+path]; ok {
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

// alternativeKeys maps the paths of members that tell a union's
// alternatives apart by being present to the member the decoder may name
// instead when one is absent: the other alternative's, which it then
// reads.
var alternativeKeys = map[string]string{
	"CreateElicitationRequest .requestId": ".sessionId", // a request scope, or a session scope
	"MessageMcpResponse .error":           ".result",    // an inner error, or an inner result
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
