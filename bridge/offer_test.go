package bridge_test

import (
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// TestOffer checks that the modes and models a CLI lists once it runs
// replace those of its CLIInfo: the editor is told them as config
// options, once, even when the CLI then lists its commands, and a
// session takes those modes alone.
func TestOffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: newRelayCLI()}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		p := e.process()
		offer := `{"offer":{"modes":[{"id":"ask","name":"Ask"},{"id":"code","name":"Code"}],"models":[{"ID":"fast","Name":"Fast"}]}}`
		p.write(offer, offer, `{"commands":[{"name":"init","description":"Set up"}]}`)
		synctest.Wait()
		if diff := cmp.Diff([]string{"config_option_update", "available_commands_update"}, e.kinds()); diff != "" {
			t.Fatalf("the editor got (-want +got):\n%s", diff)
		}
		e.mu.Lock()
		u := e.updates[0].(acp.ConfigOptionUpdate)
		e.mu.Unlock()
		var modes, models []string
		for _, o := range u.ConfigOptions {
			for _, v := range o.Options.Options {
				if o.ID == "mode" {
					modes = append(modes, v.Value)
				} else {
					models = append(models, v.Value)
				}
			}
		}
		// The session's model, the CLI's own choice, stays among them.
		if diff := cmp.Diff([]string{"ask", "code"}, modes); diff != "" {
			t.Errorf("modes offered (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"fast", "default"}, models); diff != "" {
			t.Errorf("models offered (-want +got):\n%s", diff)
		}
		_, err := acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: sid, ModeID: "code"})
		must(t, err)
		_, err = acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: sid, ModeID: "default"})
		if !asErrorCode(err, acp.CodeInvalidParams) {
			t.Errorf("set_mode to the CLIInfo's mode the CLI no longer offers: %v, want -32602", err)
		}
	})
}
