package bridge_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// effortOption returns the effort option of options; nil when there is
// none.
func effortOption(options []acp.SessionConfigOption) *acp.SessionConfigOption {
	for i, o := range options {
		if o.ID == "effort" {
			return &options[i]
		}
	}
	return nil
}

// TestEffort plays a session of the real Claude Code 2.1.328 whose
// effort the editor lowers between two turns: the effort is a config
// option of the thought_level category with the levels the model listed,
// the change reaches the running CLI (apply_flag_settings), the next turn
// runs at it (the mock names the effort each request asked for), and the
// conversation goes on in the same process (the second turn holds both
// prompts).
func TestEffort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ed := &featureEditor{}
		e := newFeatureEnv(t, capture("effort"), bridge.Config{Model: "sonnet"}, ed, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		synctest.Wait() // the CLI, started at once, lists its models

		_, err := e.prompt(sid, "How much effort?")
		must(t, err)
		res, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "effort", Value: "low"})
		must(t, err)
		_, err = e.prompt(sid, "And now?")
		must(t, err)

		want := &acp.SessionConfigOption{
			ID: "effort", Name: "Effort", Description: "How hard the model thinks before it answers",
			Category: acp.ConfigCategoryThoughtLevel, Type: acp.ConfigOptionSelect, CurrentValue: "low",
			Options: acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{
				{Value: "default", Name: "Default", Description: "The model's own effort"},
				{Value: "low", Name: "Low"}, {Value: "medium", Name: "Medium"}, {Value: "high", Name: "High"},
				{Value: "xhigh", Name: "Extra high"}, {Value: "max", Name: "Max"},
			}},
		}
		if diff := cmp.Diff(want, effortOption(res.ConfigOptions)); diff != "" {
			t.Errorf("the effort option after the change (-want +got):\n%s", diff)
		}
		var texts []string
		for _, l := range ed.seenOf(`update {"sessionId":"` + sid + `","update":{"sessionUpdate":"agent_message_chunk"`) {
			texts = append(texts, l[strings.Index(l, `"text":`):])
		}
		wantTexts := []string{`"text":"This conversation holds 1 prompt(s); effort medium."}}}`, `"text":"This conversation holds 2 prompt(s); effort low."}}}`}
		if diff := cmp.Diff(wantTexts, texts); diff != "" {
			t.Errorf("the turns' text (-want +got):\n%s", diff)
		}
		if len(e.args) != 1 {
			t.Errorf("started %d CLIs, want one for both turns: %q", len(e.args), e.args)
		}
		for _, bad := range []struct{ id, value, field string }{{"effort", "ultra", "value"}, {"verbosity", "high", "configId"}} {
			_, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: bad.id, Value: bad.value})
			field, _ := acp.InvalidField(err)
			if ae, _ := errorOf(t, err); ae.Code != acp.CodeInvalidParams || field != bad.field {
				t.Errorf("%s = %s: %v naming %q, want -32602 naming %s", bad.id, bad.value, err, field, bad.field)
			}
		}
	})
}

// TestEffortNextCLI checks that an effort chosen while no CLI runs is
// the next CLI's --effort, and that a model that takes no effort has no
// effort option.
func TestEffortNextCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		p := e.process()
		synctest.Wait()
		p.write(`{"type":"control_response","response":{"subtype":"success","request_id":"` + p.requestID("initialize") + `","response":{"commands":[],` +
			`"models":[{"value":"default","displayName":"Default","supportsEffort":true,"supportedEffortLevels":["low","high"]},{"value":"old","displayName":"Old"}]}}}`)
		synctest.Wait()
		p.exit(0) // the CLI ends between turns
		synctest.Wait()

		res, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "model", Value: "old"})
		must(t, err)
		if o := effortOption(res.ConfigOptions); o != nil {
			t.Errorf("a model that takes no effort has the effort option %+v", o)
		}
		_, err = acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "effort", Value: "high"})
		if ae, _ := errorOf(t, err); ae.Code != acp.CodeInvalidParams {
			t.Errorf("effort on a model that takes none: %v, want -32602", err)
		}
		_, err = acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "model", Value: "default"})
		must(t, err)
		res, err = acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "effort", Value: "high"})
		must(t, err)
		if o := effortOption(res.ConfigOptions); o == nil || o.CurrentValue != "high" {
			t.Errorf("effort option %+v, want high", o)
		}
		answer := e.promptAsync(bg, sid, "hi")
		next := e.process()
		if got := argWith(next.args, "--effort"); got != "--effort=high" {
			t.Errorf("the next CLI's args %q, want --effort=high", next.args)
		}
		next.turn(resultLine)
		got(t, answer)

	})
}

// option returns the option id of options; nil when there is none.
func option(options []acp.SessionConfigOption, id string) *acp.SessionConfigOption {
	for i, o := range options {
		if o.ID == id {
			return &options[i]
		}
	}
	return nil
}

// TestFastMode plays a session of the real Claude Code 2.1.328 on a
// model that takes fast mode (supportsFastMode), which the editor turns
// on between two turns: the option is of the model_config category, the
// change reaches the running CLI (apply_flag_settings), whose next turn
// reports fast_mode_state on, in the same process. A model without fast
// mode has no such option, and refuses it.
func TestFastMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFeatureEnv(t, capture("fast"), bridge.Config{Model: "opus"}, &featureEditor{}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		synctest.Wait()
		_, err := e.prompt(sid, "Hello.")
		must(t, err)
		res, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "fast", Value: "on"})
		must(t, err)
		want := &acp.SessionConfigOption{
			ID: "fast", Name: "Fast mode", Description: "Faster output, at a higher price, on the models that take it",
			Category: acp.ConfigCategoryModelConfig, Type: acp.ConfigOptionSelect, CurrentValue: "on",
			Options: acp.SessionConfigSelectOptions{Options: []acp.SessionConfigSelectOption{{Value: "off", Name: "Off"}, {Value: "on", Name: "On"}}},
		}
		if diff := cmp.Diff(want, option(res.ConfigOptions, "fast")); diff != "" {
			t.Errorf("the fast mode option (-want +got):\n%s", diff)
		}
		_, err = e.prompt(sid, "And now?")
		must(t, err)
		if len(e.args) != 1 {
			t.Errorf("started %d CLIs, want one for both turns", len(e.args))
		}

		_, err = acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "fast", Value: "fastest"})
		if ae, _ := errorOf(t, err); ae.Code != acp.CodeInvalidParams {
			t.Errorf("fast = fastest: %v, want -32602", err)
		}
	})
}

// TestFastModeNextCLI checks that fast mode chosen while no CLI runs is
// given to the next CLI once it starts, the command line having no flag
// for it.
func TestFastModeNextCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		p := e.process()
		synctest.Wait()
		p.write(`{"type":"control_response","response":{"subtype":"success","request_id":"` + p.requestID("initialize") + `","response":{"commands":[],` +
			`"models":[{"value":"default","displayName":"Default","supportsFastMode":true},{"value":"old","displayName":"Old"}]}}}`)
		synctest.Wait()
		p.exit(0)
		synctest.Wait()
		_, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: "fast", Value: "on"})
		must(t, err)
		answer := e.promptAsync(bg, sid, "hi")
		next := e.process()
		next.turn(resultLine)
		got(t, answer)
		if diff := cmp.Diff([]string{"initialize", "apply_flag_settings", "user"}, next.kinds()); diff != "" {
			t.Errorf("what the next CLI got (-want +got):\n%s", diff)
		}
		if l := next.lines()[1]; !strings.Contains(l, `"settings":{"fastMode":true}`) {
			t.Errorf("the next CLI got %s", l)
		}
	})
}
