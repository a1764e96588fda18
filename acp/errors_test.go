package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestErrorText(t *testing.T) {
	got := []string{
		Errorf(CodeResourceNotFound, "no session %q", "s-1").Error(),
		(&Error{Code: CodeInvalidParams, Message: "bad", Data: json.RawMessage(`{"field":"cwd"}`)}).Error(),
		ErrAuthRequired.Error(),
	}
	want := []string{
		`acp: error -32002: no session "s-1"`,
		`acp: error -32602: bad (data: {"field":"cwd"})`,
		`acp: error -32000: Authentication required`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Error() (-want +got):\n%s", diff)
	}
}

func TestErrorIsMatchesByCode(t *testing.T) {
	wrapped := fmt.Errorf("calling session/load: %w", &Error{Code: CodeResourceNotFound, Message: "gone", Data: json.RawMessage(`1`)})
	var nilErr *Error
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code, other message", Errorf(CodeMethodNotFound, "no %s", "x"), ErrMethodNotFound, true},
		{"wrapped", wrapped, ErrResourceNotFound, true},
		{"other code", wrapped, ErrInternal, false},
		{"application code", Errorf(7, "x"), &Error{Code: 7}, true},
		{"not an *Error target", ErrInternal, errors.New("Internal error"), false},
		{"nil *Error target", ErrInternal, nilErr, false},
		{"cancelled", Errorf(CodeRequestCancelled, "stop"), ErrRequestCancelled, true},
		{"parse is not invalid request", ErrParse, ErrInvalidRequest, false},
	}
	for _, tc := range cases {
		if got := errors.Is(tc.err, tc.target); got != tc.want {
			t.Errorf("%s: errors.Is = %v, want %v", tc.name, got, tc.want)
		}
	}
	var e *Error
	if !errors.As(wrapped, &e) || e.Message != "gone" {
		t.Errorf("errors.As through a wrap = %v", e)
	}
}

func TestErrorCodes(t *testing.T) {
	got := []int{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams,
		CodeInternalError, CodeRequestCancelled, CodeAuthRequired, CodeResourceNotFound}
	want := []int{-32700, -32600, -32601, -32602, -32603, -32800, -32000, -32002}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}

func TestErrorWithData(t *testing.T) {
	e := ErrResourceNotFound.WithData(map[string]string{"uri": "file:///a<b>"})
	want := &Error{Code: CodeResourceNotFound, Message: "Resource not found", Data: json.RawMessage(`{"uri":"file:///a\u003cb\u003e"}`)}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("WithData (-want +got):\n%s", diff)
	}
	if ErrResourceNotFound.Data != nil {
		t.Errorf("WithData modified the sentinel: %s", ErrResourceNotFound.Data)
	}
	bad := ErrInternal.WithData(func() {})
	if bad.Data != nil || !strings.HasPrefix(bad.Message, "Internal error (data not encoded: ") {
		t.Errorf("WithData of a value that cannot be encoded = %+v", bad)
	}
	line, err := MarshalErrorResponse(IntID(3), e)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"file:///a\u003cb\u003e"}}}`, string(line)); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	if _, err := MarshalErrorResponse(IntID(3), &Error{Code: 1, Message: "m", Data: json.RawMessage(`{`)}); err == nil {
		t.Error("MarshalErrorResponse accepted invalid data")
	}
	if line, _ := MarshalErrorResponse(IntID(3), nil); string(line) != `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}` {
		t.Errorf("MarshalErrorResponse(nil) = %s", line)
	}
}
