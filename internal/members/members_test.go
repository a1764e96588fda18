package members

import (
	"math"
	"testing"
	"time"

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

func TestValues(t *testing.T) {
	known := func(s string) (string, bool) { return "known", s == "k" }
	type values struct {
		String string
		Raw    string
		Object string
		Int    int64
	}
	tests := []struct {
		in   string
		want values
	}{
		{`"s"`, values{"s", `"s"`, "", 0}},
		{`"k"`, values{"known", `"k"`, "", 0}},
		{`"a\nb"`, values{"a\nb", `"a\nb"`, "", 0}},
		{`{"a":1}`, values{"", `{"a":1}`, `{"a":1}`, 0}},
		{`12.9`, values{"", `12.9`, "", 12}},
		{`1e30`, values{"", `1e30`, "", math.MaxInt64}},
		{`null`, values{"", `null`, "", 0}},
		{``, values{}},
	}
	for _, tt := range tests {
		r := gjson.Parse(View([]byte(tt.in)))
		got := values{String(r, known), string(Raw(r)), string(Object(r)), Int(r)}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	ms := []int64{-1, 0, 1500, math.MaxInt64}
	want := []time.Duration{0, 0, 1500 * time.Millisecond, math.MaxInt64}
	var got []time.Duration
	for _, n := range ms {
		got = append(got, Millis(n))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Millis(%d) mismatch (-want +got):\n%s", ms, diff)
	}
}
