package acp

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzClassify checks Classify against encoding/json: it never panics,
// whatever it accepts encoding/json accepts and reads alike (method, id,
// params and result, the last duplicate winning), and whatever encoding/json
// and the UTF-8 check accept is not a parse error.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add([]byte(tc.line))
	}
	for _, bl := range benchLines {
		f.Add(bl.line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		m := Classify(line)
		if !bytes.Equal(line, orig) {
			t.Fatalf("Classify modified its input")
		}
		if m.ID.IsAbsent() != (m.Kind == KindNotification) {
			t.Fatalf("kind %v with id %q", m.Kind, m.ID.Raw())
		}
		if !m.ID.IsAbsent() {
			if _, err := ParseID(m.ID.Raw()); err != nil {
				t.Fatalf("kind %v with an id that is not a string, number or null: %q", m.Kind, m.ID.Raw())
			}
		}

		if m.Kind == KindInvalid {
			switch {
			case m.Err == nil:
				t.Fatalf("invalid without Err")
			case m.Err.Code == CodeParseError:
				if json.Valid(line) && utf8.Valid(line) {
					t.Fatalf("parse error on a line encoding/json accepts: %v", m.Err)
				}
				if !m.ID.IsNull() {
					t.Fatalf("parse error echoes id %q, want null", m.ID.Raw())
				}
			case m.Err.Code != CodeInvalidRequest:
				t.Fatalf("invalid with code %d", m.Err.Code)
			case !json.Valid(line):
				t.Fatalf("invalid request (not parse error) on a line encoding/json rejects")
			}
			return
		}

		// Accepted: encoding/json must agree.
		if !json.Valid(line) || !utf8.Valid(line) {
			t.Fatalf("accepted a line that is not valid JSON in UTF-8")
		}
		// UseNumber: a number beyond float64 (1e700) is valid JSON, and
		// Classify rightly leaves its range to the typed decoders.
		var anyMap map[string]any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&anyMap); err != nil || anyMap == nil {
			t.Fatalf("accepted a line encoding/json cannot decode as an object: %v", err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatalf("decoding into raw members: %v", err)
		}
		if v, _ := anyMap["jsonrpc"].(string); v != "2.0" {
			t.Fatalf("accepted jsonrpc %v", anyMap["jsonrpc"])
		}
		sameRaw(t, "id", m.ID.Raw(), raw["id"])

		switch m.Kind {
		case KindRequest, KindNotification:
			if method, ok := anyMap["method"].(string); !ok || method != m.Method {
				t.Fatalf("method %q, encoding/json reads %#v", m.Method, anyMap["method"])
			}
			want := raw["params"]
			if string(want) == "null" {
				want = nil
			}
			sameRaw(t, "params", m.Params, want)
			if m.Result != nil || m.Err != nil {
				t.Fatalf("call with a result or error")
			}
		case KindResponse:
			if _, ok := anyMap["method"]; ok {
				t.Fatalf("response with a method")
			}
			if m.Params != nil {
				t.Fatalf("response with params")
			}
			if (m.Result == nil) == (m.Err == nil) {
				t.Fatalf("response with result %q and error %v", m.Result, m.Err)
			}
			sameRaw(t, "result", m.Result, raw["result"])
			if m.Err != nil {
				var e Error
				if err := json.Unmarshal(raw["error"], &e); err != nil {
					t.Fatalf("accepted an error object encoding/json rejects: %v", err)
				}
				if e.Code != m.Err.Code || e.Message != m.Err.Message {
					t.Fatalf("error %d %q, encoding/json reads %d %q", m.Err.Code, m.Err.Message, e.Code, e.Message)
				}
			}
		default:
			t.Fatalf("unknown kind %v", m.Kind)
		}
	})
}

// sameRaw fails unless got and want are the same JSON text, or both absent.
func sameRaw(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("%s %q, encoding/json reads %q", what, got, want)
	}
	if got == nil {
		return
	}
	var g, w bytes.Buffer
	if err := json.Compact(&g, got); err != nil {
		t.Fatalf("%s %q is not JSON: %v", what, got, err)
	}
	if err := json.Compact(&w, want); err != nil {
		t.Fatalf("%s: encoding/json's %q: %v", what, want, err)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Fatalf("%s %s, encoding/json reads %s", what, g.Bytes(), w.Bytes())
	}
}
