package acpv2_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// FuzzRouterInitialize checks the router's reading of initialize params
// on any bytes: no panic; a refusal is an *acp.Error; and what it passes
// an agent decodes in that agent's version, as the version chosen.
func FuzzRouterInitialize(f *testing.F) {
	for _, line := range []string{initV1, initV2, initV3} {
		var msg struct{ Params json.RawMessage }
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(msg.Params))
	}
	for _, seed := range []string{`{"protocolVersion":2}`, `{"protocolVersion":0}`, `null`, `[]`, `{"protocolVersion":2,"info":null,"capabilities":7}`} {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"protocolVersion":3,"info":{"name":"x","version":"y"},"_meta":{"k":1}}`))
	conn, _, closePair := acptest.NewPair(context.Background(), nil, nil, nil)
	defer closePair()
	f.Fuzz(func(t *testing.T, params []byte) {
		for _, agents := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			var got []byte
			var v1, v2 acp.Handler
			if agents[0] {
				v1 = acp.Methods{Requests: map[string]acp.RequestFunc{"initialize": func(_ context.Context, _ *acp.Conn, p json.RawMessage) (any, error) {
					got = p
					ip, err := acp.DecodeParams[acp.InitializeParams](p)
					if err != nil || ip.ProtocolVersion != 1 {
						t.Fatalf("%q: the v1 agent got %s: %+v, %v", params, p, ip, err)
					}
					return acp.InitializeResult{ProtocolVersion: 1}, nil
				}}}
			}
			if agents[1] {
				v2 = acp.Methods{Requests: map[string]acp.RequestFunc{"initialize": func(_ context.Context, _ *acp.Conn, p json.RawMessage) (any, error) {
					got = p
					ip, err := acp.DecodeParams[acpv2.InitializeParams](p)
					if err != nil || ip.ProtocolVersion != 2 {
						t.Fatalf("%q: the v2 agent got %s: %+v, %v", params, p, ip, err)
					}
					return acpv2.InitializeResult{ProtocolVersion: 2}, nil
				}}}
			}
			_, err := acpv2.NewRouter(v1, v2).HandleRequest(context.Background(), conn, "initialize", params)
			var e *acp.Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%q: refused with %v, not an *acp.Error", params, err)
			}
			if err == nil && got == nil {
				t.Fatalf("%q: answered without an agent", params)
			}
		}
	})
}
