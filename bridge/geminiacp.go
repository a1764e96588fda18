package bridge

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/gemini"
	"github.com/acpkit/acpkit/usage"
)

// GeminiACP is the Gemini CLI run as an ACP agent, `gemini --acp`, one
// process per session ([ACPAgent] says how the bridge serves it): the
// editor answers its permission questions, its file writes go through
// the editor's file system when the editor offers one, session/cancel
// interrupts the turn and keeps the process, and it takes images, audio,
// embedded resources and the editor's MCP servers. It keeps its sessions
// where a headless run does, so that session/list, load and delete read
// them as [Gemini]'s.
//
// The bridge mends where the CLI strays from ACP (as of 0.61.0):
// session/load shows the stored conversation itself before it answers,
// without the CLI's preamble; a tool call is announced before its
// permission question and ended, failed, when rejected or cancelled (a
// cancelled command the CLI reports completed is failed); a mode change
// the CLI reports as text ("[MODE_UPDATE] plan") is a mode change; its
// models are offered as a config option, and switched through
// session/set_model; an API failure, which it answers with the HTTP
// status as the error's code and the API's raw body as its message, is
// -32603 with [ErrorData] (rate_limit with the time to retry at, else
// api_error with the status), and a refused key -32000, authentication
// required; a missing file the editor's file system reports is read as
// empty, so that the CLI can write a new file; and the token use it
// reports in the _meta of its answer is the prompt's usage and a
// usage_update.
//
// One defect the bridge cannot mend: the CLI names a session's file for
// the minute it starts, and its session/load starts a file for the
// loaded session, which in the same minute is the same file, whose
// conversation it then hides. A process started again within a minute
// of its session's start (after a crash) then cannot load it, and the
// session goes on in a new conversation, the editor told so.
var GeminiACP CLI = geminiACPCLI{}

// geminiACPCLI shares the headless CLI's store: the sessions are the
// same files.
type geminiACPCLI struct{ geminiCLI }

var geminiACPInfo = CLIInfo{
	Name:    "Gemini CLI",
	Program: "gemini",
	Tested:  gemini.TestedVersion,
	// The CLI's own, as session/new lists them.
	Modes: []acp.SessionMode{
		{ID: "default", Name: "Default", Description: "Prompts for approval"},
		{ID: "autoEdit", Name: "Auto Edit", Description: "Auto-approves edit tools"},
		{ID: "yolo", Name: "YOLO", Description: "Auto-approves all tools"},
		{ID: "plan", Name: "Plan", Description: "Read-only mode"},
	},
	Bypass:  "yolo",
	Models:  []Model{{ID: "default", Name: "Default"}},
	Accepts: Accepts{Image: true, Audio: true, EmbeddedContext: true, MCPStdio: true, MCPHTTP: true, MCPSSE: true},
}

func (geminiACPCLI) Info() CLIInfo { return geminiACPInfo }

func (geminiACPCLI) NewConversation(c ConversationConfig) (Conversation, error) {
	cli := acpCLI{info: geminiACPInfo, dialect: geminiDialect{}}
	return &geminiACPConversation{
		acpConversation: newACPConversation(c, cli),
		stored:          &geminiConversation{cfg: c, notices: notices(c.Notices)},
	}, nil
}

// geminiACPConversation is a session of Gemini CLI's ACP mode: an ACP
// agent's, which session/load replays from the CLI's store as a headless
// session's.
type geminiACPConversation struct {
	*acpConversation
	stored *geminiConversation // replays the store
}

// Replay shows the conversation stored in f as a headless session's
// replay does: the CLI's own replay, which session/load would send,
// shows its preamble and its tools' responses as the person's words.
func (g *geminiACPConversation) Replay(h Host, store fs.FS, f StoredFile) error {
	return g.stored.Replay(h, store, f)
}

func (g *geminiACPConversation) StoredID() string { return g.continued() }

// geminiDialect is what Gemini CLI's ACP mode says differently from ACP.
type geminiDialect struct{ plainACP }

// args runs the CLI as an ACP agent trusting the session's folder, as
// the headless CLI is run (an untrusted one refuses autoEdit and yolo),
// and gives it the additional directories, which its session/new does
// not take.
func (geminiDialect) args(c ConversationConfig) ([]string, bool) {
	return gemini.ACPCommandLine(gemini.Options{SkipTrust: true, IncludeDirectories: c.AdditionalDirectories}), true
}

// modeUpdate starts the agent text with which the CLI reports a change
// of mode.
const modeUpdate = "[MODE_UPDATE] "

func (geminiDialect) update(h Host, t *acpTurn, u acp.Update) []acp.Update {
	switch u := u.(type) {
	case acp.AgentMessageChunk:
		if text, ok := u.Content.(acp.TextContent); ok {
			if mode, ok := strings.CutPrefix(text.Text, modeUpdate); ok && !strings.ContainsAny(strings.TrimSpace(mode), " \n") {
				h.ModeChanged(strings.TrimSpace(mode))
				return nil
			}
		}
	case acp.ToolCallUpdate:
		// A command cancelled with the turn is reported completed.
		if t.cancelled && u.Status == acp.ToolCallStatusCompleted {
			u.Status = acp.ToolCallStatusFailed
			return []acp.Update{u}
		}
	}
	return []acp.Update{u}
}

func (geminiDialect) promptError(e *acp.Error, c ConversationConfig) error {
	api, ok := gemini.ACPAPIError(e.Code, e.Message)
	if !ok {
		return plainACP{}.promptError(e, c)
	}
	data := ErrorData{Kind: KindAPIError, APIErrorStatus: api.Status}
	if api.Status == 401 || api.Status == 403 {
		return acp.Errorf(acp.CodeAuthRequired, "%s", api.Message).WithData(data)
	}
	switch ms, err := gemini.ParseResetTime(api.Message, c.Now(), c.Zones); {
	case err == nil:
		data.Kind, data.ResetsAtMs = KindRateLimit, ms
	case errors.Is(err, gemini.ErrNoResetTime) || api.Status == 429:
		data.Kind = KindRateLimit
	}
	return acp.Errorf(acp.CodeInternalError, "%s", api.Message).WithData(data)
}

// openError reads the CLI's answer to the load of a session it does not
// have, -32603 naming its command-line flags.
func (d geminiDialect) openError(e *acp.Error, name, id string) error {
	if strings.Contains(errorText(e), "Invalid session identifier") {
		return resumeNotFound(name, id)
	}
	return d.plainACP.openError(e, name, id)
}

// relayed answers a missing file of the editor's as an empty one: the CLI
// reads the file it is about to write first, and a read that fails makes
// it fail the write.
func (geminiDialect) relayed(method string, result json.RawMessage, err error) (json.RawMessage, error) {
	if method == acp.FSReadTextFile.Name && missingFile(err) {
		return json.RawMessage(`{"content":""}`), nil
	}
	return result, err
}

// missingFile reports whether err is an editor's answer that a file does
// not exist: ACP's resource_not_found, or words that say so.
func missingFile(err error) bool {
	var e *acp.Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Code == acp.CodeResourceNotFound {
		return true
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "no such file") || strings.Contains(msg, "enoent") || strings.Contains(msg, "not found")
}

func (geminiDialect) usage(res acp.PromptResult) (usage.Report, bool) {
	q, err := gemini.ParseQuota(res.Meta)
	if err != nil {
		return plainACP{}.usage(res)
	}
	rep := usage.Report{Input: usage.CountOf(q.Input), Output: usage.CountOf(q.Output)}
	if len(q.Models) > 0 {
		rep.Model = q.Models[len(q.Models)-1].Model
	}
	return rep, true
}

// contextUsed is the last model call's input and output: what the
// context held at the turn's end.
func (geminiDialect) contextUsed(res acp.PromptResult) (uint64, bool) {
	q, err := gemini.ParseQuota(res.Meta)
	switch {
	case err != nil:
		return 0, false
	case len(q.Models) == 0:
		return q.Input + q.Output, true
	}
	last := q.Models[len(q.Models)-1]
	return last.Input + last.Output, true
}

var (
	_ Keeper   = geminiACPCLI{}
	_ Replayer = (*geminiACPConversation)(nil)
)
