package acphttp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/internal/tssdk"
	"github.com/google/go-cmp/cmp"
)

// TestInteropTSClient drives a Go agent with the official SDK's clients,
// createWebSocketStream and createHttpStream.
func TestInteropTSClient(t *testing.T) {
	tssdk.Dir(t)
	for _, profile := range []string{"ws", "http"} {
		t.Run(profile, func(t *testing.T) {
			_, url := serve(t, newTestAgent().methods(), &acphttp.ServerOptions{Authenticate: acphttp.BearerToken("tok")})
			cmd := tssdk.Command(t, "testdata/interop/client.mjs", profile, url, "tok")
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("client.mjs: %v\n%s", err, out)
			}
			var got struct {
				ProtocolVersion int        `json:"protocolVersion"`
				StopReasons     []string   `json:"stopReasons"`
				Updates         [][]string `json:"updates"`
				Foreign         string     `json:"foreign"`
				After           string     `json:"after"`
				Error           string     `json:"error"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client.mjs printed %s: %v", out, err)
			}
			if got.Error != "" {
				t.Fatalf("client.mjs failed: %s", got.Error)
			}
			if got.ProtocolVersion != 1 || got.After != "end_turn" {
				t.Errorf("protocol version %d, prompt after the refusal %q", got.ProtocolVersion, got.After)
			}
			if diff := cmp.Diff([]string{"end_turn", "end_turn"}, got.StopReasons); diff != "" {
				t.Errorf("stop reasons (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([][]string{{"one", "two", "three", "yes"}, {"four", "five"}}, got.Updates); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
			// The session is not this connection's: 409 over HTTP, -32002
			// over WebSocket, and the connection goes on.
			if !strings.Contains(got.Foreign, "409") && !strings.Contains(got.Foreign, "not open on this connection") {
				t.Errorf("prompt of a session not the connection's: %q", got.Foreign)
			}
		})
	}
}

// TestInteropTSServer drives the official SDK's AcpServer with the Go
// clients, over both profiles.
func TestInteropTSServer(t *testing.T) {
	url := startTSAgent(t)
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			client := newTestClient()
			conn := dial(t, p, url, client.methods(), nil)
			ns, err := acp.SessionNew.Call(testwait.Context(t), conn, acp.NewSessionParams{Cwd: "/"})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			for _, text := range []string{"hello from go", "ask"} {
				if r, err := prompt(testwait.Context(t), conn, ns.SessionID, text); err != nil || r.StopReason != acp.StopReasonEndTurn {
					t.Fatalf("prompt %q: %v %v", text, r, err)
				}
			}
			if diff := cmp.Diff([]string{"hello", "from", "go", "yes"}, client.texts(ns.SessionID)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
		})
	}
}

// startTSAgent runs agent.mjs until the end of the test and returns its
// endpoint's URL.
func startTSAgent(t testing.TB) string {
	t.Helper()
	cmd := tssdk.Command(t, "testdata/interop/agent.mjs")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTEN ")
	if err != nil || !ok {
		t.Fatalf("agent.mjs printed %q: %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	return "http://127.0.0.1:" + port + "/acp"
}
