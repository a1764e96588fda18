package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// This file holds the one decode path for params and results: the package's
// params types have member-by-member decoders (paramsDecoder); every other
// type, the results and an extension's own types included, is decoded with
// encoding/json after a check of the members its fields tag `acp:"required"`.

// paramsDecoder is implemented by the package's params types, which read
// themselves member by member. It is unexported so that the set stays in
// this package; other types are checked through their `acp:"required"`
// tags.
type paramsDecoder interface {
	decodeParams(f *fields)
}

// pkgPath is this package's import path.
var pkgPath = reflect.TypeFor[Error]().PkgPath()

// DecodeParams decodes the params of a request or notification into T,
// checking every member the schema requires:
//
//	p, err := acp.DecodeParams[acp.NewSessionParams](params)
//	var e *acp.Error
//	if errors.As(err, &e) {
//		line, _ := acp.MarshalErrorResponse(id, e) // reply and stop
//	}
//
// [Method.Handle] calls it for each request, so a handler rarely needs to.
// Absent or null params decode as {}, so the first required member is
// reported missing. Unknown members are ignored, _meta is kept raw, a null
// member counts as absent, and of duplicated members the last wins, as with
// encoding/json. The error, when not nil, is always an [*Error] with code
// [CodeInvalidParams] whose message names the offending member, for example
// `invalid params: "cwd" is required`, and whose Data is {"field":"cwd"}
// (nested members read "mcpServers[0].name", "prompt[1].text");
// [InvalidField] reads it back.
//
// T is one of this package's params types, decoded member by member, or
// any other type, such as an extension's params: that is decoded with
// encoding/json, after checking that every member whose struct field is
// tagged `acp:"required"` is present and not null, in nested structs and
// slices of structs too.
//
// The decoded value owns its memory: it does not alias raw.
func DecodeParams[T any](raw []byte) (T, error) {
	v, err := decode[T](raw, "params")
	var e *Error
	switch {
	case err == nil:
		return v, nil
	case errors.As(err, &e): // a type's own UnmarshalJSON chose the reply
		return v, e
	}
	return v, invalidParams(err)
}

// DecodeResult decodes the result member of a success response into T with
// the checks of [DecodeParams]: the members the schema requires must be
// present and of the right type ([Method.Call] calls it). The package's
// result types tag their required members `acp:"required"`; unknown members
// are ignored. A result that fails is an error matching
// [ErrInvalidResponse] that names the member ([InvalidField] reads it);
// results come from the peer being called, so nothing is replied.
func DecodeResult[T any](raw []byte) (T, error) {
	v, err := decode[T](raw, "result")
	if err != nil {
		// A nested decoder's *Error is not the peer's error: keep its
		// words and field, not its code.
		var e *Error
		if errors.As(err, &e) {
			err = fieldErrorOf(e)
		}
		return v, fmt.Errorf("%w: %T result: %w", ErrInvalidResponse, v, err)
	}
	return v, nil
}

// InvalidField returns the member a decoding error names, as
// "expectedRunId" or "prompt[1].text", and whether err names one: an
// [*Error] with code [CodeInvalidParams] from [DecodeParams] (or from a
// peer that sends {"field": …} as its data), or an error from
// [DecodeResult].
func InvalidField(err error) (field string, ok bool) {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe.path, true
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams {
		return "", false
	}
	f := members.Get(gjson.ParseBytes(e.Data), "field")
	if f.Type != gjson.String {
		return "", false
	}
	return f.String(), true
}

// decode is DecodeParams and DecodeResult without the error's final shape:
// it returns a *fieldError naming the member when it can. root names the
// whole value in errors ("params", "result").
func decode[T any](raw []byte, root string) (T, error) {
	var v T
	t := reflect.TypeFor[T]()
	// Only this package's own types: a type of another package that embeds
	// one of them gets the decoder promoted, but not its own members read.
	if d, ok := any(&v).(paramsDecoder); ok && t.PkgPath() == pkgPath {
		f := readFields(raw, "")
		if f.err == nil {
			d.decodeParams(f)
		}
		if f.err != nil {
			var zero T
			return zero, f.err
		}
		return v, nil
	}
	raw = bytes.TrimSpace(raw)
	if t.Kind() == reflect.Struct && (len(raw) == 0 || string(raw) == "null") {
		raw = []byte("{}") // as for the params types: absent is {}
	}
	if req := requiredOf(t); req != nil {
		if len(raw) == 0 || raw[0] != '{' {
			var zero T
			return zero, &fieldError{root, "must be an object"}
		}
		if err := req.check(gjson.ParseBytes(raw), ""); err != nil {
			var zero T
			return zero, err
		}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero, jsonFieldError(err, root)
	}
	return v, nil
}

// fieldErrorOf turns the -32602 error of a nested decoder into the
// *fieldError it was made from, or into an error with its message.
func fieldErrorOf(e *Error) error {
	if field, ok := InvalidField(e); ok {
		return &fieldError{field, strings.TrimPrefix(e.Message, fmt.Sprintf("invalid params: %q ", field))}
	}
	return errors.New(e.Message)
}

// jsonFieldError converts an encoding/json error into a *fieldError naming
// the member when encoding/json says which. An error from a type's own
// UnmarshalJSON is returned as is.
func jsonFieldError(err error, root string) error {
	var fe *fieldError
	var e *Error
	if errors.As(err, &fe) || errors.As(err, &e) {
		return err
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := te.Field
		if path == "" {
			path = root
		}
		return &fieldError{path, "must be " + jsonKind(te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &fieldError{root, "must be valid JSON"}
	}
	return err
}

// jsonKind names the JSON kind that decodes into t.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "of another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of another type"
}

// required lists the members of a struct type tagged `acp:"required"`, and
// the nested struct members that have required members of their own.
type required struct {
	members []requiredMember
}

type requiredMember struct {
	name     string
	required bool      // tagged `acp:"required"`
	nested   *required // the member's struct type (through pointers and slices), if it has checks
	slice    bool      // the member is an array of nested
}

var (
	requiredMu    sync.Mutex
	requiredCache = map[reflect.Type]*required{}
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// requiredOf returns the checks of t, nil when it has none. Struct tags are
// read once per type.
func requiredOf(t reflect.Type) *required {
	requiredMu.Lock()
	defer requiredMu.Unlock()
	return requiredLocked(t)
}

func requiredLocked(t reflect.Type) *required {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// A type that decodes itself checks itself.
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	if r, ok := requiredCache[t]; ok {
		return r
	}
	requiredCache[t] = nil // a recursive type meets itself unchecked
	var r required
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		m := requiredMember{name: name, required: sf.Tag.Get("acp") == "required"}
		ft := sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice {
			m.slice = true
			ft = ft.Elem()
		}
		m.nested = requiredLocked(ft)
		if m.required || m.nested != nil {
			r.members = append(r.members, m)
		}
	}
	if len(r.members) == 0 {
		return nil
	}
	requiredCache[t] = &r
	return &r
}

// check reports the first required member of obj that is absent or null,
// or a nested value that is not an object; path prefixes member names.
func (r *required) check(obj gjson.Result, path string) error {
	for _, m := range r.members {
		v := members.Get(obj, m.name)
		p := m.name
		if path != "" {
			p = path + "." + m.name
		}
		if !v.Exists() || v.Type == gjson.Null {
			if m.required {
				return &fieldError{p, "is required"}
			}
			continue
		}
		if m.nested == nil {
			continue
		}
		if !m.slice {
			if err := m.nested.checkObject(v, p); err != nil {
				return err
			}
			continue
		}
		if !v.IsArray() {
			return &fieldError{p, "must be an array"}
		}
		i := 0
		var err error
		v.ForEach(func(_, item gjson.Result) bool {
			err = m.nested.checkObject(item, fmt.Sprintf("%s[%d]", p, i))
			i++
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *required) checkObject(v gjson.Result, path string) error {
	if !v.IsObject() {
		return &fieldError{path, "must be an object"}
	}
	return r.check(v, path)
}
