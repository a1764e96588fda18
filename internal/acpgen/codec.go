package main

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The codecs. Every object type has
//
//	func (v *T) decodeFields(f *wire.Fields)  reads its members from f
//	func (v T) appendJSON(e *wire.Encoder)     writes it as a JSON object
//
// and a variant also appendFields, its members without its braces and tag,
// and appendPlain when it is used without its tag too. A union has
// read<U>(f) U and append<U>(v U, e). Types written by hand (custom in the
// naming table) keep the same contract: an object type has decodeFields
// and appendJSON, a value type read<T>(f, key, m, dst *T) bool and
// append<T>(e, v T); for a type of package acp's, which acp registers,
// the codecs declare decode<T> and append<T>, or read<T> and append<T>,
// as variables.

// emitCodecs writes the codec of every type.
func (m *model) emitCodecs(pkg string) ([]byte, error) {
	var f file
	f.p("// marshal is MarshalJSON for a type with an appendJSON.\n")
	f.p("func marshal(v interface{ appendJSON(*wire.Encoder) }) ([]byte, error) {\n")
	f.p("\tvar e wire.Encoder\n\tv.appendJSON(&e)\n\treturn e.Result()\n}\n\n")
	for _, g := range m.order {
		switch g.kind {
		case kStruct:
			if g.schema == "" && g.copyOf == nil && g.wraps == nil {
				continue // an unknown variant: with its union
			}
			m.codecStruct(&f, g)
		case kUnion:
			m.codecUnion(&f, g)
		case kFlat:
			m.codecFlat(&f, g)
		case kList:
			m.codecList(&f, g)
		}
	}
	if m.register {
		m.registrations(&f)
	}
	m.externCodecs(&f)
	var out file
	imports := []string{"github.com/acpkit/acpkit/internal/wire"}
	if m.pkg != "acp" && bytes.Contains(f.Bytes(), []byte("acp.")) {
		imports = []string{"github.com/acpkit/acpkit/acp", imports[0]}
	}
	if bytes.Contains(f.Bytes(), []byte("math.")) {
		imports = append([]string{"math", ""}, imports...)
	}
	out.header(pkg, imports...)
	out.Write(f.Bytes())
	return out.source()
}

// registrations writes the init function that registers the codecs of
// the package's params and results with internal/wire, for package acp,
// whose decoders and encoders find them there: a package other than acp
// cannot implement acp's unexported interfaces.
func (m *model) registrations(f *file) {
	f.p("// init registers the codecs of the params and results with package acp's\n// decoders and encoders.\n")
	f.p("func init() {\n")
	seen := map[*gtype]bool{}
	for _, mt := range m.methods {
		for _, g := range []*gtype{mt.params, mt.result} {
			if g == nil || seen[g] || !isObject(g) || g.extern {
				continue // acp registers its own
			}
			seen[g] = true
			f.p("wire.Register((*%s).decodeFields, %s.appendJSON)\n", g.name, g.name)
		}
	}
	f.p("}\n\n")
}

// externCodecs writes the codecs of the types of package acp the package
// uses, which acp registers with internal/wire.
func (m *model) externCodecs(f *file) {
	var vars []string
	for _, name := range m.e.all.names {
		g := m.types[name]
		switch {
		case !g.extern:
		case g.kind == kCustomValue:
			vars = append(vars, fmt.Sprintf("read%s = wire.ValueReaderFor[%s]()", g.local(), g.name),
				fmt.Sprintf("append%s = wire.ValueAppenderFor[%s]()", g.local(), g.name))
		default:
			vars = append(vars, fmt.Sprintf("decode%s = wire.DecoderFor[%s]()", g.local(), g.name),
				fmt.Sprintf("append%s = wire.AppenderFor[%s]()", g.local(), g.name))
		}
	}
	if len(vars) == 0 {
		return
	}
	f.p("// The codecs of the types of package acp this package uses, which acp\n// registers.\n")
	f.p("var (\n%s\n)\n\n", strings.Join(vars, "\n"))
}

// recv returns a receiver name for a type: its first letter, unless that
// is the name of a codec's parameter.
func recv(g *gtype) string {
	r := strings.ToLower(g.name[:1])
	if r == "f" || r == "e" || r == "m" {
		return "v"
	}
	return r
}

// mode returns the wire.Mode expression of a member's read.
func (fl *field) mode() string {
	var parts []string
	if fl.required {
		parts = append(parts, "wire.Required")
	}
	switch {
	case fl.lenient: // null included
		parts = append(parts, "wire.Lenient")
	case fl.nullable && !fl.required && !fl.skipItems && !fl.keepNull:
		return "wire.Optional"
	case fl.nullable:
		parts = append(parts, "wire.Nullable")
	}
	if fl.skipItems {
		parts = append(parts, "wire.SkipInvalid")
	}
	if fl.keepNull {
		parts = append(parts, "wire.KeepNull")
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// decodeStmt returns the statement that reads member fl into r.
func (m *model) decodeStmt(r string, fl *field) string {
	k, mode, dst := strconv.Quote(fl.json), fl.mode(), "&"+r+"."+fl.name
	t := fl.t
	if fl.json == "_meta" {
		if fl.clearable {
			return fmt.Sprintf("f.RawObject(%s, %s, wire.Lenient|wire.KeepNull)", k, dst)
		}
		return fmt.Sprintf("f.Meta(%s)", dst)
	}
	if fl.clearable {
		switch {
		case t.prim == "string" || t.ref != nil && t.ref.kind == kEnum:
			return fmt.Sprintf("wire.Clearable(f, %s, %s, %s)", k, dst, mode)
		case fl.keepEmpty:
			// Null clears, as [] does: both read as empty, not nil.
			plain := *fl
			plain.clearable = false
			return fmt.Sprintf("if f.Null(%s) {\n%s.%s = %s{}\n} else {\n%s\n}", k, r, fl.name, fl.goType(), m.decodeStmt(r, &plain))
		case t.ref != nil:
			plain := *fl
			plain.clearable = false
			return fmt.Sprintf("if f.Null(%s) {\n%s.%s = new(%s) // null clears: the zero value\n} else {\n%s\n}", k, r, fl.name, t.ref.name, m.decodeStmt(r, &plain))
		}
	}
	switch {
	case t.elem != nil:
		e := t.elem
		switch {
		case e.prim == "string" || e.ref != nil && e.ref.kind == kEnum:
			return fmt.Sprintf("wire.Strings(f, %s, %s, %s)", k, mode, dst)
		case e.prim == "int":
			return fmt.Sprintf("wire.Ints(f, %s, %s, %s, %s, %s)", k, mode, dst, intConst(e.lo), intConst(e.hi))
		case e.ref != nil && e.ref.kind == kUnion:
			return fmt.Sprintf("wire.Unions(f, %s, %s, %s, read%s)", k, mode, dst, e.ref.name)
		case e.ref != nil && isObject(e.ref):
			return fmt.Sprintf("wire.Objects(f, %s, %s, %s, %s)", k, mode, dst, decoder(e.ref))
		}
		m.errorf("%s: no codec for arrays of %s", fl.json, e.goType())
		return ""
	case t.mapOf != nil:
		if t.mapOf.ref != nil && t.mapOf.ref.kind == kUnion {
			return fmt.Sprintf("wire.UnionMap(f, %s, %s, %s, read%s)", k, mode, dst, t.mapOf.ref.name)
		}
		m.errorf("%s: no codec for maps of %s", fl.json, t.mapOf.goType())
		return ""
	case t.ref != nil:
		g := t.ref
		switch g.kind {
		case kEnum:
			if fl.ptr {
				m.errorf("%s: an enum behind a pointer", fl.json)
			}
			return fmt.Sprintf("f.String(%s, (*string)(%s), %s)", k, dst, mode)
		case kUnion:
			// Read in place, not through a generic helper, so that the
			// value being read stays on the stack.
			return fmt.Sprintf("if sub := f.Sub(%s, %s); sub != nil {\nx := read%s(sub)\nif f.Done(%s, %s, sub) {\n%s.%s = x\n}\n}", k, mode, g.name, k, mode, r, fl.name)
		case kList:
			return fmt.Sprintf("wire.Unions(f, %s, %s, %s, read%s)", k, mode, dst, g.elem.name)
		case kCustomValue:
			if fl.ptr {
				return fmt.Sprintf("if x := new(%s); read%s(f, %s, %s, x) {\n%s.%s = x\n}", g.name, g.local(), k, mode, r, fl.name)
			}
			return fmt.Sprintf("read%s(f, %s, %s, %s)", g.local(), k, mode, dst)
		}
		if fl.ptr {
			return fmt.Sprintf("if sub := f.Sub(%s, %s); sub != nil {\nx := new(%s)\n%s\nif f.Done(%s, %s, sub) {\n%s.%s = x\n}\n}", k, mode, g.name, decodeCall(g, "x", "sub"), k, mode, r, fl.name)
		}
		return fmt.Sprintf("if sub := f.Sub(%s, %s); sub != nil {\n%s\nif !f.Done(%s, %s, sub) {\n%s.%s = %s{} // the default\n}\n}", k, mode, decodeCall(g, "&"+r+"."+fl.name, "sub"), k, mode, r, fl.name, g.name)
	}
	opt := ""
	if fl.ptr {
		opt = "Opt"
	}
	switch t.prim {
	case "string":
		return fmt.Sprintf("f.%sString(%s, %s, %s)", opt, k, dst, mode)
	case "bool":
		return fmt.Sprintf("f.%sBool(%s, %s, %s)", opt, k, dst, mode)
	case "int":
		return fmt.Sprintf("f.%sInt(%s, %s, %s, %s, %s)", opt, k, dst, mode, intConst(t.lo), intConst(t.hi))
	case "int64":
		return fmt.Sprintf("f.%sInt64(%s, %s, %s)", opt, k, dst, mode)
	case "uint64":
		return fmt.Sprintf("f.%sUint64(%s, %s, %s)", opt, k, dst, mode)
	case "float64":
		return fmt.Sprintf("f.%sFloat(%s, %s, %s)", opt, k, dst, mode)
	case "raw":
		return fmt.Sprintf("f.Raw(%s, %s, %s)", k, dst, mode)
	case "object":
		return fmt.Sprintf("f.RawObject(%s, %s, %s)", k, dst, mode)
	case "map":
		return fmt.Sprintf("f.StringMap(%s, %s, %s)", k, dst, mode)
	}
	m.errorf("%s: no codec for %s", fl.json, t.prim)
	return ""
}

// intConst writes an integer bound as the constant a person would.
func intConst(n int64) string {
	switch n {
	case 0:
		return "0"
	case 65535:
		return "math.MaxUint16"
	case 4294967295:
		return "math.MaxUint32"
	case -2147483648:
		return "math.MinInt32"
	case 2147483647:
		return "math.MaxInt32"
	case -9223372036854775808:
		return "math.MinInt64"
	case 9223372036854775807:
		return "math.MaxInt64"
	}
	return strconv.FormatInt(n, 10)
}

// decoder returns the function that reads an object of type g from its
// fields: its decodeFields method, or the codec acp registers for a type
// of acp's.
func decoder(g *gtype) string {
	if g.extern {
		return "decode" + g.local()
	}
	return "(*" + g.name + ").decodeFields"
}

// decodeCall returns the statement that reads sub, the fields of an
// object, into x, a pointer to a g.
func decodeCall(g *gtype, x, sub string) string {
	if g.extern {
		return fmt.Sprintf("decode%s(%s, %s)", g.local(), x, sub)
	}
	return fmt.Sprintf("%s.decodeFields(%s)", strings.TrimPrefix(x, "&"), sub)
}

// appender returns the function that writes an object of type g: its
// appendJSON method, or the codec acp registers for a type of acp's.
func appender(g *gtype) string {
	if g.extern {
		return "append" + g.local()
	}
	return g.name + ".appendJSON"
}

// appendCall returns the statement that writes x, a g or, when ptr is
// set, a *g.
func appendCall(g *gtype, x string, ptr bool) string {
	switch {
	case g.extern && ptr:
		return fmt.Sprintf("append%s(*%s, e)", g.local(), x)
	case g.extern:
		return fmt.Sprintf("append%s(%s, e)", g.local(), x)
	}
	return x + ".appendJSON(e)"
}

func isObject(g *gtype) bool {
	return g.kind == kStruct || g.kind == kFlat || g.kind == kCustomObject
}

// omitCond returns the condition under which an optional member is sent,
// or "" when it always is.
func (fl *field) omitCond(r string) string {
	x := r + "." + fl.name
	t := fl.t
	switch {
	case fl.required, fl.always, fl.json == "_meta":
		return ""
	case fl.ptr:
		return x + " != nil"
	case fl.keepEmpty:
		return x + " != nil"
	case t.elem != nil, t.mapOf != nil, t.prim == "raw", t.prim == "object", t.prim == "map":
		return "len(" + x + ") > 0"
	case t.ref != nil && t.ref.kind == kList:
		return "len(" + x + ") > 0"
	case t.ref != nil && t.ref.kind == kUnion:
		return x + " != nil"
	case t.prim == "string", t.ref != nil && t.ref.kind == kEnum:
		return x + ` != ""`
	case t.prim == "bool":
		return x
	}
	return ""
}

// appendStmt returns the statements that write member fl of r, key
// included.
func (m *model) appendStmt(r string, fl *field) string {
	x := r + "." + fl.name
	t := fl.t
	if fl.json == "_meta" {
		return fmt.Sprintf("e.Meta(%s)", x)
	}
	val := x
	if fl.ptr {
		val = "*" + x
	}
	var w string
	switch {
	case fl.clearable && t.prim == "string":
		w = fmt.Sprintf("if %s == \"\" {\ne.Null()\n} else {\ne.String(%s)\n}", val, val)
	case fl.clearable && t.ref != nil && t.ref.kind == kEnum:
		w = fmt.Sprintf("if %s == \"\" {\ne.Null()\n} else {\ne.String(string(%s))\n}", val, val)
	case fl.clearable && fl.ptr && t.ref != nil:
		w = fmt.Sprintf("if wire.IsZero(%s) {\ne.Null()\n} else {\n%s\n}", val, appendCall(t.ref, x, true))
	case t.elem != nil:
		e := t.elem
		switch {
		case e.prim == "string" || e.ref != nil && e.ref.kind == kEnum:
			w = fmt.Sprintf("wire.AppendStrings(e, %s)", x)
		case e.prim == "int":
			w = fmt.Sprintf("wire.AppendInts(e, %s)", x)
		case e.ref != nil && e.ref.kind == kUnion:
			w = fmt.Sprintf("wire.AppendArray(e, %s, append%s)", x, e.ref.name)
		case e.ref != nil:
			w = fmt.Sprintf("wire.AppendArray(e, %s, %s)", x, appender(e.ref))
		}
	case t.mapOf != nil:
		w = fmt.Sprintf("wire.AppendMap(e, %s, append%s)", x, t.mapOf.ref.name)
	case t.ref != nil:
		g := t.ref
		switch g.kind {
		case kEnum:
			w = fmt.Sprintf("e.String(string(%s))", x)
		case kUnion:
			w = fmt.Sprintf("append%s(%s, e)", g.name, x)
		case kCustomValue:
			w = fmt.Sprintf("append%s(e, %s)", g.local(), val)
		default:
			w = appendCall(g, x, fl.ptr)
		}
	default:
		switch t.prim {
		case "string":
			w = fmt.Sprintf("e.String(%s)", val)
		case "bool":
			w = fmt.Sprintf("e.Bool(%s)", val)
		case "int":
			w = fmt.Sprintf("e.Int(int64(%s))", val)
		case "int64":
			w = fmt.Sprintf("e.Int(%s)", val)
		case "uint64":
			w = fmt.Sprintf("e.Uint(%s)", val)
		case "float64":
			w = fmt.Sprintf("e.Float(%s)", val)
		case "raw", "object":
			w = fmt.Sprintf("e.Raw(%s)", x)
		case "map":
			w = fmt.Sprintf("e.StringMap(%s)", x)
		}
	}
	if w == "" {
		m.errorf("%s: no encoder", fl.json)
	}
	stmt := fmt.Sprintf("e.Key(%q)\n%s", fl.json, w)
	if c := fl.omitCond(r); c != "" {
		return fmt.Sprintf("if %s {\n%s\n}", c, stmt)
	}
	return stmt
}

// needsMarshal reports whether encoding/json, from the struct tags alone,
// would write something else than the generated encoder.
func needsMarshal(g *gtype) bool {
	if len(g.variantOf) > 0 || g.kind == kFlat || g.kind == kList {
		return true
	}
	for _, fl := range allFields(g) {
		t := fl.t
		switch {
		case fl.clearable, fl.keepEmpty:
			return true
		case (fl.required || fl.always) && (t.elem != nil || t.ref != nil && t.ref.kind == kList || t.mapOf != nil):
			return true // nil is sent as []
		case t.prim == "map" && fl.required:
			return true
		case fl.required && t.ref != nil && t.ref.kind == kUnion:
			return true // nil is refused, not sent as null
		}
	}
	return false
}

// isParams reports whether g is a method's params, which decode through
// encoding/json with the checks of DecodeParams.
func isParams(g *gtype) bool { return len(g.params) > 0 }

func (m *model) codecStruct(f *file, g *gtype) {
	r := recv(g)
	if g.wraps != nil {
		m.codecWrapper(f, g)
		return
	}
	base := g
	if g.copyOf != nil {
		base = g.copyOf
	}
	var v *variant
	if len(g.variantOf) > 0 {
		v = g.variantOf[0]
		if len(g.variantOf) > 1 {
			m.errorf("%s is a variant of several unions", g.name)
		}
	}
	fields := base.fields
	// decodeFields.
	if g.copyOf != nil {
		f.p("func (%s *%s) decodeFields(f *wire.Fields) { (*%s)(%s).decodeFields(f) }\n\n", r, g.name, base.name, r)
	} else {
		f.p("func (%s *%s) decodeFields(f *wire.Fields) {\n", r, g.name)
		for _, fl := range fields {
			f.p("%s\n", m.decodeStmt(r, fl))
		}
		f.p("}\n\n")
	}
	// appendFields, for a variant and for the schema type of variant
	// copies.
	copied := false
	for _, o := range m.order {
		copied = copied || o.copyOf == g
	}
	if v != nil || copied {
		if g.copyOf == nil {
			f.p("func (%s %s) appendFields(e *wire.Encoder) {\n", r, g.name)
			for _, fl := range fields {
				f.p("%s\n", m.appendStmt(r, fl))
			}
			f.p("}\n\n")
		}
	}
	f.p("func (%s %s) appendJSON(e *wire.Encoder) {\n", r, g.name)
	f.p("e.Open()\n")
	if v != nil && v.tag != "" {
		f.p("e.Key(%q)\ne.String(%q)\n", v.union.tagKey, v.tag)
	}
	switch {
	case g.copyOf != nil:
		f.p("%s(%s).appendFields(e)\n", base.name, r)
	case v != nil || copied:
		f.p("%s.appendFields(e)\n", r)
	default:
		for _, fl := range fields {
			f.p("%s\n", m.appendStmt(r, fl))
		}
	}
	f.p("e.Close()\n}\n\n")
	if v != nil {
		f.p("func (%s) %s() string { return %q }\n\n", g.name, tagMethod(v.union), v.tag)
	}
	m.marshalers(f, g)
}

// codecWrapper writes the codec of a variant that is a union: its
// members are the union's variant's, in the same object.
func (m *model) codecWrapper(f *file, g *gtype) {
	r, u, v := recv(g), g.wraps, g.variantOf[0]
	f.p("func (%s *%s) decodeFields(f *wire.Fields) { %s.%s = read%s(f) }\n\n", r, g.name, r, u.tagField, u.name)
	f.p("func (%s %s) appendJSON(e *wire.Encoder) {\n", r, g.name)
	f.p("e.Tagged(%q, %q, func(e *wire.Encoder) { append%s(%s.%s, e) })\n}\n\n", v.union.tagKey, v.tag, u.name, r, u.tagField)
	f.p("func (%s) %s() string { return %q }\n\n", g.name, tagMethod(v.union), v.tag)
	m.marshalers(f, g)
}

// marshalers writes a type's MarshalJSON and UnmarshalJSON, where it needs
// them.
func (m *model) marshalers(f *file, g *gtype) {
	r := recv(g)
	if needsMarshal(g) {
		switch {
		case len(g.variantOf) > 0 && g.variantOf[0].tag != "":
			v := g.variantOf[0]
			f.p("// MarshalJSON encodes %s with %q:%q.\n", r, v.union.tagKey, v.tag)
		case len(g.variantOf) > 0:
			f.p("// MarshalJSON encodes %s without a %q member.\n", r, g.variantOf[0].union.tagKey)
		case g.kind == kFlat:
			f.p("// MarshalJSON encodes %s with the members of its %s; an unknown one is Raw\n// unchanged.\n", r, g.tagField)
		default:
			f.p("// MarshalJSON encodes %s as the schema says, where its struct tags cannot:\n// required arrays are [] when nil, and a nil required variant is an error.\n", r)
		}
		f.p("func (%s %s) MarshalJSON() ([]byte, error) { return marshal(%s) }\n\n", r, g.name, r)
	}
	if isParams(g) || g.kind == kFlat {
		f.p("// UnmarshalJSON decodes %s with the rules of [%s]; null leaves %s\n// unchanged.\n", r, m.acp("DecodeParams"), r)
		f.p("func (%s *%s) UnmarshalJSON(data []byte) error {\nreturn wire.UnmarshalParams(data, %s, (*%s).decodeFields)\n}\n\n", r, g.name, r, g.name)
	}
}

func (m *model) codecUnion(f *file, g *gtype) {
	tm := tagMethod(g)
	var tags []string
	for _, v := range g.variants {
		if v.tag != "" {
			tags = append(tags, strconv.Quote(v.tag))
		}
	}
	tagsVar := lowerFirst(g.name) + "Tags"
	f.p("var %s = wire.NewTags(%s)\n\n", tagsVar, strings.Join(tags, ", "))
	f.p("// read%s reads the variant f holds. A variant of a tag it does not know is\n// an [%s].\n", g.name, g.unknown.name)
	f.p("func read%s(f *wire.Fields) %s {\n", g.name, g.name)
	if g.tagOpt {
		f.p("switch tag := f.OptTag(%q, %s, 0); tag {\n", g.tagKey, tagsVar)
	} else {
		f.p("switch tag := f.Tag(%q, %s); tag {\n", g.tagKey, tagsVar)
	}
	for _, v := range g.variants {
		cases := strconv.Quote(v.tag)
		if v.tag == "" && v.title != "" {
			cases += ", " + strconv.Quote(v.title)
		}
		f.p("case %s:\nvar v %s\nv.decodeFields(f)\nreturn v\n", cases, v.typ.name)
	}
	f.p("default:\nreturn %s{%s: tag, Raw: f.Clone()}\n}\n}\n\n", g.unknown.name, g.tagField)
	f.p("// append%s writes v, which must not be nil.\n", g.name)
	f.p("func append%s(v %s, e *wire.Encoder) {\n", g.name, g.name)
	f.p("if v == nil || wire.IsNilPointer(v) {\ne.Fail(wire.ErrNil)\ne.Null()\nreturn\n}\nv.appendJSON(e)\n}\n\n")
	// The unknown variant.
	u := g.unknown
	ur := recv(u)
	f.p("func (%s %s) %s() string { return %s.%s }\n\n", ur, u.name, tm, ur, g.tagField)
	f.p("func (%s %s) appendJSON(e *wire.Encoder) {\n", ur, u.name)
	f.p("if len(%s.Raw) > 0 {\ne.Raw(%s.Raw)\nreturn\n}\n", ur, ur)
	f.p("e.Open()\ne.Key(%q)\ne.String(%s.%s)\ne.Close()\n}\n\n", g.tagKey, ur, g.tagField)
	f.p("// MarshalJSON returns Raw unchanged, or {%q:%s} when Raw is empty.\n", g.tagKey, g.tagField)
	f.p("func (%s %s) MarshalJSON() ([]byte, error) {\nif len(%s.Raw) > 0 {\nreturn %s.Raw, nil\n}\nreturn marshal(%s)\n}\n\n", ur, u.name, ur, ur, ur)
}

func (m *model) codecFlat(f *file, g *gtype) {
	r := recv(g)
	tagsVar := lowerFirst(g.name) + "Tags"
	var tags []string
	for _, v := range g.variants {
		if v.tag != "" {
			tags = append(tags, strconv.Quote(v.tag))
		}
	}
	f.p("var %s = wire.NewTags(%s)\n\n", tagsVar, strings.Join(tags, ", "))
	conv := func(s string) string {
		if g.tagType == "string" {
			return s
		}
		return g.tagType + "(" + s + ")"
	}
	cases := func(v *variant) string {
		c := strconv.Quote(v.tag)
		if v.tag == "" && v.title != "" {
			c += ", " + strconv.Quote(v.title)
		}
		return c
	}
	// decodeFields.
	f.p("func (%s *%s) decodeFields(f *wire.Fields) {\n", r, g.name)
	if g.tagOpt {
		mode := "wire.Optional"
		if p := g.def.obj("properties").obj(g.tagKey); p != nil && p.flag("x-deserialize-default-on-error") {
			mode = "wire.Lenient"
		}
		f.p("%s.%s = %s\n", r, g.tagField, conv(fmt.Sprintf("f.OptTag(%q, %s, %s)", g.tagKey, tagsVar, mode)))
	} else {
		f.p("%s.%s = %s\n", r, g.tagField, conv(fmt.Sprintf("f.Tag(%q, %s)", g.tagKey, tagsVar)))
	}
	// The members every known shape has are read as their shapes say for
	// those shapes only: a shape this package does not know is kept
	// whole, whatever it lacks, and they are read from it as they can be.
	var hoisted []*field
	for _, fl := range g.fields {
		if fl.hoisted {
			hoisted = append(hoisted, fl)
			continue
		}
		f.p("%s\n", m.decodeStmt(r, fl))
	}
	f.p("switch %s.%s {\n", r, g.tagField)
	for _, v := range g.variants {
		f.p("case %s:\n", cases(v))
		for _, fl := range append(slices.Clone(hoisted), v.fields...) {
			f.p("%s\n", m.decodeStmt(r, fl))
		}
	}
	f.p("default:\n")
	for _, fl := range hoisted {
		loose := *fl
		loose.required, loose.lenient = false, true
		f.p("%s\n", m.decodeStmt(r, &loose))
	}
	f.p("if f.Err() == nil {\n%s.Raw = f.Clone()\n}\n}\n}\n\n", r)
	// appendFields.
	f.p("func (%s %s) appendFields(e *wire.Encoder) {\n", r, g.name)
	tagStmt := fmt.Sprintf("e.Key(%q)\ne.String(%s)", g.tagKey, conv2(g, r+"."+g.tagField))
	if g.tagOpt {
		tagStmt = fmt.Sprintf("if %s.%s != \"\" {\n%s\n}", r, g.tagField, tagStmt)
	}
	// The union's own members, its tag, then its shapes' members, as the
	// reference implementation writes a flattened enum.
	var meta *field
	tagged := false
	for _, fl := range g.fields {
		if fl.json == "_meta" {
			meta = fl
			continue
		}
		if fl.hoisted && !tagged {
			f.p("%s\n", tagStmt)
			tagged = true
		}
		f.p("%s\n", m.appendStmt(r, fl))
	}
	if !tagged {
		f.p("%s\n", tagStmt)
	}
	f.p("switch %s.%s {\n", r, g.tagField)
	for _, v := range g.variants {
		if len(v.fields) == 0 {
			continue
		}
		f.p("case %s:\n", cases(v))
		for _, fl := range v.fields {
			f.p("%s\n", m.appendStmt(r, fl))
		}
	}
	f.p("}\n")
	if meta != nil {
		f.p("%s\n", m.appendStmt(r, meta))
	}
	f.p("}\n\n")
	// appendJSON.
	var all []string
	for _, v := range g.variants {
		all = append(all, cases(v))
	}
	f.p("func (%s %s) appendJSON(e *wire.Encoder) {\n", r, g.name)
	f.p("switch %s.%s {\ncase %s:\ndefault:\nif len(%s.Raw) > 0 {\ne.Raw(%s.Raw)\nreturn\n}\n}\n", r, g.tagField, strings.Join(all, ", "), r, r)
	f.p("e.Open()\n")
	if len(g.variantOf) > 0 && g.variantOf[0].tag != "" {
		v := g.variantOf[0]
		f.p("e.Key(%q)\ne.String(%q)\n", v.union.tagKey, v.tag)
	}
	f.p("%s.appendFields(e)\ne.Close()\n}\n\n", r)
	if len(g.variantOf) > 0 {
		v := g.variantOf[0]
		f.p("func (%s) %s() string { return %q }\n\n", g.name, tagMethod(v.union), v.tag)
	}
	m.marshalers(f, g)
}

// conv2 returns x, a flattened union's tag, as a string.
func conv2(g *gtype, x string) string {
	if g.tagType == "string" {
		return x
	}
	return "string(" + x + ")"
}

func (m *model) codecList(f *file, g *gtype) {
	r := recv(g)
	f.p("func (%s %s) appendJSON(e *wire.Encoder) { wire.AppendArray(e, %s, append%s) }\n\n", r, g.name, r, g.elem.name)
	f.p("// MarshalJSON encodes the list as an array, [] when nil.\n")
	f.p("func (%s %s) MarshalJSON() ([]byte, error) { return marshal(%s) }\n\n", r, g.name, r)
	f.p("// UnmarshalJSON decodes an array of %s values; null leaves %s unchanged. A\n", g.elem.name, r)
	f.p("// variant that breaks the schema is an [*%s] with code [%s]\n// naming it, as from [%s].\n", m.acp("Error"), m.acp("CodeInvalidParams"), m.acp("DecodeParams"))
	f.p("func (%s *%s) UnmarshalJSON(data []byte) error { return wire.UnmarshalList(data, %s, read%s) }\n\n", r, g.name, r, g.elem.name)
}
