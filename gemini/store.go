package gemini

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
// that [ReadEntries] reads from a stored session. A $set of the whole
// message list, which the CLI writes when it resumes a session, is as
// long as the conversation, so the limit is far above any real one; it
// only bounds the memory one runaway line can take. A longer line is
// skipped and reported, and reading goes on.
const MaxEntryLength = 1 << 30

// Entry is one record of a session file that the Gemini CLI keeps on
// disk (see [SessionFile]): a message, a change to the session's fields,
// a rewind, or the session's metadata. Every line yields one Entry,
// whatever it holds.
//
// The file is a log: a message record replaces an earlier one with the
// same ID, a $set record may replace the whole message list, and a
// $rewindTo record drops messages. Apply the entries to a
// [Conversation], in order, for the session the CLI resumes.
//
// Messages carry what the live stream shows of them, as the [Event]
// values [Turn] reads from the CLI's stream-json output, so that a replay
// goes through the same translation as the live run. What only the store
// has sits beside them: the person's [Prompt], the model's thoughts, the
// message's time and id.
//
// Strings, slices and raw JSON in an Entry are copies the caller owns.
type Entry struct {
	// Line is the line's 1-based number in the file, blank lines
	// included, and Offset the byte offset of its first byte; both are 0
	// for a message from a $set record's list.
	Line   int64 `json:",omitempty"`
	Offset int64 `json:",omitempty"`
	// Record is the kind of record the line holds.
	Record Record
	// Type is a message's "type": "user", "gemini", "info", "warning",
	// "error", or another the CLI may write; "" for other records, or
	// when the message has none.
	Type string `json:",omitempty"`
	// ID is a message's "id", or the id a $rewindTo record rewinds to.
	ID string `json:",omitempty"`
	// Timestamp is when the CLI wrote a message ("timestamp"), in Unix
	// epoch milliseconds; 0 for other records, or when the message has
	// none or an unreadable one.
	Timestamp int64 `json:",omitempty"`
	// Meta reports a user message the CLI wrote for the model rather than
	// one from the person: the session context it opens every session
	// with ("<session_context>…"). Its Prompt is not what the person
	// typed.
	Meta bool `json:",omitempty"`
	// Prompt is what the person sent, for a user message (its
	// "displayContent" when the CLI stored one, its content otherwise),
	// without the tool results a user message may carry; nil for other
	// records, and for a user message that carries only tool results.
	Prompt Prompt `json:",omitempty"`
	// Events are what the live stream reports of a message: the [Text]
	// of the model's answer, then a [ToolUse] and a [ToolResult] for each
	// of its tool calls; the [ToolResult] of the tool responses a user
	// message carries; a [Notice] for an info, warning or error message.
	// Nil for other records.
	Events []Event `json:",omitempty"`
	// Thoughts are the model's thoughts before its answer, which the live
	// stream does not show; nil when the message has none.
	Thoughts []Thought `json:",omitempty"`
	// Model is the model that wrote a gemini message; "" otherwise.
	Model string `json:",omitempty"`
	// Set is what a metadata or $set record sets; nil for other records.
	Set *Metadata `json:",omitempty"`
	// Title is the summary a metadata or $set record sets, the CLI's
	// title for the session; "" otherwise.
	Title string `json:",omitempty"`
	// Raw is the whole line, for a record this package does not know or a
	// message of a type it does not know, so that nothing new the CLI
	// writes is lost; nil otherwise.
	Raw json.RawMessage `json:",omitempty"`
}

// Record is the kind of record a line of a session file holds, told
// apart as the CLI does: by a string "$rewindTo", a string "id", an
// object "$set", or string "sessionId" and "projectHash" members, in
// this order.
type Record uint8

// The kinds of record.
const (
	RecordUnknown  Record = iota // none of the others; Raw holds it
	RecordMessage                // a message, which replaces one with its id
	RecordSet                    // {"$set": {…}}: fields of the session
	RecordRewind                 // {"$rewindTo": id}
	RecordMetadata               // the session's metadata, which opens the file
)

// String returns "unknown", "message", "$set", "$rewindTo" or
// "metadata".
func (r Record) String() string {
	switch r {
	case RecordMessage:
		return "message"
	case RecordSet:
		return "$set"
	case RecordRewind:
		return "$rewindTo"
	case RecordMetadata:
		return "metadata"
	}
	return "unknown"
}

// MarshalText writes the kind as [Record.String] does, so that it reads as
// a word in JSON.
func (r Record) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Metadata is the session's own fields as a metadata or $set record sets
// them. A field the record does not set is zero, and Messages is nil.
type Metadata struct {
	SessionID   string `json:",omitempty"`
	ProjectHash string `json:",omitempty"` // see [ProjectHash]
	// StartTime and LastUpdated are in Unix epoch milliseconds.
	StartTime   int64    `json:",omitempty"`
	LastUpdated int64    `json:",omitempty"`
	Summary     string   `json:",omitempty"`
	Kind        string   `json:",omitempty"` // "main" or "subagent"
	Directories []string `json:",omitempty"`
	// Messages is the whole message list a $set record puts in place of
	// the one before, each read as a message record is (without Line and
	// Offset); non-nil, even empty, when the record sets it.
	Messages []Entry `json:",omitempty"`
}

// Thought is one of the model's thoughts, as the CLI stored it.
type Thought struct {
	Subject     string `json:",omitempty"`
	Description string
	Timestamp   int64 `json:",omitempty"` // epoch ms; 0 when absent
}

// Prompt is what the person sent in one turn, as the CLI stored it: its
// parts, in order.
type Prompt []PromptBlock

// PromptBlock is one part of a [Prompt].
type PromptBlock struct {
	// Type is "text", "image", or the part's own kind for others
	// ("inlineData", "fileData", …).
	Type string
	// Text is a text part's text.
	Text string `json:",omitempty"`
	// MediaType and Data are an inline image's media type and base64
	// data; URL is an image's address (a fileData part's fileUri), its
	// MediaType set too when the part gives one.
	MediaType string `json:",omitempty"`
	Data      string `json:",omitempty"`
	URL       string `json:",omitempty"`
	// Raw is the whole part, for a part of another kind than text and
	// image; nil otherwise.
	Raw json.RawMessage `json:",omitempty"`
}

// Text returns the text of the prompt's text parts, joined with
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

// ReadEntries reads a session file of the Gemini CLI and yields its
// records in the order of the file, one per line. It streams: it holds
// one line at a time, and never the file. The records are the log, not
// the conversation: see [Conversation].
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
	feed := func(line []byte, out []Entry, n, off int64) ([]Entry, error) {
		e, err := readRecord(line)
		if err != nil {
			return out, &LineError{Line: n, Offset: off, Err: err}
		}
		e.Line, e.Offset = n, off
		return append(out, e), nil
	}
	tooLong := func(err *lines.TooLongError, n, off int64) error {
		return &LineError{Line: n, Offset: off, Err: &LineTooLongError{Length: err.Length, Max: err.Max}}
	}
	return lines.Events(r, maxLine, feed, tooLong, func() bool { return false })
}

// recordFields are the top-level members of a record that the reader
// keeps; of a repeated name, the last value.
type recordFields struct {
	id, typ, timestamp, content, display  gjson.Result
	thoughts, model, toolCalls            gjson.Result
	set, rewindTo, sessionID, projectHash gjson.Result
	startTime, lastUpdated, summary, kind gjson.Result
	directories                           gjson.Result
}

// field returns the member of f that a record's member name is kept in;
// nil for the members the reader does not keep.
func (f *recordFields) field(name string) *gjson.Result {
	switch name {
	case "id":
		return &f.id
	case "type":
		return &f.typ
	case "timestamp":
		return &f.timestamp
	case "content":
		return &f.content
	case "displayContent":
		return &f.display
	case "thoughts":
		return &f.thoughts
	case "model":
		return &f.model
	case "toolCalls":
		return &f.toolCalls
	case "$set":
		return &f.set
	case "$rewindTo":
		return &f.rewindTo
	case "sessionId":
		return &f.sessionID
	case "projectHash":
		return &f.projectHash
	case "startTime":
		return &f.startTime
	case "lastUpdated":
		return &f.lastUpdated
	case "summary":
		return &f.summary
	case "kind":
		return &f.kind
	case "directories":
		return &f.directories
	}
	return nil
}

// keep keeps a member read from a gjson.Result.
func (f *recordFields) keep(name string, v gjson.Result) {
	if dst := f.field(name); dst != nil {
		*dst = v
	}
}

// readRecord reads one line of a session file. It tells the records
// apart in the order the CLI does: a string $rewindTo, a string id (a
// message), an object $set, then string sessionId and projectHash (the
// metadata).
func readRecord(line []byte) (Entry, error) {
	line = bytes.TrimSpace(line)
	var f recordFields
	ok := members.Walk(line, func(name string, val []byte) {
		if dst := f.field(name); dst != nil {
			*dst = gjson.Parse(members.View(val))
		}
	})
	if !ok {
		off, why, _ := jsonscan.CheckObject(line)
		return Entry{}, &SyntaxError{Length: len(line), Offset: off, reason: why}
	}
	switch {
	case f.rewindTo.Type == gjson.String:
		return Entry{Record: RecordRewind, ID: str(f.rewindTo)}, nil
	case f.id.Type == gjson.String:
		e := message(&f)
		if !knownMessage(e.Type) {
			e.Raw = json.RawMessage(string(line))
		}
		return e, nil
	case f.set.IsObject():
		var s recordFields
		f.set.ForEach(func(k, v gjson.Result) bool {
			s.keep(k.Str, v)
			return true
		})
		m := metadata(&s)
		if list := members.Get(f.set, "messages"); list.IsArray() {
			m.Messages = []Entry{}
			list.ForEach(func(_, v gjson.Result) bool {
				if id := members.Get(v, "id"); v.IsObject() && id.Type == gjson.String {
					var mf recordFields
					v.ForEach(func(k, v gjson.Result) bool {
						mf.keep(k.Str, v)
						return true
					})
					m.Messages = append(m.Messages, message(&mf))
				}
				return true
			})
		}
		return Entry{Record: RecordSet, Set: m, Title: m.Summary}, nil
	case f.sessionID.Type == gjson.String && f.projectHash.Type == gjson.String:
		m := metadata(&f)
		return Entry{Record: RecordMetadata, Set: m, Title: m.Summary}, nil
	}
	return Entry{Raw: json.RawMessage(string(line))}, nil
}

// knownMessage reports the message types this package reads.
func knownMessage(typ string) bool {
	switch typ {
	case "user", "gemini", "info", "warning", "error":
		return true
	}
	return false
}

// metadata reads the session fields a record sets.
func metadata(f *recordFields) *Metadata {
	m := &Metadata{
		SessionID:   str(f.sessionID),
		ProjectHash: str(f.projectHash),
		StartTime:   millis(f.startTime),
		LastUpdated: millis(f.lastUpdated),
		Summary:     str(f.summary),
		Kind:        str(f.kind),
	}
	f.directories.ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			m.Directories = append(m.Directories, str(v))
		}
		return true
	})
	return m
}

// contextPrefix starts the text of the user message the CLI opens each
// session with.
const contextPrefix = "<session_context>"

// message reads a message record.
func message(f *recordFields) Entry {
	e := Entry{Record: RecordMessage, Type: str(f.typ), ID: str(f.id), Timestamp: millis(f.timestamp)}
	switch e.Type {
	case "user":
		content := f.content
		if f.display.Exists() && f.display.Type != gjson.Null {
			content = f.display
		}
		e.Prompt = prompt(content)
		e.Events = toolResponses(f.content)
		if strings.HasPrefix(strings.TrimSpace(e.Prompt.Text()), contextPrefix) {
			e.Meta = true
		}
	case "gemini":
		e.Model = str(f.model)
		e.Thoughts = thoughts(f.thoughts)
		var text strings.Builder
		calls := false // the toolCalls hold the calls the content may repeat
		f.toolCalls.ForEach(func(_, _ gjson.Result) bool {
			calls = true
			return false
		})
		parts(f.content, func(p part) {
			switch {
			case p.thought:
				e.Thoughts = append(e.Thoughts, Thought{Description: strings.Clone(p.text)})
			case p.isText:
				text.WriteString(p.text)
			case p.call.Exists() && !calls:
				e.Events = append(e.Events, functionCall(p.call))
			}
		})
		if text.Len() > 0 {
			e.Events = append([]Event{Text{Text: text.String()}}, e.Events...)
		}
		f.toolCalls.ForEach(func(_, tc gjson.Result) bool {
			e.Events = append(e.Events, toolCall(tc)...)
			return true
		})
	case "info", "warning", "error":
		var text strings.Builder
		parts(f.content, func(p part) {
			if p.isText && !p.thought {
				text.WriteString(p.text)
			}
		})
		e.Events = []Event{Notice{Severity: e.Type, Message: text.String()}}
	}
	return e
}

// part is one part of a message's content, as far as the reader needs it.
type part struct {
	obj              gjson.Result
	text             string
	isText, thought  bool
	call, response   gjson.Result // functionCall, functionResponse
	inline, fileData gjson.Result
}

// parts calls fn for each part of content: a string (one text part) or an
// array of parts.
func parts(content gjson.Result, fn func(part)) {
	if content.Type == gjson.String {
		fn(part{obj: content, text: content.Str, isText: true})
		return
	}
	content.ForEach(func(_, v gjson.Result) bool {
		if !v.IsObject() {
			return true
		}
		p := part{obj: v}
		v.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "text":
				p.text, p.isText = v.Str, v.Type == gjson.String
			case "thought":
				p.thought = v.Type == gjson.True
			case "functionCall":
				p.call = v
			case "functionResponse":
				p.response = v
			case "inlineData":
				p.inline = v
			case "fileData":
				p.fileData = v
			}
			return true
		})
		fn(p)
		return true
	})
}

// prompt reads the person's parts of a user message's content: its text
// and images, and any other part but a tool response.
func prompt(content gjson.Result) Prompt {
	var p Prompt
	parts(content, func(pt part) {
		switch {
		case pt.response.Exists() || pt.thought:
		case pt.isText:
			p = append(p, PromptBlock{Type: "text", Text: strings.Clone(pt.text)})
		case pt.inline.IsObject():
			f := members.GetAll(pt.inline, "mimeType", "data")
			if strings.HasPrefix(f[0].Str, "image/") {
				p = append(p, PromptBlock{Type: "image", MediaType: str(f[0]), Data: str(f[1])})
			} else {
				p = append(p, PromptBlock{Type: "inlineData", MediaType: str(f[0]), Raw: members.Raw(pt.obj)})
			}
		case pt.fileData.IsObject():
			f := members.GetAll(pt.fileData, "mimeType", "fileUri")
			if strings.HasPrefix(f[0].Str, "image/") {
				p = append(p, PromptBlock{Type: "image", MediaType: str(f[0]), URL: str(f[1])})
			} else {
				p = append(p, PromptBlock{Type: "fileData", MediaType: str(f[0]), URL: str(f[1]), Raw: members.Raw(pt.obj)})
			}
		default:
			p = append(p, PromptBlock{Type: firstKey(pt.obj), Raw: members.Raw(pt.obj)})
		}
	})
	return p
}

// firstKey returns the name of an object's first member, which names a
// content part's kind.
func firstKey(obj gjson.Result) string {
	name := ""
	obj.ForEach(func(k, _ gjson.Result) bool {
		name = strings.Clone(k.Str)
		return false
	})
	return name
}

// toolResponses reads the tool responses of a user message's content,
// which the CLI sends back to the model after it ran the calls.
func toolResponses(content gjson.Result) []Event {
	var events []Event
	parts(content, func(p part) {
		if !p.response.IsObject() {
			return
		}
		f := members.GetAll(p.response, "id", "name", "response")
		name := str(f[1])
		r := ToolResult{ID: str(f[0]), Name: name, Kind: ToolKindOf(name), Status: ToolSuccess}
		out := members.GetAll(f[2], "output", "error")
		r.Output = str(out[0])
		if out[1].Exists() && out[1].Type != gjson.Null {
			r.Status = ToolError
			r.ErrorMessage = str(out[1])
		}
		events = append(events, r)
	})
	return events
}

// functionCall reads a functionCall part of a gemini message.
func functionCall(call gjson.Result) Event {
	f := members.GetAll(call, "id", "name", "args")
	name := str(f[1])
	return ToolUse{ID: str(f[0]), Name: name, Kind: ToolKindOf(name), Input: valueCopy(f[2])}
}

// toolCall reads one of a gemini message's toolCalls: the call, and its
// result once it has one. The result's Output is what the CLI shows of
// it ("resultDisplay", when a string), which is what the live stream
// prints.
func toolCall(tc gjson.Result) []Event {
	f := members.GetAll(tc, "id", "name", "args", "status", "result", "resultDisplay")
	name := str(f[1])
	id := str(f[0])
	kind := ToolKindOf(name)
	events := []Event{ToolUse{ID: id, Name: name, Kind: kind, Input: valueCopy(f[2])}}
	status := str(f[3])
	switch status {
	case "", "scheduled", "validating", "awaiting_approval", "executing":
		return events // no outcome yet
	}
	r := ToolResult{ID: id, Name: name, Kind: kind, Status: ToolStatus(status), Output: str(f[5])}
	if r.Status != ToolSuccess {
		f[4].ForEach(func(_, v gjson.Result) bool {
			if msg := members.Get(members.Get(members.Get(v, "functionResponse"), "response"), "error"); msg.Type == gjson.String {
				r.ErrorMessage = str(msg)
				return false
			}
			return true
		})
	}
	return append(events, r)
}

// thoughts reads a gemini message's thoughts.
func thoughts(arr gjson.Result) []Thought {
	var out []Thought
	arr.ForEach(func(_, v gjson.Result) bool {
		if v.IsObject() {
			f := members.GetAll(v, "subject", "description", "timestamp")
			out = append(out, Thought{Subject: str(f[0]), Description: str(f[1]), Timestamp: millis(f[2])})
		}
		return true
	})
	return out
}

// valueCopy returns a copy of a value's JSON text; nil when it is absent
// or null.
func valueCopy(r gjson.Result) json.RawMessage {
	if !r.Exists() || r.Type == gjson.Null {
		return nil
	}
	return members.Raw(r)
}

// millis reads an RFC 3339 time as epoch milliseconds; 0 when it is
// absent or unreadable.
func millis(ts gjson.Result) int64 {
	if ts.Type != gjson.String {
		return 0
	}
	ms, _ := timeparse.ParseMillis(ts.Str)
	return ms
}
