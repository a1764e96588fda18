package msghead

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	tests := []struct {
		head string
		want Head
	}{
		{`{"jsonrpc":"2.0","id":7,"result":"xxx`, Head{Response, []byte("7")}},
		{` { "id" : "a" , "error" : {"code":`, Head{Response, []byte(`"a"`)}},
		{`{"id":1,"id":2,"result":`, Head{Response, []byte("2")}},
		{`{"x":{"result":1},"id":3,"result":[`, Head{Response, []byte("3")}},
		{`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"te`, Head{Request, []byte("7")}},
		{`{"method":"m","id":"r1","params":[`, Head{Request, []byte(`"r1"`)}},
		{`{"jsonrpc":"2.0","id":4,"method":"m","result":`, Head{Request, []byte("4")}}, // invalid, but a request's id
		{`{"jsonrpc":"2.0","id":4,"method":"m"}`, Head{Request, []byte("4")}},          // whole
		{`{"jsonrpc":"2.0","id":{},"method":"m","params":[`, Head{Request, []byte("{}")}},
		{`{"id":3,"result"`, Head{}}, // the colon is cut off
		{`{"id":3,"resul`, Head{}},
		{`{"jsonrpc":"2.0","result":"xxx`, Head{}},               // no id before the result
		{`{"jsonrpc":"2.0","method":"m","params":["xxx`, Head{}}, // a notification, or a request whose id comes later
		{`{"jsonrpc":"2.0","method":"m","params":[1],"id":5}`, Head{Request, []byte("5")}},
		{`{"jsonrpc":"2.0","method":"m","params":[1],"id":5`, Head{}}, // the id is cut off
		{`{"jsonrpc":"2.0","id":5,"meth`, Head{}},
		{`{"\u0069d":4,"result":`, Head{}}, // escaped names are not read
		{`{"id":4,"\u006dethod":"m","params":`, Head{}},
		{`{"id":4}`, Head{}},
		{`[{"id":4,"result":`, Head{}},
		{`{"id":4 "result":`, Head{}},
		{``, Head{}},
		{`{`, Head{}},
		{`{}`, Head{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Read([]byte(tt.head))); diff != "" {
			t.Errorf("Read(%s) (-want +got):\n%s", tt.head, diff)
		}
	}
}

// FuzzRead reads the heads of messages: what it takes for an id is one
// valid JSON value from the head, and when the head is the start of a
// valid message whose id and method are written once each, unescaped, a request's
// id is the message's.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":"xxx"}`), 20)
	f.Add([]byte(`{"id":"a","error":{"code":1,"message":"m"}}`), 12)
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":[1,2,3]}}`), 40)
	f.Add([]byte(`{"method":"m","params":[],"id":null}`), 100)
	f.Fuzz(func(t *testing.T, msg []byte, cut int) {
		head := msg[:min(max(cut, 0), len(msg))]
		h := Read(head)
		if h.Kind == Unknown {
			if h.ID != nil {
				t.Fatalf("Read(%q) = %+v: an id without a kind", head, h)
			}
			return
		}
		if !jsonscan.Valid(h.ID) || !bytes.Contains(head, h.ID) {
			t.Fatalf("id %q read from %q", h.ID, head)
		}
		var whole map[string]json.RawMessage
		// Escaped names, which encoding/json decodes and Read skips, are
		// left out with every backslash.
		if h.Kind != Request || json.Unmarshal(msg, &whole) != nil || bytes.IndexByte(msg, '\\') >= 0 ||
			bytes.Count(msg, []byte(`"id"`)) != 1 || bytes.Count(msg, []byte(`"method"`)) != 1 {
			return
		}
		if _, ok := whole["method"]; !ok {
			t.Fatalf("Read(%q) = a request, but %s has no method", head, msg)
		}
		if got, want := compact(h.ID), compact(whole["id"]); got != want {
			t.Fatalf("Read(%q) = id %s, but %s has id %s", head, got, msg, want)
		}
	})
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return "invalid: " + string(b)
	}
	return buf.String()
}
