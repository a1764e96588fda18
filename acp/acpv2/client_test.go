package acpv2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// TestClientFallsBack checks that a Client gets v2 from an agent that
// serves it, and v1, initialized again with v1's params, from one that
// answers 1; and that what the agent sends reaches the handler of its
// version.
func TestClientFallsBack(t *testing.T) {
	v2Params := acpv2.InitializeParams{Info: acpv2.Implementation{Name: "editor", Version: "1"}}
	v1Params := acp.InitializeParams{ClientCapabilities: acp.ClientCapabilities{Terminal: true}}
	tests := []struct {
		name     string
		agent    func(a *agents) acp.Handler
		version  int
		v1Params []string // what the v1 agent's initializes got
	}{
		{"a router with both agents", func(a *agents) acp.Handler { return acpv2.NewRouter(a.v1(), a.v2()) }, 2, nil},
		{"a router with the v1 agent alone", func(a *agents) acp.Handler { return acpv2.NewRouter(a.v1(), nil) }, 1, []string{
			`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"session":{"configOptions":{"boolean":{}}},"plan":{},"auth":{"terminal":false}},"clientInfo":{"name":"editor","version":"1"}}`,
			`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":true,"auth":{"terminal":false}}}`,
		}},
		{"a v1 agent that knows nothing of v2", func(a *agents) acp.Handler { return a.v1() }, 1, []string{
			`{"protocolVersion":2,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"auth":{"terminal":false}}}`,
			`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":true,"auth":{"terminal":false}}}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &agents{}
			got := make(chan string, 2)
			var onV1, onV2 acp.Methods
			acp.SessionUpdate.Handle(&onV1, func(context.Context, *acp.Conn, acp.SessionNotification) { got <- "v1" })
			acpv2.SessionUpdate.Handle(&onV2, func(context.Context, *acp.Conn, acpv2.SessionNotification) { got <- "v2" })
			client := acpv2.NewClient(onV1, onV2)
			conn, agentConn, closePair := acptest.NewPair(t.Context(), client, tt.agent(a), nil)
			defer testwait.Do(t, "the pair to close", func() { closePair() })
			n, err := client.Initialize(testwait.Context(t), conn, v2Params, v1Params)
			if err != nil {
				t.Fatal(err)
			}
			if n.Version != tt.version || client.Version() != tt.version {
				t.Fatalf("negotiated %+v, Version() %d; want version %d", n, client.Version(), tt.version)
			}
			if n.Version == 2 && n.V2.Info.Name != "agent" || n.Version == 1 && n.V1.ProtocolVersion != 1 {
				t.Errorf("the result is not the agent's: %+v", n)
			}
			if diff := cmp.Diff(tt.v1Params, a.v1Params); diff != "" {
				t.Errorf("the v1 agent's initialize params (-want +got):\n%s", diff)
			}
			// The agent's session/update reaches the handler of its version.
			if n.Version == 2 {
				err = acpv2.SessionUpdate.Notify(testwait.Context(t), agentConn, acpv2.SessionNotification{SessionID: "s",
					Update: acpv2.AgentMessageChunk{MessageID: "m", Content: acpv2.TextContent{Text: "hi"}}})
			} else {
				err = acp.SessionUpdate.Notify(testwait.Context(t), agentConn, acp.SessionNotification{SessionID: "s",
					Update: acp.AgentMessageChunk{Content: acp.TextContent{Text: "hi"}}})
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := testwait.For(t, got, "the agent's session/update"); v != "v"+string(rune('0'+tt.version)) {
				t.Errorf("the update reached the %s handler", v)
			}
		})
	}
}

// TestClientRefusesOtherVersions checks that an agent answering a version
// neither 1 nor 2 fails Initialize, and that an agent's request before
// the version is known is refused.
func TestClientRefusesOtherVersions(t *testing.T) {
	var agent acp.Methods
	acp.Initialize.Handle(&agent, func(_ context.Context, conn *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		_, err := acp.SessionRequestPermission.Call(context.Background(), conn, acp.RequestPermissionParams{SessionID: "s"})
		if !strings.Contains(err.Error(), "-32601") {
			t.Errorf("a request before the version is known: %v, want method not found", err)
		}
		return acp.InitializeResult{ProtocolVersion: 3}, nil
	})
	client := acpv2.NewClient(nil, nil)
	conn, _, closePair := acptest.NewPair(t.Context(), client, agent, nil)
	defer testwait.Do(t, "the pair to close", func() { closePair() })
	if _, err := client.Initialize(testwait.Context(t), conn, acpv2.InitializeParams{Info: acpv2.Implementation{Name: "e", Version: "1"}}, acp.InitializeParams{}); err == nil || !strings.Contains(err.Error(), "version 3") {
		t.Errorf("Initialize against a v3 agent: %v", err)
	}
	if client.Version() != 0 {
		t.Errorf("Version() = %d, want 0", client.Version())
	}
}
