package claude

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// ParseLine parses one line of `claude -p --output-format stream-json
// --verbose` output. It appends the events the line carries to events, in
// the order the line holds them, and returns the extended slice.
//
// sessionID is the line's top-level "session_id", or nil when it has none
// (absent, not a string, or empty). It aliases line (no copy is made, so a
// line that repeats the previous id costs nothing): compare it with the id
// you hold and copy it only when it differs, before line is reused. [Turn]
// does exactly that.
//
// A blank line and a line whose "type" is unknown yield no events and no
// error. A line that is not a JSON object, or that nests arrays and
// objects more than 10,000 levels deep, yields a [*SyntaxError], which
// never holds the line's content. The CLI sometimes writes other text to
// stdout, so callers skip such a line and go on with the next. events is
// returned unchanged whenever err is not nil.
//
// JSON is UTF-8: a line holding invalid UTF-8 is a [*SyntaxError] too.
//
// Member names are matched exactly, after unescaping. When a name is
// repeated in one object, at any depth, the last occurrence wins, as with
// encoding/json.
//
// ParseLine only reads line, and keeps no reference to it in the events:
// every string in them is a copy.
func ParseLine(line []byte, events []Event) (out []Event, sessionID []byte, err error) {
	return Parser{}.ParseLine(line, events)
}

// A Parser parses lines of the CLI's output as [ParseLine] does, with
// options. The zero Parser is ParseLine's. A Parser holds no state, so one
// value may be used for any number of lines, concurrently.
type Parser struct {
	// ReportUnknown makes the parser report a line whose type this
	// package does not know, and a system line whose subtype it does not
	// know, as an [Unknown] event. Without it the first yields no event
	// and the second a [Heartbeat].
	ReportUnknown bool
}

// ParseLine parses one line as the package's [ParseLine] does, with p's
// options.
func (p Parser) ParseLine(line []byte, events []Event) (out []Event, sessionID []byte, err error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return events, nil, nil
	}
	// Not gjson.ValidBytes: it recurses per nesting level, and a line of
	// ten million '[' would overflow the stack, which no recover catches.
	if off, why, ok := jsonscan.CheckObject(line); !ok {
		return events, nil, &SyntaxError{Length: len(line), Offset: off, reason: why}
	}
	lp := lineParser{line: line, events: events, reportUnknown: p.ReportUnknown}
	lp.parse()
	return lp.events, lp.sessionID, nil
}

type lineParser struct {
	line      []byte
	events    []Event
	sessionID []byte
	ts        int64 // the line's timestamp, epoch ms; 0 if none

	reportUnknown bool // Parser.ReportUnknown
}

// topFields are the top-level members ParseLine reads, gathered in one pass.
// A repeated name keeps its last value, as with encoding/json.
type topFields struct {
	typ, subtype, sessionID, parentToolUseID, errorKind gjson.Result
	message, event, rateLimitInfo, model, timestamp     gjson.Result
	// system api_retry, permission_denied
	attempt, maxRetries, retryDelayMS, errorStatus gjson.Result
	toolName, toolUseID                            gjson.Result
	// assistant API errors, and result
	apiErrorStatus, apiErrorType, apiError, apiErrorParams gjson.Result
	// result
	isError, result, errors, numTurns, terminalReason gjson.Result
	durationMS, durationAPIMS, totalCostUSD           gjson.Result
	stopReason, usage, modelUsage, permissionDenials  gjson.Result
	runModelUsage                                     gjson.Result
	// user
	toolUseResult gjson.Result
}

func (f *topFields) set(key string, v gjson.Result) {
	switch key {
	case "type":
		f.typ = v
	case "subtype":
		f.subtype = v
	case "session_id":
		f.sessionID = v
	case "parent_tool_use_id":
		f.parentToolUseID = v
	case "error":
		f.errorKind = v
	case "message":
		f.message = v
	case "event":
		f.event = v
	case "rate_limit_info":
		f.rateLimitInfo = v
	case "model":
		f.model = v
	case "timestamp":
		f.timestamp = v
	case "attempt":
		f.attempt = v
	case "max_retries":
		f.maxRetries = v
	case "retry_delay_ms":
		f.retryDelayMS = v
	case "error_status":
		f.errorStatus = v
	case "tool_name":
		f.toolName = v
	case "tool_use_id":
		f.toolUseID = v
	case "is_error":
		f.isError = v
	case "result":
		f.result = v
	case "errors":
		f.errors = v
	case "api_error_status":
		f.apiErrorStatus = v
	case "api_error_type":
		f.apiErrorType = v
	case "api_error":
		f.apiError = v
	case "api_error_params":
		f.apiErrorParams = v
	case "terminal_reason":
		f.terminalReason = v
	case "num_turns":
		f.numTurns = v
	case "duration_ms":
		f.durationMS = v
	case "duration_api_ms":
		f.durationAPIMS = v
	case "total_cost_usd":
		f.totalCostUSD = v
	case "stop_reason":
		f.stopReason = v
	case "usage":
		f.usage = v
	case "modelUsage":
		f.modelUsage = v
	case "model_usage_since_last_result":
		f.runModelUsage = v
	case "permission_denials":
		f.permissionDenials = v
	case "tool_use_result":
		f.toolUseResult = v
	}
}

func (p *lineParser) parse() {
	var f topFields
	gjson.Parse(members.View(p.line)).ForEach(func(k, v gjson.Result) bool {
		f.set(k.Str, v)
		return true
	})
	if f.sessionID.Type == gjson.String && f.sessionID.Str != "" {
		p.sessionID = p.slice(f.sessionID)
	}
	p.ts = epochMillis(f.timestamp)
	if f.typ.Type != gjson.String {
		p.unknown(&f)
		return
	}
	switch f.typ.Str {
	case "system":
		p.system(&f)
	case "assistant":
		p.assistant(&f)
	case "user":
		p.user(&f)
	case "stream_event":
		p.streamEvent(&f)
	case "rate_limit_event":
		rl := parseRateLimitInfo(f.rateLimitInfo)
		rl.Timestamp = p.ts
		p.emit(rl)
	case "result":
		p.result(&f)
	default:
		p.unknown(&f)
	}
}

// unknown reports the line as an Unknown event, if asked to.
func (p *lineParser) unknown(f *topFields) {
	if p.reportUnknown {
		p.emit(Unknown{Type: str(f.typ), Subtype: str(f.subtype), Timestamp: p.ts})
	}
}

// isHeartbeat reports whether a system subtype is a known sign of life.
func isHeartbeat(subtype string) bool {
	switch subtype {
	case "init", "status", "compact_boundary", "hook_started", "hook_progress", "hook_response",
		"task_started", "task_progress", "task_notification", "background_tasks_changed", "files_persisted":
		return true
	}
	return false
}

func (p *lineParser) emit(e Event) { p.events = append(p.events, e) }

func (p *lineParser) system(f *topFields) {
	subtype := str(f.subtype)
	switch subtype {
	case "api_retry":
		p.emit(Retry{
			Attempt:    int(members.Int(f.attempt)),
			MaxRetries: int(members.Int(f.maxRetries)),
			Delay:      members.Millis(members.Int(f.retryDelayMS)),
			Status:     int(members.Int(f.errorStatus)),
			Error:      str(f.errorKind),
			Timestamp:  p.ts,
		})
	case "permission_denied":
		p.emit(PermissionDenied{
			ToolName:        str(f.toolName),
			ToolUseID:       str(f.toolUseID),
			Message:         str(f.message),
			ParentToolUseID: str(f.parentToolUseID),
			Timestamp:       p.ts,
		})
	case "init":
		p.emit(Heartbeat{Subtype: subtype, Model: str(f.model), Timestamp: p.ts})
	default:
		if p.reportUnknown && !isHeartbeat(subtype) {
			p.unknown(f)
			return
		}
		p.emit(Heartbeat{Subtype: subtype, Timestamp: p.ts})
	}
}

// block holds the members of a content block (or of a stream_event's
// delta) that ParseLine reads; of a repeated name, the last value.
type block struct {
	typ, text, thinking, id, name, input gjson.Result
	toolUseID, content, isError          gjson.Result
	partialJSON                          gjson.Result // input_json_delta
}

func readBlock(b gjson.Result) block {
	var k block
	b.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "type":
			k.typ = v
		case "text":
			k.text = v
		case "thinking":
			k.thinking = v
		case "id":
			k.id = v
		case "name":
			k.name = v
		case "input":
			k.input = v
		case "tool_use_id":
			k.toolUseID = v
		case "content":
			k.content = v
		case "is_error":
			k.isError = v
		case "partial_json":
			k.partialJSON = v
		}
		return true
	})
	return k
}

func (p *lineParser) assistant(f *topFields) {
	parent := str(f.parentToolUseID)
	content := members.Get(f.message, "content")
	if f.errorKind.Exists() && f.errorKind.Type != gjson.Null {
		// A synthetic message standing for an API failure: its text is a
		// diagnostic, not model output.
		e := APIError{
			Kind:            str(f.errorKind),
			Status:          int(members.Int(f.apiErrorStatus)),
			Type:            str(f.apiErrorType),
			Code:            str(f.apiError),
			ParentToolUseID: parent,
			Timestamp:       p.ts,
		}
		if f.errorKind.Type != gjson.String {
			e.Kind = strings.Clone(f.errorKind.Raw)
		}
		if info := members.Get(f.apiErrorParams, "rate_limit_info"); info.IsObject() {
			rl := parseRateLimitInfo(info)
			rl.Timestamp = p.ts
			e.RateLimit = &rl
		}
		e.Text = p.joinText(content)
		p.emit(e)
		return
	}
	content.ForEach(func(_, b gjson.Result) bool { // nothing for a non-array
		if !b.IsObject() {
			return true
		}
		k := readBlock(b)
		switch k.typ.Str {
		case "text":
			p.emit(Text{Text: str(k.text), ParentToolUseID: parent, Timestamp: p.ts})
		case "thinking":
			p.emit(Thinking{Text: str(k.thinking), ParentToolUseID: parent, Timestamp: p.ts})
		case "tool_use":
			p.emit(ToolUse{ID: str(k.id), Name: str(k.name), Input: members.Raw(k.input), ParentToolUseID: parent, Timestamp: p.ts})
		default:
			p.emit(UnknownBlock{Type: str(k.typ), Raw: members.Raw(b), ParentToolUseID: parent, Timestamp: p.ts})
		}
		return true
	})
	p.messageUsage(f.message, parent)
}

// messageUsage reports the usage of msg, an assistant message, when it has
// a usage object.
func (p *lineParser) messageUsage(msg gjson.Result, parent string) {
	var id, u gjson.Result
	msg.ForEach(func(k, v gjson.Result) bool { // nothing for a non-object
		switch k.Str {
		case "id":
			id = v
		case "usage":
			u = v
		}
		return true
	})
	if u.IsObject() {
		p.emit(MessageUsage{MessageID: str(id), Usage: members.Raw(u), ParentToolUseID: parent, Timestamp: p.ts})
	}
}

func (p *lineParser) user(f *topFields) {
	content := members.Get(f.message, "content")
	if !content.IsArray() {
		return
	}
	parent := str(f.parentToolUseID)
	first := len(p.events)
	content.ForEach(func(_, b gjson.Result) bool {
		if !b.IsObject() {
			return true
		}
		k := readBlock(b)
		if k.typ.Str != "tool_result" {
			return true
		}
		r := ToolResult{ToolUseID: str(k.toolUseID), IsError: k.isError.Bool(), ParentToolUseID: parent, Timestamp: p.ts}
		switch {
		case k.content.Type == gjson.String:
			r.Text = str(k.content)
		case k.content.IsArray():
			r.Text = p.joinText(k.content)
		}
		p.emit(r)
		return true
	})
	// The line's account of the call belongs to its one result; of
	// several, nothing says whose it is. A null account is none.
	if len(p.events) == first+1 && f.toolUseResult.Exists() && f.toolUseResult.Type != gjson.Null {
		r := p.events[first].(ToolResult)
		r.Details = members.Raw(f.toolUseResult)
		r.FileChange = fileChange(f.toolUseResult)
		p.events[first] = r
	}
}

// fileChange reads the change to a file that a tool_use_result describes:
// an object with a string "filePath" and a "structuredPatch" array; nil
// for any other value.
func fileChange(v gjson.Result) *FileChange {
	m := members.GetAll(v, "filePath", "structuredPatch", "type", "originalFile", "content")
	path, patch, typ, orig, content := m[0], m[1], m[2], m[3], m[4]
	if path.Type != gjson.String || !patch.IsArray() {
		return nil
	}
	c := &FileChange{Path: str(path), Hunks: hunks(patch)}
	if typ.Type == gjson.String {
		c.Type = str(typ)
	}
	if orig.Type == gjson.String {
		s := str(orig)
		c.Original = &s
	}
	if content.Type == gjson.String {
		s := str(content)
		c.Content = &s
	}
	return c
}

// hunks reads a structuredPatch array; nil when any hunk is not an object
// of counts and a list of line strings.
func hunks(patch gjson.Result) []Hunk {
	out := []Hunk{}
	ok := true
	patch.ForEach(func(_, h gjson.Result) bool {
		m := members.GetAll(h, "oldStart", "oldLines", "newStart", "newLines", "lines")
		for _, n := range m[:4] {
			if n.Type != gjson.Number || n.Num < 0 || n.Num > math.MaxInt32 || n.Num != math.Trunc(n.Num) {
				ok = false
			}
		}
		if !ok || !m[4].IsArray() {
			ok = false
			return false
		}
		k := Hunk{OldStart: int(m[0].Num), OldLines: int(m[1].Num), NewStart: int(m[2].Num), NewLines: int(m[3].Num), Lines: []string{}}
		m[4].ForEach(func(_, l gjson.Result) bool {
			if l.Type != gjson.String {
				ok = false
				return false
			}
			k.Lines = append(k.Lines, str(l))
			return true
		})
		out = append(out, k)
		return ok
	})
	if !ok {
		return nil
	}
	return out
}

// joinText returns the text of the text blocks in a content array, joined
// with newlines; a plain string is returned as is.
func (p *lineParser) joinText(content gjson.Result) string {
	if content.Type == gjson.String {
		return str(content)
	}
	var texts [4]gjson.Result
	parts := texts[:0]
	content.ForEach(func(_, b gjson.Result) bool {
		if b.IsObject() {
			if k := readBlock(b); k.typ.Str == "text" && k.text.Type == gjson.String {
				parts = append(parts, k.text)
			}
		}
		return true
	})
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return str(parts[0])
	}
	var sb strings.Builder
	for i, t := range parts {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(t.Str)
	}
	return sb.String()
}

func (p *lineParser) streamEvent(f *topFields) {
	if !f.event.IsObject() {
		return
	}
	var typ, delta, index, start, message, u gjson.Result
	f.event.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "delta":
			delta = v
		case "index":
			index = v
		case "content_block":
			start = v
		case "message":
			message = v
		case "usage":
			u = v
		}
		return true
	})
	switch {
	case typ.Str == "message_start":
		p.messageUsage(message, str(f.parentToolUseID))
	case typ.Str == "message_delta" && u.IsObject():
		p.emit(MessageUsage{Usage: members.Raw(u), ParentToolUseID: str(f.parentToolUseID), Timestamp: p.ts})
	case typ.Str == "content_block_delta" && delta.IsObject():
		d := readBlock(delta)
		switch d.typ.Str {
		case "text_delta":
			p.emit(PartialText{Text: str(d.text), ParentToolUseID: str(f.parentToolUseID), Timestamp: p.ts})
		case "thinking_delta":
			p.emit(PartialThinking{Text: str(d.thinking), ParentToolUseID: str(f.parentToolUseID), Timestamp: p.ts})
		case "input_json_delta":
			p.emit(PartialToolInput{Index: blockIndex(index), JSON: str(d.partialJSON), ParentToolUseID: str(f.parentToolUseID), Timestamp: p.ts})
		}
	case typ.Str == "content_block_start" && start.IsObject():
		if b := readBlock(start); b.typ.Str == "tool_use" {
			p.emit(PartialToolUse{Index: blockIndex(index), ID: str(b.id), Name: str(b.name), ParentToolUseID: str(f.parentToolUseID), Timestamp: p.ts})
		}
	}
}

// blockIndex reads a content block's index: a JSON integer that fits in an
// int, -1 for anything else.
func blockIndex(r gjson.Result) int {
	if r.Type != gjson.Number {
		return -1
	}
	n, err := strconv.ParseInt(r.Raw, 10, 0)
	if err != nil || n < 0 {
		return -1
	}
	return int(n)
}

func (p *lineParser) result(f *topFields) {
	r := Result{
		Subtype:        str(f.subtype),
		IsError:        f.isError.Bool(),
		Text:           str(f.result),
		APIErrorStatus: int(members.Int(f.apiErrorStatus)),
		APIErrorType:   str(f.apiErrorType),
		APIErrorCode:   str(f.apiError),
		TerminalReason: str(f.terminalReason),
		NumTurns:       int(members.Int(f.numTurns)),
		Duration:       members.Millis(members.Int(f.durationMS)),
		APIDuration:    members.Millis(members.Int(f.durationAPIMS)),
		StopReason:     str(f.stopReason),
		Timestamp:      p.ts,
	}
	objectCopies([]gjson.Result{f.usage, f.modelUsage, f.runModelUsage}, &r.Usage, &r.ModelUsage, &r.RunModelUsage)
	if f.totalCostUSD.Type == gjson.Number {
		// Raw may alias the line; the event must not.
		r.TotalCostUSD = json.Number(strings.Clone(f.totalCostUSD.Raw))
	}
	if f.errors.IsArray() {
		r.Errors = []string{}
		f.errors.ForEach(func(_, v gjson.Result) bool {
			if v.Type == gjson.String {
				r.Errors = append(r.Errors, str(v))
			} else {
				r.Errors = append(r.Errors, strings.Clone(v.Raw))
			}
			return true
		})
	}
	if f.permissionDenials.IsArray() {
		r.PermissionDenials = []PermissionDenial{}
		f.permissionDenials.ForEach(func(_, v gjson.Result) bool {
			if v.IsObject() {
				r.PermissionDenials = append(r.PermissionDenials, readDenial(v))
			}
			return true
		})
	}
	p.emit(r)
}

// readDenial reads one object of a result's permission_denials.
func readDenial(obj gjson.Result) PermissionDenial {
	var name, id, input gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "tool_name":
			name = v
		case "tool_use_id":
			id = v
		case "tool_input":
			input = v
		}
		return true
	})
	return PermissionDenial{ToolName: str(name), ToolUseID: str(id), Input: members.Raw(input)}
}

// slice returns a string value's content as a slice of the line, copying
// only when it holds escapes.
func (p *lineParser) slice(r gjson.Result) []byte {
	if strings.IndexByte(r.Raw, '\\') >= 0 {
		return []byte(r.Str)
	}
	start := r.Index + 1
	end := r.Index + len(r.Raw) - 1
	if r.Index < 0 || end > len(p.line) || start > end || string(p.line[start:end]) != r.Str {
		return []byte(r.Str) // not located in the line; never expected
	}
	return p.line[start:end:end]
}

// objectCopies sets each dst to a copy of the matching object value's JSON
// text, nil for anything else (absent, null), in one allocation: a slice
// of one backing array, capped so that appending to it reallocates.
func objectCopies(values []gjson.Result, dst ...*json.RawMessage) {
	n := 0
	for _, v := range values {
		if v.IsObject() {
			n += len(v.Raw)
		}
	}
	if n == 0 {
		return
	}
	buf := make([]byte, 0, n)
	for i, v := range values {
		if v.IsObject() {
			start := len(buf)
			buf = append(buf, v.Raw...)
			*dst[i] = json.RawMessage(buf[start:len(buf):len(buf)])
		}
	}
}

// SyntaxError reports a line that is not a JSON object. It deliberately
// holds no part of the line, which may contain secrets or be huge: only its
// length and the byte offset at which it stops being valid JSON (Length when
// the line is cut short; 0 when it is valid JSON but not an object).
type SyntaxError struct {
	Length int // length in bytes, surrounding white space excluded
	Offset int // offset of the first offending byte
	reason string
}

// Error describes where the line stops being JSON and why, without quoting it.
func (e *SyntaxError) Error() string {
	return "claude: invalid stream-json line (" + strconv.Itoa(e.Length) + " bytes): " +
		e.reason + " at offset " + strconv.Itoa(e.Offset)
}

// str returns a string value as a string the caller owns, "" for any other
// kind of value; well-known values come from the table of known.
func str(r gjson.Result) string { return members.String(r, known) }

// TerminalCommands returns the slash commands that an init line (a
// system line of subtype "init") says work only in the CLI's own
// terminal ("terminal_slash_commands": "doctor", "color", …), and
// whether the line lists them; a line of another kind, or one that is
// not JSON, lists none. The strings are copies the caller owns.
func TerminalCommands(line []byte) ([]string, bool) {
	line = bytes.TrimSpace(line)
	if _, _, ok := jsonscan.CheckObject(line); !ok {
		return nil, false
	}
	var typ, subtype, list gjson.Result
	gjson.Parse(members.View(line)).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "subtype":
			subtype = v
		case "terminal_slash_commands":
			list = v
		}
		return true
	})
	if str(typ) != "system" || str(subtype) != "init" || !list.IsArray() {
		return nil, false
	}
	out := []string{}
	list.ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String && v.Str != "" {
			out = append(out, strings.Clone(v.Str))
		}
		return true
	})
	return out, true
}
