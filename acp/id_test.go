package acp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		ok     bool
		isNull bool
	}{
		{`0`, true, false},
		{`-0`, true, false},
		{`1e3`, true, false},
		{`123456789012345678901234567890`, true, false},
		{`-1.5E+2`, true, false},
		{`"1"`, true, false},
		{`""`, true, false},
		{`"a\u0041"`, true, false},
		{`null`, true, true},
		{``, false, false},
		{`true`, false, false},
		{`{}`, false, false},
		{`[1]`, false, false},
		{`01`, false, false},
		{`"unterminated`, false, false},
		{` 1`, false, false},
		{`1 `, false, false},
		{"1\n", false, false},
		{`nul`, false, false},
		{"\"a\xffb\"", false, false},       // its reply would be a line no peer accepts
		{"\"\xed\xa0\x80\"", false, false}, // an encoded surrogate is not UTF-8
	} {
		id, err := ParseID([]byte(tc.raw))
		if (err == nil) != tc.ok {
			t.Errorf("ParseID(%q) error = %v, want ok %v", tc.raw, err, tc.ok)
			continue
		}
		if !tc.ok {
			if !id.IsAbsent() {
				t.Errorf("ParseID(%q) failed with a present id %q", tc.raw, id.Raw())
			}
			continue
		}
		got := []any{id.String(), id.IsAbsent(), id.IsNull()}
		if diff := cmp.Diff([]any{tc.raw, false, tc.isNull}, got); diff != "" {
			t.Errorf("ParseID(%q) [String IsAbsent IsNull] (-want +got):\n%s", tc.raw, diff)
		}
	}
}

func TestParseIDCopies(t *testing.T) {
	raw := []byte(`"abc"`)
	id, err := ParseID(raw)
	if err != nil {
		t.Fatal(err)
	}
	raw[1] = 'X'
	if diff := cmp.Diff(`"abc"`, id.String()); diff != "" {
		t.Errorf("id changed with its input (-want +got):\n%s", diff)
	}
}

func TestIDConstructorsAndEquality(t *testing.T) {
	got := []string{IntID(0).String(), IntID(-42).String(), StringID("p-7").String(), StringID(`a"b`).String(), NullID.String(), ID{}.String()}
	want := []string{`0`, `-42`, `"p-7"`, `"a\"b"`, `null`, ``}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// Ids are compared as bytes: 1 and 1.0 and "1" are three ids.
	eq := []bool{
		IntID(1).Equal(IntID(1)),
		IntID(1).Equal(StringID("1")),
		mustParseID(t, `1`).Equal(mustParseID(t, `1.0`)),
		ID{}.Equal(ID{}),
		ID{}.Equal(NullID),
	}
	if diff := cmp.Diff([]bool{true, false, false, true, false}, eq); diff != "" {
		t.Errorf("Equal (-want +got):\n%s", diff)
	}
	if c := (ID{}).Clone(); !c.IsAbsent() {
		t.Errorf("Clone of the absent id is %q", c.Raw())
	}
	line := []byte(`{"jsonrpc":"2.0","id":77,"method":"x"}`)
	c := Classify(line).ID.Clone()
	clear(line)
	if diff := cmp.Diff(`77`, c.String()); diff != "" {
		t.Errorf("Clone aliases the line (-want +got):\n%s", diff)
	}
}

func mustParseID(t *testing.T, raw string) ID {
	t.Helper()
	id, err := ParseID([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestIDJSON(t *testing.T) {
	var v struct {
		A, B, C ID
		D       *ID
	}
	if err := json.Unmarshal([]byte(`{"A":1e3,"B":"x","C":null}`), &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	// C is present and null; D was absent and marshals as a nil pointer.
	if diff := cmp.Diff(`{"A":1e3,"B":"x","C":null,"D":null}`, string(out)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if !v.C.IsNull() || v.C.IsAbsent() {
		t.Errorf("null id decoded as %q (absent %v)", v.C.Raw(), v.C.IsAbsent())
	}
	for _, bad := range []string{`{"A":true}`, `{"A":{}}`, `{"A":[1]}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("Unmarshal(%s) accepted a non-id", bad)
		}
	}
	if out, _ := json.Marshal(ID{}); string(out) != "null" {
		t.Errorf("absent id marshals as %s, want null", out)
	}
}
