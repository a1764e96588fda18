package acphttp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/google/go-cmp/cmp"
)

// The official TypeScript SDK and what its scripts need, installed from
// npm at test time into a cache directory, never into the repository.
var tsPackages = []string{"@agentclientprotocol/sdk@2.4.0", "zod@3.25.76", "ws@8.23.0"}

var (
	tsOnce sync.Once
	tsDir  string
	tsErr  error
)

// tsSDK returns a directory holding the SDK's node_modules and the
// scripts of testdata/interop, installing them the first time. It skips
// the test when node is not installed: that, and only that.
func tsSDK(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	tsOnce.Do(func() { tsDir, tsErr = installTSSDK() })
	if tsErr != nil {
		t.Fatalf("installing the TypeScript SDK: %v", tsErr)
	}
	return tsDir
}

func installTSSDK() (string, error) {
	dir := os.Getenv("ACPKIT_TS_SDK_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "acpkit", "ts-sdk-2.4.0")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		cmd := exec.Command("npm", append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir}, tsPackages...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install: %v\n%s", err, out)
		}
	}
	scripts, _ := filepath.Glob(filepath.Join("testdata", "interop", "*.mjs"))
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// TestInteropTSClient drives a Go agent with the official SDK's clients,
// createWebSocketStream and createHttpStream.
func TestInteropTSClient(t *testing.T) {
	dir := tsSDK(t)
	for _, profile := range []string{"ws", "http"} {
		t.Run(profile, func(t *testing.T) {
			_, url := serve(t, newTestAgent().methods(), &acphttp.ServerOptions{Authenticate: acphttp.BearerToken("tok")})
			cmd := exec.CommandContext(t.Context(), "node", "client.mjs", profile, url, "tok")
			cmd.Dir = dir
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
	dir := tsSDK(t)
	url := startTSAgent(t, dir)
	for p, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			client := newTestClient()
			conn := dial(t, p, url, client.methods(), nil)
			ns, err := acp.SessionNew.Call(t.Context(), conn, acp.NewSessionParams{Cwd: "/"})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			for _, text := range []string{"hello from go", "ask"} {
				if r, err := prompt(t.Context(), conn, ns.SessionID, text); err != nil || r.StopReason != acp.StopReasonEndTurn {
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
func startTSAgent(t testing.TB, dir string) string {
	t.Helper()
	cmd := exec.Command("node", "agent.mjs")
	cmd.Dir = dir
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

// tsSDKBench is tsSDK for benchmarks: "" when node is missing.
func tsSDKBench(b *testing.B) string {
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	tsOnce.Do(func() { tsDir, tsErr = installTSSDK() })
	if tsErr != nil {
		b.Fatalf("installing the TypeScript SDK: %v", tsErr)
	}
	return tsDir
}
