package members

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestGet(t *testing.T) {
	tests := []struct {
		json, name, want string // want is the member's raw JSON; "" when absent
	}{
		{`{"a":1,"b":2}`, "b", `2`},
		{`{"a":1,"a":2}`, "a", `2`},                // the last occurrence wins
		{`{"a\u002eb":1,"a":{"b":2}}`, "a.b", `1`}, // escaped name, not a path
		{`{"a":{"b":2}}`, "a.b", ``},               // a path is not a name
		{`{"@this":1,"#":2}`, "@this", `1`},        // no modifier
		{`{"*":1,"x":2}`, "*", `1`},                // no wildcard
		{`{"a":null}`, "a", `null`},                // null is present
		{`[{"a":1}]`, "a", ``},                     // not an object
		{`"a"`, "a", ``},
		{`{}`, "a", ``},
	}
	for _, tt := range tests {
		if got := Get(gjson.Parse(tt.json), tt.name).Raw; got != tt.want {
			t.Errorf("Get(%s, %q) = %q, want %q", tt.json, tt.name, got, tt.want)
		}
	}
}

func TestGetAll(t *testing.T) {
	tests := []struct {
		json  string
		names []string
		want  []string // raw JSON per name; "" when absent
	}{
		{`{"a":1,"b":2,"c":3}`, []string{"c", "a", "z"}, []string{`3`, `1`, ``}},
		{`{"a":1,"b":2,"a":"x"}`, []string{"a", "b"}, []string{`"x"`, `2`}},
		{`{"a\u002eb":1}`, []string{"a.b"}, []string{`1`}},
		{`[1,2]`, []string{"a", "b"}, []string{``, ``}},
		{`{"a":1}`, nil, []string{}},
	}
	for _, tt := range tests {
		results := GetAll(gjson.Parse(tt.json), tt.names...)
		got := make([]string, len(results))
		for i, r := range results {
			got[i] = r.Raw
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("GetAll(%s, %q) (-want +got):\n%s", tt.json, tt.names, diff)
		}
	}
}
