package bridge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/timeparse"
	"github.com/acpkit/acpkit/usage"
)

// CLI is a coding-agent CLI that an [Agent] serves its sessions with:
// what it offers, and for each session a [Conversation] that builds its
// processes' command lines and speaks with them. [Claude], [Codex] and
// [Gemini] are its implementations; a program may bring its own.
type CLI interface {
	// Info describes the CLI. The Agent reads it once; the slices are
	// not modified.
	Info() CLIInfo
	// NewConversation returns the CLI's side of a new session. It returns
	// an *acp.Error for a session the CLI cannot serve (an MCP server
	// transport it does not take, say).
	NewConversation(c ConversationConfig) (Conversation, error)
}

// CLIInfo is what a [CLI] offers.
type CLIInfo struct {
	// Name names the CLI to a person, in messages: "Claude Code".
	Name string
	// Program is the CLI's program name, as found in PATH: "claude".
	Program string
	// Tested is the release of the CLI the bridge was tested with
	// ("2.1.328"); "" when unknown.
	Tested string
	// Modes are the modes a session can be in, the default first; at
	// least one. A CLI that lists its own once it runs offers those
	// instead ([Host.Offer]).
	Modes []acp.SessionMode
	// Bypass is the id of the mode, among Modes, that runs every tool
	// without asking; it is offered only with [Config.AllowBypass]. ""
	// when there is none.
	Bypass string
	// Models are offered until the CLI lists its own
	// ([Host.Commands], [Host.Offer]); "default" stands for the CLI's
	// own choice.
	Models []Model
	// PerTurn reports that the CLI runs one process per turn, which ends
	// the turn when it exits; otherwise one process serves turn after
	// turn and is stopped only when idle or closed.
	PerTurn bool
	// Accepts is what the CLI takes from an editor. initialize
	// advertises exactly it, and the Agent refuses the rest, -32602
	// naming it, before the CLI sees it.
	Accepts Accepts
	// Forks reports that the CLI can start a session as a copy of a
	// conversation it keeps, which goes on apart from the original
	// (session/fork, advertised only then; see
	// [ConversationConfig].ForkOf).
	Forks bool
	// SignIn are the arguments (without the program name) of the CLI's
	// own interactive sign-in, run in the user's terminal and exiting 0
	// once signed in: Claude Code's ["auth", "login"], Codex's
	// ["login"]. nil when the CLI has none; initialize then advertises no
	// terminal authentication method (see [Config].LoginArgs).
	SignIn []string
	// SignOut are the arguments of the CLI's sign-out, which needs no
	// terminal and exits 0 once signed out: Claude Code's ["auth",
	// "logout"]. ACP's logout runs it; nil when the CLI has none, and then
	// logout is not advertised.
	SignOut []string
}

// Accepts is what a [CLI] takes from an editor, beyond what every ACP
// agent takes: a prompt's text and resource links.
type Accepts struct {
	// Image, Audio and EmbeddedContext are the prompt content blocks it
	// takes besides text and resource links: image, audio and resource
	// blocks.
	Image, Audio, EmbeddedContext bool
	// MCPStdio, MCPHTTP and MCPSSE are the transports of the editor's MCP
	// servers it takes. ACP requires every agent to take stdio servers.
	MCPStdio, MCPHTTP, MCPSSE bool
}

// Model is a value of a session's model option.
type Model struct {
	ID          string // what the CLI's --model takes
	Name        string // for a person
	Description string // "" for none
}

// ConversationConfig is what a [Conversation] knows of its session.
type ConversationConfig struct {
	// SessionID is the ACP session's id, which a new conversation takes
	// as its own where the CLI lets its client choose (Claude Code's
	// --session-id).
	SessionID string
	// ResumeID is the CLI's conversation the session goes on with
	// (session/load, session/resume); "" for a new one.
	ResumeID string
	// ForkOf is the CLI's conversation the session starts as a copy of
	// (session/fork), taking SessionID as its own where the CLI lets its
	// client choose; "" for none. Only a CLI that [CLIInfo].Forks gets
	// one.
	ForkOf string
	// Cwd is the session's directory, an absolute path, where its
	// processes start.
	Cwd string
	// MCPServers are the MCP servers the editor gave the session.
	MCPServers []acp.MCPServer
	// AdditionalDirectories are the workspace roots besides the
	// session's directory that the editor gave the session, absolute
	// paths; the CLI's tools may use their files too.
	AdditionalDirectories []string
	// ExtraArgs are added to every command line.
	ExtraArgs []string
	// Notices reports that the client takes notice updates.
	Notices bool
	// Client is what the editor that opened the session declared it
	// takes at initialize (a v2 editor's, as far as v1 has them): a CLI
	// that speaks ACP itself is told the same, so that it uses the
	// editor's file system and terminals where the editor offers them.
	Client acp.ClientCapabilities
	// Now returns the current time.
	Now func() time.Time
	// Location is the time zone reset times are shown and read in.
	Location *time.Location
	// Zones resolves the time zones a CLI names in its words; nil
	// resolves only "UTC".
	Zones timeparse.ZoneResolver
	// Logger receives what the Conversation skips or fails at.
	Logger *slog.Logger
	// Go runs work on a goroutine of its own, for a Conversation that
	// waits for an answer of the CLI's, which meanwhile comes through
	// Line. The function work returns, unless nil, is then called on the
	// session's goroutine, as Line is, with the Host of that moment: it
	// may end the turn. work must return once the process it waits on
	// has exited (Exited is called first), for the Agent's Close waits
	// for it. Go is not to be called before NewConversation has returned.
	Go func(work func() func(Host))
}

// Conversation is a CLI's side of one ACP session, for the whole session:
// it builds the command line of each of the session's processes, writes
// their input and reads their output, and keeps what outlives a process
// (the conversation's id, the usage so far).
//
// The Agent calls its methods on the session's goroutine, one at a time;
// only the functions SetMode and SetModel return, and the work given to
// [ConversationConfig].Go, run elsewhere. A session
// has at most one process at a time: Start binds the Conversation to it,
// Exited lets go of it.
type Conversation interface {
	// CommandLine returns the arguments (without the program name) of
	// the session's next process, in mode and with model, each one of
	// CLIInfo's ("default" for the CLI's own model). A process started
	// for a turn is started after that turn's Prompt.
	CommandLine(mode, model string) []string
	// Start binds the Conversation to the process just started with
	// CommandLine's arguments. stdin is its standard input, where writes
	// are queued and never block. The Conversation writes what the CLI
	// needs first, then the prompt Prompt gave it, if any; a per-turn CLI
	// then closes stdin.
	Start(stdin io.WriteCloser)
	// Prompt begins a turn. A process that runs gets the prompt at once;
	// otherwise the one Start binds next does. It returns an *acp.Error,
	// having begun nothing, for a prompt the CLI cannot take.
	Prompt(prompt []acp.ContentBlock) error
	// Interrupt asks the process to end the turn under way and reports
	// whether it could; the Agent signals a CLI that cannot be asked.
	Interrupt() bool
	// Line handles one line of the process's standard output, without
	// its newline; line is valid only during the call.
	Line(h Host, line []byte)
	// Exited lets go of the process, which has exited: err says how (nil
	// for success, with the end of its standard error otherwise). It
	// ends the turn under way, if any, with [Host.EndTurn].
	Exited(h Host, err error)
	// Answer gives the CLI the editor's answer to question q: outcome,
	// or err when the editor could not be asked. The Agent calls it only
	// while the question's turn runs and the CLI has not withdrawn it.
	Answer(h Host, q Question, outcome acp.PermissionOutcome, err error)
	// SetMode and SetModel switch the process that runs, if any, to mode
	// or model. They return a function that waits for the CLI to confirm
	// (the Agent calls it on a goroutine of its own: it must not touch
	// the Conversation), or nil when there is nothing to wait for: the
	// next CommandLine takes the change.
	SetMode(mode string) func(context.Context) error
	SetModel(model string) func(context.Context) error
	// Usage returns the session's usage so far, for goose's usage update.
	Usage() usage.Snapshot
}

// Host is the session a [Conversation] serves, as the Conversation sees it
// during a call of the Agent's: where what the CLI says goes. Its methods
// are to be called only during that call.
type Host interface {
	// Notify sends updates to the editor, in order.
	Notify(updates ...acp.Update)
	// Ask puts a question of the turn under way to the editor: a
	// permission question, whose answer comes to [Conversation.Answer],
	// or a form (q.Form), whose answer comes to [FormAnswerer].AnswerForm;
	// unless the question is withdrawn or the turn ends first.
	Ask(q Question)
	// Forms reports whether the editor of the turn under way (the one the
	// session last heard from, outside a turn) takes forms: ACP's
	// elicitation in form mode, which it declared at initialize. A form
	// may be put only to such an editor, as ACP requires.
	Forms() bool
	// Withdraw withdraws the question with the id: the CLI no longer
	// waits for an answer.
	Withdraw(id string)
	// Relay passes a request of the CLI's to the editor: a method of
	// ACP's client side other than session/request_permission
	// (fs/read_text_file, terminal/create, elicitation/create, …) or an
	// extension's ("_…"), with its params, whose sessionId, when they
	// hold one, becomes the session's. It goes to the editor of the turn
	// under way, or else the one the session last heard from; one that
	// did not declare it takes the method (a v2 editor takes none of
	// them) is not asked, and the answer is -32601. The editor's result,
	// or the error, comes to done once, on the session's goroutine,
	// during a later call of the Agent's (the process may have exited
	// since). cancel withdraws the request: done then gets -32800, as it
	// does when the process exits first. The watchdog waits for the
	// editor meanwhile.
	Relay(method string, params json.RawMessage, done func(result json.RawMessage, err error)) (cancel func())
	// ModeChanged records that the CLI went on in mode, one of CLIInfo's,
	// and tells the editor.
	ModeChanged(mode string)
	// Commands tells the editor the CLI's slash commands, and the models
	// it offers (nil keeps those known), unless it was last told the same.
	Commands(commands []acp.AvailableCommand, models []Model)
	// Offer tells the editor the modes and the models the CLI offers, as
	// it lists them once it runs, in place of CLIInfo's (nil keeps those
	// known), as config options, unless it was last told the same. Every
	// session of the Agent offers them from then on.
	Offer(modes []acp.SessionMode, models []Model)
	// EndTurn ends the turn under way, if any, with the prompt's response:
	// a result, or an error (an *acp.Error, with [ErrorData]).
	EndTurn(res acp.PromptResult, err error)
	// Retire says that the process takes no further turn: the Agent stops
	// it once the turn under way has ended, and starts another for the
	// next prompt.
	Retire()
}

// Question is a question a CLI asks about a tool call: a permission
// question, with Options to choose from, or a form to fill in.
type Question struct {
	// ID names the question to its Conversation.
	ID       string
	ToolCall acp.PermissionToolCall
	Options  []acp.PermissionOption
	// Form, when not nil, makes the question a form the editor shows
	// (ACP's elicitation/create in form mode, tied to the session and to
	// ToolCall's id), and Options unused: a question the CLI asks the
	// person, not about a tool's permission. The Conversation must be a
	// [FormAnswerer], and the editor take forms ([Host.Forms]).
	Form *Form
}

// Form is what a form question shows: its message, and the fields to
// fill in.
type Form struct {
	Message string
	Schema  acp.ElicitationSchema
}

// FormAnswerer is a [Conversation] that asks forms ([Question].Form).
type FormAnswerer interface {
	// AnswerForm gives the CLI the editor's answer to form q: res (its
	// action, accept, decline or cancel, and what was filled in), or err
	// when the editor could not be asked. The Agent calls it as it calls
	// [Conversation.Answer]: only while the question's turn runs and the
	// CLI has not withdrawn it; a form asked outside a turn is answered
	// cancel.
	AnswerForm(h Host, q Question, res acp.CreateElicitationResult, err error)
}
