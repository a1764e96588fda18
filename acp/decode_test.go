package acp_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/google/go-cmp/cmp"
)

// TestDecodeTagged checks the checks DecodeParams and DecodeResult apply to
// types of other packages, from their acp:"required" tags, and those
// DecodeResult applies to the package's results.
func TestDecodeTagged(t *testing.T) {
	type inner struct {
		ID string `json:"id" acp:"required"`
	}
	type params struct {
		Query string  `json:"query" acp:"required"`
		Limit int     `json:"limit,omitempty"`
		Inner *inner  `json:"inner,omitempty"`
		List  []inner `json:"list,omitempty"`
	}
	tests := []struct {
		name, raw string
		want      params
		field     string // "" when it decodes
	}{
		{"all", `{"query":"q","limit":2,"inner":{"id":"a"},"list":[{"id":"b"}]}`, params{Query: "q", Limit: 2, Inner: &inner{"a"}, List: []inner{{"b"}}}, ""},
		{"last of a repeated member", `{"query":"a","query":"b"}`, params{Query: "b"}, ""},
		{"missing", `{"limit":1}`, params{}, "query"},
		{"absent params", ``, params{}, "query"},
		{"null", `{"query":null}`, params{}, "query"},
		{"mistyped", `{"query":"q","limit":"1"}`, params{}, "limit"},
		{"nested missing", `{"query":"q","inner":{}}`, params{}, "inner.id"},
		{"nested not an object", `{"query":"q","inner":3}`, params{}, "inner"},
		{"element missing", `{"query":"q","list":[{"id":"a"},{}]}`, params{}, "list[1].id"},
		{"not an array", `{"query":"q","list":{}}`, params{}, "list"},
		{"not an object", `[1]`, params{}, "params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := acp.DecodeParams[params]([]byte(tt.raw))
			field, _ := acp.InvalidField(err)
			if field != tt.field {
				t.Fatalf("DecodeParams(%s) = %v, want the field %q", tt.raw, err, tt.field)
			}
			if tt.field != "" {
				if !errors.Is(err, acp.ErrInvalidParams) {
					t.Errorf("error %v, want -32602", err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeParams(%s) (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestDecodeResult(t *testing.T) {
	tests := []struct {
		name, raw string
		decode    func([]byte) error
		field     string // "" when it decodes
	}{
		{"prompt", `{"stopReason":"end_turn","usage":{"totalTokens":3,"inputTokens":1,"outputTokens":2}}`, decodeAs[acp.PromptResult], ""},
		{"prompt without stopReason", `{}`, decodeAs[acp.PromptResult], "stopReason"},
		{"null result", `null`, decodeAs[acp.PromptResult], "stopReason"},
		{"usage without outputTokens, read leniently", `{"stopReason":"end_turn","usage":{"totalTokens":3,"inputTokens":1}}`, decodeAs[acp.PromptResult], ""},
		{"stopReason a number", `{"stopReason":1}`, decodeAs[acp.PromptResult], "stopReason"},
		{"initialize", `{"protocolVersion":1}`, decodeAs[acp.InitializeResult], ""},
		{"initialize without version", `{"agentCapabilities":{}}`, decodeAs[acp.InitializeResult], "protocolVersion"},
		{"auth method without name, skipped", `{"protocolVersion":1,"authMethods":[{"id":"a"}]}`, decodeAs[acp.InitializeResult], ""},
		{"version too large", `{"protocolVersion":65536}`, decodeAs[acp.InitializeResult], "protocolVersion"},
		{"modes without current, read leniently", `{"sessionId":"s","modes":{"availableModes":[]}}`, decodeAs[acp.NewSessionResult], ""},
		{"session id a number", `{"sessionId":1}`, decodeAs[acp.NewSessionResult], "sessionId"},
		{"malformed config option, skipped", `{"configOptions":[{"id":"x","name":"X","type":"select","currentValue":"a"}]}`, decodeAs[acp.SetSessionConfigOptionResult], ""},
		{"config options absent", `{}`, decodeAs[acp.SetSessionConfigOptionResult], "configOptions"},
		{"truncated mistyped", `{"output":"","truncated":"no"}`, decodeAs[acp.TerminalOutputResult], "truncated"},
		{"permission outcome", `{"outcome":{"outcome":"selected","optionId":"o"}}`, decodeAs[acp.RequestPermissionResult], ""},
		{"permission outcome missing", `{"outcome":{}}`, decodeAs[acp.RequestPermissionResult], "outcome.outcome"},
		{"empty", `{"_meta":{"a":1}}`, decodeAs[acp.CloseSessionResult], ""},
		{"terminal auth method", `{"protocolVersion":1,"authMethods":[{"type":"terminal","id":"t","name":"T","args":["--login"],"env":{"A":"1"}}]}`, decodeAs[acp.InitializeResult], ""},
		{"elicitation", `{"action":"accept","content":{"name":"x","n":2,"ok":true,"tags":["a"]}}`, decodeAs[acp.CreateElicitationResult], ""},
		{"elicitation other action", `{"action":"_later"}`, decodeAs[acp.CreateElicitationResult], ""},
		{"elicitation no action", `{"content":{}}`, decodeAs[acp.CreateElicitationResult], "action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode([]byte(tt.raw))
			field, _ := acp.InvalidField(err)
			if field != tt.field {
				t.Fatalf("decoding %s: %v, want the field %q", tt.raw, err, tt.field)
			}
			// A result's error is not the peer's: it never matches a code.
			if tt.field != "" && (!errors.Is(err, acp.ErrInvalidResponse) || errors.Is(err, acp.ErrInvalidParams)) {
				t.Errorf("error %v, want one matching ErrInvalidResponse only", err)
			}
		})
	}
}

func decodeAs[T any](raw []byte) error {
	_, err := acp.DecodeResult[T](raw)
	return err
}

func TestInvalidField(t *testing.T) {
	_, decodeErr := acp.DecodeParams[acp.PromptParams]([]byte(`{"sessionId":"s"}`))
	_, resultErr := acp.DecodeResult[acp.PromptResult]([]byte(`{}`))
	tests := []struct {
		name  string
		err   error
		field string
		ok    bool
	}{
		{"DecodeParams", decodeErr, "prompt", true},
		{"DecodeResult", resultErr, "stopReason", true},
		{"wrapped", errors.Join(errors.New("x"), decodeErr), "prompt", true},
		{"from the wire", &acp.Error{Code: acp.CodeInvalidParams, Message: "m", Data: json.RawMessage(`{"field":"cwd"}`)}, "cwd", true},
		{"other code", &acp.Error{Code: acp.CodeInternalError, Message: "m", Data: json.RawMessage(`{"field":"cwd"}`)}, "", false},
		{"no data", acp.ErrInvalidParams, "", false},
		{"field not a string", &acp.Error{Code: acp.CodeInvalidParams, Message: "m", Data: json.RawMessage(`{"field":1}`)}, "", false},
		{"data not JSON", &acp.Error{Code: acp.CodeInvalidParams, Message: "m", Data: json.RawMessage(`{`)}, "", false},
		{"nil", nil, "", false},
		{"other error", errors.New("x"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field, ok := acp.InvalidField(tt.err)
			if field != tt.field || ok != tt.ok {
				t.Errorf("InvalidField(%v) = %q, %v; want %q, %v", tt.err, field, ok, tt.field, tt.ok)
			}
		})
	}
}
