package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestModes checks what each Mode makes of a member that is absent, null,
// valid or of the wrong type.
func TestModes(t *testing.T) {
	type result struct {
		Value  string
		Stored bool
		Err    string // the FieldError's reason; "" for none
	}
	tests := []struct {
		mode Mode
		want map[string]result // by the member's JSON; "" for absent
	}{
		{0, map[string]result{
			"": {}, "null": {Err: "must be a string"}, `"v"`: {"v", true, ""}, "1": {Err: "must be a string"}}},
		{Optional, map[string]result{
			"": {}, "null": {}, `"v"`: {"v", true, ""}, "1": {Err: "must be a string"}}},
		{Required, map[string]result{
			"": {Err: "is required"}, "null": {Err: "is required"}, `"v"`: {"v", true, ""}, "1": {Err: "must be a string"}}},
		{Required | Nullable, map[string]result{
			"": {Err: "is required"}, "null": {}, `"v"`: {"v", true, ""}, "1": {Err: "must be a string"}}},
		{Lenient, map[string]result{
			"": {}, "null": {}, `"v"`: {"v", true, ""}, "1": {}}},
		{Required | Lenient, map[string]result{
			"": {Err: "is required"}, "null": {}, `"v"`: {"v", true, ""}, "1": {}}},
	}
	for _, tt := range tests {
		for member, want := range tt.want {
			raw := `{}`
			if member != "" {
				raw = `{"k":` + member + `}`
			}
			f := Read([]byte(raw), "params")
			var got result
			got.Stored = f.String("k", &got.Value, tt.mode)
			var fe *FieldError
			if errors.As(f.Err(), &fe) {
				got.Err = fe.Reason
				if fe.Path != "k" {
					t.Errorf("mode %b, %s: error names %q, want k", tt.mode, raw, fe.Path)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mode %b, %s (-want +got):\n%s", tt.mode, raw, diff)
			}
		}
	}
}

type inner struct {
	ID   string
	Meta json.RawMessage
}

func (v *inner) decode(f *Fields) {
	f.String("id", &v.ID, Required)
	f.Meta(&v.Meta)
}

// TestNested checks that a nested object's failure fails its parent with
// the nested member's path, unless the parent reads it leniently, and
// that skipping invalid items keeps the others.
func TestNested(t *testing.T) {
	type outer struct {
		One  *inner
		List []inner
	}
	tests := []struct {
		name, raw string
		mode      Mode
		want      outer
		err       string // the path of the error; "" for none
	}{
		{"valid", `{"one":{"id":"a"},"list":[{"id":"b"}]}`, 0, outer{&inner{ID: "a"}, []inner{{ID: "b"}}}, ""},
		{"nested missing", `{"one":{}}`, 0, outer{}, "one.id"},
		{"nested missing, lenient", `{"one":{},"list":[{"id":"b"}]}`, Lenient, outer{nil, []inner{{ID: "b"}}}, ""},
		{"not an object, lenient", `{"one":[],"list":{}}`, Lenient, outer{}, ""},
		{"element missing", `{"list":[{"id":"a"},{}]}`, 0, outer{}, "list[1].id"},
		{"element missing, skipped", `{"list":[{"id":"a"},{},3,{"id":"c"}]}`, SkipInvalid, outer{List: []inner{{ID: "a"}, {ID: "c"}}}, ""},
		{"element missing, lenient", `{"list":[{"id":"a"},{}]}`, Lenient, outer{}, ""},
		{"empty list", `{"list":[]}`, 0, outer{List: []inner{}}, ""},
		{"meta not an object", `{"one":{"id":"a","_meta":[1]}}`, 0, outer{One: &inner{ID: "a"}}, ""},
		{"deep path", `{"list":[{"id":"a"},{"id":7}]}`, 0, outer{}, "list[1].id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Read([]byte(tt.raw), "params")
			var got outer
			OptObject(f, "one", tt.mode, &got.One, (*inner).decode)
			Objects(f, "list", tt.mode, &got.List, (*inner).decode)
			var path string
			if fe, ok := f.Err().(*FieldError); ok {
				path = fe.Path
			} else if f.Err() != nil {
				t.Fatalf("error %v is not a FieldError", f.Err())
			}
			if path != tt.err {
				t.Fatalf("error %v, want one naming %q", f.Err(), tt.err)
			}
			if tt.err != "" {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadRoot checks what Read makes of bytes that are not an object.
func TestReadRoot(t *testing.T) {
	for raw, want := range map[string]string{
		"[]": "must be an object", `"s"`: "must be an object", "{\"a\":\"\xff\"}": "must be valid UTF-8",
		`{"a":1,}`: "must be an object", strings.Repeat("[", 10000): "must be an object",
	} {
		f := Read([]byte(raw), "params")
		fe, ok := f.Err().(*FieldError)
		if !ok || fe.Path != "params" || fe.Reason != want {
			t.Errorf("Read(%.20q): %v, want %q %s", raw, f.Err(), "params", want)
		}
	}
	for _, raw := range []string{"", "null", " {} ", `{"a":1}`} {
		if err := Read([]byte(raw), "params").Err(); err != nil {
			t.Errorf("Read(%q): %v", raw, err)
		}
	}
}

// TestInt checks the range of a schema integer format.
func TestInt(t *testing.T) {
	for raw, want := range map[string]string{
		"0": "", "65535": "", "65536": "must be at most 65535", "-1": "must be at least 0",
		"1.5": "must be a non-negative integer", `"1"`: "must be a non-negative integer",
		"99999999999999999999": "must be a non-negative integer",
	} {
		f := Read([]byte(`{"v":`+raw+`}`), "params")
		var n int
		f.Int("v", &n, Required, 0, 65535)
		var got string
		if fe, ok := f.Err().(*FieldError); ok {
			got = fe.Reason
		}
		if got != want {
			t.Errorf("Int(%s): %q, want %q", raw, got, want)
		}
	}
}

// TestReadsForV2 checks the reads ACP v2's schema layer adds: a clearable
// enum, integers, and an array of one of two shapes.
func TestReadsForV2(t *testing.T) {
	type kind string
	f := Read([]byte(`{"a":null,"b":"x","n":[1,2],"bad":[1,-1],"opts":[{"v":1}],"groups":[{"g":1}]}`), "params")
	var a, b, c *kind
	Clearable(f, "a", &a, Lenient)
	Clearable(f, "b", &b, Lenient)
	Clearable(f, "c", &c, Lenient)
	if a == nil || *a != "" || b == nil || *b != "x" || c != nil {
		t.Errorf("Clearable: %v %v %v, want \"\", x and nil", a, b, c)
	}
	if !f.Null("a") || f.Null("b") || f.Null("c") {
		t.Error("Null misreads a member")
	}
	var n []int
	Ints(f, "n", Required, &n, 0, 10)
	if len(n) != 2 || n[1] != 2 {
		t.Errorf("Ints = %v", n)
	}
	var skipped []int
	Ints(f, "bad", SkipInvalid, &skipped, 0, 10)
	if len(skipped) != 1 || f.Err() != nil {
		t.Errorf("Ints skipping the invalid item = %v, %v", skipped, f.Err())
	}
	type item struct{ V int }
	dec := func(i *item, f *Fields) { f.Int("v", &i.V, 0, 0, 9) }
	dec2 := func(i *item, f *Fields) { f.Int("g", &i.V, Required, 0, 9) }
	var opts, groups []item
	if !EitherObjects(f, "opts", Required, "g", &opts, dec, &groups, dec2) || len(opts) != 1 || groups != nil {
		t.Errorf("EitherObjects without the member: %v %v", opts, groups)
	}
	opts = nil
	if !EitherObjects(f, "groups", Required, "g", &opts, dec, &groups, dec2) || len(groups) != 1 || opts != nil {
		t.Errorf("EitherObjects with the member: %v %v", opts, groups)
	}
	Ints(f, "bad", Required, &n, 0, 10)
	var fe *FieldError
	if !errors.As(f.Err(), &fe) || fe.Path != "bad[1]" {
		t.Errorf("Ints with a negative item: %v, want bad[1] refused", f.Err())
	}
}
