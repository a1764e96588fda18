package acp

import (
	"github.com/acpkit/acpkit/internal/wire"
)

// The schema layer, generated from the schema in schema/ with the naming
// table schema/names.txt:
//
//go:generate go run ../internal/acpgen -schema schema -names schema/names.txt -pkg acp -out .

// This file holds what the generated schema layer (schema_gen.go,
// codec_gen.go and methods_gen.go) needs of the package beside the types
// written by hand (custom.go and the files the naming table names).

// jsonAppender is implemented by the package's types, which encode
// themselves with internal/wire.
type jsonAppender interface {
	appendJSON(e *wire.Encoder)
}

// fieldsDecoder is implemented by the package's object types, which read
// themselves member by member, checking what the schema requires. It is
// unexported so that the set stays in this package; other types declare
// their required members with `acp:"required"` tags.
type fieldsDecoder interface {
	decodeFields(f *wire.Fields)
}

// unmarshalParams implements json.Unmarshaler for the params types, so
// that encoding/json applies the same checks as DecodeParams wherever they
// are nested. By the Unmarshaler convention, null is a no-op.
func unmarshalParams[T any](data []byte, dst *T) error {
	if isNull(data) {
		return nil
	}
	v, err := DecodeParams[T](data)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// unmarshalList implements json.Unmarshaler for a list of union variants,
// such as [ContentBlocks]: a variant that breaks the schema is an [*Error]
// naming it ("[1].text"), as from DecodeParams. null leaves *dst
// unchanged.
func unmarshalList[S ~[]T, T any](data []byte, dst *S, read func(*wire.Fields) T) error {
	if isNull(data) {
		return nil
	}
	items := wire.ScanArray(wire.TrimSpace(data), true)
	if items == nil {
		return invalidParams(&wire.FieldError{Reason: "must be an array"})
	}
	out := make(S, 0, len(items))
	for i, item := range items {
		f := wire.ReadValid(item)
		var v T
		if f.Err() == nil {
			v = read(f)
		}
		if err := f.Err(); err != nil {
			return invalidParams(underPath(err, wire.IndexPath("", i)))
		}
		out = append(out, v)
	}
	*dst = out
	return nil
}

// isNull reports whether raw, white space aside, is the JSON null.
func isNull(raw []byte) bool { return string(wire.TrimSpace(raw)) == "null" }
