package bridge

import (
	"context"
	"strings"

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

// The effort option, which a [Tuner] offers for a model that takes a
// choice of reasoning efforts: one of them, or the model's own.
const (
	configEffort  = "effort"
	effortDefault = "default"
)

// effortLevel is a value of the effort option.
type effortLevel struct {
	id, description string // what the CLI takes ("high"); "" for no description
}

// effortOption is the effort option of a model that takes levels, with
// current chosen (effortDefault, or one not among levels, showing the
// model's own), and modelDefault the level the model's own is ("" when
// unknown).
func effortOption(levels []effortLevel, current, modelDefault string) acp.SessionConfigOption {
	def := "Default"
	if modelDefault != "" {
		def += " (" + effortName(modelDefault) + ")"
	}
	values := []acp.SessionConfigSelectOption{{Value: effortDefault, Name: def, Description: "The model's own effort"}}
	chosen := effortDefault
	for _, l := range levels {
		values = append(values, acp.SessionConfigSelectOption{Value: l.id, Name: effortName(l.id), Description: l.description})
		if l.id == current {
			chosen = current
		}
	}
	return acp.SessionConfigOption{
		ID: configEffort, Name: "Effort", Description: "How hard the model thinks before it answers",
		Category: acp.ConfigCategoryThoughtLevel, Type: acp.ConfigOptionSelect, CurrentValue: chosen,
		Options: acp.SessionConfigSelectOptions{Options: values},
	}
}

// checkEffort checks value, for the effort option of model, which takes
// levels: -32602 naming the value when it is neither effortDefault nor
// one of them.
func checkEffort(model, value string, levels []effortLevel) error {
	if len(levels) == 0 {
		return acp.InvalidParam("value", "model %q takes no effort", model)
	}
	ids := make([]string, len(levels))
	for i, l := range levels {
		if l.id == value || value == effortDefault {
			return nil
		}
		ids[i] = l.id
	}
	return acp.InvalidParam("value", "model %q takes no effort %q (it takes %s)", model, value, strings.Join(ids, ", "))
}

// effortName names an effort level for a person: "xhigh" is "Extra high".
func effortName(level string) string {
	switch level {
	case "xhigh":
		return "Extra high"
	case "":
		return level
	}
	return strings.ToUpper(level[:1]) + level[1:]
}
