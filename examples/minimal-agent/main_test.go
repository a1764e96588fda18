package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// TestMinimalAgent runs the built agent as a subprocess: one session and one
// prompt, then the end of stdin, which must end the process cleanly.
func TestMinimalAgent(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "minimal-agent")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The agent serves requests concurrently, so each request is sent only
	// after the previous response arrived, as an editor does. One that
	// hangs is killed after testwait.Limit, failing the test.
	cmd := testwait.Command(t, bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(stdout)
	var got []string
	exchange := func(request string, lines int) {
		t.Helper()
		if _, err := stdin.Write([]byte(request + "\n")); err != nil {
			t.Fatal(err)
		}
		for range lines {
			var msg json.RawMessage
			if err := dec.Decode(&msg); err != nil {
				t.Fatalf("reading the reply to %s: %v (stderr: %s)", request, err, stderr.String())
			}
			got = append(got, string(msg))
		}
	}
	exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`, 1)
	exchange(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`, 1)
	exchange(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hello"}]}}`, 2)
	exchange(`{"jsonrpc":"2.0","id":3,"method":"session/load","params":{}}`, 1)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent exited with %v after stdin closed (stderr: %s)", err, stderr.String())
	}

	want := []string{
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false},"mcpCapabilities":{"http":false,"sse":false}},"authMethods":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-1"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: session/load"}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		t.Errorf("stderr not empty: %s", s)
	}
}
