package wire

import (
	"errors"
	"testing"
)

type params struct{ Name string }

func (p *params) decode(f *Fields) { f.String("name", &p.Name, Required) }

// TestUnmarshalParams checks that UnmarshalParams and UnmarshalList read
// as the generated decoders do, leave the destination alone on null, and
// fail through ParamsError.
func TestUnmarshalParams(t *testing.T) {
	var p params
	if err := UnmarshalParams([]byte(`{"name":"a"}`), &p, (*params).decode); err != nil || p.Name != "a" {
		t.Fatalf("UnmarshalParams = %+v, %v", p, err)
	}
	if err := UnmarshalParams([]byte(` null `), &p, (*params).decode); err != nil || p.Name != "a" {
		t.Errorf("UnmarshalParams(null) = %+v, %v; want it unchanged", p, err)
	}
	var fe *FieldError
	if err := UnmarshalParams([]byte(`{}`), &p, (*params).decode); !errors.As(err, &fe) || fe.Path != "name" {
		t.Errorf("UnmarshalParams({}) = %v, want the name missing", err)
	}

	read := func(f *Fields) params {
		var p params
		p.decode(f)
		return p
	}
	var list []params
	if err := UnmarshalList([]byte(`[{"name":"a"},{"name":"b"}]`), &list, read); err != nil || len(list) != 2 || list[1].Name != "b" {
		t.Fatalf("UnmarshalList = %+v, %v", list, err)
	}
	if err := UnmarshalList([]byte(`[{"name":"a"},{}]`), &list, read); !errors.As(err, &fe) || fe.Path != "[1].name" {
		t.Errorf("UnmarshalList with a bad item = %v, want [1].name", err)
	}
	if err := UnmarshalList([]byte(`{}`), &list, read); err == nil {
		t.Error("UnmarshalList of an object succeeded")
	}

	wrapped := errors.New("wrapped")
	saved := ParamsError
	defer func() { ParamsError = saved }()
	ParamsError = func(err error) error { return errors.Join(wrapped, err) }
	if err := UnmarshalParams([]byte(`{}`), &p, (*params).decode); !errors.Is(err, wrapped) {
		t.Errorf("UnmarshalParams does not fail through ParamsError: %v", err)
	}
}
