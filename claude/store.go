package claude

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// MaxEntryLength is the longest line, in bytes without its terminator,
// that [ReadEntries] reads from a stored session. It is far above the
// longest line Claude Code writes (real lines stay below a few megabytes:
// an attachment of the CLI's prompt text reaches 116 KB, a tool result
// holding an image a few MB), and only bounds the memory one runaway line
// can take. A longer line is skipped and reported, and reading goes on.
const MaxEntryLength = 1 << 30

// Entry is one line of a session file that Claude Code keeps on disk (see
// [SessionFile]): an entry of the conversation, a title, or a line of the
// CLI's own bookkeeping. Every line yields one Entry, whatever its type.
//
// Entries of the conversation carry what the live stream would show of
// them, as the [Event] values [ParseLine] reads from the stream-json line
// the CLI printed for them, so that a replay of the file goes through the
// same translation as the live run. What only the store has sits beside
// them: the person's [Prompt], the entry's time and ids, and flags that
// say what is not the person's conversation.
//
// Strings, slices and raw JSON in an Entry are copies the caller owns.
type Entry struct {
	// Line is the line's 1-based number in the file, blank lines
	// included, and Offset the byte offset of its first byte.
	Line   int64
	Offset int64
	// Type is the line's "type": "user", "assistant", "system" and
	// "attachment" for the conversation, "custom-title", "ai-title" and
	// "summary" for titles, "queue-operation", "last-prompt", … for the
	// CLI's bookkeeping; "" when the line has none, or one that is not a
	// string.
	Type string
	// ID and ParentID are the entry's "uuid" and "parentUuid", which chain
	// the conversation's entries from the first to the last; "" when
	// absent (bookkeeping lines have neither, the first entry has a null
	// parent).
	ID       string `json:",omitempty"`
	ParentID string `json:",omitempty"`
	// SessionID is the "sessionId" the line names, and CWD its "cwd", the
	// directory the CLI ran in; "" when absent (bookkeeping lines have no
	// cwd).
	SessionID string `json:",omitempty"`
	CWD       string `json:",omitempty"`
	// Timestamp is when the CLI wrote the entry ("timestamp"), in Unix
	// epoch milliseconds; 0 when the line has none or an unreadable one
	// (title and most bookkeeping lines have none).
	Timestamp int64 `json:",omitempty"`
	// Sidechain reports an entry of a subagent's conversation
	// ("isSidechain"), and AgentID names the subagent ("agentId", "" when
	// absent). Claude Code 2.1.328 keeps them in the subagent's own file
	// (see [SubagentFile]), where every entry is one.
	Sidechain bool   `json:",omitempty"`
	AgentID   string `json:",omitempty"`
	// Meta reports an entry the CLI wrote for the model rather than one
	// from the person: "isMeta" (reminders, the output of a local
	// command), "isCompactSummary" (the summary that replaces a compacted
	// conversation) or "isVisibleInTranscriptOnly". Its Prompt is not
	// what the person typed.
	Meta bool `json:",omitempty"`
	// Internal reports a line of the CLI's own bookkeeping, of a type
	// this package knows ("attachment", "queue-operation", "last-prompt",
	// "cost-state", "api-request", …): nothing the live stream shows.
	Internal bool `json:",omitempty"`
	// Interrupt reports the CLI's marker that the person interrupted the
	// turn: a user entry "[Request interrupted by user]" (or "… for tool
	// use"), which the live stream does not show.
	Interrupt bool `json:",omitempty"`
	// Origin is where the CLI says a user entry comes from: the kind of
	// its "origin" or, when it has none, its "turnOrigin" ("human" and
	// "sdk" for the person; "task-notification" or "task_notification",
	// "peer", "scheduled", … for what the CLI sent the model itself); ""
	// when the entry names none, as releases before 2.1.1xx do.
	Origin string `json:",omitempty"`
	// Notification is what a task notification tells: a user entry the
	// CLI writes when a task it ran in the background ends (a subagent, a
	// command), which the model answers as a prompt, and which the live
	// stream does not show. Its Origin says it is one, or, in releases
	// that name no origin, its text ("<task-notification>…"). Such an
	// entry is Meta. Nil for any other entry.
	Notification *TaskNotification `json:",omitempty"`
	// Prompt is the content of a user entry that holds the person's
	// words, its text and image blocks without its tool results; nil for
	// any other entry. Meta and Sidechain entries have one that the
	// person did not write.
	Prompt Prompt `json:",omitempty"`
	// Events are what the live stream reports of the entry, as ParseLine
	// reads the stream-json line the CLI prints for it: the [Text],
	// [Thinking], [ToolUse] and [UnknownBlock] blocks of an assistant
	// entry, or its [APIError]; the [ToolResult] blocks of a user entry;
	// a [Heartbeat], [Retry] or [PermissionDenied] for a system entry. The
	// store names some members otherwise than the stream ("apiErrorStatus"
	// for "api_error_status", …; a retry is a system entry "api_error",
	// not "api_retry"), and the events are the same.
	// Nil for other entries.
	Events []Event `json:",omitempty"`
	// Title is the title a title entry sets ("customTitle" of
	// custom-title, "aiTitle" of ai-title, "summary" of summary); ""
	// otherwise.
	Title string `json:",omitempty"`
	// Raw is the whole line, for a line of a type this package does not
	// know, so that nothing new the CLI writes is lost; nil otherwise.
	Raw json.RawMessage `json:",omitempty"`
}

// Prompt is what the person sent in one turn, as the CLI stored it: the
// content blocks of a user entry, in order. A prompt stored as a plain
// string is one text block.
type Prompt []PromptBlock

// PromptBlock is one content block of a [Prompt].
type PromptBlock struct {
	// Type is the block's type: "text", "image", or the CLI's own type
	// for other blocks ("document", …).
	Type string
	// Text is a text block's text.
	Text string `json:",omitempty"`
	// MediaType and Data are an image's media type ("image/png") and its
	// base64 data, as stored (a "base64" source); URL is an image given
	// by address instead (a "url" source).
	MediaType string `json:",omitempty"`
	Data      string `json:",omitempty"`
	URL       string `json:",omitempty"`
	// Raw is the whole block, for a block of another type than text and
	// image; nil otherwise.
	Raw json.RawMessage `json:",omitempty"`
}

// TaskNotification is the end of a task the CLI ran in the background,
// as its task notification tells the model: the tags of its text. A tag
// the text lacks is "".
type TaskNotification struct {
	TaskID string // "task-id"
	// ToolUseID is the id of the tool call that started the task
	// ("tool-use-id"): an Agent call run in the background, a Bash call's
	// background command.
	ToolUseID string
	// OutputFile is the file that holds the task's output
	// ("output-file"), on the machine the CLI ran on.
	OutputFile string
	// Status is how the task ended ("status"): "completed", "failed",
	// "killed", …
	Status string
	// Summary is the CLI's one line about it ("summary"): `Agent "…"
	// finished`, `Background command "…" completed (exit code 0)`, …
	Summary string
	// Result is the task's own report ("result"): a subagent's final
	// answer, which the call that started it reported before it ended.
	Result string
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

// ReadEntries reads a session file that Claude Code keeps on disk (the
// main one, or a subagent's without naming its launching call: see
// [ReadSubagent]) and yields its entries in the order of the file, one
// per line. It streams: it holds one line at a time, and never the file.
//
// A line that is not a JSON object (a corrupt line, a last line cut short
// by a crash) yields a zero Entry and a [*LineError] that says where it is
// and wraps a [*SyntaxError]; a line longer than [MaxEntryLength] one
// wrapping a [*LineTooLongError]. Reading goes on with the next line. An
// error from r itself is yielded last. Blank lines are skipped.
//
// The file's order is the conversation's for the sessions a program
// drives (print and streaming-input mode, resumed or forked). The
// interactive CLI can rewind a conversation and branch it: the abandoned
// branch stays in the file, and ID and ParentID tell the branches apart.
//
// ReadEntries keeps no goroutine and reads r only while the loop asks for
// the next entry.
func ReadEntries(r io.Reader) iter.Seq2[Entry, error] {
	return readEntries(r, "", MaxEntryLength)
}

// ReadSubagent reads a subagent's session file (see [SubagentFile]) as
// [ReadEntries] does, and sets the ParentToolUseID of every event to
// toolUseID, the id of the Agent (or Task) tool call that launched the
// subagent, which its [SubagentMeta] names. The live stream marks a
// subagent's events so, which is how a translation of them keeps them
// inside that call. The file also holds the subagent's final answer,
// which the live stream leaves out (it comes back as the call's result).
func ReadSubagent(r io.Reader, toolUseID string) iter.Seq2[Entry, error] {
	return readEntries(r, toolUseID, MaxEntryLength)
}

func readEntries(r io.Reader, parent string, maxLine int) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		er := entryReader{parent: parent} // one per pass over the file
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

// entryReader reads the lines of one file. It keeps the session id and
// cwd of the last line, which nearly every line repeats, so that they are
// copied once.
type entryReader struct {
	parent         string // ParentToolUseID for every event; "" for none
	sessionID, cwd string
}

// entryFields are the top-level members of a stored line that the reader
// keeps; of a repeated name, the last value.
type entryFields struct {
	top                         topFields // what the live parser reads
	uuid, parentUUID, sessionID gjson.Result
	cwd, agentID, title         gjson.Result
	origin, turnOrigin          gjson.Result
	sidechain, meta, apiErrMsg  bool
}

func (f *entryFields) set(name string, val []byte) {
	v := func() gjson.Result { return gjson.Parse(members.View(val)) }
	switch name {
	case "type", "subtype", "message", "timestamp", "error", "model", "parent_tool_use_id",
		"attempt", "max_retries", "retry_delay_ms", "error_status", "tool_name", "tool_use_id",
		"api_error_status", "api_error_type", "api_error", "api_error_params":
		f.top.set(name, v())
	case "toolUseResult": // the stream's "tool_use_result"
		f.top.set("tool_use_result", v())
	case "apiErrorStatus", "apiErrorType", "apiError", "apiErrorParams": // the stream's "api_error_status", …
		f.top.set(storeNames[name], v())
	case "retryAttempt", "maxRetries", "retryInMs": // of a system "api_error"
		f.top.set(storeNames[name], v())
	case "uuid":
		f.uuid = v()
	case "parentUuid":
		f.parentUUID = v()
	case "sessionId":
		f.sessionID = v()
	case "cwd":
		f.cwd = v()
	case "agentId":
		f.agentID = v()
	case "customTitle", "aiTitle", "summary":
		f.title = v()
	case "isSidechain":
		f.sidechain = v().Type == gjson.True
	case "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly":
		if v().Type == gjson.True {
			f.meta = true
		}
	case "isApiErrorMessage":
		f.apiErrMsg = v().Type == gjson.True
	case "origin":
		f.origin = members.Get(v(), "kind")
	case "turnOrigin":
		f.turnOrigin = v()
	}
}

// storeNames are the stream's names of the members that the store names
// in camelCase.
var storeNames = map[string]string{
	"apiErrorStatus": "api_error_status", "apiErrorType": "api_error_type", "apiError": "api_error",
	"apiErrorParams": "api_error_params", "retryAttempt": "attempt", "maxRetries": "max_retries",
	"retryInMs": "retry_delay_ms",
}

// internalTypes are the bookkeeping line types of Claude Code 2.1.328.
var internalTypes = map[string]string{
	"attachment": "attachment", "queue-operation": "queue-operation", "last-prompt": "last-prompt",
	"cost-state": "cost-state", "atis-latch": "atis-latch", "tools-used": "tools-used",
	"mode": "mode", "permission-mode": "permission-mode", "file-history-snapshot": "file-history-snapshot",
	"api-request": "api-request", "api-request-shape": "api-request-shape", "api-request-blob": "api-request-blob",
	"agent-name": "agent-name",
}

// titleTypes are the line types that set a session's title.
var titleTypes = map[string]string{"custom-title": "custom-title", "ai-title": "ai-title", "summary": "summary"}

func (er *entryReader) read(line []byte) (Entry, error) {
	line = bytes.TrimSpace(line)
	var f entryFields
	if !members.Walk(line, f.set) {
		off, why, _ := jsonscan.CheckObject(line)
		return Entry{}, &SyntaxError{Length: len(line), Offset: off, reason: why}
	}
	e := Entry{
		ID:        str(f.uuid),
		ParentID:  str(f.parentUUID),
		Sidechain: f.sidechain,
		AgentID:   str(f.agentID),
		Meta:      f.meta,
		Timestamp: epochMillis(f.top.timestamp),
	}
	e.SessionID = er.intern(&er.sessionID, f.sessionID)
	e.CWD = er.intern(&er.cwd, f.cwd)
	if f.top.typ.Type != gjson.String {
		e.Raw = json.RawMessage(string(line))
		return e, nil
	}
	typ := f.top.typ.Str
	if s, ok := internalTypes[typ]; ok {
		e.Type, e.Internal = s, true
		return e, nil
	}
	if s, ok := titleTypes[typ]; ok {
		e.Type, e.Title = s, str(f.title)
		return e, nil
	}
	if er.parent != "" {
		f.top.parentToolUseID = gjson.Result{Type: gjson.String, Str: er.parent}
	}
	lp := lineParser{line: line, ts: e.Timestamp}
	switch typ {
	case "assistant":
		e.Type = "assistant"
		if f.apiErrMsg && !f.top.errorKind.Exists() {
			// Not every release writes the error's kind beside the flag.
			f.top.errorKind = gjson.Result{Type: gjson.String, Str: "unknown"}
		}
		lp.assistant(&f.top)
	case "user":
		e.Type = "user"
		lp.user(&f.top)
		e.Prompt, e.Interrupt = prompt(members.Get(f.top.message, "content"))
		e.Origin = str(f.origin)
		if f.origin.Type != gjson.String {
			e.Origin = str(f.turnOrigin)
		}
		if e.Notification = notification(e.Origin, e.Prompt); e.Notification != nil {
			e.Meta = true
		}
	case "system":
		e.Type = "system"
		if f.top.subtype.Str == "api_error" {
			// A retry: the stream's "api_retry", whose status the
			// store keeps in the error.
			f.top.subtype = gjson.Result{Type: gjson.String, Str: "api_retry"}
			f.top.errorStatus = members.Get(f.top.errorKind, "status")
			f.top.errorKind = gjson.Result{}
		}
		lp.system(&f.top)
	default:
		e.Type = strings.Clone(typ)
		e.Raw = json.RawMessage(string(line))
	}
	e.Events = lp.events
	return e, nil
}

// intern returns a string value, reusing *last when it is the same.
func (er *entryReader) intern(last *string, v gjson.Result) string {
	if v.Type != gjson.String {
		return ""
	}
	if v.Str != *last {
		*last = str(v)
	}
	return *last
}

// interruptMarker starts the text of the user line the CLI writes when the
// person interrupts a turn.
const interruptMarker = "[Request interrupted by user"

// prompt reads the person's words from a user message's content: a string
// or the text and image blocks of an array (tool results are not). It
// reports the CLI's interrupt marker instead of a prompt.
func prompt(content gjson.Result) (Prompt, bool) {
	if content.Type == gjson.String {
		if strings.HasPrefix(content.Str, interruptMarker) {
			return nil, true
		}
		return Prompt{{Type: "text", Text: str(content)}}, false
	}
	if !content.IsArray() {
		return nil, false
	}
	var p Prompt
	interrupt := false
	content.ForEach(func(_, b gjson.Result) bool {
		if !b.IsObject() {
			return true
		}
		var typ, text, source gjson.Result
		b.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "type":
				typ = v
			case "text":
				text = v
			case "source":
				source = v
			}
			return true
		})
		switch typ.Str {
		case "tool_result":
		case "text":
			if strings.HasPrefix(text.Str, interruptMarker) {
				interrupt = true
				break
			}
			p = append(p, PromptBlock{Type: "text", Text: str(text)})
		case "image":
			blk := PromptBlock{Type: "image"}
			src := members.GetAll(source, "type", "media_type", "data", "url")
			switch src[0].Str {
			case "base64":
				blk.MediaType, blk.Data = str(src[1]), str(src[2])
			case "url":
				blk.URL = str(src[3])
			default:
				blk.Raw = members.Raw(b)
			}
			p = append(p, blk)
		default:
			p = append(p, PromptBlock{Type: str(typ), Raw: members.Raw(b)})
		}
		return true
	})
	return p, interrupt && len(p) == 0
}

// notificationTag starts the text of a task notification.
const notificationTag = "<task-notification>"

// notification reads the task notification a user entry of the origin
// and prompt p is; nil when it is none.
func notification(origin string, p Prompt) *TaskNotification {
	text := p.Text()
	switch origin {
	case "task-notification", "task_notification":
	case "":
		if !strings.HasPrefix(strings.TrimSpace(text), notificationTag) {
			return nil
		}
	default:
		return nil
	}
	if i := strings.Index(text, notificationTag); i >= 0 {
		text = text[i+len(notificationTag):]
	}
	if i := strings.LastIndex(text, "</task-notification>"); i >= 0 {
		text = text[:i]
	}
	return &TaskNotification{
		TaskID:     tagText(text, "task-id", false),
		ToolUseID:  tagText(text, "tool-use-id", false),
		OutputFile: tagText(text, "output-file", false),
		Status:     tagText(text, "status", false),
		Summary:    tagText(text, "summary", false),
		// A report may hold tags of its own: it ends at the last close.
		Result: tagText(text, "result", true),
	}
}

// tagText returns the text between the first <tag> of s and the first
// </tag> after it, or the last one; "" when s has no such pair.
func tagText(s, tag string, last bool) string {
	open, end := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	j := strings.Index(s, end)
	if last {
		j = strings.LastIndex(s, end)
	}
	if j < 0 {
		return ""
	}
	return strings.Clone(s[:j])
}

// Interleave merges the entries of a session with those of its subagents
// into one sequence, in the order the live stream showed them: by
// Timestamp, each sequence keeping its own order, an entry without a time
// taking that of the entry before it in its sequence, and main first of
// entries of the same time. Read each subagent with [ReadSubagent], so
// that its events name the call that launched it; the live stream shows
// them between that call and its result, which is where their times put
// them.
//
// Interleave holds one entry of each sequence at a time. Errors are
// yielded in their sequence's place.
func Interleave(main iter.Seq2[Entry, error], subagents ...iter.Seq2[Entry, error]) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		type source struct {
			next func() (Entry, error, bool)
			e    Entry
			err  error
			ok   bool
			at   int64 // the time of the head entry, or of the one before it
		}
		srcs := make([]*source, 0, 1+len(subagents))
		for _, seq := range append([]iter.Seq2[Entry, error]{main}, subagents...) {
			next, stop := iter.Pull2(seq)
			defer stop()
			srcs = append(srcs, &source{next: next})
		}
		advance := func(s *source) {
			s.e, s.err, s.ok = s.next()
			if s.ok && s.e.Timestamp != 0 {
				s.at = s.e.Timestamp
			}
		}
		for _, s := range srcs {
			advance(s)
		}
		for {
			var first *source
			for _, s := range srcs {
				if s.ok && (first == nil || s.at < first.at) {
					first = s
				}
			}
			if first == nil {
				return
			}
			if !yield(first.e, first.err) {
				return
			}
			advance(first)
		}
	}
}
