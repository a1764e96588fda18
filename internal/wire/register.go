package wire

import (
	"reflect"
	"sync"
)

// The types of package acp implement its unexported interfaces, which
// its decoders and its line encoder look for. A package generated from
// another ACP schema (ACP v2's, say) cannot implement them: it registers
// its types here instead, from an init function that acpgen -register
// writes, and package acp finds them by their reflect.Type.

// codec reads and writes one registered type.
type codec struct {
	decode func(dst any, f *Fields) // dst is a *T
	append func(v any, e *Encoder)  // v is a T
}

var codecs sync.Map // reflect.Type → codec

// Register makes package acp read T with decode, from a JSON object, and
// write it with app. It is safe for concurrent use; a later Register of
// the same type replaces the earlier.
func Register[T any](decode func(*T, *Fields), app func(T, *Encoder)) {
	codecs.Store(reflect.TypeFor[T](), codec{
		decode: func(dst any, f *Fields) { decode(dst.(*T), f) },
		append: func(v any, e *Encoder) { app(v.(T), e) },
	})
}

// Decoder returns the decoder registered for t: it reads f's object into
// dst, a pointer to a t.
func Decoder(t reflect.Type) (decode func(dst any, f *Fields), ok bool) {
	c, ok := codecs.Load(t)
	if !ok {
		return nil, false
	}
	return c.(codec).decode, true
}

// Appender returns the encoder registered for t: it writes v, a t.
func Appender(t reflect.Type) (app func(v any, e *Encoder), ok bool) {
	if t == nil {
		return nil, false
	}
	c, ok := codecs.Load(t)
	if !ok {
		return nil, false
	}
	return c.(codec).append, true
}
