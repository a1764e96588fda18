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

func init() {
	// The UnmarshalJSON methods of the params types, here and in the
	// schema layers generated into other packages, fail as DecodeParams
	// does.
	wire.ParamsError = paramsError
	// The types written by hand here that package acp/acpv2's schema
	// layer uses too, as its naming table says: the JSON-RPC id and
	// error, and the shapes ACP v2 keeps from v1.
	wire.RegisterValue(readID, appendID)
	wire.Register((*Error).decodeFields, Error.appendJSON)
	wire.Register((*ResourceContents).decodeFields, ResourceContents.appendJSON)
	wire.Register((*MCPMessageResult).decodeFields, MCPMessageResult.appendJSON)
}
