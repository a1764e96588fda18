package acp

import "encoding/json"

// This file holds the terminal/* methods, with which an agent runs commands
// in terminals the client creates and shows.

// CreateTerminalParams are the params of terminal/create, which an agent
// may send only if the client declared terminal.
type CreateTerminalParams struct {
	SessionID string      `json:"sessionId"`
	Command   string      `json:"command"`
	Args      []string    `json:"args,omitempty"`
	Env       []NameValue `json:"env,omitempty"`
	// Cwd is an absolute path; "" means the client's choice.
	Cwd string `json:"cwd,omitempty"`
	// OutputByteLimit caps the output kept, in bytes, dropping the oldest
	// first; nil means the client's default.
	OutputByteLimit *uint64         `json:"outputByteLimit,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *CreateTerminalParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *CreateTerminalParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("command", &p.Command, true)
	f.strings("args", &p.Args)
	objects(f, "env", &p.Env, false, decodeNameValue)
	f.str("cwd", &p.Cwd, false)
	f.optUint("outputByteLimit", &p.OutputByteLimit)
	f.meta(&p.Meta)
}

// CreateTerminalResult is the result of terminal/create.
type CreateTerminalResult struct {
	TerminalID string          `json:"terminalId" acp:"required"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalParams are the params of terminal/output, terminal/release,
// terminal/wait_for_exit and terminal/kill.
type TerminalParams struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *TerminalParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *TerminalParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("terminalId", &p.TerminalID, true)
	f.meta(&p.Meta)
}

// TerminalExitStatus is how a terminal's command ended.
type TerminalExitStatus struct {
	// ExitCode is nil when the process was killed by a signal.
	ExitCode *int `json:"exitCode,omitempty"`
	// Signal names the signal that killed the process; "" if none.
	Signal string          `json:"signal,omitempty"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOutputResult is the result of terminal/output.
type TerminalOutputResult struct {
	Output string `json:"output" acp:"required"`
	// Truncated reports that output was dropped to respect the byte limit.
	Truncated bool `json:"truncated" acp:"required"`
	// ExitStatus is nil while the command runs.
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       json.RawMessage     `json:"_meta,omitempty"`
}

// WaitForTerminalExitResult is the result of terminal/wait_for_exit.
type WaitForTerminalExitResult TerminalExitStatus
