package acp

// ProtocolVersion is the latest ACP protocol version this package speaks.
// ACP versions are integers; version 1 is the first stable one.
const ProtocolVersion = 1

// Methods a client calls on an agent (client → agent).
const (
	MethodInitialize             = "initialize"
	MethodAuthenticate           = "authenticate"
	MethodSessionNew             = "session/new"
	MethodSessionLoad            = "session/load"
	MethodSessionResume          = "session/resume"
	MethodSessionList            = "session/list"
	MethodSessionClose           = "session/close"
	MethodSessionSetMode         = "session/set_mode"
	MethodSessionSetConfigOption = "session/set_config_option"
	MethodSessionPrompt          = "session/prompt"
	MethodSessionCancel          = "session/cancel" // a notification

	// MethodSessionSetModel is the legacy method that switches a session's
	// model. Unstable: it predates session/set_config_option and may be
	// removed from the protocol.
	MethodSessionSetModel = "session/set_model"
)

// Methods an agent calls on a client (agent → client).
const (
	MethodSessionUpdate            = "session/update" // a notification
	MethodSessionRequestPermission = "session/request_permission"
	MethodFSReadTextFile           = "fs/read_text_file"
	MethodFSWriteTextFile          = "fs/write_text_file"
	MethodTerminalCreate           = "terminal/create"
	MethodTerminalOutput           = "terminal/output"
	MethodTerminalRelease          = "terminal/release"
	MethodTerminalWaitForExit      = "terminal/wait_for_exit"
	MethodTerminalKill             = "terminal/kill"
)

// MethodCancelRequest is the notification either side sends to cancel one of
// its own requests still in flight; its params name the request's id.
const MethodCancelRequest = "$/cancel_request"

// goose's extension methods. Unstable: goose may change or remove them.
const (
	// MethodGooseSessionSteer injects user input into the prompt turn that is
	// running, without starting a new one (client → agent request).
	MethodGooseSessionSteer = "_goose/unstable/session/steer"
	// MethodGooseSessionUpdate carries goose's custom session updates, such
	// as its usage_update payload (agent → client notification).
	MethodGooseSessionUpdate = "_goose/unstable/session/update"
)
