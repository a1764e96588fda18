package acp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
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
	// KindNotification, and "" otherwise. A known ACP method is returned as
	// its Method constant (MethodSessionPrompt, MethodCancelRequest, …)
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
	i := skipWS(line, 0)
	if i == len(line) {
		return parseError(line)
	}
	if line[i] != '{' {
		end := skipValue(line, i, maxDepth)
		if end < 0 || skipWS(line, end) != len(line) {
			return parseError(line)
		}
		return invalidRequest(NullID, "not a JSON object (batches are not supported)")
	}

	var env envelope
	i = skipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		i++
	} else {
		for {
			var key, val []byte
			var escaped bool
			key, escaped, val, i = member(line, i, maxDepth-1)
			if i < 0 {
				return parseError(line)
			}
			env.set(key, escaped, val)
			if line[i] == '}' {
				i++
				break
			}
			i = skipWS(line, i+1) // past ','
		}
	}
	if skipWS(line, i) != len(line) {
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

// knownMethod returns the constant equal to s, if any, without allocating.
func knownMethod(s []byte) (string, bool) {
	switch string(s) {
	case MethodInitialize:
		return MethodInitialize, true
	case MethodAuthenticate:
		return MethodAuthenticate, true
	case MethodSessionNew:
		return MethodSessionNew, true
	case MethodSessionLoad:
		return MethodSessionLoad, true
	case MethodSessionResume:
		return MethodSessionResume, true
	case MethodSessionList:
		return MethodSessionList, true
	case MethodSessionClose:
		return MethodSessionClose, true
	case MethodSessionSetMode:
		return MethodSessionSetMode, true
	case MethodSessionSetConfigOption:
		return MethodSessionSetConfigOption, true
	case MethodSessionPrompt:
		return MethodSessionPrompt, true
	case MethodSessionCancel:
		return MethodSessionCancel, true
	case MethodSessionSetModel:
		return MethodSessionSetModel, true
	case MethodSessionUpdate:
		return MethodSessionUpdate, true
	case MethodSessionRequestPermission:
		return MethodSessionRequestPermission, true
	case MethodFSReadTextFile:
		return MethodFSReadTextFile, true
	case MethodFSWriteTextFile:
		return MethodFSWriteTextFile, true
	case MethodTerminalCreate:
		return MethodTerminalCreate, true
	case MethodTerminalOutput:
		return MethodTerminalOutput, true
	case MethodTerminalRelease:
		return MethodTerminalRelease, true
	case MethodTerminalWaitForExit:
		return MethodTerminalWaitForExit, true
	case MethodTerminalKill:
		return MethodTerminalKill, true
	case MethodCancelRequest:
		return MethodCancelRequest, true
	case MethodGooseSessionSteer:
		return MethodGooseSessionSteer, true
	case MethodGooseSessionUpdate:
		return MethodGooseSessionUpdate, true
	}
	return "", false
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
	i := skipWS(v, 1)
	if v[i] != '}' {
		for {
			var key, val []byte
			var escaped bool
			key, escaped, val, i = member(v, i, maxDepth)
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
			i = skipWS(v, i+1)
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

// The scanner. Each function validates what it skips, so one pass over the
// line both checks it is JSON (RFC 8259, UTF-8 strings) and finds the
// members' values.

// maxDepth is the deepest nesting accepted, the limit encoding/json enforces.
const maxDepth = 10000

// member reads one object member starting at b[i], which should be the
// opening quote of its name, validating the value with at most depth levels
// of nesting. It returns the name's raw content (between the quotes), whether
// that holds an escape, the raw value, and the index of the ',' or '}' that
// follows; next is -1 when the bytes are not valid JSON.
func member(b []byte, i, depth int) (key []byte, escaped bool, val []byte, next int) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, nil, -1
	}
	end, escaped := scanString(b, i)
	if end < 0 {
		return nil, false, nil, -1
	}
	key = b[i+1 : end-1]
	i = skipWS(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, false, nil, -1
	}
	i = skipWS(b, i+1)
	end = skipValue(b, i, depth)
	if end < 0 {
		return nil, false, nil, -1
	}
	val = b[i:end]
	i = skipWS(b, end)
	if i >= len(b) || (b[i] != ',' && b[i] != '}') {
		return nil, false, nil, -1
	}
	return key, escaped, val, i
}

// skipWS returns the index of the first byte at or after i that is not JSON
// white space.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue validates the JSON value starting at b[i] and returns the index
// just past it, or -1 when it is not valid or nests deeper than depth. It
// loops rather than recursing, so hostile nesting cannot grow the stack.
func skipValue(b []byte, i, depth int) int {
	// Which open containers are objects, one bit per level: the first 64
	// levels in a word, deeper ones (rare) in a slice.
	var inObj uint64
	var deep []uint64
	level := 0
	isObj := func() bool {
		l := level - 1
		if l < 64 {
			return inObj&(1<<l) != 0
		}
		return deep[l/64-1]&(1<<(l%64)) != 0
	}
	push := func(obj bool) bool {
		if level >= depth {
			return false
		}
		l := level
		level++
		if l < 64 {
			if obj {
				inObj |= 1 << l
			} else {
				inObj &^= 1 << l
			}
			return true
		}
		w := l/64 - 1
		if w == len(deep) {
			deep = append(deep, 0)
		}
		if obj {
			deep[w] |= 1 << (l % 64)
		} else {
			deep[w] &^= 1 << (l % 64)
		}
		return true
	}

	for {
		// A value starts at b[i].
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; c {
		case '"':
			i, _ = scanString(b, i)
		case '{', '[':
			if !push(c == '{') {
				return -1
			}
			i = skipWS(b, i+1)
			if i >= len(b) {
				return -1
			}
			if b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				level--
				break
			}
			if c == '{' {
				if i = objectKey(b, i); i < 0 {
					return -1
				}
			}
			continue
		case 't':
			i = literal(b, i, "true")
		case 'f':
			i = literal(b, i, "false")
		case 'n':
			i = literal(b, i, "null")
		default:
			i = scanNumber(b, i)
		}
		if i < 0 {
			return -1
		}
		// After a value: close containers or move to the next element.
		for {
			if level == 0 {
				return i
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			obj := isObj()
			c := b[i]
			if c == ',' {
				i = skipWS(b, i+1)
				if obj {
					if i = objectKey(b, i); i < 0 {
						return -1
					}
				}
				break
			}
			if (obj && c == '}') || (!obj && c == ']') {
				i++
				level--
				continue
			}
			return -1
		}
	}
}

// objectKey validates `"name" :` at b[i] and returns the index of the value
// that follows, or -1.
func objectKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	i, _ = scanString(b, i)
	if i < 0 {
		return -1
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipWS(b, i+1)
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber validates the JSON number at b[i] and returns the index just
// past it, or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// scanString validates the JSON string whose opening quote is b[i] and
// returns the index just past its closing quote (or -1 when it is not a
// valid string of valid UTF-8) and whether it holds an escape.
func scanString(b []byte, i int) (end int, escaped bool) {
	i++
	for {
		// Eight bytes at a time while none needs a look: a quote, a
		// backslash, a control character or a non-ASCII byte. A flagged
		// byte can be spurious only after a genuine one (a borrow travels
		// upward, to later bytes), so the lowest flag is genuine.
		for len(b)-i >= 8 {
			x := binary.LittleEndian.Uint64(b[i:])
			m := (x - 0x20*lsb) | ((x ^ '"'*lsb) - lsb) | ((x ^ '\\'*lsb) - lsb) | x
			if m &= msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return -1, escaped
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return -1, escaped
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, escaped
				}
				i += 6
			default:
				return -1, escaped
			}
		case c < 0x20:
			return -1, escaped
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return -1, escaped
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
