package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// sdkRun is what testdata/interop/client.mjs saw.
type sdkRun struct {
	ProtocolVersion int
	Agent           string
	Error           string
	Exit            int // the agent's exit status

	// v2
	Ack       string     // the prompt's acknowledgement: its user message's id
	Turn      []string   // the turn's updates, up to its end
	Cancelled string     // the end of a cancelled turn
	Replay    []string   // session/resume's replay, each line cut at 40 bytes
	Sessions  [][]string // session/list's: id and cwd

	// v1
	StopReason string
	Text       string // the prompt's answer
}

// TestSDKClients drives the echo agent, a subprocess, with the official
// TypeScript SDK's clients: its experimental/v2 client gets ACP v2 from
// the same binary whose v1 client gets v1, and each sees what its
// version promises.
func TestSDKClients(t *testing.T) {
	v2 := sdkRun{
		ProtocolVersion: 2,
		Agent:           "echo-agent",
		Ack:             "msg-user-2",
		Turn:            []string{"user_message msg-user-2 hello there", "state running", `chunk msg-3 "hello"`, `chunk msg-3 " there"`, "usage used=4 size=128000", "stop end_turn"},
		Cancelled:       "stop cancelled",
		// The cancelled turn's agent message, if it echoed a word in
		// time, is left out.
		Replay:   []string{"user_message msg-user-2 hello there", "agent_message msg-3 hello there", "user_message msg-user-4 word word word w", "stop "},
		Sessions: [][]string{{"sess-1", "/work"}},
	}
	v1 := sdkRun{ProtocolVersion: 1, Agent: "echo-agent", StopReason: "end_turn", Text: "hello there"}
	tests := []struct {
		name   string
		client string
		args   []string
		want   sdkRun
	}{
		{"v2 client, -protocol auto", "v2", nil, v2},
		{"v2 client, -protocol v2", "v2", []string{"-protocol", "v2"}, v2},
		{"v1 client, -protocol auto", "v1", nil, v1},
		{"v1 client, -protocol v1", "v1", []string{"-protocol", "v1"}, v1},
	}
	tssdk.Dir(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{tt.client, agentBin, "-delay", "10ms"}, tt.args...)
			cmd := tssdk.Command(t, "testdata/interop/client.mjs", args...)
			cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			// tssdk.Command kills a script that runs too long, failing
			// the test, so Run returns.
			if err := cmd.Run(); err != nil {
				t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
			}
			var got sdkRun
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("client.mjs printed %q: %v\n%s", stdout.String(), err, stderr.String())
			}
			got.Replay = slices.DeleteFunc(got.Replay, func(l string) bool { return strings.HasPrefix(l, "agent_message msg-5 ") })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("what the SDK's client saw (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
			}
		})
	}
}
