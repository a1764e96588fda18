package gemini

// Conversation is a session of the Gemini CLI as the CLI resumes it: what
// the records of its file build up, applied in order. The file is a log,
// so no message is final before the file ends: a later message record
// with the same id replaces it, a $set record replaces the whole list (the
// CLI writes one when it resumes the session, from the history it sends
// the model), and a $rewindTo record drops it and every message after it.
// A Conversation therefore holds every message still in the list, as read
// (its prompt, events and thoughts, not its raw line), and the session's
// fields: memory of the order of the conversation, not of the file.
//
// The zero Conversation is empty and ready to use. It is not safe for
// concurrent use.
type Conversation struct {
	// The session's fields, as the last record that sets each left them.
	SessionID   string
	ProjectHash string
	StartTime   int64 // epoch ms
	LastUpdated int64 // epoch ms
	Summary     string
	Kind        string
	Directories []string

	messages []Entry
	index    map[string]int // message id → position in messages
}

// Apply applies one record of the file to c, as the CLI does when it
// loads the file: a message record replaces the message with its id, in
// place, or joins the end of the list; a metadata or $set record sets
// the fields it holds, and a $set of the message list replaces the list;
// a $rewindTo record drops the message it names and every message after
// it, or, when no message has that id, them all. Other records change
// nothing. c keeps e's slices.
func (c *Conversation) Apply(e Entry) {
	switch e.Record {
	case RecordRewind:
		i, ok := c.index[e.ID]
		if !ok {
			i = 0
		}
		for _, m := range c.messages[i:] {
			delete(c.index, m.ID)
		}
		clear(c.messages[i:]) // let the dropped messages go
		c.messages = c.messages[:i]
	case RecordSet, RecordMetadata:
		if e.Set != nil {
			c.set(e.Set)
		}
	case RecordMessage:
		c.put(e)
	}
}

func (c *Conversation) set(m *Metadata) {
	if m.SessionID != "" {
		c.SessionID = m.SessionID
	}
	if m.ProjectHash != "" {
		c.ProjectHash = m.ProjectHash
	}
	if m.StartTime != 0 {
		c.StartTime = m.StartTime
	}
	if m.LastUpdated != 0 {
		c.LastUpdated = m.LastUpdated
	}
	if m.Summary != "" {
		c.Summary = m.Summary
	}
	if m.Kind != "" {
		c.Kind = m.Kind
	}
	if m.Directories != nil {
		c.Directories = m.Directories
	}
	if m.Messages != nil {
		clear(c.messages)
		c.messages = c.messages[:0]
		clear(c.index)
		for _, msg := range m.Messages {
			c.put(msg)
		}
	}
}

// put replaces the message with e's id, or appends e.
func (c *Conversation) put(e Entry) {
	if c.index == nil {
		c.index = map[string]int{}
	}
	if i, ok := c.index[e.ID]; ok {
		c.messages[i] = e
		return
	}
	c.index[e.ID] = len(c.messages)
	c.messages = append(c.messages, e)
}

// Len returns the number of messages in the list.
func (c *Conversation) Len() int { return len(c.messages) }

// Messages returns the messages of the conversation, in order, as a
// replay shows them: a tool call or tool result is left out when an
// earlier message already holds one with its id. The CLI stores a call
// and its result both in the model's message (its toolCalls) and as the
// tool response it sends back, in the next user message; a list the CLI
// rebuilt from the history holds them only in the latter form. The
// entries are copies the caller owns; their strings and raw JSON are
// shared with c.
func (c *Conversation) Messages() []Entry {
	out := make([]Entry, 0, len(c.messages))
	uses, results := map[string]bool{}, map[string]bool{}
	for _, m := range c.messages {
		var events []Event
		for _, ev := range m.Events {
			switch ev := ev.(type) {
			case ToolUse:
				if ev.ID != "" && uses[ev.ID] {
					continue
				}
				uses[ev.ID] = true
			case ToolResult:
				if ev.ID != "" && results[ev.ID] {
					continue
				}
				results[ev.ID] = true
			}
			events = append(events, ev)
		}
		m.Events = events
		out = append(out, m)
	}
	return out
}
