package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// kind is how a schema type is represented in Go.
type kind int

const (
	kStruct       kind = iota // an object: a struct
	kEnum                     // a string with known values: a string type and its constants
	kUnion                    // a tagged union: an interface, a type per variant and one for unknown variants
	kFlat                     // a tagged union read into one struct, its tag a field
	kList                     // a named slice of a union's variants
	kCustomObject             // an object written by hand, with the generated codec's methods
	kCustomValue              // a value written by hand, read and written by functions
	kRaw                      // a value kept as raw JSON
	kString                   // an identifier: a Go string
	kInt                      // an integer with a range: a Go int
	kFold                     // a union of one variant: that variant
	kPart                     // a shape of a flattened union: its members are the union's
	kSkip                     // no Go type
)

// gtype is the Go type of a schema type, or of a variant or a list the
// generator adds.
type gtype struct {
	schema   string // the schema's name; "" for a variant copy or a list
	name     string // the Go name
	kind     kind
	def      *node
	desc     string // the schema's description, without its unstable notice
	unstable bool

	fields []*field // a struct's members; a flattened union's common members

	values []*enumValue // an enum's known values
	open   bool         // an enum or union accepts values beyond the known ones

	// A union, interface or flattened.
	tagKey   string     // the discriminator's member name
	tagField string     // the Go field holding the tag: of the unknown variant (interface) or of the struct (flattened)
	tagType  string     // a flattened union's tag type: "string" or an enum's Go name
	variants []*variant // in the schema's order
	unknown  *gtype     // an interface union's type for unknown variants
	keepRaw  bool       // a flattened union keeps an unknown variant whole, in Raw
	tagOpt   bool       // the tag may be absent (an untagged variant, or none)

	elem   *gtype // a list's union
	target *gtype // a folded union's variant
	copyOf *gtype // a variant's copy: the schema type it copies
	wraps  *gtype // a variant that is a union: that union, its one field

	lo, hi int64 // kInt's range

	// extern is set for a type written by hand in package acp (custom
	// with a name acp.T), which acp registers with internal/wire.
	extern bool

	params, results []*method // the methods whose params or result it is
	variantOf       []*variant
}

// variant is one alternative of a union.
type variant struct {
	union    *gtype
	tag      string // the discriminator's value; "" for the untagged variant
	title    string // the schema's title of an untagged variant ("stdio")
	typ      *gtype // an interface union's variant type
	fields   []*field
	unstable bool
	none     bool // the tag is null or absent
}

type enumValue struct {
	value, name string
	desc        string
	unstable    bool
}

// field is a member of a struct.
type field struct {
	json, name string
	desc       string
	unstable   bool
	t          *ftype
	required   bool
	nullable   bool // null reads as absent
	lenient    bool // default-on-error
	onNull     bool // default-on-null
	skipItems  bool // skip-invalid-items
	keepNull   bool // null is a value
	ptr        bool // behind a pointer: absent differs from zero
	always     bool // sent even when zero (a value struct, an array with a [] default)
	clearable  bool
	keepEmpty  bool
	hasDefault bool
	hideTag    bool // a flattened union's member whose name another shape's member has
	hoisted    bool // a flattened union's member that every shape has
}

// ftype is the type of a member.
type ftype struct {
	prim   string // "string", "bool", "int", "int64", "uint64", "float64", "raw", "object" (raw object), "map" (of strings)
	lo, hi int64  // an int's range
	ref    *gtype
	elem   *ftype // an array's items
	mapOf  *ftype // the values of an object map (other than strings)
}

// method is a method of the protocol.
type method struct {
	wire         string
	name         string
	notification bool
	params       *gtype
	result       *gtype // nil for a notification
	side         string // who serves it: agent, client, protocol or proxy
	unstable     bool
}

// model is the Go side of one schema.
type model struct {
	e       *editions
	t       *table
	types   map[string]*gtype // by schema name
	order   []*gtype          // the types to declare, by Go name, each union followed by the types the generator adds for it
	methods []*method
	errs    []string
	// pkg is the Go package written: acp, or another package of the
	// module, which names acp's declarations qualified (see acp).
	pkg string
	// register has the codecs write an init function registering the
	// params and results with internal/wire (see registrations), and
	// experimental marks every declaration Experimental.
	options
}

// acp returns how the package written names declaration name of package
// acp: qualified, unless it is acp.
func (m *model) acp(name string) string {
	if m.pkg == "acp" {
		return name
	}
	return "acp." + name
}

func (m *model) errorf(format string, args ...any) {
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
}

const unstableNotice = "**UNSTABLE**\n\nThis capability is not part of the spec yet, and may be removed or changed at any point."

// cleanDesc returns a description without the unstable notice, which the
// generator states in Go's own words.
func cleanDesc(s string) string {
	s = strings.TrimPrefix(s, unstableNotice)
	s = strings.TrimPrefix(s, "**UNSTABLE**")
	return strings.TrimSpace(s)
}

func buildModel(e *editions, t *table, pkg string, o options) (*model, error) {
	m := &model{e: e, t: t, pkg: pkg, options: o, types: map[string]*gtype{}}
	for _, name := range e.all.names {
		m.classify(name, e.all.defs[name])
	}
	// The shapes of a flattened union are read into the union.
	for _, name := range e.all.names {
		if g := m.types[name]; g.kind == kFlat {
			for _, a := range alternatives(g.def) {
				if p := m.types[refOf(a)]; p != nil && p.kind == kStruct {
					p.kind = kPart
					p.name = g.name
				}
			}
		}
	}
	for _, name := range e.all.names {
		if g := m.types[name]; g != nil {
			m.shape(g)
		}
	}
	if len(m.errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(m.errs, "\n"))
	}
	m.buildMethods()
	m.finish()
	if len(m.errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(m.errs, "\n"))
	}
	return m, nil
}

// goName returns the Go name of schema type name.
func (m *model) goName(name string) string {
	if n, ok := m.t.names[name]; m.t.use("name "+name, ok) {
		return n
	}
	for _, suffix := range []struct{ from, to string }{{"Request", "Params"}, {"Response", "Result"}, {"Notification", "Params"}} {
		if base, ok := strings.CutSuffix(name, suffix.from); ok && m.e.all.defs[name].has("x-method") {
			return camel(base) + suffix.to
		}
	}
	return camel(name)
}

// stableDef returns the stable edition's definition of name, or nil.
func (m *model) stableDef(name string) *node { return m.e.stable.defs[name] }

// classify creates the Go type of schema type name, without its members.
func (m *model) classify(name string, def *node) {
	t := m.t
	g := &gtype{schema: name, def: def, desc: cleanDesc(def.str("description")), unstable: m.stableDef(name) == nil}
	switch {
	case t.use("skip "+name, t.skip[name]):
		g.kind = kSkip
	case t.use("raw "+name, t.raw[name]):
		g.kind = kRaw
	case t.use("fold "+name, t.fold[name]):
		g.kind = kFold
	case t.use("custom "+name, t.custom[name] != [2]string{}):
		c := t.custom[name]
		g.name, g.kind = c[0], kCustomObject
		if c[1] == "value" {
			g.kind = kCustomValue
		}
		if local, ok := strings.CutPrefix(c[0], "acp."); ok {
			// A type of package acp, which registers its codec.
			g.extern = true
			if m.pkg == "acp" || !m.register {
				m.errorf("custom %s: %s is package acp's, for a package that registers its codecs (-register)", name, c[0])
			}
			if !isIdent(local) {
				m.errorf("custom %s: %q is not a Go name", name, c[0])
			}
		} else if !isIdent(c[0]) {
			m.errorf("custom %s: %q is not a Go name", name, c[0])
		}
	case isEnum(def):
		g.kind = kEnum
	case slices.Contains(def.types(), "string") && len(def.types()) == 1:
		g.kind = kString
	case slices.Contains(def.types(), "integer") && len(def.types()) == 1:
		g.kind = kInt
		g.lo, g.hi = intRange(def)
	case t.use("flatten "+name, hasKey(t.flatten, name)):
		g.kind, g.tagType = kFlat, t.flatten[name]
	case len(def.nodes("anyOf"))+len(def.nodes("oneOf")) > 0 && !def.has("properties"):
		g.kind = kUnion
	case def.has("properties") && len(def.nodes("anyOf"))+len(def.nodes("oneOf")) > 0:
		m.errorf("%s: an object with alternatives needs flatten or custom in the naming table", name)
		g.kind = kSkip
	case slices.Contains(def.types(), "object") || def.has("properties"):
		g.kind = kStruct
	case refOf(def) != "" && !def.has("properties"):
		g.kind = kStruct // a copy of another type, resolved by shape
	default:
		m.errorf("%s: no Go shape for %s; add it to the naming table", name, def.keys)
		g.kind = kSkip
	}
	if g.name == "" {
		g.name = m.goName(name)
	}
	m.types[name] = g
}

func hasKey[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }

// local returns the name the codecs give g: its Go name, without the
// package of a type of acp's.
func (g *gtype) local() string { return strings.TrimPrefix(g.name, "acp.") }

// isIdent reports whether s is an exported Go identifier.
func isIdent(s string) bool {
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != "" && unicode.IsUpper(rune(s[0]))
}

// alternatives returns a union's alternatives.
func alternatives(def *node) []*node {
	return append(def.nodes("oneOf"), def.nodes("anyOf")...)
}

// isEnum reports whether def is a set of string constants, with perhaps
// an "other" string.
func isEnum(def *node) bool {
	alts := alternatives(def)
	if len(alts) == 0 {
		return false
	}
	for _, a := range alts {
		if !slices.Equal(a.types(), []string{"string"}) || a.has("properties") {
			return false
		}
	}
	return true
}

// intRange returns the range of an integer's format.
func intRange(n *node) (lo, hi int64) {
	switch n.str("format") {
	case "uint16":
		return 0, math.MaxUint16
	case "uint32":
		return 0, math.MaxUint32
	case "int32":
		return math.MinInt32, math.MaxInt32
	case "uint64":
		return 0, math.MaxInt64 // unused: uint64 is read whole
	}
	return math.MinInt64, math.MaxInt64
}

// shape fills in a type's members, values or variants.
func (m *model) shape(g *gtype) {
	switch g.kind {
	case kStruct:
		if r := refOf(g.def); r != "" && !g.def.has("properties") {
			g.copyOf = m.types[r]
			if g.copyOf == nil || g.copyOf.kind != kStruct {
				m.errorf("%s: a copy of %s, which is not an object", g.schema, r)
			}
			return
		}
		g.fields = m.fields(g, g.schema, g.def, m.stableDef(g.schema), nil)
	case kEnum:
		m.shapeEnum(g)
	case kUnion:
		m.shapeUnion(g)
	case kFlat:
		m.shapeFlat(g)
	case kFold:
		alts := alternatives(g.def)
		if len(alts) != 1 {
			m.errorf("%s: fold needs a union of one variant, not %d", g.schema, len(alts))
			return
		}
		g.target = m.types[refOf(alts[0])]
		if g.target == nil {
			m.errorf("%s: its variant is not a schema type", g.schema)
		}
	}
}

// refOf returns the schema type a node refers to, through $ref or an
// allOf of one $ref, or "".
func refOf(n *node) string {
	if r := n.str("$ref"); r != "" {
		return refName(r)
	}
	if all := n.nodes("allOf"); len(all) == 1 {
		return refOf(all[0])
	}
	return ""
}

func (m *model) shapeEnum(g *gtype) {
	prefix := g.name
	if p, ok := m.t.prefixes[g.schema]; m.t.use("enum "+g.schema, ok) {
		prefix = p
	}
	stable := map[string]bool{}
	if s := m.stableDef(g.schema); s != nil {
		for _, a := range alternatives(s) {
			if c, ok := a.get("const").(string); ok {
				stable[c] = true
			}
		}
	}
	for _, a := range alternatives(g.def) {
		c, ok := a.get("const").(string)
		if !ok {
			g.open = true // "other": any string
			continue
		}
		name := prefix + camel(c)
		if n, ok := m.t.consts[g.schema+" "+c]; m.t.use("const "+g.schema+" "+c, ok) {
			name = n
		}
		g.values = append(g.values, &enumValue{value: c, name: name, desc: cleanDesc(a.str("description")),
			unstable: !g.unstable && !stable[c]})
	}
}

// tagged is one alternative of a tagged union, as the schema writes it.
type tagged struct {
	tag      string
	hasTag   bool
	ref      string // the schema type holding its members, or ""
	inline   *node  // the alternative itself, when its members are inline
	title    string
	catchAll bool // "other": any other tag
	none     bool // the tag is null
}

// taggedAlternatives reads a union's alternatives, finding its tag key.
func (m *model) taggedAlternatives(g *gtype) (key string, out []tagged) {
	alts := alternatives(g.def)
	for _, a := range alts {
		if p := a.obj("properties"); p != nil {
			for _, k := range p.keys {
				if p.obj(k).has("const") {
					key = k
				}
			}
		}
	}
	if key == "" {
		m.errorf("%s: a union without a discriminator needs custom, raw or fold in the naming table", g.schema)
		return "", nil
	}
	for _, a := range alts {
		alt := tagged{title: a.str("title"), ref: refOf(a)}
		prop := a.obj("properties").obj(key)
		switch {
		case prop.has("const"):
			alt.tag, alt.hasTag = prop.get("const").(string)
		case slices.Equal(prop.types(), []string{"null"}):
			alt.none = true
		case prop != nil && a.has("not"):
			alt.catchAll = true
		}
		if alt.ref == "" && !alt.catchAll {
			alt.inline = a
		}
		if alt.ref == "" && len(a.nodes("allOf")) > 1 {
			m.errorf("%s: alternative %q has several allOf", g.schema, alt.tag)
		}
		out = append(out, alt)
	}
	return key, out
}

// stableAlternative returns the stable edition's alternative of union
// schema whose discriminator key is tag, or nil.
func (m *model) stableAlternative(schema, key, tag string) *node {
	for _, a := range alternatives(m.stableDef(schema)) {
		if c, ok := a.obj("properties").obj(key).get("const").(string); ok && c == tag {
			return a
		}
	}
	return nil
}

// stableTags returns the tags of a union's stable alternatives.
func (m *model) stableTags(schema, key string) map[string]bool {
	out := map[string]bool{}
	if s := m.stableDef(schema); s != nil {
		for _, a := range alternatives(s) {
			if c, ok := a.obj("properties").obj(key).get("const").(string); ok {
				out[c] = true
			}
			if t := a.str("title"); t != "" {
				out["title:"+t] = true
			}
		}
	}
	return out
}

// newVariant returns union g's variant of alternative a, Unstable when
// its tag is not among the stable edition's, stable.
func newVariant(g *gtype, a tagged, stable map[string]bool) *variant {
	if !a.hasTag {
		g.tagOpt = true
	}
	return &variant{union: g, tag: a.tag, title: a.title, none: a.none || !a.hasTag,
		unstable: !g.unstable && !stable[a.tag] && !(a.title != "" && stable["title:"+a.title])}
}

func (m *model) shapeUnion(g *gtype) {
	key, alts := m.taggedAlternatives(g)
	if key == "" {
		return
	}
	g.tagKey = key
	u, ok := m.t.unions[g.schema]
	if !m.t.use("union "+g.schema, ok) {
		u = [2]string{"Unknown" + g.name, "Type"}
	}
	g.unknown = &gtype{name: u[0], kind: kStruct, unstable: g.unstable}
	g.tagField = u[1]
	stable := m.stableTags(g.schema, key)
	shared := map[string]int{}
	for _, a := range alts {
		shared[a.ref]++
	}
	for _, a := range alts {
		if a.catchAll {
			g.open = true
			continue
		}
		v := newVariant(g, a, stable)
		base := m.types[a.ref]
		name, named := m.t.variants[g.schema+" "+a.tag]
		m.t.use("variant "+g.schema+" "+a.tag, named)
		switch {
		case a.ref == "":
			m.errorf("%s: variant %q has no type of its own", g.schema, a.tag)
			continue
		case base != nil && base.kind == kUnion && named:
			// A variant that is a union tagged again (ACP v2's
			// state_update): a struct holding that union, written with
			// both tags.
			v.typ = &gtype{name: name, kind: kStruct, wraps: base, desc: base.desc, unstable: base.unstable || v.unstable}
			v.typ.variantOf = append(v.typ.variantOf, v)
			g.variants = append(g.variants, v)
			continue
		case base == nil || base.kind != kStruct && base.kind != kFlat:
			m.errorf("%s: variant %q is not an object (a union needs a type of its own: variant)", g.schema, a.tag)
			continue
		}
		switch {
		case named:
			v.typ = &gtype{name: name, kind: kStruct, copyOf: base, desc: base.desc, unstable: base.unstable || v.unstable}
		case shared[a.ref] > 1:
			m.errorf("%s: variants share %s: name them with variant", g.schema, a.ref)
			continue
		default:
			v.typ = base
		}
		v.typ.variantOf = append(v.typ.variantOf, v)
		g.variants = append(g.variants, v)
	}
	// Every union keeps what it does not know: a newer peer's variant is
	// never fatal.
	g.open = true
}

func (m *model) shapeFlat(g *gtype) {
	key, alts := m.taggedAlternatives(g)
	if key == "" {
		return
	}
	g.tagKey = key
	g.tagField = camel(key)
	var tagProp *node
	// The union's own members, the tag's aside.
	if props := g.def.obj("properties"); props != nil {
		tagProp = props.obj(key)
	}
	g.fields = m.fields(g, g.schema, g.def, m.stableDef(g.schema), map[string]bool{key: true})
	stable := m.stableTags(g.schema, key)
	for _, a := range alts {
		if a.catchAll {
			g.open = true
			g.keepRaw = true
			continue
		}
		v := newVariant(g, a, stable)
		var def, stableDef *node
		var owner string
		switch {
		case a.ref != "":
			def, owner, stableDef = m.e.all.defs[a.ref], a.ref, m.stableDef(a.ref)
		case a.inline != nil:
			// An alternative written inline: its members are named
			// Union/tag.member, and are stable as the stable edition's
			// alternative of the same tag says.
			def, owner, stableDef = a.inline, g.schema+"/"+a.tag, m.stableAlternative(g.schema, key, a.tag)
		}
		if def != nil {
			skip := map[string]bool{key: true}
			for _, f := range g.fields {
				skip[f.json] = true
			}
			v.fields = m.fields(g, owner, def, stableDef, skip)
		}
		g.variants = append(g.variants, v)
	}
	// A closed union keeps an unknown variant too: never fatal.
	g.keepRaw = true
	// Members every known variant has alike are the union's own.
	m.hoistCommon(g)
	if g.tagType == "" {
		g.tagType = "string"
	}
	if tagProp != nil && (tagProp.flag("x-deserialize-default-on-error") || slices.Contains(tagProp.types(), "null")) {
		g.tagOpt = true
	}
}

// hoistCommon moves the members that every tagged variant of a flattened
// union has, alike, to the union's own members.
func (m *model) hoistCommon(g *gtype) {
	var tagged []*variant
	for _, v := range g.variants {
		if v.fields != nil || !v.none {
			tagged = append(tagged, v)
		}
	}
	// _meta is every shape's, as the schema gives it to every object.
	for _, v := range g.variants {
		if i := slices.IndexFunc(v.fields, func(o *field) bool { return o.json == "_meta" }); i >= 0 {
			if !slices.ContainsFunc(g.fields, func(o *field) bool { return o.json == "_meta" }) {
				g.fields = append(g.fields, v.fields[i])
			}
			v.fields = slices.Delete(v.fields, i, i+1)
		}
	}
	defer sort.SliceStable(g.fields, func(i, j int) bool { return g.fields[j].json == "_meta" && g.fields[i].json != "_meta" })
	if len(tagged) < 2 {
		return
	}
	for _, f := range slices.Clone(tagged[0].fields) {
		everywhere := true
		for _, v := range tagged[1:] {
			i := slices.IndexFunc(v.fields, func(o *field) bool { return o.json == f.json })
			if i < 0 || v.fields[i].required != f.required || v.fields[i].goType() != f.goType() {
				everywhere = false
				break
			}
		}
		if !everywhere {
			continue
		}
		f.hoisted = true
		g.fields = append(g.fields, f)
		for _, v := range tagged {
			v.fields = slices.DeleteFunc(v.fields, func(o *field) bool { return o.json == f.json })
		}
	}
}

// fields returns the members of object def, found in schema type owner
// (whose stable edition is stable, nil when it is unstable), leaving out
// those in skip, in the schema's order, which is the order the reference
// implementation writes them in, but for _meta, last.
func (m *model) fields(g *gtype, owner string, def, stable *node, skip map[string]bool) []*field {
	props := def.obj("properties")
	if props == nil {
		return []*field{}
	}
	required := map[string]bool{}
	for _, r := range def.strs("required") {
		required[r] = true
	}
	var stableProps *node
	if stable != nil {
		stableProps = stable.obj("properties")
	}
	ownerUnstable := stable == nil
	var out, meta []*field
	for _, k := range props.keys {
		if skip[k] {
			continue
		}
		f := m.field(g, owner, k, props.obj(k), required[k])
		if f == nil {
			continue
		}
		f.unstable = !ownerUnstable && !g.unstable && (stableProps == nil || !stableProps.has(k))
		if f.unstable && f.always && !f.required {
			// A peer of the stable schema never sees an unstable member
			// at its default: it is sent only when set.
			f.always = false
		}
		if k == "_meta" {
			meta = append(meta, f)
		} else {
			out = append(out, f)
		}
	}
	return append(out, meta...)
}

// field returns member key of owner, its schema node p.
func (m *model) field(g *gtype, owner, key string, p *node, required bool) *field {
	path := owner + "." + key
	f := &field{json: key, name: camel(key), desc: cleanDesc(p.str("description")), required: required,
		lenient:    p.flag("x-deserialize-default-on-error"),
		onNull:     p.flag("x-deserialize-default-on-null"),
		skipItems:  p.flag("x-deserialize-skip-invalid-items"),
		hasDefault: p.has("default"),
	}
	if key == "_meta" {
		f.name = "Meta"
	}
	if n, ok := m.t.members[path]; m.t.use("member "+path, ok) {
		f.name = n
	}
	t, nullable, err := m.resolve(p)
	if err != nil {
		m.errorf("%s: %v", path, err)
		return nil
	}
	f.t = t
	f.nullable = nullable || f.onNull
	if t.prim == "raw" && !nullable {
		f.keepNull = true // a member of any type: null is a value
	}
	f.clearable = m.t.use("clearable "+path, m.t.clearable[path])
	f.keepEmpty = m.t.use("keepempty "+path, m.t.keepEmpty[path])
	f.ptr = m.t.use("ptr "+path, m.t.ptr[path])
	// Null clears a clearable member: a string, an enum or an object is
	// kept behind a pointer, to a zero value for null; an array is kept
	// empty and non-nil for null, as for []; raw JSON (_meta included)
	// keeps null itself.
	switch {
	case !f.clearable:
	case t.elem != nil || t.ref != nil && t.ref.kind == kList:
		f.keepEmpty = true
	case t.prim == "raw" || t.prim == "object":
		f.keepNull = true
	case t.prim == "string" || t.ref != nil && (t.ref.kind == kEnum || isObject(t.ref)):
		f.ptr = true
	default:
		m.errorf("%s: clearable for a member of type %s", path, t.goType())
	}
	// Absent differs from zero for an optional number or a boolean
	// without a default; an optional object is absent when nil, unless
	// it has a default, which its zero value is.
	switch {
	case f.required:
	case t.elem != nil, t.prim == "raw", t.prim == "object", t.prim == "map", t.mapOf != nil:
	case t.ref != nil && t.ref.kind == kStruct || t.ref != nil && t.ref.kind == kFlat || t.ref != nil && t.ref.kind == kCustomObject:
		// A default with members (all false) is what the zero value
		// holds: the member is a value, always sent. With none, as with no
		// default, absent differs from {} (a capability declared by its
		// presence).
		if d, ok := p.get("default").(*node); ok && len(d.keys) > 0 && !nullable {
			f.always = true
		} else {
			f.ptr = true
		}
	case t.ref != nil && t.ref.kind == kCustomValue:
		f.ptr = true
	case t.prim == "int", t.prim == "int64", t.prim == "uint64", t.prim == "float64":
		f.ptr = true
	case t.prim == "bool" && !f.hasDefault:
		f.ptr = true
	case t.prim == "bool":
		// A boolean with a default is always sent, as the reference
		// implementation sends it.
		f.always = true
	}
	if t.elem != nil && !f.required {
		if d, ok := p.get("default").([]any); ok && len(d) == 0 {
			f.always = true
		}
	}
	return f
}

// resolve returns the type of member node p, and whether the schema allows
// null there.
func (m *model) resolve(p *node) (*ftype, bool, error) {
	if r := refOf(p); r != "" && !p.has("type") {
		t, err := m.refType(r)
		return t, false, err
	}
	if alts := p.nodes("anyOf"); len(alts) == 2 && slices.Equal(alts[1].types(), []string{"null"}) && refOf(alts[0]) != "" {
		t, err := m.refType(refOf(alts[0]))
		return t, true, err
	}
	if p.has("anyOf") || p.has("oneOf") {
		return nil, false, fmt.Errorf("a union of members: name its type in the schema")
	}
	types := p.types()
	nullable := slices.Contains(types, "null")
	types = slices.DeleteFunc(slices.Clone(types), func(s string) bool { return s == "null" })
	switch {
	case len(types) == 0 && !p.has("type"):
		return &ftype{prim: "raw"}, false, nil
	case len(types) != 1:
		return nil, false, fmt.Errorf("types %v", types)
	}
	switch types[0] {
	case "string":
		return &ftype{prim: "string"}, nullable, nil
	case "boolean":
		return &ftype{prim: "bool"}, nullable, nil
	case "number":
		return &ftype{prim: "float64"}, nullable, nil
	case "integer":
		switch p.str("format") {
		case "uint64":
			return &ftype{prim: "uint64"}, nullable, nil
		case "int64":
			return &ftype{prim: "int64"}, nullable, nil
		}
		lo, hi := intRange(p)
		return &ftype{prim: "int", lo: lo, hi: hi}, nullable, nil
	case "array":
		items := p.obj("items")
		if items == nil {
			return nil, false, fmt.Errorf("an array without items")
		}
		elem, _, err := m.resolve(items)
		if err != nil {
			return nil, false, err
		}
		if elem.ref != nil && elem.ref.kind == kUnion {
			if l := m.list(elem.ref); l != nil {
				return &ftype{ref: l}, nullable, nil
			}
		}
		return &ftype{elem: elem}, nullable, nil
	case "object":
		switch addl := p.get("additionalProperties").(type) {
		case bool:
			return &ftype{prim: "object"}, nullable, nil
		case *node:
			v, _, err := m.resolve(addl)
			if err != nil {
				return nil, false, err
			}
			switch v.prim {
			case "string":
				return &ftype{prim: "map"}, nullable, nil
			case "raw": // values of any kind: the object is kept whole
				return &ftype{prim: "object"}, nullable, nil
			}
			return &ftype{mapOf: v}, nullable, nil
		}
		return &ftype{prim: "object"}, nullable, nil
	}
	return nil, false, fmt.Errorf("type %s", types[0])
}

// list returns the named slice type of union u's arrays, creating it, or
// nil when the naming table names none.
func (m *model) list(u *gtype) *gtype {
	name, ok := m.t.lists[u.schema]
	if !m.t.use("list "+u.schema, ok) {
		return nil
	}
	for _, g := range m.order {
		if g.kind == kList && g.elem == u {
			return g
		}
	}
	l := &gtype{name: name, kind: kList, elem: u, unstable: u.unstable}
	m.order = append(m.order, l) // placed after its union by finish
	return l
}

// refType returns the type of a member that refers to schema type name.
func (m *model) refType(name string) (*ftype, error) {
	g := m.types[name]
	if g == nil {
		return nil, fmt.Errorf("$ref to %s, which the schema lacks", name)
	}
	switch g.kind {
	case kString:
		return &ftype{prim: "string"}, nil
	case kInt:
		return &ftype{prim: "int", lo: g.lo, hi: g.hi}, nil
	case kRaw:
		return &ftype{prim: "raw"}, nil
	case kFold:
		if g.target == nil {
			m.shape(g)
		}
		if g.target == nil {
			return nil, fmt.Errorf("fold %s has no variant", name)
		}
		return &ftype{ref: g.target}, nil
	case kSkip:
		return nil, fmt.Errorf("refers to %s, which has no Go type (skip)", name)
	case kPart:
		return nil, fmt.Errorf("refers to %s, a shape of the flattened %s", name, g.name)
	}
	return &ftype{ref: g}, nil
}

// goType returns the Go type of the member.
func (f *field) goType() string {
	t := f.t.goType()
	if f.ptr {
		return "*" + t
	}
	return t
}

func (t *ftype) goType() string {
	switch {
	case t.elem != nil:
		return "[]" + t.elem.goType()
	case t.mapOf != nil:
		return "map[string]" + t.mapOf.goType()
	case t.ref != nil:
		return t.ref.name
	}
	switch t.prim {
	case "raw", "object":
		return "json.RawMessage"
	case "map":
		return "map[string]string"
	}
	return t.prim
}

// buildMethods collects the methods of the x-method types, in the order
// of their Go names.
func (m *model) buildMethods() {
	byKey := map[string]*method{}
	for _, name := range m.e.all.names {
		def := m.e.all.defs[name]
		wire := def.str("x-method")
		g := m.types[name]
		if wire == "" || g == nil {
			continue
		}
		notification := strings.HasSuffix(name, "Notification")
		kind := "request"
		if notification {
			kind = "notification"
		}
		mt := byKey[wire+" "+kind]
		if mt == nil {
			mt = &method{wire: wire, notification: notification, side: def.str("x-side")}
			mt.name = methodName(wire)
			if n, ok := m.t.methods[wire+" "+kind]; m.t.use("method "+wire+" "+kind, ok) {
				mt.name = n
			}
			// Stable when the stable edition defines it.
			mt.unstable = m.stableDef(name) == nil
			byKey[wire+" "+kind] = mt
			m.methods = append(m.methods, mt)
		}
		switch {
		case strings.HasSuffix(name, "Response"):
			mt.result = g
			g.results = append(g.results, mt)
		default:
			mt.params = g
			g.params = append(g.params, mt)
		}
	}
	for _, mt := range m.methods {
		if mt.params == nil || (!mt.notification && mt.result == nil) {
			m.errorf("method %s: no params or result type", mt.wire)
		}
	}
	// The method tables list what the SDK routes: each needs its types.
	for wire := range m.e.allMeta.methods() {
		if byKey[wire+" request"] == nil && byKey[wire+" notification"] == nil {
			m.errorf("method %s of the method tables has no x-method type in the schema", wire)
		}
	}
	sort.Slice(m.methods, func(i, j int) bool { return m.methods[i].name < m.methods[j].name })
}

// methodName returns the Go name of a method value: session/set_mode is
// SessionSetMode, $/cancel_request CancelRequest.
func methodName(wire string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(wire, func(r rune) bool { return r == '/' || r == '$' }) {
		b.WriteString(camel(part))
	}
	return b.String()
}

// finish orders the types to declare and marks what each needs.
func (m *model) finish() {
	lists := m.order
	// The types in the order of their Go names, each union followed by
	// the types the generator adds for it.
	var primary []*gtype
	for _, name := range m.e.all.names {
		g := m.types[name]
		switch g.kind {
		case kSkip, kFold, kRaw, kString, kInt, kCustomValue, kCustomObject, kPart:
			continue
		}
		primary = append(primary, g)
		if g.kind == kUnion {
			for _, v := range g.variants {
				if v.typ.copyOf != nil || v.typ.wraps != nil {
					primary = append(primary, v.typ)
				}
			}
		}
	}
	sort.SliceStable(primary, func(i, j int) bool { return primary[i].name < primary[j].name })
	m.order = nil
	for _, g := range primary {
		m.order = append(m.order, g)
		if g.kind == kUnion {
			m.order = append(m.order, g.unknown)
			for _, l := range lists {
				if l.elem == g {
					m.order = append(m.order, l)
				}
			}
		}
	}
	// A variant's type is written with its tag: a schema type that is
	// also a plain member needs a variant type of its own, as the content
	// chunks have.
	for _, g := range m.order {
		for _, f := range allFields(g) {
			for _, t := range []*ftype{f.t, f.t.elem} {
				if t != nil && t.ref != nil && len(t.ref.variantOf) > 0 {
					m.errorf("%s.%s holds %s, a variant of %s: give the variant a type of its own with variant in the naming table",
						g.name, f.json, t.ref.name, t.ref.variantOf[0].union.name)
				}
			}
		}
	}
	names := map[string]string{}
	for _, g := range m.order {
		if other, dup := names[g.name]; dup {
			m.errorf("Go name %s is given to both %s and %s", g.name, other, g.schema)
		}
		names[g.name] = g.schema
	}
}

// allFields returns every member a type reads: a struct's, and a
// flattened union's own and its variants'.
func allFields(g *gtype) []*field {
	out := slices.Clone(g.fields)
	if g.kind == kFlat {
		for _, v := range g.variants {
			out = append(out, v.fields...)
		}
	}
	if g.copyOf != nil {
		out = append(out, g.copyOf.fields...)
	}
	return out
}

// initialisms are the words Go writes in capitals.
var initialisms = map[string]string{
	"id": "ID", "url": "URL", "uri": "URI", "http": "HTTP", "mcp": "MCP", "sse": "SSE", "acp": "ACP",
	"llm": "LLM", "api": "API", "json": "JSON", "fs": "FS", "rpc": "RPC",
}

// camel returns the exported Go name of a schema name: a member's
// (sessionId → SessionID), a type's (McpServerHttp → MCPServerHTTP), an
// enum value's (max_turn_requests → MaxTurnRequests, date-time →
// DateTime).
func camel(s string) string {
	var words []string
	start := 0
	rs := []rune(s)
	for i := 0; i <= len(rs); i++ {
		end := i == len(rs)
		if !end && (rs[i] == '_' || rs[i] == '-' || rs[i] == ' ' || rs[i] == '/' || rs[i] == '.') {
			if i > start {
				words = append(words, string(rs[start:i]))
			}
			start = i + 1
			continue
		}
		if end {
			if i > start {
				words = append(words, string(rs[start:i]))
			}
			break
		}
		// A capital starts a word (sessionId, McpServer).
		if i > start && isUpper(rs[i]) && !isUpper(rs[i-1]) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	var b strings.Builder
	for _, w := range words {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
