package wire

import (
	"reflect"
	"testing"
)

type registered struct{ Name string }

func (r *registered) decode(f *Fields) { f.String("name", &r.Name, Required) }

func (r registered) append(e *Encoder) {
	e.Open()
	e.Key("name")
	e.String(r.Name)
	e.Close()
}

// TestRegister checks that a registered type is found by its type, and
// read and written with its codec.
func TestRegister(t *testing.T) {
	typ := reflect.TypeFor[registered]()
	if _, ok := Decoder(typ); ok {
		t.Fatal("a type is registered before Register")
	}
	Register((*registered).decode, registered.append)
	dec, ok := Decoder(typ)
	app, ok2 := Appender(typ)
	if !ok || !ok2 {
		t.Fatal("the registered type is not found")
	}
	var got registered
	f := Read([]byte(`{"name":"x"}`), "params")
	dec(&got, f)
	if f.Err() != nil || got.Name != "x" {
		t.Errorf("decoded %+v, %v", got, f.Err())
	}
	var e Encoder
	e.Reset(nil)
	app(registered{Name: "y"}, &e)
	if string(e.Bytes()) != `{"name":"y"}` {
		t.Errorf("encoded %s", e.Bytes())
	}
	if _, ok := Appender(nil); ok {
		t.Error("Appender(nil) found a codec")
	}
}

type registeredValue string

// TestRegisterValue checks that the typed lookups find what Register and
// RegisterValue registered, and panic for what they did not.
func TestRegisterValue(t *testing.T) {
	RegisterValue(func(f *Fields, key string, m Mode, dst *registeredValue) bool {
		var s string
		ok := f.String(key, &s, m)
		*dst = registeredValue(s)
		return ok
	}, func(e *Encoder, v registeredValue) { e.String(string(v)) })
	Register((*registered).decode, registered.append)
	read, app := ValueReaderFor[registeredValue](), ValueAppenderFor[registeredValue]()
	var v registeredValue
	if f := Read([]byte(`{"k":"x"}`), "params"); !read(f, "k", Required, &v) || v != "x" {
		t.Errorf("read %q, %v", v, f.Err())
	}
	var e Encoder
	app(&e, "y")
	if string(e.Bytes()) != `"y"` {
		t.Errorf("appended %s", e.Bytes())
	}
	var r registered
	DecoderFor[registered]()(&r, Read([]byte(`{"name":"z"}`), "params"))
	if r.Name != "z" {
		t.Errorf("decoded %+v", r)
	}
	if _, ok := Decoder(reflect.TypeFor[registeredValue]()); ok {
		t.Error("Decoder found an object codec for a value's")
	}
	for name, lookup := range map[string]func(){
		"a value's object decoder": func() { DecoderFor[registeredValue]() },
		"an object's value reader": func() { ValueReaderFor[registered]() },
		"an unregistered type's":   func() { AppenderFor[struct{ X int }]() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			lookup()
		}()
	}
}
