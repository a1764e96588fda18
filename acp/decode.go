package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/acpkit/acpkit/internal/members"
	"github.com/acpkit/acpkit/internal/wire"
	"github.com/tidwall/gjson"
)

// This file holds the one decode path for params and results. Every value
// is read member by member, so that an error names the member: the
// package's types with their generated decoders (fieldsDecoder), and
// every other struct, an extension's own types included, from its fields'
// json and acp tags, the members' values with encoding/json.

// pkgPath is this package's import path.
var pkgPath = reflect.TypeFor[Error]().PkgPath()

// DecodeParams decodes the params of a request or notification into T,
// checking every member as the schema says:
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
// member counts as absent where the schema allows null, and of duplicated
// members the last wins, as with encoding/json. The members the schema
// says to read leniently are read as their default when invalid, and
// their arrays' invalid items are dropped; every other member is read
// strictly. The error, when not nil, is always an [*Error] with code
// [CodeInvalidParams] whose message names the offending member, for example
// `invalid params: "cwd" is required`, and whose Data is {"field":"cwd"}
// (nested members read "mcpServers[0].name", "prompt[1].text");
// [InvalidField] reads it back.
//
// T is one of this package's params types, a type generated from an ACP
// schema into another package of this module, or any other type, such as
// an extension's params. A struct is read member by member, by the names its
// json tags give (matched exactly, unlike encoding/json), and a member
// whose field is tagged `acp:"required"` must be present and not null, in
// nested structs and slices of structs too; each member's value is decoded
// with encoding/json. A type that implements [json.Unmarshaler], or
// embeds a struct, is decoded whole with encoding/json.
//
// The decoded value owns its memory: it does not alias raw.
func DecodeParams[T any](raw []byte) (T, error) {
	v, err := decode[T](raw, "params")
	if err != nil {
		return v, paramsError(err)
	}
	return v, nil
}

// paramsError returns the *Error replied for err, a failure to decode
// params.
func paramsError(err error) error {
	var e *Error
	if errors.As(err, &e) { // a type's own UnmarshalJSON chose the reply
		return e
	}
	return invalidParams(err)
}

// DecodeResult decodes the result member of a success response into T with
// the checks of [DecodeParams]: the members the schema requires must be
// present and of the right type ([Method.Call] calls it), and those it
// reads leniently are read so. Unknown members are ignored. A result that
// fails is an error matching
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
	var fe *wire.FieldError
	if errors.As(err, &fe) {
		return fe.Path, true
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
// it returns a *wire.FieldError naming the member when it can. root names
// the whole value in errors ("params", "result").
func decode[T any](raw []byte, root string) (T, error) {
	var v T
	t := reflect.TypeFor[T]()
	// Only this package's own types: a type of another package that embeds
	// one of them gets the decoder promoted, but not its own members read.
	if d, ok := any(&v).(fieldsDecoder); ok && t.PkgPath() == pkgPath {
		f := wire.Read(raw, root)
		if f.Err() == nil {
			d.decodeFields(f)
		}
		if err := f.Err(); err != nil {
			var zero T
			return zero, err
		}
		return v, nil
	}
	// A type generated into another package of the module registers its
	// decoder instead.
	if dec, ok := wire.Decoder(t); ok {
		f := wire.Read(raw, root)
		if f.Err() == nil {
			dec(&v, f)
		}
		if err := f.Err(); err != nil {
			var zero T
			return zero, err
		}
		return v, nil
	}
	raw = wire.TrimSpace(raw)
	if t.Kind() == reflect.Struct && (len(raw) == 0 || string(raw) == "null") {
		raw = []byte("{}") // as for the params types: absent is {}
	}
	info := structOf(t)
	if info == nil {
		if err := json.Unmarshal(raw, &v); err != nil {
			var zero T
			return zero, jsonFieldError(err, root)
		}
		return v, nil
	}
	f := wire.Read(raw, root)
	if f.Err() == nil {
		info.decode(f, reflect.ValueOf(&v).Elem())
	}
	if err := f.Err(); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// fieldErrorOf turns the -32602 error of a nested decoder into the
// *wire.FieldError it was made from, or into an error with its message.
func fieldErrorOf(e *Error) error {
	if field, ok := InvalidField(e); ok {
		return &wire.FieldError{Path: field, Reason: strings.TrimPrefix(e.Message, fmt.Sprintf("invalid params: %q ", field))}
	}
	return errors.New(e.Message)
}

// invalidParams converts a decoding failure into the -32602 error replied to
// the peer. Its message reads `invalid params: "cwd" is required` and its
// data is {"field":"cwd"}, so a program can tell which member was wrong.
func invalidParams(err error) *Error {
	fe, ok := err.(*wire.FieldError)
	if !ok {
		return &Error{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return InvalidParam(fe.Path, "invalid params: %s", fe.Error())
}

// InvalidParam returns an invalid-params error (-32602) naming the member
// field of the params ("cwd", "prompt[1]"), as the decoder's own are
// named, with a message formatted as with [fmt.Sprintf]: for params that
// decode but that a handler refuses, such as a relative path. Its Data is
// {"field": field}, which [InvalidField] reads.
func InvalidParam(field, format string, args ...any) *Error {
	data, _ := json.Marshal(struct {
		Field string `json:"field"`
	}{field}) // a struct of one string always marshals
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...), Data: data}
}

// jsonFieldError converts an error of encoding/json decoding the value
// at path into a *wire.FieldError naming the member, as precisely as the
// error tells. An *Error of a type's own UnmarshalJSON at the root is
// returned as is.
func jsonFieldError(err error, path string) error {
	var fe *wire.FieldError
	var e *Error
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &fe):
		return &wire.FieldError{Path: joinPath(path, fe.Path), Reason: fe.Reason}
	case errors.As(err, &e):
		if path == "params" || path == "result" {
			return e
		}
		if nested, ok := fieldErrorOf(e).(*wire.FieldError); ok {
			return &wire.FieldError{Path: joinPath(path, nested.Path), Reason: nested.Reason}
		}
		return &wire.FieldError{Path: path, Reason: e.Message}
	case errors.As(err, &te):
		return &wire.FieldError{Path: joinPath(path, te.Field), Reason: "must be " + jsonKind(te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &wire.FieldError{Path: path, Reason: "must be valid JSON"}
	}
	return &wire.FieldError{Path: path, Reason: "is malformed"}
}

// underPath returns err, a decoding failure of a value read with a
// relative path, with its path put under path, the value's own.
func underPath(err error, path string) error {
	if fe, ok := err.(*wire.FieldError); ok {
		return &wire.FieldError{Path: joinPath(path, fe.Path), Reason: fe.Reason}
	}
	return err
}

// joinPath appends the relative member path rel ("id", "[2].text", "")
// to path.
func joinPath(path, rel string) string {
	switch {
	case rel == "":
		return path
	case path == "" || path == "params" || path == "result":
		return strings.TrimPrefix(rel, ".")
	case rel[0] == '[':
		return path + rel
	}
	return path + "." + rel
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

// structInfo is how the generic decoder reads a struct type: member by
// member, from the fields' json and acp tags, read once per type. Members
// are matched by exact name, as the package's own decoders match them.
type structInfo struct {
	fields []fieldInfo
}

type fieldInfo struct {
	name     string
	index    int
	required bool        // tagged acp:"required": absent or null is an error
	nested   *structInfo // a struct read member by member (through a pointer or a slice); nil for encoding/json
	ptr      bool        // the field is a pointer to nested
	slice    bool        // the field is a slice, read element by element
	str      bool        // the field is a string kind without a decoder of its own
}

var (
	structDone  sync.Map // reflect.Type → *structInfo, complete: read without the lock
	structMu    sync.Mutex
	structCache = map[reflect.Type]*structInfo{} // under structMu, while building
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// structOf returns how to read t, or nil when t is not a struct, decodes
// itself (implements json.Unmarshaler), or embeds a field (whose promotion
// rules encoding/json knows): encoding/json reads those whole.
func structOf(t reflect.Type) *structInfo {
	if info, ok := structDone.Load(t); ok {
		return info.(*structInfo)
	}
	structMu.Lock()
	defer structMu.Unlock()
	info := structLocked(t)
	structDone.Store(t, info)
	return info
}

func structLocked(t reflect.Type) *structInfo {
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	if info, ok := structCache[t]; ok {
		return info
	}
	info := &structInfo{}
	structCache[t] = info // a recursive type meets itself
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			structCache[t] = nil
			return nil
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fi := fieldInfo{name: name, index: i, required: sf.Tag.Get("acp") == "required",
			str: sf.Type.Kind() == reflect.String && !reflect.PointerTo(sf.Type).Implements(unmarshalerType)}
		switch ft := sf.Type; {
		case ft.Kind() == reflect.Pointer:
			fi.nested, fi.ptr = structLocked(ft.Elem()), true
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 && !reflect.PointerTo(ft).Implements(unmarshalerType):
			// Walked element by element, so that errors name the index.
			fi.nested, fi.slice = structLocked(ft.Elem()), true
		default:
			fi.nested = structLocked(ft)
		}
		info.fields = append(info.fields, fi)
	}
	return info
}

// decode reads the members of f into v, a struct of info's type. Its
// errors name members relative to f's object, as every reader's do.
func (info *structInfo) decode(f *wire.Fields, v reflect.Value) {
	for _, fi := range info.fields {
		mode := wire.Optional
		if fi.required {
			mode = wire.Required
		}
		raw := f.Value(fi.name, mode, "")
		if f.Err() != nil {
			return
		}
		if raw == nil {
			continue
		}
		sub := fi.name
		dst := v.Field(fi.index)
		switch {
		case fi.slice:
			items := wire.ScanArray(raw, false)
			if items == nil {
				f.Fail(sub, "must be an array")
				return
			}
			out := reflect.MakeSlice(dst.Type(), 0, len(items))
			for i, item := range items {
				itemPath := wire.IndexPath(sub, i)
				elem := reflect.New(dst.Type().Elem()).Elem()
				if fi.nested == nil {
					if err := json.Unmarshal(item, elem.Addr().Interface()); err != nil {
						f.FailWith(jsonFieldError(err, itemPath))
					}
				} else if o := wire.ReadValid(item); o.Err() != nil {
					f.Fail(itemPath, "must be an object")
				} else {
					fi.nested.decode(o, elem)
					if o.Err() != nil {
						f.FailWith(underPath(o.Err(), itemPath))
					}
				}
				out = reflect.Append(out, elem)
				if f.Err() != nil {
					dst.Set(out)
					return
				}
			}
			dst.Set(out) // present, even empty
		case fi.str && raw[0] == '"':
			// Without encoding/json: the object was validated whole.
			dst.SetString(wire.Unescape(raw[1 : len(raw)-1]))
		case fi.nested == nil:
			if err := json.Unmarshal(raw, dst.Addr().Interface()); err != nil {
				f.FailWith(jsonFieldError(err, sub))
			}
		default:
			o := wire.ReadValid(raw)
			if o.Err() != nil {
				f.Fail(sub, "must be an object")
				return
			}
			if fi.ptr {
				dst.Set(reflect.New(dst.Type().Elem()))
				dst = dst.Elem()
			}
			fi.nested.decode(o, dst)
			if o.Err() != nil {
				f.FailWith(underPath(o.Err(), sub))
			}
		}
		if f.Err() != nil {
			return
		}
	}
}
