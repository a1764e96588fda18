package wire

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

var appendStringSeeds = []string{
	"", "plain", "eight by", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"<script>&amp;</script>", "\u2028\u2029 and \u2027\u202a", "é中😀\ufffd",
	"\xff", "ok\xc0", "\xed\xa0\x80", "tab\there, then a much longer run of plain text\n",
	"\"\"\"\"\"\"\"\"\"", strings.Repeat("x", 15) + "<",
}

// TestAppendString checks AppendString against encoding/json, which the
// generated appenders must match byte for byte.
func TestAppendString(t *testing.T) {
	for _, s := range appendStringSeeds {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}

// FuzzAppendString checks AppendString against encoding/json on every
// string, and that what it writes is valid JSON in valid UTF-8, so that
// the lines built from it need no check.
func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		got := AppendString(nil, s)
		if string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if !jsonscan.Valid(got) {
			t.Fatalf("AppendString(%q) = %q, not valid JSON", s, got)
		}
	})
}

// TestFloat checks Encoder.Float against encoding/json, and that it
// refuses what JSON cannot hold.
func TestFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 1e-6, 1e-7, 123456789, 1e20, 1e21, 1.5e300, -2.5e-9, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		var e Encoder
		e.Reset(nil)
		e.Float(f)
		want, _ := json.Marshal(f)
		var back float64
		if err := json.Unmarshal(e.Bytes(), &back); err != nil || back != f {
			t.Errorf("Float(%v) = %s, which reads back as %v (%v); encoding/json writes %s", f, e.Bytes(), back, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		var e Encoder
		e.Reset(nil)
		if e.Float(f); e.Err() == nil {
			t.Errorf("Float(%v) = %s, want an error", f, e.Bytes())
		}
	}
}

// TestStringMap checks that a map is written as encoding/json writes it,
// its members sorted by name.
func TestStringMap(t *testing.T) {
	m := map[string]string{"b": "2", "a": "1", "<": ">", "": ""}
	var e Encoder
	e.Reset(nil)
	e.StringMap(m)
	want, _ := json.Marshal(m)
	if string(e.Bytes()) != string(want) {
		t.Errorf("StringMap = %s, want %s", e.Bytes(), want)
	}
}

// TestRaw checks that bytes from the caller are compacted, refused when
// they are not JSON, and mark the value unchecked.
func TestRaw(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"{ \"a\" :\n[ 1 , \" x \" ] }", `{"a":[1," x "]}`},
	} {
		var e Encoder
		e.Reset(nil)
		e.Raw([]byte(tt.raw))
		if got, err := e.Result(); err != nil || string(got) != tt.want || !e.Unchecked() {
			t.Errorf("Raw(%q) = %s, %v (unchecked %v); want %s", tt.raw, got, err, e.Unchecked(), tt.want)
		}
	}
	for _, raw := range []string{"", `{"a": }`, "{ nope"} {
		var e Encoder
		e.Reset(nil)
		if e.Raw([]byte(raw)); e.Err() != ErrNotJSON {
			t.Errorf("Raw(%q): %v, want ErrNotJSON", raw, e.Err())
		}
	}
}

// TestTagged checks that Tagged writes the outer tag first and drops the
// inner object's member of the same name.
func TestTagged(t *testing.T) {
	tests := []struct{ inner, want string }{
		{`{"state":"idle","stopReason":"end_turn"}`, `{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}`},
		{`{"sessionUpdate":"x","state":"odd","n":[1, 2]}`, `{"sessionUpdate":"state_update","state":"odd","n":[1,2]}`},
		{`{}`, `{"sessionUpdate":"state_update"}`},
	}
	for _, tt := range tests {
		var e Encoder
		e.Tagged("sessionUpdate", "state_update", func(e *Encoder) { e.Raw([]byte(tt.inner)) })
		got, err := e.Result()
		if err != nil || string(got) != tt.want {
			t.Errorf("Tagged(%s) = %s, %v; want %s", tt.inner, got, err, tt.want)
		}
	}
	var e Encoder
	e.Tagged("k", "v", func(e *Encoder) { e.Fail(ErrNil); e.Null() })
	if _, err := e.Result(); !errors.Is(err, ErrNil) {
		t.Errorf("Tagged of a failed inner object: %v, want ErrNil", err)
	}
}
