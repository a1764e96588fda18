// Package bridge makes a coding-agent CLI an ACP agent: an [Agent] serves
// ACP sessions with the Claude Code CLI ([Claude]) or the OpenAI Codex CLI
// ([Codex]), one long-lived process per session, with the Gemini CLI run
// headless ([Gemini]), one process per turn, with any agent that speaks
// ACP itself ([ACPAgent]; Gemini CLI's own ACP mode is [GeminiACP]), one
// process per session, or with a CLI of the program's own.
// It turns the CLI's output into ACP session updates and prompt
// responses, and the editor's requests into the CLI's input.
//
// The package is pure, like the rest of the module: it starts no process
// and reads no clock of its own. A program gives it a [Starter] that
// starts the CLI and a [Clock] for its timeouts; package bridgeos has the
// operating system's, and its NewAgent fills them in. A test can run a
// CLI's fake in-process, and drive the timeouts with testing/synctest.
//
// # Sessions
//
// An [Agent] serves any number of editors, each connection with a
// handler of its own ([Agent.Handler]) that answers initialize,
// session/new, load, resume, fork, list, delete, close, set_mode,
// set_config_option, prompt, cancel and logout, and keeps what that editor
// declared at initialize: its capabilities decide what its sessions send
// it (notices, goose's usage updates), its version how. The sessions and
// their CLIs are the Agent's.
// Each session is served by one goroutine that owns all of its state and
// its CLI process: the handlers hand it their requests, and the process's
// output, its exit, the timers and the editor's permission answers come
// to it too, one at a time, in order. A session is cold (no CLI), idle (a
// CLI between turns), running or cancelling a turn, stopping its CLI, or
// closing.
//
// A session's CLI starts, in the session's directory, as soon as
// session/new, load, resume or fork has been answered, without holding
// the answer up, so that its commands and models reach the editor at once
// and the first prompt does not wait for it (a CLI run once per turn
// starts with the turn instead). Nothing of a session reaches an editor
// before the response that tells it of the session: the session holds
// its updates for that editor until the response is queued, all but
// those ACP wants first (session/load's replay, v2's state after
// session/resume). It may use the files of the session's
// additional directories too (Claude Code's --add-dir, the writable roots
// of Codex's sandbox, Gemini CLI's --include-directories). A prompt that
// comes while a turn runs waits for it and runs next; session/cancel
// interrupts the turn, and answers every waiting prompt cancelled. A CLI that ignores the
// interrupt is signalled, a grace period ([Config.Grace]) apart, until
// it ends the turn or exits. One silent past [Config.TurnTimeout] is
// killed and its turn fails; one idle past [Config.Idle] is stopped,
// and the next prompt resumes the conversation in a new process, as it
// does after a crash. A CLI that died between turns is replaced before
// the next prompt reaches it. [Agent.Close] cancels every turn, stops
// every CLI and waits for it.
//
// # Stored sessions
//
// Each CLI keeps its sessions on disk, and [Claude], [Codex] and
// [Gemini] (with [GeminiACP], whose sessions are the same files) are a
// [Keeper]: each knows where ([Keeper.StoreDir]) and in what format. Given that folder as a [Store] ([Config.Store]; package
// bridgeos's NewAgent opens the user's), the Agent reads it through the
// Store alone, and an id from the editor names a file only once it has
// passed the CLI's format check.
//
// session/list shows the stored sessions, newest first by the time
// their file was last written, with their directory, last activity and
// title (the CLI's own, or else the first prompt's text), a page at a
// time, and the sessions opened here that have no file yet. It reads
// the head and the tail of the files of the page only, and a file again
// only once it has changed.
//
// session/load shows the stored conversation before it answers: the
// person's prompts as user_message_chunk, with the images and resources
// they held; the text and thinking (Gemini CLI's stored thoughts too), a
// message whole; each tool call and its outcome, with the diffs a file
// change's stored result holds, plans, and a subagent's calls inside its
// task, as the live turns showed them; the end of a task the CLI ran in
// the background as the result of the call that started it; a failed
// turn's error as a notice, or, for a client without notices, as the
// CLI's text exactly. The CLI's bookkeeping, meta entries (a task's
// notification among them), interrupt markers and the permission
// questions already answered are left out. The session then goes on as
// after session/resume. session/list leaves out a stored session that
// holds no conversation, as the CLI's own list does.
// session/delete closes a session and removes its files. A title the
// CLI writes into a session's file as it goes reaches the editor after
// the turn, as a session_info_update.
//
// # CLIs
//
// What differs between the CLIs is behind the [CLI] interface: its modes
// and models ([CLIInfo]), its process model, and, for each session, a
// [Conversation] that builds its processes' command lines, writes their
// input and turns each line of their output into what the editor sees,
// through the session's [Host]. A Conversation that waits for its CLI's
// answers hands the waiting to the session ([ConversationConfig].Go),
// whose goroutine then gives it what came back. The editor sees the same
// updates, stop reasons and [ErrorData] whatever the CLI.
//
// Claude Code runs in streaming-input mode, and Codex as `codex
// app-server` (package codex's Session is its client): the editor answers
// their permission questions (Codex's approvals of commands, file changes
// and MCP tool calls, each with the tool call shown: the command, where it
// runs and why the model asks; the change's diffs), and session/cancel
// interrupts the turn and keeps the process; Codex's cancelled prompt is
// answered at once, its waiting approvals answered cancel. A Codex
// session's mode is the app-server's approval policy and sandbox (Read
// Only, Auto: the workspace writable, or Full Access), its model and
// reasoning effort those of model/list, each taken by the next turn; its
// threads resume (thread/resume) and fork (thread/fork, for session/fork).
// It needs Codex CLI 0.171.0 or later, and refuses an older one by name.
// Gemini CLI runs headless once per turn, resuming the conversation the
// turn before named; it asks no permission, so a session's mode is its
// approval mode, which the next turn takes, and session/cancel interrupts
// the turn's process.
//
// A session offers its CLI's modes and models as config options, and,
// for a model with reasoning efforts ([Model].Efforts), its effort
// (category thought_level), which the CLI takes from the next turn. A
// CLI that forks its conversations ([CLIInfo].Forks) serves session/fork
// (unstable): a new session with the conversation so far, the original
// untouched.
//
// Gemini CLI also speaks ACP itself (`gemini --acp`): [GeminiACP] runs it
// so, one process per session, as an [ACPAgent] (see ACP agents below),
// and mends where it strays from ACP.
//
// Each CLI says what it takes from an editor ([CLIInfo].Accepts), and
// initialize advertises exactly that: Claude Code takes images and
// embedded resources in a prompt, and the editor's MCP servers over
// stdio, HTTP and SSE; Codex the same, but no SSE server; Gemini CLI,
// run headless, takes embedded resources and nothing else. A prompt block
// or an MCP server of another kind is refused -32602 naming it
// (prompt[1], mcpServers[0]), before the CLI sees anything; nothing is
// dropped silently. Embedded resources are taken as text: a binary one is
// refused. An ACP agent takes what it says it takes as it is: Gemini
// CLI's ACP mode images, audio, embedded resources, and MCP servers over
// stdio, HTTP and SSE.
//
// Where this falls short of ACP: ACP requires every agent to take the
// editor's stdio MCP servers, and behind Gemini CLI run headless
// ([Gemini]) the bridge refuses them, since `gemini -p` takes none of the
// editor's; [GeminiACP] takes them.
//
// # Sign-in, settings, questions and forks
//
// What a CLI can do beyond a turn, it says in [CLIInfo] and its
// [Conversation]; the Agent advertises each only for a CLI that can,
// and uses it with an editor only as ACP allows:
//
//   - Sign-in: a CLI's interactive sign-in ([CLIInfo].SignIn) is a
//     terminal authentication method, advertised to an editor that
//     declared clientCapabilities.auth.terminal, with the arguments of
//     the agent's own program that run it ([Config].LoginArgs); logout
//     runs its sign-out ([CLIInfo].SignOut). A prompt whose CLI reports
//     its credentials refused or missing (cli.ErrAuth) fails with ACP's
//     auth_required, -32000.
//   - Settings beyond the mode and the model, such as the reasoning
//     effort (the thought_level category), are a [Tuner]'s config
//     options: the CLI that runs takes a change at once, the next one
//     starts with it.
//   - Questions the model asks the person are forms ([Question].Form),
//     put as elicitation/create in form mode to an editor that declared
//     form elicitation, and answered to a [FormAnswerer]; cancel, close
//     and the turn's end withdraw them as they do permission questions.
//   - session/fork (unstable) opens a session that starts as a copy of
//     another's conversation ([ConversationConfig].ForkOf), for a CLI
//     that [CLIInfo].Forks.
//
// Claude Code does all four: `claude auth login` and `claude auth
// logout`; its effort (--effort, apply_flag_settings), with the levels
// the session's model lists, and its fast mode (model_config), for the
// models that take it; AskUserQuestion as a form, or, for an
// editor without forms, a question of one choice as a permission
// question whose options are the choices and other questions refused in
// words the model reads; and forks through --resume --fork-session.
// Its slash commands that work only in its own terminal are not
// offered, and refused -32602 when typed; the output of its local
// commands (/context, /cost) is agent text.
//
// # ACP agents
//
// [ACPAgent] puts an agent that speaks ACP on its standard input and
// output behind the Agent, one process per session, supervised as any
// CLI's: the Agent is its client, and passes the editor's prompts,
// cancels and settings on, and the agent's updates, permission
// questions and requests for the editor's files, terminals and
// elicitations back ([Host.Relay]), under the editor's session id. The
// agent gains what the Agent gives every CLI: the remote transports,
// ACP v2 for a v2 editor, a handler per editor, goose's usage, and
// its restart after a crash or an idle stop, its session loaded or
// resumed again with the agent's replay left out. The Agent's session
// ids are its own, not the agent's, and it keeps no record of the
// agent's sessions: session/resume goes on with a session the Agent
// holds (opened through any of its connections, and not closed), and
// refuses any other id -32002 at once, whatever the agent could resume,
// which the Agent learns only when the agent starts. A program that
// serves one editor on stdio, an Agent per run, thus resumes none of
// an earlier run's sessions. It is held to ACP where it strays: a tool call it asks permission for unannounced is
// announced first, and one rejected, cancelled or left open when the
// turn ends is ended, failed.
//
// # ACP v2
//
// [Agent.Handler] serves the draft ACP v2 (see package acpv2) too, with
// the same sessions, CLIs and translation, unless [Editor] asks for V1
// alone: an [acpv2.Router] gives each connection the version it asks
// for. The
// translators write one neutral form, package acp's v1 updates, and the
// session renders it for the version of the connection each update goes
// to. For a v2 editor:
//
//   - a prompt is answered once its turn starts (a prompt that comes
//     during a turn is held until then, and session/cancel answers it
//     -32800), with the messageId of the user_message it inserted, and a
//     running state_update follows; the idle state_update ends the turn
//     with its stop reason and usage, or with stop reason "error" and the
//     prompt's *acp.Error, [ErrorData] and all;
//   - each run of agent text, thought or user text between other items of
//     the conversation is one message with an id, unique per session and
//     message type and across the bridge's processes;
//   - tool calls are tool_call_update upserts patched by id;
//   - an edit is a structured file change: an Edit or MultiEdit a
//     "modify" of its file (the edit's excerpt has no line numbers, which
//     a git patch needs; it stays in rawInput), a Write a new file, an
//     "add" with a git patch of its text, as v1's diff without oldText
//     says it is;
//   - a permission question carries the tool call's title as its own and
//     the tool call as its subject;
//   - session/resume with replayFrom replays the stored conversation
//     through session/load's replay, and every resume reports the
//     session's state before it answers.
//
// Codex's and Gemini CLI's turns reach a v2 editor the same way, with
// ids and the lifecycle: each of Codex's messages is a message of its own
// (a v1 chunk's messageId is its item's id), and each of its file changes,
// live or replayed, a structured change with its operation and its git
// patch, which the v1 diffs of the change carry in their _meta
// ("acpkit.dev/fileChange"). Gemini CLI's file changes reach it as tool
// calls naming the files: its events hold no change.
//
// # Translation
//
// [ClaudeTranslator] is Claude Code's mapping alone, one per session, for
// a program that runs the CLI its own way:
//
//   - text and thinking become agent_message_chunk and agent_thought_chunk
//     updates as they stream, and the complete block that repeats them is
//     skipped;
//   - a tool call becomes a tool_call with the tool use's id, a kind
//     (claude.ToolKindOf's), a title, its input, the files it touches and, for
//     edits, the diff; its result a tool_call_update, completed or failed,
//     with the output as content and as rawOutput, led, for a Write or an
//     Edit, by the diff of the file's whole text before and after, which
//     the result tells and the input cannot;
//     TodoWrite becomes a plan;
//   - a subagent (a Task or Agent call) is shown inside the call that
//     started it, live and on session/load alike: its text and thinking
//     as the call's content, a block each, in order (thinking marked
//     with _meta claudeCode.thinking), before the call's result; its
//     tool calls as calls of their own whose _meta names the Task call
//     (claudeCode.parentToolUseId, as the TypeScript adapter names it);
//   - for an ACP v1 editor that declared clientCapabilities.subagents
//     (ACP's subagents RFD, unstable), each such subagent is instead a
//     child session of its own, live and on session/load alike, as it
//     goes out to that editor alone: a subagent_update on the parent
//     announces it (title the Task's description, description its
//     prompt, state running; no cwd, so it inherits the parent's; no
//     capabilities, so the editor can only watch it) before anything of
//     the child's; the child then shows the Task's prompt as a
//     session_message from the parent, and its text, thinking and tool
//     calls as agent_message_chunk, agent_thought_chunk and tool calls,
//     in order. The Task call stays the parent's, naming the child in
//     its _meta ("acpkit.dev/subagent": {"sessionId"}), its content the
//     result alone, and its end (a background Task's second) reports
//     the child idle. A child's id is the parent's and the Task's tool
//     use id, "<session>/subagent/<tool use id>", the same on every
//     load; a request that names it as a session of the editor's own
//     (prompt, load, resume, fork, set_mode, close, delete) is refused
//     -32602. An ACP v2 editor, whose baseline has child sessions, gets
//     the subagent inside the Task call as a v1 editor without the
//     capability does, for now;
//   - a rate limit close to or at its end becomes a notice (or agent text,
//     for a client that takes no notices) naming the reset time;
//   - each result brings a usage_update with the session's cost;
//   - [ClaudeTranslator.End] gives the prompt's response: a stop reason,
//     or an *acp.Error whose data, an [ErrorData], says why the turn
//     failed and when a limit resets.
package bridge
