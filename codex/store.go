package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/acpkit/acpkit/timeparse"
	"github.com/tidwall/gjson"
)

// MaxEntryLength is the longest line, in bytes without its terminator,
// that [ReadEntries] reads from a stored session. It is far above the
// longest line Codex writes (its session_meta line holds the whole system
// prompt, some 22 KB; a command's output is cut by the CLI), and only
// bounds the memory one runaway line can take. A longer line is skipped
// and reported, and reading goes on.
const MaxEntryLength = 1 << 30

// Entry is one line of a rollout file, the session file Codex keeps on
// disk (see [SessionFile]): an item of the conversation, a turn's
// bookkeeping, or the model-facing history. Every line yields one Entry,
// whatever its type.
//
// Items of the conversation carry what the live stream (`codex exec
// --json`) shows of them, as the [Event] values [ParseLine] reads from
// the item lines the CLI prints, so that a replay of the file goes
// through the same translation as the live run. What only the store has
// sits beside them: the person's [Prompt], the entry's time and turn, and
// flags that say what is not the person's conversation.
//
// Strings, slices and raw JSON in an Entry are copies the caller owns.
type Entry struct {
	// Line is the line's 1-based number in the file, blank lines
	// included, and Offset the byte offset of its first byte.
	Line   int64
	Offset int64
	// Type is the line's "type": "session_meta", "event_msg",
	// "response_item", "turn_context", "world_state", … ; "" when the line
	// has none, or one that is not a string. Subtype is its payload's
	// "type" ("item_completed", "task_started", "message", …); "" when
	// absent.
	Type    string
	Subtype string `json:",omitempty"`
	// ID is the id of the item an item_completed line completes, or the
	// payload's own "id"; "" when absent. TurnID is the turn the payload
	// belongs to ("turn_id"); "" when absent.
	ID     string `json:",omitempty"`
	TurnID string `json:",omitempty"`
	// SessionID is the thread id a session_meta line names, and CWD the
	// directory a session_meta or turn_context line names; "" for other
	// lines.
	SessionID string `json:",omitempty"`
	CWD       string `json:",omitempty"`
	// Timestamp is when the CLI wrote the line ("timestamp"), in Unix
	// epoch milliseconds; 0 when the line has none or an unreadable one.
	Timestamp int64 `json:",omitempty"`
	// Internal reports a line of the CLI's own bookkeeping, of a type
	// this package knows (the session's metadata, turn context, token
	// counts, the model-facing history of response_item lines): nothing
	// the live stream shows.
	Internal bool `json:",omitempty"`
	// Interrupt reports the CLI's record that the person interrupted the
	// turn ("turn_aborted").
	Interrupt bool `json:",omitempty"`
	// Prompt is what the person sent, for a line that records it; nil for
	// any other line.
	Prompt Prompt `json:",omitempty"`
	// Events are what the live stream reports of the line: the [Text],
	// [Reasoning], [CommandExecution], [FileChange], [WebSearch],
	// [MCPToolCall] or [UnknownItem] of a completed item, the [TodoList]
	// of a plan update, the [APIError] or [Retry] of an error. Nil for
	// other lines.
	Events []Event `json:",omitempty"`
	// Title is the thread's name that a thread_name_updated line sets;
	// "" otherwise.
	Title string `json:",omitempty"`
	// Raw is the whole line, for a line of a type (or an event_msg of a
	// subtype) this package does not know, so that nothing new the CLI
	// writes is lost; nil otherwise.
	Raw json.RawMessage `json:",omitempty"`
}

// Prompt is what the person sent in one turn, as the CLI stored it: its
// content blocks, in order.
type Prompt []PromptBlock

// PromptBlock is one content block of a [Prompt].
type PromptBlock struct {
	// Type is the block's type: "text", "image", or the CLI's own type
	// for other blocks ("local_image", "skill", "mention", …).
	Type string
	// Text is a text block's text.
	Text string `json:",omitempty"`
	// MediaType and Data are an image's media type ("image/png") and its
	// base64 data, when the CLI stored it as a data: URL; URL is an
	// image's address otherwise.
	MediaType string `json:",omitempty"`
	Data      string `json:",omitempty"`
	URL       string `json:",omitempty"`
	// Raw is the whole block, for a block of another type than text and
	// image; nil otherwise.
	Raw json.RawMessage `json:",omitempty"`
}

// Text returns the text of the prompt's text blocks, joined with
// newlines.
func (p Prompt) Text() string {
	var b strings.Builder
	for _, blk := range p {
		if blk.Type != "text" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(blk.Text)
	}
	return b.String()
}

// ReadEntries reads a rollout file and yields its entries in the order of
// the file, one per line. It streams: it holds one line at a time, and
// never the file.
//
// The conversation is read from the records meant for the person, as the
// CLI's own history mode (session_meta's "history_mode") says where they
// are: "paginated" rollouts, which Codex 0.169.0 writes, keep each item
// as an item_completed record; older ("legacy") ones keep user_message,
// agent_message and agent_reasoning records instead, whose tool calls
// are only in the model-facing history and are not replayed. Whichever
// set the mode does not use is Internal, so that nothing shows twice.
//
// A line that is not a JSON object (a corrupt line, a last line cut short
// by a crash) yields a zero Entry and a [*LineError] that says where it is
// and wraps a [*SyntaxError]; a line longer than [MaxEntryLength] one
// wrapping a [*LineTooLongError]. Reading goes on with the next line. An
// error from r itself is yielded last. Blank lines are skipped.
//
// ReadEntries keeps no goroutine and reads r only while the loop asks for
// the next entry.
func ReadEntries(r io.Reader) iter.Seq2[Entry, error] {
	return readEntries(r, MaxEntryLength)
}

func readEntries(r io.Reader, maxLine int) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		var er entryReader // one per pass over the file
		feed := func(line []byte, out []Entry, n, off int64) ([]Entry, error) {
			e, err := er.read(line)
			if err != nil {
				return out, &LineError{Line: n, Offset: off, Err: err}
			}
			e.Line, e.Offset = n, off
			return append(out, e), nil
		}
		tooLong := func(err *lines.TooLongError, n, off int64) error {
			return &LineError{Line: n, Offset: off, Err: &LineTooLongError{Length: err.Length, Max: err.Max}}
		}
		lines.Events(r, maxLine, feed, tooLong, func() bool { return false })(yield)
	}
}

// entryReader reads the lines of one file, keeping the history mode its
// session_meta line names.
type entryReader struct {
	paginated bool
}

// internalTypes are the line types that are bookkeeping or the
// model-facing history.
var internalTypes = map[string]string{
	"session_meta": "session_meta", "turn_context": "turn_context", "world_state": "world_state",
	"response_item": "response_item", "token_usage_record": "token_usage_record", "compacted": "compacted",
}

// internalEvents are the event_msg subtypes that are a turn's
// bookkeeping.
var internalEvents = map[string]string{
	"task_started": "task_started", "task_complete": "task_complete", "token_count": "token_count",
	"thread_settings_applied": "thread_settings_applied", "context_compacted": "context_compacted",
	"entered_review_mode": "entered_review_mode", "exited_review_mode": "exited_review_mode",
}

// subtypes are the payload types that recur on most lines, kept once so
// that reporting them does not allocate.
var subtypes = map[string]string{
	"item_completed": "item_completed", "message": "message", "reasoning": "reasoning",
	"function_call": "function_call", "function_call_output": "function_call_output",
	"custom_tool_call": "custom_tool_call", "custom_tool_call_output": "custom_tool_call_output",
}

// subtype returns a payload's type, from subtypes when it is one of them.
func subtype(r gjson.Result) string {
	if s, ok := subtypes[r.Str]; ok && r.Type == gjson.String {
		return s
	}
	return str(r)
}

// legacyEvents are the event_msg subtypes that hold the conversation in a
// legacy rollout, and the item types that hold it in a paginated one.
var (
	legacyEvents = map[string]string{"user_message": "user_message", "agent_message": "agent_message", "agent_reasoning": "agent_reasoning"}
	legacyItems  = map[string]bool{"UserMessage": true, "AgentMessage": true, "Reasoning": true}
)

func (er *entryReader) read(line []byte) (Entry, error) {
	line = bytes.TrimSpace(line)
	var typ, ts gjson.Result
	var payload []byte
	ok := members.Walk(line, func(name string, val []byte) {
		switch name {
		case "type":
			typ = gjson.Parse(members.View(val))
		case "timestamp":
			ts = gjson.Parse(members.View(val))
		case "payload":
			payload = val
		}
	})
	if !ok {
		off, why, _ := jsonscan.CheckObject(line)
		return Entry{}, &SyntaxError{Length: len(line), Offset: off, reason: why}
	}
	e := Entry{Timestamp: millis(ts)}
	if typ.Type != gjson.String {
		e.Raw = json.RawMessage(string(line))
		return e, nil
	}
	p := readPayload(payload)
	e.Subtype, e.TurnID = subtype(p.typ), str(p.turnID)
	if s, ok := internalTypes[typ.Str]; ok {
		e.Type, e.Internal = s, true
		e.ID = str(p.id)
		switch s {
		case "session_meta":
			e.SessionID, e.CWD = str(p.id), str(p.cwd)
			er.paginated = p.historyMode.Str == "paginated"
		case "turn_context":
			e.CWD = str(p.cwd)
		}
		return e, nil
	}
	if typ.Str != "event_msg" {
		e.Type = strings.Clone(typ.Str)
		e.Raw = json.RawMessage(string(line))
		return e, nil
	}
	e.Type = "event_msg"
	er.event(&e, p, line)
	return e, nil
}

// payloadFields are the members of a line's payload that the reader
// keeps; of a repeated name, the last value.
type payloadFields struct {
	typ, id, turnID, cwd, historyMode gjson.Result
	message, text, images, reason     gjson.Result
	err                               gjson.Result
	threadName, plan                  gjson.Result
	item                              []byte // raw: read only for item_completed
}

// readPayload reads the members it keeps of a payload, validated with its
// line, without reading the others: a payload may hold a long history.
func readPayload(p []byte) payloadFields {
	var f payloadFields
	members.Each(p, func(name string, val []byte) {
		var dst *gjson.Result
		switch name {
		case "item":
			f.item = val
		case "type":
			dst = &f.typ
		case "id":
			dst = &f.id
		case "turn_id":
			dst = &f.turnID
		case "cwd":
			dst = &f.cwd
		case "history_mode":
			dst = &f.historyMode
		case "message":
			dst = &f.message
		case "text":
			dst = &f.text
		case "images":
			dst = &f.images
		case "reason":
			dst = &f.reason
		case "thread_name":
			dst = &f.threadName
		case "plan":
			dst = &f.plan
		case "error":
			dst = &f.err
		}
		if dst != nil {
			*dst = gjson.Parse(members.View(val))
		}
	})
	return f
}

// event reads an event_msg line's payload into e.
func (er *entryReader) event(e *Entry, p payloadFields, line []byte) {
	sub := p.typ.Str
	if s, ok := internalEvents[sub]; ok {
		e.Subtype, e.Internal = s, true
		return
	}
	if s, ok := legacyEvents[sub]; ok {
		e.Subtype = s
		if er.paginated {
			e.Internal = true
			return
		}
		switch s {
		case "user_message":
			e.Prompt = legacyPrompt(p.message, p.images)
		case "agent_message":
			e.Events = []Event{Text{Text: str(p.message)}}
		case "agent_reasoning":
			e.Events = []Event{Reasoning{Text: str(p.text)}}
		}
		return
	}
	switch sub {
	case "item_completed":
		er.item(e, p.item)
	case "turn_aborted":
		e.Interrupt = true
	case "error":
		e.Events = []Event{parseError(errorMessage(p))}
	case "plan_update":
		e.Events = []Event{TodoList{Phase: PhaseUpdated, Items: objects(p.plan, readStep)}}
	case "thread_name_updated":
		e.Title = str(p.threadName)
	default:
		e.Raw = json.RawMessage(string(line))
	}
}

// errorMessage is the message of an error record: its "message", as
// Codex's ErrorEvent has it, or that of its "error", an object as the
// app-server protocol's turn error, or a string.
func errorMessage(p payloadFields) string {
	if p.message.Type == gjson.String {
		return str(p.message)
	}
	if p.err.Type == gjson.String {
		return str(p.err)
	}
	return str(members.Get(p.err, "message"))
}

// storedItem holds the members of a stored item that the reader keeps;
// of a repeated name, the last value.
type storedItem struct {
	typ, id, content, summary, rawContent       gjson.Result
	command, output, exitCode, status, changes  gjson.Result
	query, action, server, tool, arguments, res gjson.Result
	err, stdout, stderr                         gjson.Result
}

// item reads the item of an item_completed line into e. Stored items have
// the CLI's own shapes (TurnItem), not those `codex exec --json` prints;
// each becomes the event ParseLine reads from the printed one.
func (er *entryReader) item(e *Entry, item []byte) {
	if len(item) == 0 || item[0] != '{' {
		return
	}
	var f storedItem
	members.Each(item, func(name string, val []byte) {
		var dst *gjson.Result
		switch name {
		case "type":
			dst = &f.typ
		case "id":
			dst = &f.id
		case "content":
			dst = &f.content
		case "summary_text":
			dst = &f.summary
		case "raw_content":
			dst = &f.rawContent
		case "command":
			dst = &f.command
		case "aggregated_output":
			dst = &f.output
		case "exit_code":
			dst = &f.exitCode
		case "status":
			dst = &f.status
		case "changes":
			dst = &f.changes
		case "query":
			dst = &f.query
		case "action":
			dst = &f.action
		case "server":
			dst = &f.server
		case "tool":
			dst = &f.tool
		case "arguments":
			dst = &f.arguments
		case "result":
			dst = &f.res
		case "error":
			dst = &f.err
		case "stdout":
			dst = &f.stdout
		case "stderr":
			dst = &f.stderr
		}
		if dst != nil {
			*dst = gjson.Parse(members.View(val))
		}
	})
	id := str(f.id)
	e.ID = id
	if legacyItems[f.typ.Str] && !er.paginated {
		e.Internal = true // a legacy record holds it
		return
	}
	switch f.typ.Str {
	case "UserMessage":
		e.Prompt = itemPrompt(f.content)
	case "AgentMessage":
		e.Events = []Event{Text{ItemID: id, Text: joinTexts(f.content, "")}}
	case "Reasoning":
		text := joinStrings(f.summary, "\n")
		if text == "" {
			text = joinStrings(f.rawContent, "\n")
		}
		e.Events = []Event{Reasoning{ItemID: id, Text: text}}
	case "CommandExecution":
		c := CommandExecution{ItemID: id, Phase: PhaseCompleted, Kind: ToolKindExecute, Command: commandLine(f.command),
			Output: str(f.output), Status: Status(str(f.status))}
		if code, ok := exitCode(f.exitCode); ok {
			c.ExitCode, c.HasExitCode = code, true
		}
		e.Events = []Event{c}
	case "FileChange":
		changes := storedChanges(f.changes)
		e.Events = []Event{FileChange{ItemID: id, Phase: PhaseCompleted, Kind: changeKind(changes), Changes: changes, Status: Status(str(f.status)),
			Stdout: str(f.stdout), Stderr: str(f.stderr)}}
	case "WebSearch":
		action := str(members.Get(f.action, "type"))
		kind := ToolKindSearch
		if action == "open_page" {
			kind = ToolKindFetch
		}
		query := str(f.query)
		if query == "" {
			query = str(members.Get(f.action, "query"))
		}
		e.Events = []Event{WebSearch{ItemID: id, Phase: PhaseCompleted, Kind: kind, Query: query, ActionType: action, Action: members.Object(f.action)}}
	case "McpToolCall", "MCPToolCall":
		msg := str(members.Get(f.err, "message"))
		if f.err.Type == gjson.String {
			msg = str(f.err)
		}
		e.Events = []Event{MCPToolCall{ItemID: id, Phase: PhaseCompleted, Kind: ToolKindOther, Server: str(f.server), Tool: str(f.tool),
			Arguments: valueCopy(f.arguments), Result: valueCopy(f.res), Error: msg, Status: Status(str(f.status))}}
	default:
		e.Events = []Event{UnknownItem{ItemID: id, Phase: PhaseCompleted, Type: str(f.typ), Raw: json.RawMessage(string(item))}}
	}
}

// joinTexts joins the "text" of the objects of content, an array, with
// sep.
func joinTexts(content gjson.Result, sep string) string {
	var parts []string
	content.ForEach(func(_, b gjson.Result) bool {
		if t := members.Get(b, "text"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, sep)
}

// joinStrings joins the strings of arr with sep, as `codex exec --json`
// joins a reasoning item's summary parts.
func joinStrings(arr gjson.Result, sep string) string {
	var parts []string
	arr.ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			parts = append(parts, v.Str)
		} else if t := members.Get(v, "text"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, sep)
}

// commandLine is a stored command as `codex exec --json` prints it: the
// argument vector joined and quoted for a POSIX shell, or the string the
// CLI stored.
func commandLine(cmd gjson.Result) string {
	if cmd.Type == gjson.String {
		return str(cmd)
	}
	var args []string
	cmd.ForEach(func(_, v gjson.Result) bool {
		args = append(args, v.Str)
		return true
	})
	return shellJoin(args)
}

// storedChanges reads a stored file change's changes: an object of path
// to change, as the CLI keeps them ({"path": {"type": "add", "content":
// …}}, {"type": "update", "unified_diff": …, "move_path": …}), or an
// array of {path, kind} as it prints them.
func storedChanges(c gjson.Result) []Change {
	if c.IsArray() {
		return objects(c, readChange)
	}
	if !c.IsObject() {
		return nil
	}
	out := []Change{}
	c.ForEach(func(path, v gjson.Result) bool {
		m := members.GetAll(v, "type", "kind", "content", "unified_diff", "move_path")
		kind := m[0]
		if !kind.Exists() {
			kind = m[1]
		}
		if kind.IsObject() {
			kind = members.Get(kind, "type")
		}
		ch := Change{Path: str(path), Kind: ChangeKind(str(kind)), MovePath: str(m[4]), Diff: str(m[2])}
		if ch.Kind == ChangeUpdate {
			ch.Diff = str(m[3])
		}
		out = append(out, withHunks(ch))
		return true
	})
	return out
}

// withHunks returns c with an update's Diff read as Hunks.
func withHunks(c Change) Change {
	if c.Kind == ChangeUpdate && c.Diff != "" {
		c.Hunks = parseHunks(c.Diff)
	}
	return c
}

// readStep reads one step of a plan_update's plan.
func readStep(s gjson.Result) TodoItem {
	step, status := members.Get(s, "step"), members.Get(s, "status")
	return TodoItem{Text: str(step), Completed: status.Str == "completed"}
}

// itemPrompt reads a UserMessage item's content.
func itemPrompt(content gjson.Result) Prompt {
	p := Prompt{}
	content.ForEach(func(_, b gjson.Result) bool {
		if !b.IsObject() {
			return true
		}
		typ := members.Get(b, "type")
		switch typ.Str {
		case "text":
			p = append(p, PromptBlock{Type: "text", Text: str(members.Get(b, "text"))})
		case "image":
			p = append(p, imageBlock(str(members.Get(b, "image_url"))))
		default:
			p = append(p, PromptBlock{Type: str(typ), Raw: members.Raw(b)})
		}
		return true
	})
	return p
}

// legacyPrompt reads a legacy user_message's text and images.
func legacyPrompt(message, images gjson.Result) Prompt {
	p := Prompt{}
	if message.Type == gjson.String {
		p = append(p, PromptBlock{Type: "text", Text: str(message)})
	}
	images.ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			p = append(p, imageBlock(str(v)))
		}
		return true
	})
	return p
}

// imageBlock is an image given by URL, its media type and data split out
// of a base64 data: URL.
func imageBlock(url string) PromptBlock {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		if media, data, ok := strings.Cut(rest, ";base64,"); ok {
			return PromptBlock{Type: "image", MediaType: media, Data: data}
		}
	}
	return PromptBlock{Type: "image", URL: url}
}

// millis reads a line's RFC 3339 timestamp as epoch milliseconds; 0 when
// it is absent or unreadable.
func millis(ts gjson.Result) int64 {
	if ts.Type != gjson.String {
		return 0
	}
	ms, _ := timeparse.ParseMillis(ts.Str)
	return ms
}
