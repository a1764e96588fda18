package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// ParseLine parses one line of `gemini --output-format stream-json` output.
// It appends the events the line carries to events, in order, and returns
// the extended slice.
//
// sessionID is the line's top-level "session_id", or nil when it has none
// (absent, not a string, or empty); the CLI prints it on the init line. It
// aliases line (no copy is made): copy it before line is reused.
//
// A blank line and a line whose "type" is unknown yield no events and no
// error, and so does a message line with a role other than "user" and
// "assistant". A line that is not a JSON object, or that nests arrays and
// objects more than 10,000 levels deep, or that holds invalid UTF-8, yields
// a [*SyntaxError], which never holds the line's content: the CLI may write
// other text to stdout, so callers skip such a line and go on with the
// next. events is returned unchanged whenever err is not nil.
//
// Member names are matched exactly, after unescaping. When a name is
// repeated in one object, at any depth, the last occurrence wins, as with
// encoding/json.
//
// ParseLine only reads line, and keeps no reference to it in the events:
// every string in them is a copy. It is safe for concurrent use.
func ParseLine(line []byte, events []Event) (out []Event, sessionID []byte, err error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return events, nil, nil
	}
	// Not gjson.ValidBytes: it recurses per nesting level, and a line of
	// ten million '[' would overflow the stack.
	if err := jsonscan.Check(line); err != nil {
		return events, nil, newSyntaxError(len(line), err)
	}
	if line[0] != '{' {
		return events, nil, &SyntaxError{Length: len(line), Offset: 0, reason: "not a JSON object"}
	}
	p := lineParser{line: line, events: events}
	p.parse()
	return p.events, p.sessionID, nil
}

// view returns line as a string without copying it, so that gjson reads
// it without allocating. The string is used only while ParseLine runs;
// everything that outlives the call is copied by str and rawCopy, and the
// session id is returned as a slice of line, documented as aliasing it.
func view(line []byte) string {
	return unsafe.String(unsafe.SliceData(line), len(line))
}

type lineParser struct {
	line      []byte
	events    []Event
	sessionID []byte
}

// topFields are the top-level members ParseLine reads, gathered in one
// pass; of a repeated name, the last value.
type topFields struct {
	typ, sessionID, model, role, content, delta gjson.Result
	toolName, toolID, parameters, status        gjson.Result
	output, error, severity, message, stats     gjson.Result
}

func (f *topFields) set(key string, v gjson.Result) {
	switch key {
	case "type":
		f.typ = v
	case "session_id":
		f.sessionID = v
	case "model":
		f.model = v
	case "role":
		f.role = v
	case "content":
		f.content = v
	case "delta":
		f.delta = v
	case "tool_name":
		f.toolName = v
	case "tool_id":
		f.toolID = v
	case "parameters":
		f.parameters = v
	case "status":
		f.status = v
	case "output":
		f.output = v
	case "error":
		f.error = v
	case "severity":
		f.severity = v
	case "message":
		f.message = v
	case "stats":
		f.stats = v
	}
}

func (p *lineParser) parse() {
	var f topFields
	gjson.Parse(view(p.line)).ForEach(func(k, v gjson.Result) bool {
		f.set(k.Str, v)
		return true
	})
	if f.sessionID.Type == gjson.String && f.sessionID.Str != "" {
		p.sessionID = p.slice(f.sessionID)
	}
	if f.typ.Type != gjson.String {
		return
	}
	switch f.typ.Str {
	case "init":
		p.emit(Init{Model: str(f.model)})
	case "message":
		p.message(&f)
	case "tool_use":
		name := str(f.toolName)
		p.emit(ToolUse{ID: str(f.toolID), Name: name, Kind: ToolKindOf(name), Input: rawCopy(f.parameters)})
	case "tool_result":
		errType, errMsg := errorObject(f.error)
		p.emit(ToolResult{
			ID:           str(f.toolID),
			Status:       ToolStatus(str(f.status)),
			Output:       str(f.output),
			ErrorType:    errType,
			ErrorMessage: errMsg,
		})
	case "error":
		p.emit(Notice{Severity: str(f.severity), Message: str(f.message)})
	case "result":
		p.result(&f)
	}
}

func (p *lineParser) emit(e Event) { p.events = append(p.events, e) }

func (p *lineParser) message(f *topFields) {
	if f.role.Type != gjson.String {
		return
	}
	switch f.role.Str {
	case "user":
		p.emit(UserMessage{Text: str(f.content)})
	case "assistant":
		if f.delta.Type == gjson.True {
			p.emit(PartialText{Text: str(f.content)})
		} else {
			p.emit(Text{Text: str(f.content)})
		}
	}
}

func (p *lineParser) result(f *topFields) {
	r := Result{Status: str(f.status), Stats: objectCopy(f.stats)}
	r.ErrorType, r.ErrorMessage = errorObject(f.error)
	if f.stats.IsObject() {
		var duration, toolCalls gjson.Result
		f.stats.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "duration_ms":
				duration = v
			case "tool_calls":
				toolCalls = v
			}
			return true
		})
		r.Duration = millis(integer(duration))
		r.ToolCalls = int(min(max(integer(toolCalls), 0), math.MaxInt)) // saturating where int has 32 bits
	}
	if e, ok := apiError(r.ErrorMessage); ok {
		p.emit(e)
	}
	p.emit(r)
}

// errorObject reads the type and message of an error object.
func errorObject(obj gjson.Result) (typ, message string) {
	if !obj.IsObject() {
		return "", ""
	}
	var t, m gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			t = v
		case "message":
			m = v
		}
		return true
	})
	return str(t), str(m)
}

// apiErrorPrefix starts the message of a result error that stands for an
// API failure.
const apiErrorPrefix = "[API Error: "

// apiError reads an API failure out of a result's error message.
func apiError(message string) (APIError, bool) {
	body, ok := strings.CutPrefix(message, apiErrorPrefix)
	if !ok {
		return APIError{}, false
	}
	return APIError{Status: httpStatus(body), Message: message}, true
}

// httpStatus returns error.code of the JSON error body that starts body
// and ends at a "]", when there is one and it is an HTTP status; else 0.
// Only the last "]" and the first "}]" are tried, so that the cost stays
// linear.
func httpStatus(body string) int {
	if !strings.HasPrefix(body, "{") {
		return 0
	}
	ends := [2]int{strings.LastIndexByte(body, ']'), -1}
	if i := strings.Index(body, "}]"); i >= 0 {
		ends[1] = i + 1
	}
	for _, end := range ends {
		if end <= 0 || !jsonscan.Valid(unsafe.Slice(unsafe.StringData(body), end)) { // read only
			continue
		}
		code := members.Get(members.Get(gjson.Parse(body[:end]), "error"), "code")
		if code.Type == gjson.Number {
			if n, err := strconv.Atoi(code.Raw); err == nil && n >= 100 && n <= 599 {
				return n
			}
		}
		return 0
	}
	return 0
}

// str returns a string value as a string the caller owns, "" for any other
// kind of value. Well-known values come from a table instead of a copy.
func str(r gjson.Result) string {
	if r.Type != gjson.String {
		return ""
	}
	if strings.IndexByte(r.Raw, '\\') >= 0 {
		return r.Str // gjson unescaped it into a fresh string
	}
	if s, ok := known(r.Str); ok {
		return s
	}
	return strings.Clone(r.Str)
}

// slice returns a string value's content as a slice of the line, copying
// only when it holds escapes.
func (p *lineParser) slice(r gjson.Result) []byte {
	if strings.IndexByte(r.Raw, '\\') >= 0 {
		return []byte(r.Str)
	}
	start := r.Index + 1
	end := r.Index + len(r.Raw) - 1
	if r.Index <= 0 || end > len(p.line) || start > end || string(p.line[start:end]) != r.Str {
		return []byte(r.Str) // not located in the line; never expected
	}
	return p.line[start:end:end]
}

// rawCopy returns a copy of a value's JSON text; nil when absent.
func rawCopy(r gjson.Result) json.RawMessage {
	if !r.Exists() {
		return nil
	}
	return json.RawMessage(r.Raw) // converting a string copies it
}

// objectCopy returns a copy of an object value's JSON text; nil for
// anything else.
func objectCopy(r gjson.Result) json.RawMessage {
	if !r.IsObject() {
		return nil
	}
	return rawCopy(r)
}

// integer reads a JSON number as an int64, truncating a fraction; 0 for
// anything else. gjson saturates values beyond the int64 range.
func integer(r gjson.Result) int64 {
	if r.Type != gjson.Number {
		return 0
	}
	return r.Int()
}

// millis converts a count of milliseconds to a Duration, saturating instead
// of overflowing; negative counts give 0.
func millis(ms int64) time.Duration {
	switch {
	case ms <= 0:
		return 0
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// SyntaxError reports a line that is not a JSON object. It holds no part
// of the line, which may contain secrets or be huge: only its length and
// the byte offset at which it stops being valid JSON (Length when the line is
// cut short; 0 when it is valid JSON but not an object).
type SyntaxError struct {
	Length int // length in bytes, surrounding white space excluded
	Offset int // offset of the first offending byte
	reason string
}

// Error describes where the line stops being JSON and why, without quoting
// it.
func (e *SyntaxError) Error() string {
	return "gemini: invalid stream-json line (" + strconv.Itoa(e.Length) + " bytes): " +
		e.reason + " at offset " + strconv.Itoa(e.Offset)
}

// newSyntaxError turns err, from jsonscan.Check on a line of n bytes, into
// a *SyntaxError.
func newSyntaxError(n int, err error) *SyntaxError {
	var se *jsonscan.SyntaxError
	if !errors.As(err, &se) {
		return &SyntaxError{Length: n, Offset: n, reason: "invalid JSON"} // unreachable
	}
	return &SyntaxError{Length: n, Offset: se.Offset, reason: se.Reason}
}
