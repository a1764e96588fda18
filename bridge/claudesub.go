package bridge

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpkit/acpkit/acp"
)

// This file shows Claude Code's subagents as child sessions (ACP's
// subagents RFD, unstable) to an editor that declared
// clientCapabilities.subagents. The ClaudeTranslator writes one form for
// every editor, with a subagent inside the Task call that started it;
// refuseChild refuses a request of an editor's about a session of its
// own that names a child session: a subagent's, which only its parent
// directs. It returns nil for any other id.
func refuseChild(id string) error {
	parent, ok := childParent(id)
	if !ok {
		return nil
	}
	return acp.InvalidParam("sessionId", "session %s is a subagent of session %s: only its parent directs it", id, parent)
}

// subagentView unfolds it, for such an editor alone, as it goes out.

// childHost is a Host that can show child sessions: the session's own
// host and its replays'.
type childHost interface {
	// subagents returns the editor the host's updates go to, and
	// whether it takes child sessions.
	subagents() (*editor, bool)
	// notifyChild sends updates on the child session with the id child.
	notifyChild(child string, updates []acp.Update)
}

// subagents reports whether the editor of h takes child sessions: a v1
// editor that declared clientCapabilities.subagents (v2's baseline has
// them too, but the bridge renders v2 as before; see the package doc).
func (h *host) subagents() (*editor, bool) {
	ed := h.editor()
	return ed, !ed.isV2() && ed.capabilities().Subagents != nil
}

func (h *host) notifyChild(child string, updates []acp.Update) {
	h.s.notifyV1(h.editor(), child, updates)
}

// subagentSep joins a parent session's id and a Task call's tool use id
// into the id of the Task's child session. Neither a session the bridge
// opens (a fresh UUID) nor a stored one (its CLI's format) has it in its
// id, so a child's id never names a session an editor can use.
const subagentSep = "/subagent/"

// childSessionID is the id of the child session of the Task call
// toolUseID in session parent: the same live and on every load.
func childSessionID(parent, toolUseID string) string {
	return parent + subagentSep + toolUseID
}

// childParent returns the parent session of a child session's id.
func childParent(id string) (parent string, ok bool) {
	parent, _, ok = strings.Cut(id, subagentSep)
	return parent, ok
}

// subagentView unfolds one session's subagents into child sessions. It
// belongs to its Conversation's goroutine (or its Replay's).
type subagentView struct {
	parent string                   // the session's id
	tasks  map[string]*subagentTask // by the Task call's tool use id
}

// subagentTask is a Task call's child session, as shown so far.
type subagentTask struct {
	child  string
	title  string
	prompt string
	sent   []subBlock       // the subagent's text and thinking shown
	told   map[*editor]bool // the editors the child was announced to
	// A Task run in the background ends twice: once launched, and
	// once its subagent is done.
	background, launched bool
}

// subBlock is a block of a subagent's text or thinking, as far as shown.
type subBlock struct {
	text    string
	thought bool
}

func newSubagentView(parent string) *subagentView {
	return &subagentView{parent: parent, tasks: map[string]*subagentTask{}}
}

// notify sends updates, which tr has just written, through h: as they
// are, or, for an editor that takes child sessions, with each Task's
// subagent in a child session of its own. There, the Task call stays the
// parent's, its _meta naming the child ("acpkit.dev/subagent":
// {"sessionId"}) and its content the result alone; the child is
// announced by a subagent_update (title the Task's description,
// description its prompt, running) before anything of its own, which
// starts with the Task's prompt as a session_message from the parent;
// the subagent's text and thinking come as agent_message_chunk and
// agent_thought_chunk, its tool calls as they are, all on the child;
// and the Task's end (a background Task's second) reports the child idle.
func (v *subagentView) notify(h Host, tr *ClaudeTranslator, updates []acp.Update) {
	ch, ok := h.(childHost)
	var ed *editor
	if ok {
		ed, ok = ch.subagents()
	}
	if !ok {
		h.Notify(updates...)
		return
	}
	var out []acp.Update // the parent's, held until the next child's update
	flush := func() {
		if len(out) > 0 {
			h.Notify(out...)
			out = out[:0]
		}
	}
	child := func(t *subagentTask, us ...acp.Update) {
		flush()
		v.announce(h, ch, ed, t)
		ch.notifyChild(t.child, us)
	}
	for _, u := range updates {
		switch u := u.(type) {
		case acp.ToolCall:
			if p := parentToolUse(u.Meta); p != "" {
				child(v.task(p), u)
				continue
			}
			if tr.subagentCall(u.ToolCallID) {
				t := v.task(u.ToolCallID)
				t.title, t.prompt, t.sent = u.Title, gjson.GetBytes(u.RawInput, "prompt").String(), nil
				t.background, t.launched = gjson.GetBytes(u.RawInput, "run_in_background").Bool(), false
				clear(t.told) // a replay shows it anew
				u.Meta = childMeta(u.Meta, t.child)
				out = append(out, u)
				flush()
				v.announce(h, ch, ed, t)
				continue
			}
		case acp.ToolCallUpdate:
			if p := parentToolUse(u.Meta); p != "" {
				child(v.task(p), u)
				continue
			}
			t := v.tasks[u.ToolCallID]
			if t == nil && tr.subagentCall(u.ToolCallID) {
				t = v.task(u.ToolCallID)
			}
			if t == nil {
				break
			}
			if subagentWords(u) {
				if chunks := t.words(u.Content); len(chunks) > 0 {
					child(t, chunks...)
				}
				continue
			}
			u.Content = t.result(u.Content)
			u.Meta = childMeta(u.Meta, t.child)
			if t.ended(u.Status) {
				flush()
				v.announce(h, ch, ed, t)
				out = append(out, acp.SubagentUpdate{SessionID: t.child, State: acp.IdleStateUpdate{}})
			}
			out = append(out, u)
			continue
		}
		out = append(out, u)
	}
	flush()
}

// ended reports whether a Task's update of status ends its subagent's
// work: a background Task's launch does not.
func (t *subagentTask) ended(status acp.ToolCallStatus) bool {
	if status != acp.ToolCallStatusCompleted && status != acp.ToolCallStatusFailed {
		return false
	}
	if t.background && !t.launched && status == acp.ToolCallStatusCompleted {
		t.launched = true
		return false
	}
	return true
}

// task returns the child session of the Task call id, made the first
// time.
func (v *subagentView) task(id string) *subagentTask {
	t := v.tasks[id]
	if t == nil {
		t = &subagentTask{child: childSessionID(v.parent, id), told: map[*editor]bool{}}
		v.tasks[id] = t
	}
	return t
}

// announce tells ed of t's child session, unless it was told: a
// subagent_update on the parent, then the Task's prompt on the child.
func (v *subagentView) announce(h Host, ch childHost, ed *editor, t *subagentTask) {
	if t.told[ed] {
		return
	}
	t.told[ed] = true
	h.Notify(acp.SubagentUpdate{SessionID: t.child, Title: t.title, Description: t.prompt, State: acp.RunningStateUpdate{}})
	if t.prompt != "" {
		ch.notifyChild(t.child, []acp.Update{acp.SessionMessage{
			MessageID: "prompt", SenderSessionID: v.parent,
			Content: acp.ContentBlocks{acp.TextContent{Text: t.prompt}},
		}})
	}
}

// words returns the chunks that show what content, a Task call's whole
// content of its subagent's words so far, adds to what t showed.
func (t *subagentTask) words(content []acp.ToolCallContent) []acp.Update {
	var out []acp.Update
	for i, c := range content {
		text, thought := subagentBlock(c)
		var add string
		switch {
		case i >= len(t.sent):
			t.sent = append(t.sent, subBlock{text, thought})
			add = text
		case strings.HasPrefix(text, t.sent[i].text):
			add = text[len(t.sent[i].text):]
			t.sent[i].text = text
		}
		switch {
		case add == "":
		case thought:
			out = append(out, acp.AgentThoughtChunk{Content: acp.TextContent{Text: add}})
		default:
			out = append(out, acp.AgentMessageChunk{Content: acp.TextContent{Text: add}})
		}
	}
	return out
}

// result is a Task call's content without its subagent's words, which
// the child showed, unless nothing else is left.
func (t *subagentTask) result(content []acp.ToolCallContent) []acp.ToolCallContent {
	n := 0
	for n < len(content) && n < len(t.sent) {
		if text, thought := subagentBlock(content[n]); text != t.sent[n].text || thought != t.sent[n].thought {
			break
		}
		n++
	}
	if n == len(content) {
		return content
	}
	return content[n:]
}

// subagentWords reports whether u is the ClaudeTranslator's update of a
// Task call with its subagent's words: its whole content, and nothing
// else, all text.
func subagentWords(u acp.ToolCallUpdate) bool {
	if len(u.Content) == 0 || u.Status != "" || u.Title != "" || u.Kind != "" || u.RawInput != nil ||
		u.RawOutput != nil || u.Locations != nil || u.Meta != nil {
		return false
	}
	for _, c := range u.Content {
		b, ok := c.(acp.ToolCallContentBlock)
		if !ok {
			return false
		}
		if _, ok := b.Content.(acp.TextContent); !ok {
			return false
		}
	}
	return true
}

// subagentBlock reads a block of a Task call's content as its subagent's
// words: its text, and whether it is thinking.
func subagentBlock(c acp.ToolCallContent) (text string, thought bool) {
	b, _ := c.(acp.ToolCallContentBlock)
	tc, _ := b.Content.(acp.TextContent)
	return tc.Text, gjson.GetBytes(tc.Meta, "claudeCode.thinking").Bool()
}

// parentToolUse is the Task call a subagent's tool call names in its
// _meta (see parentMeta); "" for the main agent's.
func parentToolUse(meta json.RawMessage) string {
	return gjson.GetBytes(meta, "claudeCode.parentToolUseId").String()
}

// childMeta is a Task call's _meta naming its child session.
func childMeta(meta json.RawMessage, child string) json.RawMessage {
	m := map[string]any{}
	if len(meta) > 0 && json.Unmarshal(meta, &m) != nil {
		return meta
	}
	m["acpkit.dev/subagent"] = map[string]string{"sessionId": child}
	b, _ := json.Marshal(m)
	return b
}
