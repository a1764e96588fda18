package acp

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/google/go-cmp/cmp"
)

// view is a Message in comparable form: raw fields as strings ("" when
// nil), the error flattened.
type view struct {
	Kind    Kind
	Method  string
	ID      string
	Params  string
	Result  string
	Code    int    // Err.Code, 0 when Err is nil
	ErrMsg  string // Err.Message for responses only: invalid replies' texts are not part of the contract
	ErrData string
}

func viewOf(m Message) view {
	v := view{
		Kind:   m.Kind,
		Method: m.Method,
		ID:     m.ID.String(),
		Params: string(m.Params),
		Result: string(m.Result),
	}
	if m.Err != nil {
		v.Code = m.Err.Code
		if m.Kind == KindResponse {
			v.ErrMsg = m.Err.Message
			v.ErrData = string(m.Err.Data)
		}
	}
	return v
}

// Shorthands for the expected views of invalid lines.
func parseErr() view { return view{Kind: KindInvalid, ID: "null", Code: CodeParseError} }
func invalid(id string) view {
	return view{Kind: KindInvalid, ID: id, Code: CodeInvalidRequest}
}

type classifyCase struct {
	name string
	line string
	want view
}

var classifyCases = []classifyCase{
	// Requests: ids of every shape are kept byte-exact.
	{"request int id", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1"}}`,
		view{Kind: KindRequest, Method: SessionPrompt.Name, ID: "1", Params: `{"sessionId":"s1"}`}},
	{"request zero id", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
		view{Kind: KindRequest, Method: Initialize.Name, ID: "0", Params: `{"protocolVersion":1}`}},
	{"request string id", `{"jsonrpc":"2.0","id":"perm-7","method":"session/request_permission","params":{}}`,
		view{Kind: KindRequest, Method: SessionRequestPermission.Name, ID: `"perm-7"`, Params: `{}`}},
	{"request numeric string id", `{"jsonrpc":"2.0","id":"1","method":"session/new","params":{"cwd":"/"}}`,
		view{Kind: KindRequest, Method: SessionNew.Name, ID: `"1"`, Params: `{"cwd":"/"}`}},
	{"request null id", `{"jsonrpc":"2.0","id":null,"method":"session/list"}`,
		view{Kind: KindRequest, Method: SessionList.Name, ID: "null"}},
	{"request big id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"authenticate","params":{"methodId":"x"}}`,
		view{Kind: KindRequest, Method: Authenticate.Name, ID: "123456789012345678901234567890", Params: `{"methodId":"x"}`}},
	{"request exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"session/load","params":{}}`,
		view{Kind: KindRequest, Method: SessionLoad.Name, ID: "1e3", Params: `{}`}},
	{"request negative zero id", `{"jsonrpc":"2.0","id":-0,"method":"session/close","params":{}}`,
		view{Kind: KindRequest, Method: SessionClose.Name, ID: "-0", Params: `{}`}},
	{"request fraction id", `{"jsonrpc":"2.0","id":-1.50E+2,"method":"terminal/kill","params":{}}`,
		view{Kind: KindRequest, Method: TerminalKill.Name, ID: "-1.50E+2", Params: `{}`}},
	{"request array params", `{"jsonrpc":"2.0","id":2,"method":"x/y","params":[1,"two",null]}`,
		view{Kind: KindRequest, Method: "x/y", ID: "2", Params: `[1,"two",null]`}},
	{"goose steer extension", `{"jsonrpc":"2.0","id":9,"method":"_goose/unstable/session/steer","params":{"sessionId":"s","expectedRunId":"r"}}`,
		view{Kind: KindRequest, Method: "_goose/unstable/session/steer", ID: "9", Params: `{"sessionId":"s","expectedRunId":"r"}`}},
	{"legacy set_model", `{"jsonrpc":"2.0","id":3,"method":"session/set_model","params":{"sessionId":"s","modelId":"m"}}`,
		view{Kind: KindRequest, Method: SessionSetModel.Name, ID: "3", Params: `{"sessionId":"s","modelId":"m"}`}},
	{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"_vendor/do_thing"}`,
		view{Kind: KindRequest, Method: "_vendor/do_thing", ID: "4"}},
	{"escaped method", `{"jsonrpc":"2.0","id":5,"method":"session\/new","params":{}}`,
		view{Kind: KindRequest, Method: SessionNew.Name, ID: "5", Params: `{}`}},
	{"unicode escaped method", `{"jsonrpc":"2.0","id":5,"method":"\u0073ession/prompt","params":{}}`,
		view{Kind: KindRequest, Method: SessionPrompt.Name, ID: "5", Params: `{}`}},
	{"non-ASCII method", `{"jsonrpc":"2.0","id":5,"method":"_é/ünïcode"}`,
		view{Kind: KindRequest, Method: "_é/ünïcode", ID: "5"}},
	{"empty method", `{"jsonrpc":"2.0","id":5,"method":""}`,
		view{Kind: KindRequest, Method: "", ID: "5"}},
	{"escaped member names", `{"json\u0072pc":"2.0","\u0069d":6,"m\u0065thod":"session/load","p\u0061rams":{"a":1}}`,
		view{Kind: KindRequest, Method: SessionLoad.Name, ID: "6", Params: `{"a":1}`}},
	{"escaped version", `{"jsonrpc":"2\u002e0","id":7,"method":"initialize"}`,
		view{Kind: KindRequest, Method: Initialize.Name, ID: "7"}},

	// Notifications.
	{"notification", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}`,
		view{Kind: KindNotification, Method: SessionUpdate.Name, Params: `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}`}},
	{"notification without params", `{"jsonrpc":"2.0","method":"session/cancel"}`,
		view{Kind: KindNotification, Method: SessionCancel.Name}},
	{"null params are absent", `{"jsonrpc":"2.0","method":"session/cancel","params":null}`,
		view{Kind: KindNotification, Method: SessionCancel.Name}},
	{"cancel request", `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`,
		view{Kind: KindNotification, Method: CancelRequest.Name, Params: `{"requestId":3}`}},
	{"goose update", `{"jsonrpc":"2.0","method":"_goose/unstable/session/update","params":{}}`,
		view{Kind: KindNotification, Method: "_goose/unstable/session/update", Params: `{}`}},

	// Responses.
	{"success response", `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		view{Kind: KindResponse, ID: "1", Result: `{"stopReason":"end_turn"}`}},
	{"null result", `{"jsonrpc":"2.0","id":"a","result":null}`,
		view{Kind: KindResponse, ID: `"a"`, Result: `null`}},
	{"response to an unreadable id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		view{Kind: KindResponse, ID: "null", Code: CodeParseError, ErrMsg: "Parse error"}},
	{"error response with data", `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"bad \"cwd\"","data":{"field":"cwd"}}}`,
		view{Kind: KindResponse, ID: "8", Code: CodeInvalidParams, ErrMsg: `bad "cwd"`, ErrData: `{"field":"cwd"}`}},
	{"error response null data", `{"jsonrpc":"2.0","id":8,"error":{"data":null,"message":"x","code":7}}`,
		view{Kind: KindResponse, ID: "8", Code: 7, ErrMsg: "x"}},
	{"error response negative zero code", `{"jsonrpc":"2.0","id":8,"error":{"code":-0,"message":""}}`,
		view{Kind: KindResponse, ID: "8", Code: 0, ErrMsg: ""}},
	{"params ignored on a response", `{"jsonrpc":"2.0","id":8,"result":1,"params":5}`,
		view{Kind: KindResponse, ID: "8", Result: "1"}},

	// Duplicates: the last occurrence wins, and only it is checked.
	{"duplicate method", `{"jsonrpc":"2.0","method":"a","id":1,"method":"session/new"}`,
		view{Kind: KindRequest, Method: SessionNew.Name, ID: "1"}},
	{"duplicate id, bad first", `{"jsonrpc":"2.0","id":{},"method":"x","id":"b"}`,
		view{Kind: KindRequest, Method: "x", ID: `"b"`}},
	{"duplicate params", `{"jsonrpc":"2.0","method":"x","params":5,"params":[1]}`,
		view{Kind: KindNotification, Method: "x", Params: `[1]`}},
	{"duplicate params, bad last", `{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":5}`,
		invalid("1")},
	{"duplicate version", `{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"x"}`,
		invalid("1")},

	// Unknown members and white space.
	{"unknown members ignored", `{"extra":{"deep":[1,{"x":null}]},"jsonrpc":"2.0","_meta":true,"id":1,"method":"x","Method":5}`,
		view{Kind: KindRequest, Method: "x", ID: "1"}},
	{"white space everywhere", " \t{ \"jsonrpc\" : \"2.0\" ,\r\n \"id\" :\t1 , \"method\":\"x\" , \"params\" : { \"a\" : [ 1 , 2 ] } } \r\n",
		view{Kind: KindRequest, Method: "x", ID: "1", Params: `{ "a" : [ 1 , 2 ] }`}},

	// -32700: not JSON, not UTF-8.
	{"empty line", ``, parseErr()},
	{"blank line", " \t ", parseErr()},
	{"truncated", `{"jsonrpc":"2.0","id":1,"method":"x"`, parseErr()},
	{"truncated string", `{"jsonrpc":"2.0","id":1,"method":"x`, parseErr()},
	{"trailing comma", `{"jsonrpc":"2.0","id":1,"method":"x",}`, parseErr()},
	{"single quotes", `{'jsonrpc':'2.0'}`, parseErr()},
	{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"x"} x`, parseErr()},
	{"two objects", `{"jsonrpc":"2.0","method":"x"}{"jsonrpc":"2.0","method":"y"}`, parseErr()},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"t\":\"\xff\"}}", parseErr()},
	{"UTF-16 surrogate as UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xed\xa0\x80\"}", parseErr()},
	{"byte-order mark", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}", parseErr()},
	{"control character in string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}", parseErr()},
	{"bad escape", `{"jsonrpc":"2.0","id":1,"method":"\x41"}`, parseErr()},
	{"short unicode escape", `{"jsonrpc":"2.0","id":1,"method":"\u41"}`, parseErr()},
	{"leading zero id", `{"jsonrpc":"2.0","id":01,"method":"x"}`, parseErr()},
	{"bare minus id", `{"jsonrpc":"2.0","id":-,"method":"x"}`, parseErr()},
	{"fraction without digits", `{"jsonrpc":"2.0","id":1.,"method":"x"}`, parseErr()},
	{"bad literal", `{"jsonrpc":"2.0","id":nul,"method":"x"}`, parseErr()},
	{"mismatched brackets", `{"jsonrpc":"2.0","method":"x","params":{"a":[1}]}`, parseErr()},
	{"missing colon", `{"jsonrpc" "2.0"}`, parseErr()},
	{"NaN", `{"jsonrpc":"2.0","id":NaN,"method":"x"}`, parseErr()},

	// -32600: valid JSON, not a message.
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, invalid("null")},
	{"string", `"hello"`, invalid("null")},
	{"number", `42`, invalid("null")},
	{"null", `null`, invalid("null")},
	{"empty object", `{}`, invalid("null")},
	{"version missing", `{"id":3,"method":"x"}`, invalid("3")},
	{"version 1.0", `{"jsonrpc":"1.0","id":"q","method":"x"}`, invalid(`"q"`)},
	{"version number", `{"jsonrpc":2.0,"id":3,"method":"x"}`, invalid("3")},
	{"method number", `{"jsonrpc":"2.0","id":3,"method":12}`, invalid("3")},
	{"method null", `{"jsonrpc":"2.0","id":3,"method":null}`, invalid("3")},
	{"method without id not a string", `{"jsonrpc":"2.0","method":["x"]}`, invalid("null")},
	{"object id", `{"jsonrpc":"2.0","id":{"n":1},"method":"x"}`, invalid("null")},
	{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"x"}`, invalid("null")},
	{"array id response", `{"jsonrpc":"2.0","id":[1],"result":1}`, invalid("null")},
	{"string params", `{"jsonrpc":"2.0","id":3,"method":"x","params":"p"}`, invalid("3")},
	{"number params", `{"jsonrpc":"2.0","method":"x","params":1}`, invalid("null")},
	{"boolean params", `{"jsonrpc":"2.0","id":4,"method":"x","params":false}`, invalid("4")},
	{"neither method nor id", `{"jsonrpc":"2.0","params":{}}`, invalid("null")},
	{"response with both", `{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"m"}}`, invalid("3")},
	{"response with null error and a result", `{"jsonrpc":"2.0","id":3,"result":1,"error":null}`, invalid("3")},
	{"response with neither", `{"jsonrpc":"2.0","id":3}`, invalid("3")},
	{"error not an object", `{"jsonrpc":"2.0","id":3,"error":"boom"}`, invalid("3")},
	{"error null", `{"jsonrpc":"2.0","id":3,"error":null}`, invalid("3")},
	{"error without code", `{"jsonrpc":"2.0","id":3,"error":{"message":"m"}}`, invalid("3")},
	{"error without message", `{"jsonrpc":"2.0","id":3,"error":{"code":1}}`, invalid("3")},
	{"error fractional code", `{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"m"}}`, invalid("3")},
	{"error exponent code", `{"jsonrpc":"2.0","id":3,"error":{"code":1e3,"message":"m"}}`, invalid("3")},
	{"error string code", `{"jsonrpc":"2.0","id":3,"error":{"code":"1","message":"m"}}`, invalid("3")},
	{"error code overflow", `{"jsonrpc":"2.0","id":3,"error":{"code":99999999999999999999,"message":"m"}}`, invalid("3")},
	{"error numeric message", `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":2}}`, invalid("3")},
}

func TestClassify(t *testing.T) {
	for _, tc := range classifyCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify([]byte(tc.line))
			if diff := cmp.Diff(tc.want, viewOf(got)); diff != "" {
				t.Errorf("Classify(%q) mismatch (-want +got):\n%s", tc.line, diff)
			}
			switch {
			case got.Kind == KindInvalid && got.Err == nil:
				t.Errorf("invalid line without Err")
			case got.Kind == KindInvalid && got.Err.Message == "":
				t.Errorf("invalid line with an empty error message")
			case got.Kind != KindInvalid && got.Kind != KindResponse && got.Err != nil:
				t.Errorf("call with Err %v", got.Err)
			}
		})
	}
}

func TestClassifyNesting(t *testing.T) {
	// encoding/json accepts 10000 levels of nesting and no more; so does
	// Classify, counting the envelope object as one level.
	nest := func(levels int) string {
		return `{"jsonrpc":"2.0","method":"x","params":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	tests := []struct {
		line string
		want view
	}{
		{nest(jsonscan.MaxDepth), view{Kind: KindNotification, Method: "x",
			Params: strings.Repeat("[", jsonscan.MaxDepth-1) + strings.Repeat("]", jsonscan.MaxDepth-1)}},
		{nest(jsonscan.MaxDepth + 1), parseErr()},
		{strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth), invalid("null")},
		{strings.Repeat("[", jsonscan.MaxDepth+1) + strings.Repeat("]", jsonscan.MaxDepth+1), parseErr()},
		{strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200), invalid("null")},
		// Mixed containers past the first 64 levels, closed right and wrong.
		{`{"jsonrpc":"2.0","method":"x","params":` + strings.Repeat(`[{"a":`, 100) + "1" + strings.Repeat("}]", 100) + "}",
			view{Kind: KindNotification, Method: "x", Params: strings.Repeat(`[{"a":`, 100) + "1" + strings.Repeat("}]", 100)}},
		{strings.Repeat(`[{"a":`, 100) + "1" + strings.Repeat("}]", 99) + "]}", parseErr()},
		{strings.Repeat(`[{"a":`, 100) + "1" + strings.Repeat("}]", 99) + "}", parseErr()},
	}
	for i, tc := range tests {
		if diff := cmp.Diff(tc.want, viewOf(Classify([]byte(tc.line)))); diff != "" {
			t.Errorf("case %d mismatch (-want +got):\n%s", i, diff)
		}
	}
}

func TestClassifyAliasesLine(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":"abc","method":"x","params":{"k":1}}`)
	m := Classify(line)
	id, params := m.ID.Raw(), m.Params
	if &id[0] != &line[bytes.Index(line, []byte(`"abc"`))] {
		t.Errorf("ID does not alias the line")
	}
	if &params[0] != &line[bytes.Index(line, []byte(`{"k"`))] {
		t.Errorf("Params do not alias the line")
	}
	// The error of a response is a copy: it survives reuse of the line.
	line = []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":5,"message":"m","data":[1]}}`)
	m = Classify(line)
	for i := range line {
		line[i] = ' '
	}
	if diff := cmp.Diff(&Error{Code: 5, Message: "m", Data: []byte("[1]")}, m.Err); diff != "" {
		t.Errorf("response error changed with the line (-want +got):\n%s", diff)
	}
}

func TestClassifyErrorsMatchSentinels(t *testing.T) {
	for _, tc := range []struct {
		line string
		want *Error
	}{
		{`{`, ErrParse},
		{`[]`, ErrInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, ErrMethodNotFound},
	} {
		if err := Classify([]byte(tc.line)).Err; !errors.Is(err, tc.want) {
			t.Errorf("Classify(%q).Err = %v, want errors.Is %v", tc.line, err, tc.want)
		}
	}
}

func TestClassifyKnownMethodsDoNotAllocate(t *testing.T) {
	for method := range knownMethods {
		// With an unknown member whose name is too long for the compiler's
		// small on-stack string buffers.
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"sessionId":"s"},` +
			`"_an_unknown_member_with_a_name_longer_than_32_bytes":1}`)
		var got string
		allocs := testing.AllocsPerRun(10, func() { got = Classify(line).Method })
		if got != method {
			t.Errorf("method %q classified as %q", method, got)
		}
		if allocs != 0 {
			t.Errorf("Classify(%s) allocates %v times, want 0", line, allocs)
		}
	}
}

func TestKindString(t *testing.T) {
	got := []string{KindInvalid.String(), KindRequest.String(), KindNotification.String(), KindResponse.String(), Kind(9).String()}
	want := []string{"invalid", "request", "notification", "response", "Kind(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kind.String mismatch (-want +got):\n%s", diff)
	}
}

// TestClassifyAndDecodersAgreeOnDuplicates checks the documented rule end to
// end: of a repeated member, the last wins in the envelope (Classify) and in
// the params (DecodeParams), escaped names included.
func TestClassifyAndDecodersAgreeOnDuplicates(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"session/cancel","params":{"sessionId":"first"},` +
		`"m\u0065thod":"session/prompt","params":{"sessionId":"a","prompt":[],"sess\u0069onId":"last","prompt":[{"type":"text","text":"x"}]}}`)
	m := Classify(line)
	if m.Kind != KindRequest || m.Method != SessionPrompt.Name {
		t.Fatalf("Classify = %v %q, want a session/prompt request", m.Kind, m.Method)
	}
	got, err := DecodeParams[PromptParams](m.Params)
	if err != nil {
		t.Fatal(err)
	}
	want := PromptParams{SessionID: "last", Prompt: ContentBlocks{TextContent{Text: "x"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DecodeParams(Classify(line).Params) (-want +got):\n%s", diff)
	}
}
