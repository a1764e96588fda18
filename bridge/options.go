package bridge

import (
	"context"

	"github.com/acpkit/acpkit/acp"
)

// Tuner is a [Conversation] whose CLI takes settings beyond the mode and
// the model: its reasoning effort (ACP's thought_level category), say.
// Each is a config option of the session (an id other than "mode" and
// "model"), after the mode's and the model's, in the order Options gives
// them, and session/set_config_option sets it as it sets those: the
// CLI that runs takes it at once, and the next one starts with it. The
// Agent calls its methods on the session's goroutine, as the
// Conversation's; only the functions SetOption returns run elsewhere.
//
// Claude Code's conversation is one (its effort). A CLI plugs in by
// implementing it: Codex's reasoning effort is the same option.
type Tuner interface {
	// Options returns the settings' config options, each with its
	// current value, for a session on model (a [Model] ID, "default" for
	// the CLI's own): only those the model takes, nil for none. The
	// slice is the caller's.
	Options(model string) []acp.SessionConfigOption
	// SetOption checks value for the option id, for a session on model.
	// It returns a function that gives the value to the process that
	// runs and waits for the CLI to confirm, which the Agent calls on a
	// goroutine of its own (it must not touch the Conversation), and only
	// while a CLI runs; nil when no process runs, or there is nothing to
	// wait for. It returns an *acp.Error, -32602, for an option the
	// session does not offer or a value it does not take, having changed
	// nothing.
	SetOption(id, value, model string) (confirm func(context.Context) error, err error)
	// OptionSet records the value the option now has, once the CLI took
	// it: Options shows it, and the next CommandLine starts with it.
	OptionSet(id, value string)
}
