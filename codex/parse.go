package codex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// ParseLine parses one line of `codex exec --json` output. It appends the
// events the line carries to events (none, or one) and returns the extended
// slice, with the thread id the line names: its thread_id, which the
// "thread.started" line each run begins with carries, as a slice of line
// that copies nothing (nil when the line names none). Pass it to `codex
// exec resume` to go on with the thread.
//
// A blank line, a line whose "type" is unknown ("item.plan.delta",
// "request_user_input", future kinds), and an item line without an item
// object yield no events and no error; an item of an unknown type yields an
// [UnknownItem]. A started or updated "agent_message" or "reasoning" item
// yields nothing: the completed one carries the whole text.
//
// A line that is not a JSON object, holds invalid UTF-8, or nests arrays
// and objects more than 10,000 levels deep yields a [*SyntaxError], which
// never holds the line's content; events is then returned unchanged. The
// CLI may write other text to stdout, so callers skip such a line and go on
// with the next.
//
// Member names are matched exactly, after unescaping. When a name is
// repeated in one object, at any depth, the last occurrence wins, as with
// encoding/json; the CLI's web_search items really repeat "id".
//
// ParseLine only reads line, and keeps no reference to it in the events:
// every string in them is a copy.
func ParseLine(line []byte, events []Event) (out []Event, threadID []byte, err error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return events, nil, nil
	}
	var f topFields
	if line[0] != '{' || !f.read(line) {
		// Not gjson.Valid: it recurses per nesting level, and a line of
		// ten million '[' would overflow the stack, which no recover
		// catches. jsonscan says where and why the line is not a JSON
		// object (ok cannot be true: read accepts every object).
		off, why, _ := jsonscan.CheckObject(line)
		return events, nil, &SyntaxError{Length: len(line), Offset: off, reason: why}
	}
	if f.threadID.Type == gjson.String && f.threadID.Str != "" {
		threadID = f.threadIDBytes()
	}
	if e, ok := f.event(); ok {
		events = append(events, e)
	}
	return events, threadID, nil
}

// topFields are the members of a line's object that ParseLine reads: of a
// repeated name, the last value.
type topFields struct {
	typ, threadID, item, usage, err, message gjson.Result
	threadIDRaw                              []byte // the thread_id value, as a slice of the line
}

// threadIDBytes returns the thread id as a slice of the line, copying only
// when it holds escapes.
func (f *topFields) threadIDBytes() []byte {
	raw := f.threadIDRaw
	if bytes.IndexByte(raw, '\\') >= 0 || len(raw) < 2 {
		return []byte(str(f.threadID))
	}
	return raw[1 : len(raw)-1 : len(raw)-1]
}

// read validates line, an object, and gathers its members in the same
// pass: jsonscan validates each member's value as it finds its end, and
// gjson reads only the values kept, never the whole line again. It reports
// false when line is not valid JSON.
func (f *topFields) read(line []byte) bool {
	i := jsonscan.SkipSpace(line, 1)
	if i < len(line) && line[i] == '}' {
		return jsonscan.SkipSpace(line, i+1) == len(line)
	}
	for {
		key, escaped, val, next := jsonscan.Member(line, i, jsonscan.MaxDepth-1)
		if next < 0 {
			return false
		}
		name := members.View(key)
		if escaped {
			name = gjson.Parse(`"` + name + `"`).Str // rare: allocation is fine
		}
		switch name {
		case "type":
			f.typ = gjson.Parse(members.View(val))
		case "thread_id":
			f.threadID, f.threadIDRaw = gjson.Parse(members.View(val)), val
		case "item":
			f.item = gjson.Parse(members.View(val))
		case "usage":
			f.usage = gjson.Parse(members.View(val))
		case "error":
			f.err = gjson.Parse(members.View(val))
		case "message":
			f.message = gjson.Parse(members.View(val))
		}
		if line[next] == '}' {
			return jsonscan.SkipSpace(line, next+1) == len(line)
		}
		i = jsonscan.SkipSpace(line, next+1) // past ','
	}
}

// event turns the line's members into its event, if any.
func (f *topFields) event() (Event, bool) {
	if f.typ.Type != gjson.String {
		return nil, false
	}
	switch f.typ.Str {
	case "thread.started":
		return ThreadStarted{ThreadID: str(f.threadID)}, true
	case "turn.started":
		return TurnStarted{}, true
	case "item.started":
		return parseItem(f.item, PhaseStarted)
	case "item.updated":
		return parseItem(f.item, PhaseUpdated)
	case "item.completed":
		return parseItem(f.item, PhaseCompleted)
	case "turn.completed":
		return TurnCompleted{Usage: members.Object(f.usage)}, true
	case "turn.failed":
		msg := str(members.Get(f.err, "message"))
		return TurnFailed{Message: msg, Status: httpStatus(msg)}, true
	case "error":
		return parseError(str(f.message)), true
	}
	return nil, false
}

// itemFields are the members of an item that ParseLine reads; of a
// repeated name, the last value.
type itemFields struct {
	id, typ, text, command, output, exitCode, status gjson.Result
	changes, query, action, server, tool, arguments  gjson.Result
	result, err, message, items                      gjson.Result
}

func parseItem(item gjson.Result, phase Phase) (Event, bool) {
	if !item.IsObject() {
		return nil, false
	}
	var f itemFields
	item.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			f.id = v
		case "type":
			f.typ = v
		case "text":
			f.text = v
		case "command":
			f.command = v
		case "aggregated_output":
			f.output = v
		case "exit_code":
			f.exitCode = v
		case "status":
			f.status = v
		case "changes":
			f.changes = v
		case "query":
			f.query = v
		case "action":
			f.action = v
		case "server":
			f.server = v
		case "tool":
			f.tool = v
		case "arguments":
			f.arguments = v
		case "result":
			f.result = v
		case "error":
			f.err = v
		case "message":
			f.message = v
		case "items":
			f.items = v
		}
		return true
	})
	id := str(f.id)
	switch f.typ.Str {
	case "agent_message":
		if phase != PhaseCompleted {
			return nil, false
		}
		return Text{ItemID: id, Text: str(f.text)}, true
	case "reasoning":
		if phase != PhaseCompleted {
			return nil, false
		}
		return Reasoning{ItemID: id, Text: str(f.text)}, true
	case "command_execution":
		e := CommandExecution{ItemID: id, Phase: phase, Kind: ToolKindExecute, Command: str(f.command), Output: str(f.output), Status: Status(str(f.status))}
		if code, ok := exitCode(f.exitCode); ok {
			e.ExitCode, e.HasExitCode = code, true
		}
		return e, true
	case "file_change":
		changes := objects(f.changes, readChange)
		return FileChange{ItemID: id, Phase: phase, Kind: changeKind(changes), Changes: changes, Status: Status(str(f.status))}, true
	case "web_search":
		action := str(members.Get(f.action, "type"))
		kind := ToolKindSearch
		if action == "open_page" {
			kind = ToolKindFetch
		}
		return WebSearch{ItemID: id, Phase: phase, Kind: kind, Query: str(f.query),
			ActionType: action, Action: members.Object(f.action)}, true
	case "mcp_tool_call":
		return MCPToolCall{ItemID: id, Phase: phase, Kind: ToolKindOther, Server: str(f.server), Tool: str(f.tool),
			Arguments: valueCopy(f.arguments), Result: valueCopy(f.result),
			Error: str(members.Get(f.err, "message")), Status: Status(str(f.status))}, true
	case "todo_list":
		return TodoList{ItemID: id, Phase: phase, Items: objects(f.items, readTodo)}, true
	case "error":
		return Notice{ItemID: id, Message: str(f.message)}, true
	}
	return UnknownItem{ItemID: id, Phase: phase, Type: str(f.typ), Raw: members.Raw(item)}, true
}

// objects returns read of each object element of arr, skipping elements
// of other kinds; nil when arr is not an array.
func objects[T any](arr gjson.Result, read func(obj gjson.Result) T) []T {
	if !arr.IsArray() {
		return nil
	}
	out := []T{}
	arr.ForEach(func(_, v gjson.Result) bool {
		if v.IsObject() {
			out = append(out, read(v))
		}
		return true
	})
	return out
}

// readChange reads one element of a file_change item's changes: {path,
// kind}, and in newer protocols the change's text ("diff") and a kind
// that is an object ({"type": "update", "move_path": …}).
func readChange(c gjson.Result) Change {
	var path, kind, diff, move gjson.Result
	c.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "path":
			path = v
		case "kind":
			kind = v
		case "diff":
			diff = v
		}
		return true
	})
	if kind.IsObject() {
		move = members.Get(kind, "move_path")
		kind = members.Get(kind, "type")
	}
	return withHunks(Change{Path: str(path), Kind: ChangeKind(str(kind)), MovePath: str(move), Diff: str(diff)})
}

// changeKind is the kind of a patch made of changes: delete when every
// change deletes a file, edit otherwise.
func changeKind(changes []Change) ToolKind {
	if len(changes) == 0 {
		return ToolKindEdit
	}
	for _, c := range changes {
		if c.Kind != ChangeDelete {
			return ToolKindEdit
		}
	}
	return ToolKindDelete
}

// readTodo reads one element of a todo_list item's items.
func readTodo(it gjson.Result) TodoItem {
	var text, completed gjson.Result
	it.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "text":
			text = v
		case "completed":
			completed = v
		}
		return true
	})
	return TodoItem{Text: str(text), Completed: completed.Type == gjson.True}
}

// retryPrefix starts the message of an "error" line that announces a retry.
const retryPrefix = "Reconnecting... "

// parseError reads a top-level error line's message: a [Retry] when it
// reads "Reconnecting... N/M[ (reason)]", an [APIError] otherwise.
func parseError(msg string) Event {
	rest, ok := strings.CutPrefix(msg, retryPrefix)
	if !ok {
		return APIError{Message: msg, Status: httpStatus(msg)}
	}
	counts, reason, _ := strings.Cut(rest, " ")
	a, m, ok := strings.Cut(counts, "/")
	if !ok || !isDigits(a) || !isDigits(m) {
		return APIError{Message: msg, Status: httpStatus(msg)}
	}
	if r, ok := strings.CutPrefix(reason, "("); ok {
		reason = strings.TrimSuffix(r, ")")
	}
	return Retry{Attempt: atoi(a), MaxRetries: atoi(m), Message: reason, Status: httpStatus(reason)}
}

// httpStatus returns the HTTP status msg names, or 0. Codex names one in
// "unexpected status 429 Too Many Requests: …" (a request the server
// refused) and "exceeded retry limit, last status: 429 Too Many Requests"
// (the last of the retries that gave up), so a status is three digits,
// 100 to 599, after the word "status" (in any case) and one space or ": ".
// The first such number counts. No other number is one: not after "exit
// status" (a process's), and not a number the digits are only part of,
// such as "status 4291", "status 429.5", "status 500ms" or "status 2/5".
func httpStatus(msg string) int {
	const word = "status"
	for i := 0; i+len(word) <= len(msg); i++ {
		if !strings.EqualFold(msg[i:i+len(word)], word) || i > 0 && isWordByte(msg[i-1]) {
			continue
		}
		if n := statusAfter(msg[i+len(word):]); n != 0 && !hasSuffixFold(msg[:i], "exit ") {
			return n
		}
	}
	return 0
}

// statusAfter reads the status that follows the word "status" at the
// start of s: " NNN" or ": NNN", NNN from 100 to 599 and standing alone.
// It returns 0 when s starts otherwise.
func statusAfter(s string) int {
	s, ok := strings.CutPrefix(s, " ")
	if !ok {
		if s, ok = strings.CutPrefix(s, ": "); !ok {
			return 0
		}
	}
	if digits(s, 3) != 3 || s[0] < '1' || s[0] > '5' {
		return 0
	}
	if rest := s[3:]; rest != "" {
		// A letter or digit makes the digits part of a word or a longer
		// number; ".5", ",000", ":30", "/5" and "-503" join them to
		// another number.
		if isWordByte(rest[0]) || strings.IndexByte(".,:/-", rest[0]) >= 0 && digits(rest[1:], 1) == 1 {
			return 0
		}
	}
	return atoi(s[:3])
}

// hasSuffixFold is strings.HasSuffix under ASCII case folding.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// isDigits reports whether s is a non-empty run of ASCII digits, short
// enough for [atoi] to read without overflow.
func isDigits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// exitCode reads an exit code: a JSON integer in the int32 range, the type
// the CLI uses. null, a fraction, an exponent or a larger number is no
// exit code.
func exitCode(r gjson.Result) (int, bool) {
	if r.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(r.Raw, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

// valueCopy is members.Raw, with nil for null too.
func valueCopy(r gjson.Result) json.RawMessage {
	if r.Type == gjson.Null {
		return nil
	}
	return members.Raw(r)
}

// SyntaxError reports a line that is not a JSON object. It deliberately
// holds no part of the line, which may contain secrets or be huge: only its
// length and the byte offset at which it stops being valid JSON (Length
// when the line is cut short; 0 when it is valid JSON but not an object).
type SyntaxError struct {
	Length int // length in bytes, surrounding white space excluded
	Offset int // offset of the first offending byte
	reason string
}

// Error describes where the line stops being JSON and why, without quoting
// it.
func (e *SyntaxError) Error() string {
	return "codex: invalid JSON line (" + strconv.Itoa(e.Length) + " bytes): " +
		e.reason + " at offset " + strconv.Itoa(e.Offset)
}

// str returns a string value as a string the caller owns, "" for any other
// kind of value; well-known values come from the table of known.
func str(r gjson.Result) string { return members.String(r, known) }
