package acphttp_test

import (
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			agent := newTestAgent()
			_, url := serve(t, agent.methods(), nil)
			client := newTestClient()
			conn := dial(t, p, url, client.methods(), nil)
			ns, err := acp.SessionNew.Call(testwait.Context(t), conn, acp.NewSessionParams{Cwd: "/"})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			r, err := prompt(testwait.Context(t), conn, ns.SessionID, "hello remote world")
			if err != nil || r.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %v, %v", r, err)
			}
			if diff := cmp.Diff([]string{"hello", "remote", "world"}, client.texts(ns.SessionID)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
			if _, err := prompt(testwait.Context(t), conn, ns.SessionID, "ask"); err != nil {
				t.Fatalf("prompt ask: %v", err)
			}
			if diff := cmp.Diff([]string{"hello", "remote", "world", "yes"}, client.texts(ns.SessionID)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
		})
	}
}
