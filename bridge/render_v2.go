package bridge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// This file renders the bridge's updates for an ACP v2 client. The CLIs'
// translators ([ClaudeTranslator], Codex's and Gemini CLI's) write one
// neutral form, package acp's v1 updates, whatever the client speaks; a
// v1 client gets them as they are, and a v2 client gets them through a
// v2Render, which adds what v2 has and v1 has not: the ids that make a
// message an upsert, tool calls patched by id, and file changes named by
// their operation.

// v2Render renders one session's updates for ACP v2, in order. It
// names messages: a run of agent text between other items of the
// conversation (a tool call, a plan, a thought, a user message) is one
// agent message, and likewise a run of thought or of user text. Ids are
// unique per session and message type, as v2 asks, and across the
// bridge's processes too: each v2Render's ids start with a nonce of its
// own. It belongs to the session's goroutine.
type v2Render struct {
	nonce string // makes the ids of this v2Render unique
	n     int    // ids made

	// The message each type has under way; "" when none is.
	user, agent, thought string
	// The CLI's own ids of the agent message and thought under way (a v1
	// chunk's messageId), when it names its messages: a chunk that names
	// another starts a new message.
	agentOf, thoughtOf string
}

// newID returns a fresh message id of kind ("user", "agent", …).
func (r *v2Render) newID(kind string) string {
	r.n++
	return fmt.Sprintf("%s-%s-%d", kind, r.nonce, r.n)
}

// endMessages ends the messages under way: the next text starts new ones.
func (r *v2Render) endMessages() {
	r.user, r.agent, r.thought, r.agentOf, r.thoughtOf = "", "", "", "", ""
}

// userMessage is the whole user message of a prompt just inserted, with a
// new id, which the prompt's response carries too.
func (r *v2Render) userMessage(blocks []acp.ContentBlock) acpv2.UserMessage {
	r.endMessages()
	return acpv2.UserMessage{MessageID: r.newID("user"), Content: contentBlocksV2(blocks)}
}

// render appends the v2 form of u to dst. An update v2 has no place for
// (current_mode_update: v2's mode is the config option that the
// config_option_update sent beside it carries) adds nothing.
func (r *v2Render) render(dst []acpv2.Update, u acp.Update) []acpv2.Update {
	switch u := u.(type) {
	case acp.UserMessageChunk:
		r.agent, r.thought = "", ""
		if r.user == "" {
			r.user = r.newID("user")
		}
		return append(dst, acpv2.UserMessageChunk{MessageID: r.user, Content: contentV2(u.Content)})
	case acp.AgentMessageChunk:
		r.user, r.thought = "", ""
		if r.agent == "" || u.MessageID != r.agentOf {
			r.agent, r.agentOf = r.newID("agent"), u.MessageID
		}
		return append(dst, acpv2.AgentMessageChunk{MessageID: r.agent, Content: contentV2(u.Content)})
	case acp.AgentThoughtChunk:
		r.user, r.agent = "", ""
		if r.thought == "" || u.MessageID != r.thoughtOf {
			r.thought, r.thoughtOf = r.newID("thought"), u.MessageID
		}
		return append(dst, acpv2.AgentThoughtChunk{MessageID: r.thought, Content: contentV2(u.Content)})
	case acp.ToolCall:
		r.endMessages()
		return append(dst, acpv2.ToolCallUpdate(toolCallV2(acp.PermissionToolCall{
			ToolCallID: u.ToolCallID, Title: u.Title, Name: u.Name, Kind: u.Kind, Status: u.Status,
			Content: u.Content, Locations: u.Locations, RawInput: u.RawInput, RawOutput: u.RawOutput, Meta: u.Meta,
		})))
	case acp.ToolCallUpdate:
		r.endMessages()
		return append(dst, acpv2.ToolCallUpdate(toolCallV2(acp.PermissionToolCall(u))))
	case acp.Plan:
		r.endMessages()
		return append(dst, acpv2.PlanUpdate{Plan: acpv2.PlanContent{
			Type: acpv2.PlanItems, PlanID: "plan-" + r.nonce, Entries: convert[[]acpv2.PlanEntry](u.Entries), Meta: u.Meta,
		}})
	case acp.Notice:
		return append(dst, acpv2.Notice{Severity: acpv2.NoticeSeverity(u.Severity), Title: u.Title, Description: u.Description, Meta: u.Meta})
	case acp.UsageUpdate:
		return append(dst, acpv2.UsageUpdate{Used: u.Used, Size: u.Size, Cost: convert[*acpv2.Cost](u.Cost), Meta: u.Meta})
	case acp.AvailableCommandsUpdate:
		return append(dst, acpv2.AvailableCommandsUpdate{AvailableCommands: commandsV2(u.AvailableCommands), Meta: u.Meta})
	case acp.ConfigOptionUpdate:
		return append(dst, acpv2.ConfigOptionUpdate{ConfigOptions: configOptionsV2(u.ConfigOptions), Meta: u.Meta})
	case acp.SessionInfoUpdate:
		return append(dst, acpv2.SessionInfoUpdate{Title: u.Title, UpdatedAt: u.UpdatedAt, Meta: u.Meta})
	}
	return dst
}

// toolCallV2 is a tool call, or an update of one, as v2's upsert: a
// member v1 leaves empty is left unchanged, and diffs become file
// changes.
func toolCallV2(tc acp.PermissionToolCall) acpv2.PermissionToolCall {
	out := acpv2.PermissionToolCall{ToolCallID: tc.ToolCallID, RawInput: tc.RawInput, RawOutput: tc.RawOutput, Meta: tc.Meta}
	if tc.Title != "" {
		out.Title = &tc.Title
	}
	if tc.Name != "" {
		out.Name = &tc.Name
	}
	if tc.Kind != "" {
		k := acpv2.ToolKind(tc.Kind)
		out.Kind = &k
	}
	if tc.Status != "" {
		s := acpv2.ToolCallStatus(tc.Status)
		out.Status = &s
	}
	if tc.Content != nil {
		out.Content = make([]acpv2.ToolCallContent, 0, len(tc.Content))
		var whole map[string]bool // the files whose change a diff carried whole
		for _, c := range tc.Content {
			if d, ok := c.(acp.ToolCallDiff); ok {
				if fc, ok := readFileChange(d.Meta); ok {
					if whole == nil {
						whole = map[string]bool{}
					}
					whole[d.Path] = true
					out.Content = append(out.Content, fc.v2())
					continue
				}
				if whole[d.Path] {
					continue // a hunk of the change given whole
				}
			}
			out.Content = append(out.Content, toolContentV2(c))
		}
	}
	if tc.Locations != nil {
		out.Locations = convert[[]acpv2.ToolCallLocation](tc.Locations)
	}
	return out
}

// toolContentV2 is an item of a tool call's content in v2.
func toolContentV2(c acp.ToolCallContent) acpv2.ToolCallContent {
	switch c := c.(type) {
	case acp.ToolCallDiff:
		return diffV2(c)
	case acp.ToolCallContentBlock:
		return acpv2.ToolCallContentBlock{Content: contentV2(c.Content), Meta: c.Meta}
	case acp.ToolCallTerminal:
		return acpv2.ToolCallTerminal{TerminalID: c.TerminalID, Meta: c.Meta}
	}
	// Another kind, as it came: read in an update's params, where tool
	// call content decodes.
	n := convert[acpv2.SessionNotification](acp.SessionNotification{SessionID: "-", Update: acp.ToolCallUpdate{ToolCallID: "-", Content: []acp.ToolCallContent{c}}})
	if u, ok := n.Update.(acpv2.ToolCallUpdate); ok && len(u.Content) == 1 {
		return u.Content[0]
	}
	return acpv2.UnknownToolCallContent{}
}

// diffV2 is a v1 diff as a v2 structured file change. A diff without old
// text is, as v1 says, a new file: an add, whose git patch v2 can carry
// exactly, the whole new text. One with old text modifies the file; its
// texts are an excerpt of the file with no line numbers, which a git
// patch needs, so the change names the file and the operation alone, and
// the excerpt stays in the tool call's rawInput.
func diffV2(d acp.ToolCallDiff) acpv2.ToolCallDiff {
	change := acpv2.DiffChange{Operation: acpv2.DiffModify, FileType: acpv2.DiffFileTypeText, Path: d.Path}
	out := acpv2.ToolCallDiff{Meta: d.Meta}
	if d.OldText == nil {
		change.Operation = acpv2.DiffAdd
		out.Patch = &acpv2.DiffPatch{Format: acpv2.DiffPatchFormatGitPatch, Text: newFilePatch(d.Path, d.NewText)}
	}
	out.Changes = []acpv2.DiffChange{change}
	return out
}

// fileChangeKey is the _meta member of a v1 diff that carries the whole
// change to its file, when the CLI tells it (Codex does): a fileChange.
// The diff is then the change's first hunk, and the diffs of the same
// file after it in the tool call its other hunks; a v2 editor gets the
// change once, as a structured file change with its git patch.
const fileChangeKey = "acpkit.dev/fileChange"

// fileChange is a change to one file, whole.
type fileChange struct {
	Operation acpv2.DiffOperation `json:"operation"`
	Path      string              `json:"path"`              // absolute, after the change
	OldPath   string              `json:"oldPath,omitempty"` // before a move
	Patch     string              `json:"patch,omitempty"`   // a git patch; "" when unknown
}

// meta is the _meta of a v1 diff that carries f.
func (f fileChange) meta() json.RawMessage {
	b, _ := json.Marshal(map[string]fileChange{fileChangeKey: f}) // strings always marshal
	return b
}

// readFileChange reads the fileChange a v1 diff's _meta carries; ok is
// false when it carries none.
func readFileChange(meta json.RawMessage) (f fileChange, ok bool) {
	if len(meta) == 0 {
		return fileChange{}, false
	}
	var m map[string]fileChange
	if json.Unmarshal(meta, &m) != nil {
		return fileChange{}, false
	}
	f, ok = m[fileChangeKey]
	return f, ok && f.Operation != "" && f.Path != ""
}

// v2 is f as a v2 structured file change.
func (f fileChange) v2() acpv2.ToolCallDiff {
	out := acpv2.ToolCallDiff{Changes: []acpv2.DiffChange{{Operation: f.Operation, FileType: acpv2.DiffFileTypeText, Path: f.Path, OldPath: f.OldPath}}}
	if f.Patch != "" {
		out.Patch = &acpv2.DiffPatch{Format: acpv2.DiffPatchFormatGitPatch, Text: f.Patch}
	}
	return out
}

// newFilePatch is the git patch that creates the file at path (absolute,
// as v2 asks, and unprefixed) with text.
func newFilePatch(path, text string) string { return wholeFilePatch(path, text, false) }

// deletedFilePatch is the git patch that deletes the file at path, whose
// text was text.
func deletedFilePatch(path, text string) string { return wholeFilePatch(path, text, true) }

// wholeFilePatch is the git patch that creates the file at path with
// text, or deletes it.
func wholeFilePatch(path, text string, deleted bool) string {
	var b strings.Builder
	mode, from, to, sign, side := "new", "/dev/null", path, '+', "-0,0 +1"
	if deleted {
		mode, from, to, sign, side = "deleted", path, "/dev/null", '-', "-1"
	}
	fmt.Fprintf(&b, "diff --git %s %s\n%s file mode 100644\n", path, path, mode)
	if text == "" {
		return b.String()
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n@@ %s", from, to, side)
	if len(lines) != 1 {
		fmt.Fprintf(&b, ",%d", len(lines))
	}
	if deleted {
		b.WriteString(" +0,0")
	}
	b.WriteString(" @@\n")
	for _, l := range lines {
		b.WriteRune(sign)
		b.WriteString(l)
	}
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
	return b.String()
}

// permissionV2 is a permission question in v2: its own title, the tool
// call it is about as the subject, and the same options.
func permissionV2(sessionID string, q Question) acpv2.RequestPermissionParams {
	title := q.ToolCall.Title
	if title == "" {
		title = "Allow this tool call?"
	}
	return acpv2.RequestPermissionParams{
		SessionID: sessionID,
		Title:     title,
		Subject:   acpv2.ToolCallPermissionSubject{ToolCall: toolCallV2(q.ToolCall)},
		Options:   convert[[]acpv2.PermissionOption](q.Options),
	}
}

// commandsV2 is a list of slash commands in v2.
func commandsV2(cmds []acp.AvailableCommand) []acpv2.AvailableCommand {
	out := make([]acpv2.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := acpv2.AvailableCommand{Type: acpv2.CommandKind, Name: c.Name, Description: c.Description, Meta: c.Meta}
		if c.Input != nil {
			ac.Input = acpv2.TextCommandInput{Hint: c.Input.Hint, Meta: c.Input.Meta}
		}
		out = append(out, ac)
	}
	return out
}

// configOptionsV2 is a session's config options in v2.
func configOptionsV2(opts []acp.SessionConfigOption) []acpv2.SessionConfigOption {
	if opts == nil {
		return nil
	}
	out := make([]acpv2.SessionConfigOption, 0, len(opts))
	for _, o := range opts {
		out = append(out, acpv2.SessionConfigOption{
			Type: o.Type, ConfigID: o.ID, Name: o.Name, Description: o.Description,
			Category: acpv2.SessionConfigOptionCategory(o.Category), CurrentValue: o.CurrentValue, CurrentBool: o.CurrentBool,
			Options: acpv2.SessionConfigSelectOptions{
				Options: convert[[]acpv2.SessionConfigSelectOption](o.Options.Options),
				Groups:  convert[[]acpv2.SessionConfigSelectGroup](o.Options.Groups),
			},
			Meta: o.Meta,
		})
	}
	return out
}

// contentV2 is a content block in v2, where its shapes are v1's.
func contentV2(b acp.ContentBlock) acpv2.ContentBlock {
	// Plain text, what nearly every streamed chunk holds, is copied
	// rather than sent through JSON, which cost a chunk twice as much.
	if t, ok := b.(acp.TextContent); ok && t.Annotations == nil {
		return acpv2.TextContent{Text: t.Text, Meta: t.Meta}
	}
	return contentBlocksV2([]acp.ContentBlock{b})[0]
}

// contentBlocksV2 is a list of content blocks in v2. Blocks decode in
// params (and in ContentBlocks) only: the list goes as a prompt's.
func contentBlocksV2(blocks []acp.ContentBlock) acpv2.ContentBlocks {
	p := convert[acpv2.PromptParams](acp.PromptParams{SessionID: "-", Prompt: blocks})
	if len(p.Prompt) != len(blocks) {
		p.Prompt = make(acpv2.ContentBlocks, len(blocks)) // not so: the shapes are alike
	}
	return p.Prompt
}

// contentBlocksV1 is a v2 prompt as the bridge's content blocks.
func contentBlocksV1(blocks acpv2.ContentBlocks) []acp.ContentBlock {
	return convert[acp.PromptParams](acpv2.PromptParams{SessionID: "-", Prompt: blocks}).Prompt
}

// convert is v, a value of one version's types, as the other version's
// type T of the same JSON shape: v1's and v2's content blocks, plan
// entries, locations, costs and the like are written alike. A value that
// does not read as T (which the shapes rule out) is T's zero value.
func convert[T any](v any) T {
	var out T
	raw, err := json.Marshal(v)
	if err != nil || string(raw) == "null" {
		return out
	}
	out, _ = acp.DecodeParams[T](raw)
	return out
}
