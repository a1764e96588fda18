package members

import (
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/google/go-cmp/cmp"
)

func TestWalk(t *testing.T) {
	tests := []struct {
		obj  string
		ok   bool
		want []string // name=value of each member passed
	}{
		{`{}`, true, nil},
		{`{ }`, true, nil},
		{`{"a":1,"b":[2,{"c":3}],"a":"x"}`, true, []string{"a=1", `b=[2,{"c":3}]`, `a="x"`}},
		{`{ "a" : 1 , "\u0062" : null }`, true, []string{"a=1", "b=null"}},
		{`{"a":1}x`, false, []string{"a=1"}},
		{`{"a":1,}`, false, []string{"a=1"}},
		{`{"a":1,"b":[}`, false, []string{"a=1"}},
		{`{"a"`, false, nil},
		{`[1]`, false, nil},
		{``, false, nil},
		{"{\"a\":\"\xff\"}", false, nil},
	}
	for _, tt := range tests {
		var got []string
		ok := Walk([]byte(tt.obj), func(name string, val []byte) { got = append(got, name+"="+string(val)) })
		if ok != tt.ok {
			t.Errorf("Walk(%q) = %v, want %v", tt.obj, ok, tt.ok)
		}
		if _, _, valid := jsonscan.CheckObject([]byte(tt.obj)); len(tt.obj) > 0 && valid != ok {
			t.Errorf("Walk(%q) = %v, but CheckObject says %v", tt.obj, ok, valid)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Walk(%q) members (-want +got):\n%s", tt.obj, diff)
		}
		if tt.ok { // Each reads the same members of a valid object
			var each []string
			Each([]byte(tt.obj), func(name string, val []byte) { each = append(each, name+"="+string(val)) })
			if diff := cmp.Diff(tt.want, each); diff != "" {
				t.Errorf("Each(%q) members (-Walk +Each):\n%s", tt.obj, diff)
			}
		}
	}
}

// FuzzEach checks that Each never fails on bytes that are not valid, and
// agrees with Walk on those that are.
func FuzzEach(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[2,{"c":3}],"a":"x"}`, `{ "\u0062" : null }`, `{"a":"\"}`, `{"a"`, `{"a":}`, `{"a":1,`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		var each, walk []string
		Each(obj, func(name string, val []byte) { each = append(each, name+"="+string(val)) })
		if Walk(obj, func(name string, val []byte) { walk = append(walk, name+"="+string(val)) }) {
			if diff := cmp.Diff(walk, each); diff != "" {
				t.Fatalf("Each(%q) members (-Walk +Each):\n%s", obj, diff)
			}
		}
	})
}
