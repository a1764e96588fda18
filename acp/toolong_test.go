package acp

import (
	"bytes"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

func TestResponseIDInHead(t *testing.T) {
	tests := []struct {
		head string
		want string // the id, or "" when head does not start a response
	}{
		{`{"jsonrpc":"2.0","id":7,"result":"xxx`, "7"},
		{` { "id" : "a" , "error" : {"code":`, `"a"`},
		{`{"id":1,"id":2,"result":`, "2"},
		{`{"x":{"result":1},"id":3,"result":[`, "3"},
		{`{"id":3,"result"`, ""}, // the colon is cut off
		{`{"id":3,"resul`, ""},
		{`{"jsonrpc":"2.0","result":"xxx`, ""},                 // no id before the result
		{`{"jsonrpc":"2.0","id":4,"method":"m","result":`, ""}, // a request
		{`{"\u0069d":4,"result":`, ""},                         // escaped names are not read
		{`{"id":4}`, ""},
		{`[{"id":4,"result":`, ""},
		{`{"id":4 "result":`, ""},
		{``, ""},
		{`{`, ""},
	}
	for _, tt := range tests {
		id, ok := responseIDInHead([]byte(tt.head))
		if string(id) != tt.want || ok != (tt.want != "") {
			t.Errorf("responseIDInHead(%s) = %s, %v; want %q", tt.head, id, ok, tt.want)
		}
	}
}

func FuzzResponseIDInHead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":"xxx`))
	f.Add([]byte(`{"id":"a","error":{`))
	f.Fuzz(func(t *testing.T, head []byte) {
		id, ok := responseIDInHead(head)
		if !ok {
			return
		}
		// What it reads as an id is one valid JSON value from head.
		if !jsonscan.Valid(id) || !bytes.Contains(head, id) {
			t.Fatalf("id %q read from %q", id, head)
		}
	})
}
