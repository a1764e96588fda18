package acp

// ProtocolVersion is the latest ACP protocol version this package speaks.
// ACP versions are integers; version 1 is the first stable one.
const ProtocolVersion = 1

// NegotiateVersion returns the protocol version an agent answers initialize
// with: the client's version when this package supports it, else the latest
// version it supports ([ProtocolVersion]), which the client may then reject
// by disconnecting. Only version 1 is supported.
func NegotiateVersion(clientVersion int) int {
	if clientVersion == ProtocolVersion { // the only version supported
		return clientVersion
	}
	return ProtocolVersion
}

// The methods a client calls on an agent (client → agent). An agent serves
// them with [Method.Handle] and [Notification.Handle]; a client calls them
// with [Method.Call] and [Notification.Notify].
var (
	Initialize             = Method[InitializeParams, InitializeResult]{Name: "initialize"}
	Authenticate           = Method[AuthenticateParams, EmptyResult]{Name: "authenticate"}
	Logout                 = Method[EmptyParams, EmptyResult]{Name: "logout"}
	SessionNew             = Method[NewSessionParams, NewSessionResult]{Name: "session/new"}
	SessionLoad            = Method[LoadSessionParams, LoadSessionResult]{Name: "session/load"}
	SessionResume          = Method[ResumeSessionParams, LoadSessionResult]{Name: "session/resume"}
	SessionList            = Method[ListSessionsParams, ListSessionsResult]{Name: "session/list"}
	SessionDelete          = Method[SessionParams, EmptyResult]{Name: "session/delete"}
	SessionClose           = Method[SessionParams, EmptyResult]{Name: "session/close"}
	SessionSetMode         = Method[SetSessionModeParams, EmptyResult]{Name: "session/set_mode"}
	SessionSetConfigOption = Method[SetSessionConfigOptionParams, SetSessionConfigOptionResult]{Name: "session/set_config_option"}
	SessionPrompt          = Method[PromptParams, PromptResult]{Name: "session/prompt"}
	SessionCancel          = Notification[SessionParams]{Name: "session/cancel"}
)

// Unstable client → agent methods: they are in ACP's unstable schema only,
// or predate the stable one, and may change or be removed.
var (
	// SessionFork creates a new session holding a copy of an existing
	// one's history. Unstable.
	SessionFork = Method[ForkSessionParams, NewSessionResult]{Name: "session/fork"}
	// SessionSetModel is the legacy method that switches a session's
	// model. Unstable: it predates session/set_config_option and may be
	// removed from the protocol.
	SessionSetModel = Method[SetSessionModelParams, EmptyResult]{Name: "session/set_model"}
)

// The methods an agent calls on a client (agent → client). A client serves
// them with [Method.Handle] and [Notification.Handle]; an agent calls them
// with [Method.Call] and [Notification.Notify], the fs/* and terminal/*
// ones only when the client declared the capability.
var (
	SessionUpdate            = Notification[SessionNotification]{Name: "session/update"}
	SessionRequestPermission = Method[RequestPermissionParams, RequestPermissionResult]{Name: "session/request_permission"}
	FSReadTextFile           = Method[ReadTextFileParams, ReadTextFileResult]{Name: "fs/read_text_file"}
	FSWriteTextFile          = Method[WriteTextFileParams, EmptyResult]{Name: "fs/write_text_file"}
	TerminalCreate           = Method[CreateTerminalParams, CreateTerminalResult]{Name: "terminal/create"}
	TerminalOutput           = Method[TerminalParams, TerminalOutputResult]{Name: "terminal/output"}
	TerminalRelease          = Method[TerminalParams, EmptyResult]{Name: "terminal/release"}
	TerminalWaitForExit      = Method[TerminalParams, WaitForTerminalExitResult]{Name: "terminal/wait_for_exit"}
	TerminalKill             = Method[TerminalParams, EmptyResult]{Name: "terminal/kill"}
	ElicitationCreate        = Method[CreateElicitationParams, CreateElicitationResult]{Name: "elicitation/create"}
	ElicitationComplete      = Notification[CompleteElicitationParams]{Name: "elicitation/complete"}
)

// CancelRequest is the notification either side sends to cancel one of its
// own requests still in flight. A [Conn] sends it when a [Conn.Request]'s
// context ends, and handles the peer's itself: handlers never see it.
var CancelRequest = Notification[CancelRequestParams]{Name: "$/cancel_request"}

// methods lists every method value above.
var methods = []method{
	Initialize, Authenticate, Logout, SessionNew, SessionLoad, SessionResume,
	SessionList, SessionDelete, SessionClose, SessionSetMode,
	SessionSetConfigOption, SessionPrompt, SessionCancel, SessionFork,
	SessionSetModel, SessionUpdate, SessionRequestPermission, FSReadTextFile,
	FSWriteTextFile, TerminalCreate, TerminalOutput, TerminalRelease,
	TerminalWaitForExit, TerminalKill, ElicitationCreate, ElicitationComplete,
	CancelRequest,
}

// knownMethods maps the name of each method value to itself, so that
// [Classify] returns the same string for every line naming it, without
// allocating.
var knownMethods = func() map[string]string {
	m := make(map[string]string, len(methods))
	for _, v := range methods {
		m[v.name()] = v.name()
	}
	return m
}()
