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
