package acp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// Kind says what a line is.
type Kind uint8

// The kinds of line [Classify] tells apart.
const (
	// KindInvalid is a line that is not a JSON-RPC 2.0 message; Message.Err
	// holds the error to reply with.
	KindInvalid Kind = iota
	// KindRequest is a call that expects a response: a method and an id.
	KindRequest
	// KindNotification is a call without an id; it gets no response.
	KindNotification
	// KindResponse is a reply to one of our requests: an id and exactly one
	// of result or error.
	KindResponse
)

// String returns "invalid", "request", "notification" or "response".
func (k Kind) String() string {
	switch k {
	case KindInvalid:
		return "invalid"
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Message is one line classified by [Classify].
//
// ID, Params and Result alias the line they were read from: they stay valid
// only as long as the caller does not modify or reuse the line's buffer (as a
// frame reader does on its next read). Copy what must outlive the line with
// [ID.Clone] and [bytes.Clone]. Method and Err never alias the line.
type Message struct {
	// Kind says what the line is.
	Kind Kind
	// Method is the method called, unescaped, for KindRequest and
	// KindNotification, and "" otherwise. A method this package declares
	// ([SessionPrompt], [CancelRequest], …) is returned as its Name,
	// without allocating.
	Method string
	// ID is the id as sent, byte-exact, for KindRequest and KindResponse; a
	// request whose id is null has the null ID, so its reply carries null.
	// For KindNotification it is absent. For KindInvalid it is the id to
	// echo in the error reply: the line's id when it could be read (a string,
	// number or null), else [NullID].
	ID ID
	// Params is the raw params (a JSON object or array) of a request or
	// notification, or nil when params is absent or null.
	Params []byte
	// Result is the raw result of a success response. It may be the JSON
	// literal null, which is a valid result; it is nil for an error response
	// and for every other kind.
	Result []byte
	// Err is, for KindInvalid, the error to reply with: code
	// [CodeParseError] when the line is not valid JSON or not valid UTF-8,
	// else [CodeInvalidRequest]. For KindResponse it is the peer's error
	// object, decoded (its Data is a copy, not an alias), and nil on success.
	// It is nil for requests and notifications.
	Err *Error
}

// Classify tells what one line of JSON-RPC 2.0 is, reading its bytes
// directly rather than decoding it, and validating it once (as JSON and as
// UTF-8) on the way. line holds one message, without its newline; white
// space around the object is allowed. Classify never fails: a line that is
// not a valid message comes back as KindInvalid with the error to reply with,
// and it never panics, whatever the bytes.
//
// The rules:
//
//   - a line that is not JSON, holds invalid UTF-8, or begins with a
//     byte-order mark (which is not JSON), or nests deeper than 10000 levels
//     (the limit encoding/json enforces), is a -32700 parse error with the
//     null id;
//   - a line that is valid JSON but not an object (batches are not
//     supported), lacks "jsonrpc": "2.0", has a method that is not a string,
//     an id that is not a string, number or null, params that are not an
//     object, array or null, or that has an id and no method but not exactly
//     one of result and error (an error being an object with an integer code
//     and a string message), or neither method nor id, is a -32600 invalid
//     request echoing the id when it is a string, number or null, else null;
//   - a method makes a request when an id is present (even "id": null) and a
//     notification when it is not;
//   - member names are matched exactly, after unescaping; unknown members are
//     ignored. When a name is repeated, the last occurrence wins, as it does
//     for encoding/json, so the typed decoders of params agree with Classify.
//     Only the winning occurrence is checked: {"id":{},"id":1} has id 1.
//
// See [Message] for which fields alias line.
func Classify(line []byte) Message {
	i := jsonscan.SkipSpace(line, 0)
	if i == len(line) {
		return parseError(line)
	}
	if line[i] != '{' {
		if !jsonscan.Valid(line) {
			return parseError(line)
		}
		return invalidRequest(NullID, "not a JSON object (batches are not supported)")
	}

	var env envelope
	i = jsonscan.SkipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		i++
	} else {
		for {
			var key, val []byte
			var escaped bool
			key, escaped, val, i = jsonscan.Member(line, i, jsonscan.MaxDepth-1)
			if i < 0 {
				return parseError(line)
			}
			env.set(key, escaped, val)
			if line[i] == '}' {
				i++
				break
			}
			i = jsonscan.SkipSpace(line, i+1) // past ','
		}
	}
	if jsonscan.SkipSpace(line, i) != len(line) {
		return parseError(line)
	}
	return env.message()
}

// envelope holds the raw values of the members Classify reads: the last
// occurrence of each, nil when absent.
type envelope struct {
	jsonrpc, id, method, params, result, err []byte
}

// set records val as the value of the member whose name is key: the raw
// content between the name's quotes, holding escapes when escaped is set.
func (e *envelope) set(key []byte, escaped bool, val []byte) {
	if escaped {
		key = []byte(unquote(key)) // rare: allocation is fine
	}
	switch string(key) { // no allocation, whatever the length
	case "jsonrpc":
		e.jsonrpc = val
	case "id":
		e.id = val
	case "method":
		e.method = val
	case "params":
		e.params = val
	case "result":
		e.result = val
	case "error":
		e.err = val
	}
}

// message applies the JSON-RPC rules to the members read.
func (e *envelope) message() Message {
	// The id to echo when the message is invalid.
	echo := NullID
	idOK := e.id != nil && isIDValue(e.id)
	if idOK {
		echo = ID{raw: e.id}
	}
	if e.jsonrpc == nil || !isVersion(e.jsonrpc) {
		return invalidRequest(echo, `"jsonrpc" must be "2.0"`)
	}
	if e.method != nil {
		if e.method[0] != '"' {
			return invalidRequest(echo, `"method" must be a string`)
		}
		if e.id != nil && !idOK {
			return invalidRequest(echo, `"id" must be a string, a number or null`)
		}
		var params []byte
		if e.params != nil {
			switch e.params[0] {
			case '{', '[':
				params = e.params
			case 'n': // null counts as absent
			default:
				return invalidRequest(echo, `"params" must be an object, an array or null`)
			}
		}
		m := Message{Kind: KindNotification, Method: methodName(e.method), Params: params}
		if e.id != nil {
			m.Kind, m.ID = KindRequest, ID{raw: e.id}
		}
		return m
	}
	if e.id == nil {
		return invalidRequest(echo, `neither "method" nor "id" is present`)
	}
	if !idOK {
		return invalidRequest(echo, `"id" must be a string, a number or null`)
	}
	switch {
	case e.result != nil && e.err != nil:
		return invalidRequest(echo, `a response must not hold both "result" and "error"`)
	case e.result != nil:
		return Message{Kind: KindResponse, ID: echo, Result: e.result}
	case e.err != nil:
		rerr := decodeError(e.err)
		if rerr == nil {
			return invalidRequest(echo, `"error" must be an object with an integer "code" and a string "message"`)
		}
		return Message{Kind: KindResponse, ID: echo, Err: rerr}
	}
	return invalidRequest(echo, `a response must hold "result" or "error"`)
}

func parseError(line []byte) Message {
	msg := "Parse error: not valid JSON"
	if !utf8.Valid(line) {
		msg = "Parse error: not valid UTF-8"
	}
	return Message{Kind: KindInvalid, ID: NullID, Err: &Error{Code: CodeParseError, Message: msg}}
}

func invalidRequest(id ID, why string) Message {
	return Message{Kind: KindInvalid, ID: id, Err: &Error{Code: CodeInvalidRequest, Message: "Invalid request: " + why}}
}

// isIDValue reports whether the valid JSON value v is a string, number or null.
func isIDValue(v []byte) bool {
	switch c := v[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9', c == 'n':
		return true
	}
	return false
}

// isVersion reports whether the valid JSON value v is the string "2.0".
func isVersion(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	return v[0] == '"' && bytes.IndexByte(v, '\\') >= 0 && unquote(v[1:len(v)-1]) == "2.0"
}

// methodName returns the method named by the valid JSON string v, as its
// constant when it is a known ACP method.
func methodName(v []byte) string {
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		if m, ok := knownMethod(s); ok {
			return m
		}
		return string(s)
	}
	u := unquote(s)
	if m, ok := knownMethod([]byte(u)); ok {
		return m
	}
	return u
}

// knownMethod returns the name of the package's method equal to s, if
// any, without allocating.
func knownMethod(s []byte) (string, bool) {
	m, ok := knownMethods[string(s)]
	return m, ok
}

// unquote returns the content of a valid JSON string (without its quotes)
// unescaped. It is the rare path, taken only for strings holding a
// backslash, so it defers to encoding/json, which guarantees that Classify
// and the typed decoders read escapes (lone surrogates included) alike.
func unquote(content []byte) string {
	quoted := make([]byte, 0, len(content)+2)
	quoted = append(append(append(quoted, '"'), content...), '"')
	var s string
	_ = json.Unmarshal(quoted, &s) // valid by construction
	return s
}

// decodeError decodes a response's error member, the valid JSON value v, or
// returns nil when it is not an object with an integer code and a string
// message. Data is copied; null data counts as absent.
func decodeError(v []byte) *Error {
	if v[0] != '{' {
		return nil
	}
	var code, message, data []byte
	i := jsonscan.SkipSpace(v, 1)
	if v[i] != '}' {
		for {
			var key, val []byte
			var escaped bool
			key, escaped, val, i = jsonscan.Member(v, i, jsonscan.MaxDepth)
			if i < 0 {
				return nil // unreachable: v is valid
			}
			if escaped {
				key = []byte(unquote(key))
			}
			switch string(key) {
			case "code":
				code = val
			case "message":
				message = val
			case "data":
				data = val
			}
			if v[i] == '}' {
				break
			}
			i = jsonscan.SkipSpace(v, i+1)
		}
	}
	if code == nil || message == nil || message[0] != '"' {
		return nil
	}
	// An integer that fits an int, as encoding/json requires to decode it
	// into Error.Code: no fraction, no exponent.
	if bytes.ContainsAny(code, ".eE") || (code[0] != '-' && (code[0] < '0' || code[0] > '9')) {
		return nil
	}
	n, err := strconv.Atoi(string(code))
	if err != nil {
		return nil
	}
	e := &Error{Code: n}
	if content := message[1 : len(message)-1]; bytes.IndexByte(content, '\\') >= 0 {
		e.Message = unquote(content)
	} else {
		e.Message = string(content)
	}
	if data != nil && string(data) != "null" {
		e.Data = bytes.Clone(data)
	}
	return e
}
