package acp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepliesEchoIDByteExact classifies a request and answers it with both
// reply builders: the id must come back exactly as it was sent, whatever its
// spelling, never re-formatted or re-escaped.
func TestRepliesEchoIDByteExact(t *testing.T) {
	for _, id := range []string{
		`0`, `1`, `-0`, `1e3`, `1E+03`, `-1.50E+2`, `0.1`,
		`123456789012345678901234567890`, `-99999999999999999999999`,
		`null`, `"1"`, `""`, `"perm-7"`, `"a\/b"`, `"\u0041"`, `"\ud83d\ude00"`,
		`"é"`, `"<tag>&amp;"`, "\"\u2028\u2029\"",
	} {
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{}}`
		m := Classify([]byte(line))
		if m.Kind != KindRequest {
			t.Fatalf("Classify(%s) = %v, %v", line, m.Kind, m.Err)
		}
		ok, err := MarshalResponse(m.ID, CloseSessionResult{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`, string(ok)); diff != "" {
			t.Errorf("MarshalResponse for id %s (-want +got):\n%s", id, diff)
		}
		fail, err := MarshalErrorResponse(m.ID, ErrInternal)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32603,"message":"Internal error"}}`, string(fail)); diff != "" {
			t.Errorf("MarshalErrorResponse for id %s (-want +got):\n%s", id, diff)
		}
	}
}

// TestRepliesToInvalidLines answers lines Classify rejects with the id it
// says to echo.
func TestRepliesToInvalidLines(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1e3,"method":7}`, `{"jsonrpc":"2.0","id":1e3,"error":{"code":-32600,`},
		{`{"jsonrpc":"1.0","id":123456789012345678901234567890,"method":"x"}`, `{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":1e3,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
	} {
		m := Classify([]byte(tc.line))
		reply, err := MarshalErrorResponse(m.ID, m.Err)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(reply[:min(len(reply), len(tc.want))]); got != tc.want {
			t.Errorf("reply to %s = %s, want it to start with %s", tc.line, reply, tc.want)
		}
	}
}

func TestMarshalEnvelopes(t *testing.T) {
	line := func(b []byte, err error) string {
		if err != nil {
			return "error"
		}
		return string(b)
	}
	got := []string{
		line(MarshalRequest(IntID(7), SessionList.Name, nil)),
		line(MarshalRequest(StringID("r-1"), SessionCancel.Name, CancelParams{SessionID: "s"})),
		line(MarshalRequest(ID{}, SessionList.Name, nil)),
		line(MarshalRequest(IntID(7), "x", func() {})),
		line(MarshalNotification(SessionCancel.Name, CancelParams{SessionID: "s"})),
		line(MarshalNotification("x", nil)),
		line(MarshalNotification("x", func() {})),
		line(MarshalResponse(ID{}, nil)),
		line(MarshalResponse(NullID, []int{})),
		line(MarshalResponse(IntID(1), func() {})),
		line(MarshalErrorResponse(ID{}, ErrParse)),
	}
	want := []string{
		`{"jsonrpc":"2.0","id":7,"method":"session/list"}`,
		`{"jsonrpc":"2.0","id":"r-1","method":"session/cancel","params":{"sessionId":"s"}}`,
		"error", // a request without an id would read as a notification
		"error",
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","method":"x"}`,
		"error",
		`{"jsonrpc":"2.0","id":null,"result":null}`,
		`{"jsonrpc":"2.0","id":null,"result":[]}`,
		"error",
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMarshalRefuses checks that the builders refuse what no peer could
// read, with an error that says which rule the message broke.
func TestMarshalRefuses(t *testing.T) {
	var nilParams *CancelParams
	tests := []struct {
		name string
		line func() ([]byte, error)
		want string // the line, when it is built
		err  error
	}{
		{"empty method name", func() ([]byte, error) { return MarshalNotification("", []int{1}) }, `{"jsonrpc":"2.0","method":"","params":[1]}`, nil},
		{"empty method name, no params", func() ([]byte, error) { return MarshalRequest(IntID(3), "", nil) }, `{"jsonrpc":"2.0","id":3,"method":""}`, nil},
		{"string params", func() ([]byte, error) { return MarshalNotification("n", "s") }, "", ErrParamsNotStructured},
		{"number params", func() ([]byte, error) { return MarshalRequest(IntID(1), "r", 5) }, "", ErrParamsNotStructured},
		{"raw number params", func() ([]byte, error) { return MarshalRequest(IntID(1), "r", json.RawMessage(" 5 ")) }, "", ErrParamsNotStructured},
		{"nil pointer params are omitted", func() ([]byte, error) { return MarshalNotification("n", nilParams) }, `{"jsonrpc":"2.0","method":"n"}`, nil},
		{"raw null params are omitted", func() ([]byte, error) { return MarshalNotification("n", json.RawMessage("null")) }, `{"jsonrpc":"2.0","method":"n"}`, nil},
		{"raw params are compacted, not re-escaped", func() ([]byte, error) { return MarshalNotification("n", json.RawMessage("{ \"a\" :\n \"<\u2028>\" }")) }, "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"a\":\"<\u2028>\"}}", nil},
		{"invalid UTF-8 params", func() ([]byte, error) { return MarshalNotification("n", json.RawMessage("[\"\xff\"]")) }, "", ErrNotJSON},
		{"invalid UTF-8 result", func() ([]byte, error) { return MarshalResponse(IntID(1), json.RawMessage("\"\xc0\"")) }, "", ErrNotJSON},
		{"result too deep", func() ([]byte, error) {
			return MarshalResponse(IntID(1), json.RawMessage(strings.Repeat("[", 10001)+strings.Repeat("]", 10001)))
		}, "", ErrNotJSON},
		{"params at the line's depth limit", func() ([]byte, error) {
			return MarshalNotification("n", json.RawMessage(strings.Repeat("[", 9999)+strings.Repeat("]", 9999)))
		}, `{"jsonrpc":"2.0","method":"n","params":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, nil},
		{"params too deep for the line", func() ([]byte, error) {
			return MarshalNotification("n", json.RawMessage(strings.Repeat("[", 10000)+strings.Repeat("]", 10000)))
		}, "", ErrNotJSON},
		{"invalid UTF-8 error data", func() ([]byte, error) {
			return MarshalErrorResponse(IntID(1), &Error{Code: 1, Message: "m", Data: json.RawMessage("\"\xff\"")})
		}, "", ErrNotJSON},
	}
	for _, tt := range tests {
		line, err := tt.line()
		if !errors.Is(err, tt.err) || string(line) != tt.want {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, line, err, tt.want, tt.err)
		}
	}
}
