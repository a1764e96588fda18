package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpkit/acpkit/internal/testwait"
)

// These tests build echo-agent and remote-client and run them as
// subprocesses over loopback: the agent serves with -listen and
// -token-file, the client prompts it over each transport.

var bins = map[string]string{}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "remote-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		for name, pkg := range map[string]string{"echo-agent": "../echo-agent", "remote-client": "."} {
			bins[name] = filepath.Join(dir, name)
			if out, err := exec.Command("go", "build", "-o", bins[name], pkg).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "building %s: %v\n%s", name, err, out)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// startAgent runs echo-agent -listen on a loopback port with a token
// file, and returns its URL and the token file; the agent gets SIGTERM at
// the end of the test and must exit 0.
func startAgent(t *testing.T) (url, tokenFile string) {
	t.Helper()
	tokenFile = filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600)
	cmd := exec.Command(bins["echo-agent"], "-listen", "127.0.0.1:0", "-token-file", tokenFile)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // if it is not stopped below
	var log bytes.Buffer
	lines := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`url=(\S+)`)
	testwait.Do(t, "echo-agent to say where it serves", func() {
		for lines.Scan() {
			log.WriteString(lines.Text() + "\n")
			if m := re.FindStringSubmatch(lines.Text()); m != nil {
				url = m[1]
				break
			}
		}
	})
	done := make(chan error, 1)
	go func() {
		for lines.Scan() {
			log.WriteString(lines.Text() + "\n")
		}
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("echo-agent exited: %v\n%s", err, log.String())
			}
		case <-time.After(testwait.Limit):
			cmd.Process.Kill()
			t.Errorf("echo-agent did not exit on SIGTERM within %v", testwait.Limit)
		}
	})
	if url == "" {
		t.Fatalf("echo-agent did not say where it serves:\n%s", log.String())
	}
	return url, tokenFile
}

func runClient(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := testwait.Command(t, bins["remote-client"], args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func TestRemoteEndToEnd(t *testing.T) {
	url, token := startAgent(t)
	for _, transport := range []string{"ws", "http"} {
		t.Run(transport, func(t *testing.T) {
			out, errOut, err := runClient(t, "-url", url, "-token-file", token, "-transport", transport, "hello", "over", transport)
			if err != nil {
				t.Fatalf("remote-client: %v\n%s", err, errOut)
			}
			if out != "hello over "+transport+"\n" || strings.TrimSpace(errOut) != "end_turn" {
				t.Errorf("stdout %q, stderr %q", out, errOut)
			}
		})
	}
	t.Run("without the token", func(t *testing.T) {
		for _, transport := range []string{"ws", "http"} {
			_, errOut, err := runClient(t, "-url", url, "-transport", transport, "hello")
			if err == nil || !strings.Contains(errOut, "401") {
				t.Errorf("%s without the token: %v, stderr %q", transport, err, errOut)
			}
		}
	})
}
