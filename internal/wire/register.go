package wire

import (
	"fmt"
	"reflect"
	"sync"
)

// The types of package acp implement its unexported interfaces, which
// its decoders and its line encoder look for. A package generated from
// another ACP schema (ACP v2's, acp/acpv2) cannot implement them: it
// registers its types here instead, from an init function that acpgen
// -register writes, and package acp finds them by their reflect.Type.
//
// The other way round, such a package uses a few of acp's own types (the
// JSON-RPC id and error, shapes both schemas share) whose codecs acp
// registers, and finds them with [DecoderFor], [AppenderFor],
// [ValueReaderFor] and [ValueAppenderFor].

// codec reads and writes one registered type.
type codec struct {
	decode func(dst any, f *Fields) // dst is a *T
	append func(v any, e *Encoder)  // v is a T
	// typed holds the functions as registered: a func(*T, *Fields) and a
	// func(T, *Encoder) for an object, or a func(*Fields, string, Mode,
	// *T) bool and a func(*Encoder, T) for a value.
	typedDecode, typedAppend any
}

var codecs sync.Map // reflect.Type → codec

// Register makes package acp read T with decode, from a JSON object, and
// write it with app. It is safe for concurrent use; a later Register of
// the same type replaces the earlier.
func Register[T any](decode func(*T, *Fields), app func(T, *Encoder)) {
	codecs.Store(reflect.TypeFor[T](), codec{
		decode:      func(dst any, f *Fields) { decode(dst.(*T), f) },
		append:      func(v any, e *Encoder) { app(v.(T), e) },
		typedDecode: decode,
		typedAppend: app,
	})
}

// RegisterValue registers the codec of T, a value that is not always an
// object (a JSON-RPC id): read reads member key of f into dst, reporting
// whether it did, and app writes v.
func RegisterValue[T any](read func(f *Fields, key string, m Mode, dst *T) bool, app func(e *Encoder, v T)) {
	codecs.Store(reflect.TypeFor[T](), codec{typedDecode: read, typedAppend: app})
}

// Decoder returns the decoder registered for t with [Register]: it reads
// f's object into dst, a pointer to a t.
func Decoder(t reflect.Type) (decode func(dst any, f *Fields), ok bool) {
	c, ok := codecs.Load(t)
	if !ok || c.(codec).decode == nil {
		return nil, false
	}
	return c.(codec).decode, true
}

// Appender returns the encoder registered for t with [Register]: it
// writes v, a t.
func Appender(t reflect.Type) (app func(v any, e *Encoder), ok bool) {
	if t == nil {
		return nil, false
	}
	c, ok := codecs.Load(t)
	if !ok || c.(codec).append == nil {
		return nil, false
	}
	return c.(codec).append, true
}

// DecoderFor returns the decoder registered for T with [Register]. It
// panics when there is none: generated code calls it from a package
// variable's initialiser, so that the mistake shows at init.
func DecoderFor[T any]() func(*T, *Fields) { return lookup[T, func(*T, *Fields)](true) }

// AppenderFor returns the encoder registered for T with [Register]; it
// panics when there is none, as [DecoderFor] does.
func AppenderFor[T any]() func(T, *Encoder) { return lookup[T, func(T, *Encoder)](false) }

// ValueReaderFor returns the reader registered for T with
// [RegisterValue]; it panics when there is none, as [DecoderFor] does.
func ValueReaderFor[T any]() func(*Fields, string, Mode, *T) bool {
	return lookup[T, func(*Fields, string, Mode, *T) bool](true)
}

// ValueAppenderFor returns the encoder registered for T with
// [RegisterValue]; it panics when there is none, as [DecoderFor] does.
func ValueAppenderFor[T any]() func(*Encoder, T) { return lookup[T, func(*Encoder, T)](false) }

// lookup returns T's registered decoder (decode set) or encoder, which
// must be an F.
func lookup[T, F any](decode bool) F {
	t := reflect.TypeFor[T]()
	if c, ok := codecs.Load(t); ok {
		fn := c.(codec).typedAppend
		if decode {
			fn = c.(codec).typedDecode
		}
		if f, ok := fn.(F); ok {
			return f
		}
	}
	panic(fmt.Sprintf("wire: no codec of type %v is registered for %v", reflect.TypeFor[F](), t))
}
