package claudetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// This file keeps the sessions the fake plays in streaming-input mode as
// Claude Code 2.1.328 keeps its own (see ../testdata/store, the files the
// real CLI wrote, and package claude's "Stored sessions"): one JSON
// object a line in <project folder>/<session id>.jsonl, appended to as
// the session goes on and when it is resumed. Each line has the members
// of the CLI's, in its order: the person's prompts and the model's
// messages and tool results (the partial message and the marker of a
// turn the person interrupted among them: the CLI prints both), chained
// by parentUuid, with the CLI's bookkeeping around them: its queue
// operations, an attachment, the last prompt. A subagent's lines, which
// the CLI keeps in files of their own, are not kept.

// storeWriter writes one run's entries.
type storeWriter struct {
	open    func() (io.WriteCloser, error) // the session's file, for appending
	w       io.WriteCloser                 // nil until the first entry
	failed  bool                           // the file could not be opened
	id, cwd string
	at      func(t int64) string // the time of a record at t ms into the run

	parent   string // the uuid of the last entry; "" for none
	promptID string // of the turn under way
	prompt   string // its text
}

// newStoreWriter returns the writer of session id's entries, run in cwd,
// or nil when env keeps no sessions.
func newStoreWriter(env Env, id string) *storeWriter {
	if env.Store == nil || !claude.ValidSessionID(id) {
		return nil
	}
	name, _ := claude.SessionFile(env.Dir, id)
	start := time.Date(2026, 12, 1, 20, 50, 0, 0, time.UTC)
	at := func(t int64) string { return start.Add(time.Duration(t) * time.Millisecond).Format(timeLayout) }
	if env.Now != nil {
		at = func(int64) string { return env.Now().UTC().Format(timeLayout) }
	}
	return &storeWriter{open: func() (io.WriteCloser, error) { return env.Store(name) }, id: id, cwd: env.Dir, at: at}
}

const timeLayout = "2006-01-02T15:04:05.000Z"

func (s *storeWriter) close() {
	if s != nil && s.w != nil {
		s.w.Close()
	}
}

// write appends one line: members, in order, as name and JSON value.
func (s *storeWriter) write(members ...any) {
	if s.failed {
		return
	}
	if s.w == nil {
		w, err := s.open()
		if err != nil {
			s.failed = true
			return
		}
		s.w = w
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(members); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(members[i])
		b.Write(name)
		b.WriteByte(':')
		switch v := members[i+1].(type) {
		case json.RawMessage:
			if v == nil {
				v = json.RawMessage("null")
			}
			b.Write(v)
		default:
			val, _ := json.Marshal(v)
			b.Write(val)
		}
	}
	b.WriteString("}\n")
	s.w.Write(b.Bytes())
}

// newUUID returns a random (version 4) UUID, as the CLI's ids are.
func newUUID() string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", rand.Uint32(), rand.N(1<<16), rand.N(1<<12), 0x8000|rand.N(1<<14), rand.Uint64()&(1<<48-1))
}

// uuid returns a new entry's id, and the id of the entry before it,
// whose child it becomes.
func (s *storeWriter) uuid() (id, parent string) {
	id = newUUID()
	parent, s.parent = s.parent, id
	return id, parent
}

// chain returns the parentUuid member's value.
func chain(parent string) json.RawMessage {
	if parent == "" {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(parent)
	return b
}

// entry writes a conversation entry: head, its time, then after, then
// the members every entry ends with.
func (s *storeWriter) entry(head []any, ts string, after ...any) {
	m := append(append(head, "timestamp", ts), after...)
	s.write(append(m, "userType", "external", "entrypoint", "sdk-cli", "cwd", s.cwd, "sessionId", s.id, "version", claude.TestedVersion, "gitBranch", "HEAD")...)
}

// user keeps a user line the client wrote at t: a prompt.
func (s *storeWriter) user(line []byte, t int64) {
	if s == nil {
		return
	}
	msg := members.Object(members.Get(gjson.ParseBytes(line), "message"))
	s.prompt = claudePromptText(msg)
	ts := s.at(t)
	s.write("type", "queue-operation", "operation", "enqueue", "timestamp", ts, "sessionId", s.id, "content", s.prompt)
	s.write("type", "queue-operation", "operation", "dequeue", "timestamp", ts, "sessionId", s.id)
	s.promptID = newUUID()
	id, parent := s.uuid()
	s.entry([]any{"parentUuid", chain(parent), "isSidechain", false, "promptId", s.promptID, "type", "user", "message", msg, "uuid", id},
		ts, "permissionMode", "default", "promptSource", "sdk", "turnOrigin", "sdk")
	aid, parent := s.uuid()
	s.entry([]any{"parentUuid", chain(parent), "isSidechain", false,
		"attachment", json.RawMessage(`{"type":"total_tokens_reminder","text":"<total_tokens>15000000 tokens left</total_tokens>"}`),
		"type", "attachment", "uuid", aid}, ts)
}

// out keeps a line the CLI wrote at t, as the CLI keeps it.
func (s *storeWriter) out(line []byte, t int64) {
	if s == nil {
		return
	}
	root := gjson.ParseBytes(line)
	if members.Get(root, "parent_tool_use_id").Type == gjson.String {
		return // a subagent's, which the CLI keeps in a file of its own
	}
	ts := s.at(t)
	switch members.Get(root, "type").Str {
	case "assistant":
		id, parent := s.uuid()
		if u := members.Get(root, "uuid"); u.Type == gjson.String {
			id, s.parent = u.Str, u.Str // the CLI keeps the line's uuid
		}
		head := []any{"parentUuid", chain(parent), "isSidechain", false, "message", members.Object(members.Get(root, "message")), "type", "assistant", "uuid", id}
		if e := members.Get(root, "error"); e.Type == gjson.String {
			head = append(head, "error", e.Str, "isApiErrorMessage", true)
		}
		s.entry(head, ts)
	case "user":
		id, parent := s.uuid()
		var after []any
		if r := members.Get(root, "tool_use_result"); r.Exists() {
			after = []any{"toolUseResult", members.Raw(r)}
		}
		s.entry([]any{"parentUuid", chain(parent), "isSidechain", false, "promptId", s.promptID, "type", "user", "message", members.Object(members.Get(root, "message")), "uuid", id}, ts, after...)
	case "result":
		s.write("type", "last-prompt", "lastPrompt", s.prompt, "leafUuid", s.parent, "sessionId", s.id)
	}
}

// claudePromptText is the text of a user message: its content string, or
// its text blocks joined with newlines.
func claudePromptText(msg json.RawMessage) string {
	content := members.Get(gjson.ParseBytes(msg), "content")
	if content.Type == gjson.String {
		return content.Str
	}
	var texts []string
	content.ForEach(func(_, b gjson.Result) bool {
		if members.Get(b, "type").Str == "text" {
			texts = append(texts, members.Get(b, "text").Str)
		}
		return true
	})
	return strings.Join(texts, "\n")
}
