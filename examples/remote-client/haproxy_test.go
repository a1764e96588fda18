package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/acpkit/acpkit/internal/interop"
	"github.com/acpkit/acpkit/internal/testwait"
)

// haproxyConfig balances two backends round robin, with the affinity
// cookie HAProxy inserts into each connection's first response.
const haproxyConfig = `global
	maxconn 2000
defaults
	mode http
	option http-no-delay
	timeout connect 5s
	timeout client 60s
	timeout server 60s
	timeout tunnel 1h
frontend acp
	bind 127.0.0.1:%d
	default_backend agents
backend agents
	balance roundrobin
	cookie ACPBACKEND insert indirect nocache
	server b1 %s cookie b1
	server b2 %s cookie b2
`

// TestHAProxyAffinity runs two echo-agent processes behind HAProxy with
// cookie persistence: over 50 connections of each profile, every request
// and stream of a connection must reach the backend that opened it (the
// other knows neither its connection nor its sessions, and would answer
// 404), and a session opened through one backend is never served by the
// other.
func TestHAProxyAffinity(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		interop.Unavailable(t, "haproxy", err) // .ci/run installs it
	}
	backends := []string{startPlainAgent(t), startPlainAgent(t)}
	port := freePort(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "haproxy.cfg")
	os.WriteFile(cfg, fmt.Appendf(nil, haproxyConfig, port, backends[0], backends[1]), 0o644)
	cmd := exec.Command(haproxy, "-db", "-f", cfg)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", logs.String())
		}
	})
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/acp", port)
	waitListening(t, port)

	for _, transport := range []string{"ws", "http"} {
		t.Run(transport, func(t *testing.T) {
			served := map[string]int{}
			type opened struct {
				conn    *acp.Conn
				backend string
				session string
			}
			var conns []opened
			for i := range 50 {
				conn, jar := dialVia(t, transport, endpoint)
				s, err := acp.SessionNew.Call(testwait.Context(t), conn, acp.NewSessionParams{Cwd: "/"})
				if err != nil {
					t.Fatalf("connection %d: session/new: %v", i, err)
				}
				for range 2 {
					r, err := acp.SessionPrompt.Call(testwait.Context(t), conn, acp.PromptParams{SessionID: s.SessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: "sticky"}}})
					if err != nil || r.StopReason != acp.StopReasonEndTurn {
						t.Fatalf("connection %d: prompt: %v %v", i, r, err)
					}
				}
				b := backendOf(jar, endpoint)
				served[b]++
				conns = append(conns, opened{conn, b, s.SessionID})
			}
			if served["b1"] == 0 || served["b2"] == 0 || served["b1"]+served["b2"] != 50 {
				t.Errorf("connections per backend: %v", served)
			}
			// A connection through one backend cannot reach a session
			// opened through the other: that backend does not know it, or
			// knows it as another connection's (both number their sessions
			// alike).
			a := conns[0]
			tried := false
			for _, b := range conns {
				if b.backend == a.backend || b.session == a.session {
					continue
				}
				tried = true
				_, err := acp.SessionPrompt.Call(testwait.Context(t), b.conn, acp.PromptParams{SessionID: a.session, Prompt: acp.ContentBlocks{acp.TextContent{Text: "not mine"}}})
				if err == nil {
					t.Errorf("a prompt for %s, opened through %s, was answered through %s", a.session, a.backend, b.backend)
				}
				break
			}
			if !tried {
				t.Error("no connection through the other backend to try")
			}
			for _, c := range conns {
				c.conn.Close()
				testwait.Do(t, "a connection to end", func() { c.conn.Wait() })
			}
		})
	}
}

// dialVia connects through the balancer with a cookie jar of its own and
// initializes.
func dialVia(t *testing.T, transport, endpoint string) (*acp.Conn, http.CookieJar) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	opts := &acphttp.DialOptions{HTTPClient: &http.Client{Jar: jar}}
	var conn *acp.Conn
	var err error
	if transport == "ws" {
		conn, err = acphttp.DialWebSocket(testwait.Context(t), endpoint, nil, opts)
	} else {
		conn, err = acphttp.DialStreamableHTTP(endpoint, nil, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acp.Initialize.Call(testwait.Context(t), conn, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn, jar
}

func backendOf(jar http.CookieJar, endpoint string) string {
	u, _ := url.Parse(endpoint)
	for _, c := range jar.Cookies(u) {
		if c.Name == "ACPBACKEND" {
			return c.Value
		}
	}
	return ""
}

// startPlainAgent runs echo-agent -listen on loopback without a token
// and returns its host:port.
func startPlainAgent(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(bins["echo-agent"], "-listen", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`url=http://(\S+)/acp`)
	var hostPort string
	testwait.Do(t, "echo-agent to say where it serves", func() {
		for lines.Scan() {
			if m := re.FindStringSubmatch(lines.Text()); m != nil {
				hostPort = m[1]
				return
			}
		}
	})
	if hostPort == "" {
		t.Fatal("echo-agent did not say where it serves")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	return hostPort
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitListening(t *testing.T, port int) {
	t.Helper()
	ctx := testwait.Context(t)
	for ctx.Err() == nil {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("haproxy did not listen within %v", testwait.Limit)
}
