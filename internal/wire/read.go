package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// FieldError is a decoding failure about one member, named by its path
// from the decoded value's root ("cwd", "mcpServers[1].name",
// "prompt[0].text"; "" for the root itself, which callers name).
type FieldError struct {
	Path   string
	Reason string // "is required", "must be a string", …
}

func (e *FieldError) Error() string { return fmt.Sprintf("%q %s", e.Path, e.Reason) }

// Mode says how a member is read. The zero Mode reads an optional member
// whose schema does not allow null: absent leaves the destination as it
// is, null and values of the wrong type are errors.
type Mode uint8

const (
	// Required makes absence an error ("is required"), and null too
	// unless Nullable or Lenient say otherwise.
	Required Mode = 1 << iota
	// Nullable reads null as absent: the schema allows null, or says
	// (x-deserialize-default-on-null) that null means the default.
	Nullable
	// Lenient reads a value that does not decode, null included, as
	// absent: the member's default (x-deserialize-default-on-error).
	Lenient
	// SkipInvalid drops the items of an array that do not decode and
	// keeps the others (x-deserialize-skip-invalid-items).
	SkipInvalid
	// KeepNull keeps null as a value of a member of any type, such as an
	// error's data, instead of reading it as absent.
	KeepNull
)

// Optional is the Mode of an optional member whose schema allows null,
// the most common kind.
const Optional = Nullable

// Fields reads the members of one JSON object. The first failure is kept
// and every later read is a no-op.
type Fields struct {
	m   []member // in order; of a repeated name the last counts
	src []byte   // the object as read, aliasing the caller's bytes
	err error
	buf [4]member // m's first array: one allocation for the reader and its members
}

// member is one member of an object: its unescaped name and its raw value,
// both slices of the object's bytes unless the name held an escape.
type member struct {
	name []byte
	val  []byte
}

// Read reads raw, bytes from outside the program such as a peer's params,
// as an object: it validates them whole (JSON, UTF-8, depth) in the pass
// that finds the members. Absent (empty) or null raw is an empty object,
// so that a method whose params are omitted fails on its first required
// member. root names raw in the error when it is not an object.
func Read(raw []byte, root string) *Fields {
	f := &Fields{}
	raw = TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return f
	}
	f.src = raw
	if f.m = scanObject(f.buf[:0], raw, true); f.m == nil {
		if !utf8.Valid(raw) {
			// encoding/json would let invalid UTF-8 through in raw
			// members, and a value rebuilt from them would be a line no
			// peer accepts.
			f.err = &FieldError{root, "must be valid UTF-8"}
		} else {
			f.err = &FieldError{root, "must be an object"}
		}
	}
	return f
}

// ReadValid is Read for an object validated already, as every value
// nested in one that Read read is: it finds the members without
// validating them again, so that a long string nested n levels deep is
// checked once, not n times. Paths in its errors are relative to raw.
// Null is an error here, as for every nested value the schema requires to
// be an object.
func ReadValid(raw []byte) *Fields {
	f := &Fields{}
	raw = TrimSpace(raw)
	f.src = raw
	if f.m = scanObject(f.buf[:0], raw, false); f.m == nil {
		f.err = &FieldError{"", "must be an object"}
	}
	return f
}

// Err returns the first failure, a [*FieldError] unless a decoder
// recorded another error with [Fields.FailWith].
func (f *Fields) Err() error { return f.err }

// Clone returns a copy of the object's bytes, as read.
func (f *Fields) Clone() json.RawMessage { return bytes.Clone(f.src) }

// Fail records that member key is wrong for reason, unless a failure is
// recorded already.
func (f *Fields) Fail(key, reason string) {
	if f.err == nil {
		f.err = &FieldError{key, reason}
	}
}

// FailWith records err unless a failure is recorded already.
func (f *Fields) FailWith(err error) {
	if f.err == nil && err != nil {
		f.err = err
	}
}

// FailUnder records err, the failure of the value at path under this
// object, with its path put under path.
func (f *Fields) FailUnder(path string, err error) {
	if fe, ok := err.(*FieldError); ok {
		err = &FieldError{JoinPath(path, fe.Path), fe.Reason}
	}
	f.FailWith(err)
}

// Invalid records that member key is wrong for reason, unless m reads an
// invalid value as the default.
func (f *Fields) Invalid(key string, m Mode, reason string) {
	if m&Lenient == 0 {
		f.Fail(key, reason)
	}
}

// Lookup returns the member's raw value and whether it is present (null
// included).
func (f *Fields) Lookup(key string) ([]byte, bool) {
	for i := len(f.m) - 1; i >= 0; i-- {
		if string(f.m[i].name) == key {
			return f.m[i].val, true
		}
	}
	return nil, false
}

// Has reports whether the member is present and not null.
func (f *Fields) Has(key string) bool {
	v, ok := f.Lookup(key)
	return ok && string(v) != "null"
}

// Value returns the raw value of member key to read with m, or nil when
// there is nothing to read: an error is recorded already, the member is
// absent, or it is null and m does not keep null. kind names what the
// member must be ("a string"), for the error of a null that m does not
// allow. It is the first step of every read, for the codecs written by
// hand.
func (f *Fields) Value(key string, m Mode, kind string) []byte {
	if f.err != nil {
		return nil
	}
	v, ok := f.Lookup(key)
	switch {
	case !ok:
		if m&Required != 0 {
			f.Fail(key, "is required")
		}
		return nil
	case string(v) != "null" || m&KeepNull != 0:
		return v
	case m&(Nullable|Lenient) != 0:
	case m&Required != 0:
		f.Fail(key, "is required")
	default:
		f.Fail(key, "must be "+kind)
	}
	return nil
}

// Tag reads the required discriminator key ("type", "sessionUpdate") of a
// union, returning the Go string of a tag in known without allocating.
func (f *Fields) Tag(key string, known Tags) string {
	v := f.Value(key, Required, "a string")
	if v == nil {
		return ""
	}
	if t, ok := known[string(v)]; ok {
		return t
	}
	var s string
	f.String(key, &s, Required)
	return s
}

// OptTag is Tag for a discriminator that may be absent, as that of a
// union with an untagged variant (an MCP server without "type" is a
// stdio one): "" when absent or null.
func (f *Fields) OptTag(key string, known Tags, m Mode) string {
	if !f.Has(key) {
		return ""
	}
	v, _ := f.Lookup(key)
	if t, ok := known[string(v)]; ok {
		return t
	}
	var s string
	f.String(key, &s, m)
	return s
}

// Tags maps the discriminators of a union's variants, quoted as on the
// wire, to themselves.
type Tags map[string]string

// NewTags returns the Tags of the given discriminators.
func NewTags(tags ...string) Tags {
	m := make(Tags, len(tags))
	for _, t := range tags {
		m[`"`+t+`"`] = t
	}
	return m
}

// The typed reads below read member key with m into dst, and report
// whether they stored a value there: nothing is stored for an absent
// member, for a null one read as absent, and for an invalid one read
// leniently.

// String reads a string member.
func (f *Fields) String(key string, dst *string, m Mode) bool {
	v := f.Value(key, m, "a string")
	if v == nil {
		return false
	}
	if v[0] != '"' {
		f.Invalid(key, m, "must be a string")
		return false
	}
	*dst = stringOf(v)
	return true
}

// stringOf returns the Go string of the validated JSON string v.
func stringOf(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 { // validated: no escape, no control character
		return string(v[1 : len(v)-1])
	}
	return Unescape(v[1 : len(v)-1])
}

// OptString reads a string member into a pointer, so that absent (nil)
// and "" stay distinct.
//
// OptString and the other Opt reads each spell out the same steps: a
// generic helper taking the typed read as a func value moved the structs
// that generated decoders read into to the heap, one more allocation for
// each (BenchmarkDecodePromptParams in acp: 17 instead of 16).
func (f *Fields) OptString(key string, dst **string, m Mode) {
	if !f.Has(key) { // absent or null: nothing to allocate
		f.Value(key, m, "a string")
		return
	}
	var s string
	if f.String(key, &s, m) {
		*dst = &s
	}
}

// Bool reads a true or false member.
func (f *Fields) Bool(key string, dst *bool, m Mode) bool {
	switch v := f.Value(key, m, "true or false"); string(v) {
	case "":
	case "true", "false":
		*dst = string(v) == "true"
		return true
	default:
		f.Invalid(key, m, "must be true or false")
	}
	return false
}

// OptBool reads a true or false member into a pointer, so that absent
// (nil) and false stay distinct.
func (f *Fields) OptBool(key string, dst **bool, m Mode) {
	if !f.Has(key) { // absent or null: nothing to allocate
		f.Value(key, m, "true or false")
		return
	}
	var b bool
	if f.Bool(key, &b, m) {
		*dst = &b
	}
}

// Uint64 reads a non-negative integer member.
func (f *Fields) Uint64(key string, dst *uint64, m Mode) bool {
	v := f.Value(key, m, "a non-negative integer")
	if v == nil {
		return false
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		f.Invalid(key, m, "must be a non-negative integer")
		return false
	}
	*dst = n
	return true
}

// OptUint64 reads a non-negative integer member into a pointer, so that
// absent (nil) and 0 stay distinct.
func (f *Fields) OptUint64(key string, dst **uint64, m Mode) {
	if !f.Has(key) { // absent or null: nothing to allocate
		f.Value(key, m, "a non-negative integer")
		return
	}
	var n uint64
	if f.Uint64(key, &n, m) {
		*dst = &n
	}
}

// Int64 reads an integer member.
func (f *Fields) Int64(key string, dst *int64, m Mode) bool {
	v := f.Value(key, m, "an integer")
	if v == nil {
		return false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		f.Invalid(key, m, "must be an integer")
		return false
	}
	*dst = n
	return true
}

// OptInt64 reads an integer member into a pointer, so that absent (nil)
// and 0 stay distinct.
func (f *Fields) OptInt64(key string, dst **int64, m Mode) {
	if !f.Has(key) { // absent or null: nothing to allocate
		f.Value(key, m, "an integer")
		return
	}
	var n int64
	if f.Int64(key, &n, m) {
		*dst = &n
	}
}

// Int reads an integer member that must lie in [lo, hi], the range of its
// schema format (uint16, uint32, int32).
func (f *Fields) Int(key string, dst *int, m Mode, lo, hi int64) bool {
	v := f.Value(key, m, "an integer")
	if v == nil {
		return false
	}
	n, reason := intOf(v, lo, hi)
	if reason != "" {
		f.Invalid(key, m, reason)
		return false
	}
	*dst = n
	return true
}

// intOf reads v, a JSON value, as an integer in [lo, hi], or returns why
// it is not one.
func intOf(v []byte, lo, hi int64) (int, string) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	switch {
	case err != nil && lo >= 0:
		return 0, "must be a non-negative integer"
	case err != nil:
		return 0, "must be an integer"
	case n < lo:
		return 0, "must be at least " + strconv.FormatInt(lo, 10)
	case n > hi:
		return 0, "must be at most " + strconv.FormatInt(hi, 10)
	}
	return int(n), ""
}

// OptInt reads an integer member in [lo, hi] into a pointer, so that
// absent (nil) and 0 stay distinct.
func (f *Fields) OptInt(key string, dst **int, m Mode, lo, hi int64) {
	if !f.Has(key) { // absent or null: nothing to allocate
		f.Value(key, m, "an integer")
		return
	}
	var n int
	if f.Int(key, &n, m, lo, hi) {
		*dst = &n
	}
}

// Float reads a number member.
func (f *Fields) Float(key string, dst *float64, m Mode) bool {
	v := f.Value(key, m, "a number")
	if v == nil {
		return false
	}
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		f.Invalid(key, m, "must be a number")
		return false
	}
	n, err := strconv.ParseFloat(string(v), 64)
	if err != nil { // out of range
		f.Invalid(key, m, "must be a number")
		return false
	}
	*dst = n
	return true
}

// OptFloat reads a number member into a pointer, so that absent (nil) and
// 0 stay distinct.
func (f *Fields) OptFloat(key string, dst **float64, m Mode) {
	if !f.Has(key) { // absent or null: nothing to allocate
		f.Value(key, m, "a number")
		return
	}
	var n float64
	if f.Float(key, &n, m) {
		*dst = &n
	}
}

// Clearable reads a string member, or an enum's, where null means
// "clear": absent leaves *dst nil, null stores "", a string stores
// itself. An invalid value is read as absent when m is lenient.
func Clearable[S ~string](f *Fields, key string, dst **S, m Mode) {
	if f.err != nil {
		return
	}
	if f.Null(key) {
		*dst = new(S)
		return
	}
	var s *string
	f.OptString(key, &s, m)
	if s != nil {
		v := S(*s)
		*dst = &v
	}
}

// Null reports whether member key is present and null.
func (f *Fields) Null(key string) bool {
	v, ok := f.Lookup(key)
	return ok && string(v) == "null"
}

// Raw keeps a member of any JSON type as sent, in a copy owned by dst.
func (f *Fields) Raw(key string, dst *json.RawMessage, m Mode) {
	if v := f.Value(key, m, "present"); v != nil {
		*dst = bytes.Clone(v)
	}
}

// RawObject keeps a member that must be an object as sent, in a copy
// owned by dst.
func (f *Fields) RawObject(key string, dst *json.RawMessage, m Mode) {
	v := f.Value(key, m, "an object")
	if v == nil {
		return
	}
	if v[0] != '{' && string(v) != "null" { // null only when m keeps it
		f.Invalid(key, m, "must be an object")
		return
	}
	*dst = bytes.Clone(v)
}

// Meta keeps the _meta member, an object read leniently, as the schema
// reads it everywhere: anything else reads as absent.
func (f *Fields) Meta(dst *json.RawMessage) { f.RawObject("_meta", dst, Lenient) }

// Sub returns the reader of member key's object to read with m, or nil
// when there is none: the member is absent or null, or not an object (an
// error unless m is lenient). Check its reading with [Fields.Done].
func (f *Fields) Sub(key string, m Mode) *Fields {
	v := f.Value(key, m, "an object")
	if v == nil {
		return nil
	}
	sub := ReadValid(v)
	if sub.err != nil {
		f.Invalid(key, m, "must be an object")
		return nil
	}
	return sub
}

// Done records the failure of sub, member key's reader, unless m is
// lenient, and reports whether sub read its object without one.
func (f *Fields) Done(key string, m Mode, sub *Fields) bool {
	if sub.err == nil {
		return true
	}
	if m&Lenient == 0 {
		f.FailUnder(key, sub.err)
	}
	return false
}

// OptObject reads member key, an object, with decode into a new value,
// leaving dst nil when it is absent (or, with m lenient, invalid).
func OptObject[T any](f *Fields, key string, m Mode, dst **T, decode func(*T, *Fields)) {
	sub := f.Sub(key, m)
	if sub == nil {
		return
	}
	v := new(T)
	decode(v, sub)
	if f.Done(key, m, sub) {
		*dst = v
	}
}

// ReadUnion reads raw, bytes from outside the program, as one variant of a
// union with read; root names raw in errors.
func ReadUnion[T any](raw []byte, root string, read func(*Fields) T) (T, error) {
	var zero T
	if t := TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return zero, &FieldError{root, "must be an object"}
	}
	f := Read(raw, root)
	if f.err != nil {
		return zero, f.err
	}
	v := read(f)
	if f.err != nil {
		return zero, f.err
	}
	return v, nil
}

// Elements returns the items of member key, an array, to read with m, or
// nil when there are none to read: the member is absent, null as m
// allows, or not an array (an error unless m is lenient). An empty array
// is an empty, non-nil slice.
func (f *Fields) Elements(key string, m Mode) [][]byte {
	v := f.Value(key, m, "an array")
	if v == nil {
		return nil
	}
	elems := scanArray(v, false)
	if elems == nil {
		f.Invalid(key, m, "must be an array")
	}
	return elems
}

// Item records err, the failure of item i of member key, and reports
// whether the array's reading goes on: with m skipping invalid items the
// item is dropped, with m lenient the whole member reads as absent, and
// otherwise the failure is the object's.
func (f *Fields) Item(key string, m Mode, i int, err error) (goOn bool) {
	switch {
	case m&SkipInvalid != 0:
		return true
	case m&Lenient == 0:
		f.FailUnder(IndexPath(key, i), err)
	}
	return false
}

// Objects reads member key, an array of objects, with decode. A present
// empty array yields a non-nil empty slice, so that absent and [] stay
// distinct where the schema cares.
func Objects[S ~[]T, T any](f *Fields, key string, m Mode, dst *S, decode func(*T, *Fields)) {
	elems := f.Elements(key, m)
	if elems == nil {
		return
	}
	out := make(S, 0, len(elems))
	for i, raw := range elems {
		sub := ReadValid(raw)
		var v T
		if sub.err == nil {
			decode(&v, sub)
		}
		if sub.err != nil {
			if !f.Item(key, m, i, sub.err) {
				return
			}
			continue
		}
		out = append(out, v)
	}
	*dst = out
}

// Unions reads member key, an array of union variants, with read.
func Unions[S ~[]T, T any](f *Fields, key string, m Mode, dst *S, read func(*Fields) T) {
	elems := f.Elements(key, m)
	if elems == nil {
		return
	}
	out := make(S, 0, len(elems))
	for i, raw := range elems {
		sub := ReadValid(raw)
		var v T
		if sub.err == nil {
			v = read(sub)
		}
		if sub.err != nil {
			if !f.Item(key, m, i, sub.err) {
				return
			}
			continue
		}
		out = append(out, v)
	}
	*dst = out
}

// EitherObjects reads member key, an array of objects of one of two
// shapes told apart by whether its first item has member: into a with
// decA without it, into b with decB with it. It reports whether it read
// the array; an empty array is a's.
func EitherObjects[A, B any](f *Fields, key string, m Mode, member string, a *[]A, decA func(*A, *Fields), b *[]B, decB func(*B, *Fields)) bool {
	v := f.Value(key, m, "an array")
	if v == nil {
		return false
	}
	items := ScanArray(v, false)
	if items == nil {
		f.Invalid(key, m, "must be an array")
		return false
	}
	if len(items) > 0 && ReadValid(items[0]).Has(member) {
		Objects(f, key, m, b, decB)
	} else {
		Objects(f, key, m, a, decA)
	}
	return f.err == nil
}

// Strings reads member key, an array of strings.
func Strings[S ~[]E, E ~string](f *Fields, key string, m Mode, dst *S) {
	elems := f.Elements(key, m)
	if elems == nil {
		return
	}
	out := make(S, 0, len(elems))
	for i, raw := range elems {
		if raw[0] != '"' {
			if !f.Item(key, m, i, &FieldError{"", "must be a string"}) {
				return
			}
			continue
		}
		out = append(out, E(stringOf(raw)))
	}
	*dst = out
}

// Ints reads member key, an array of integers that must lie in [lo,
// hi].
func Ints[S ~[]E, E ~int](f *Fields, key string, m Mode, dst *S, lo, hi int64) {
	elems := f.Elements(key, m)
	if elems == nil {
		return
	}
	out := make(S, 0, len(elems))
	for i, raw := range elems {
		n, reason := intOf(raw, lo, hi)
		if reason != "" {
			if !f.Item(key, m, i, &FieldError{"", reason}) {
				return
			}
			continue
		}
		out = append(out, E(n))
	}
	*dst = out
}

// UnionMap reads member key, an object whose values are union variants,
// with read.
func UnionMap[T any](f *Fields, key string, m Mode, dst *map[string]T, read func(*Fields) T) {
	sub := f.Sub(key, m)
	if sub == nil {
		return
	}
	out := make(map[string]T, len(sub.m))
	for _, mem := range sub.m {
		name := string(mem.name)
		v := ReadValid(mem.val)
		if v.err == nil {
			out[name] = read(v)
		}
		if v.err != nil {
			sub.FailUnder(name, v.err)
			break
		}
	}
	if f.Done(key, m, sub) {
		*dst = out
	}
}

// StringMap reads member key, an object whose values are strings, such as
// environment variables or HTTP headers.
func (f *Fields) StringMap(key string, dst *map[string]string, m Mode) {
	sub := f.Sub(key, m)
	if sub == nil {
		return
	}
	out := make(map[string]string, len(sub.m))
	for _, mem := range sub.m {
		if mem.val[0] != '"' {
			sub.Fail(string(mem.name), "must be a string")
			break
		}
		out[string(mem.name)] = stringOf(mem.val)
	}
	if f.Done(key, m, sub) {
		*dst = out
	}
}

// IndexPath returns the path of element i of the array at path.
func IndexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// JoinPath appends the relative member path rel ("id", "[2].text", "") to
// path ("" for the root).
func JoinPath(path, rel string) string {
	switch {
	case rel == "":
		return path
	case path == "":
		return rel
	case rel[0] == '[':
		return path + rel
	}
	return path + "." + rel
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
			key = []byte(Unescape(key))
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

// ScanArray returns the elements of the JSON array raw (white space
// trimmed), slices of raw, or nil when raw is not a valid array; validate
// says whether raw still needs validating. An empty array gives an empty,
// non-nil slice.
func ScanArray(raw []byte, validate bool) [][]byte { return scanArray(raw, validate) }

func scanArray(raw []byte, validate bool) [][]byte {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	items := make([][]byte, 0, 4)
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

// TrimSpace returns raw without the JSON white space around it: only
// space, tab, CR and LF, which bytes.TrimSpace would go beyond (a vertical
// tab before an object is not JSON).
func TrimSpace(raw []byte) []byte {
	raw = raw[jsonscan.SkipSpace(raw, 0):]
	for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	return raw
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
