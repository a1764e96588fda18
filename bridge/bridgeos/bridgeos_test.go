//go:build unix

package bridgeos_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/bridge/bridgeos"
	"github.com/acpkit/acpkit/internal/testwait"
)

// TestStarter runs a shell behind a launcher: it runs in the session's
// directory with {cwd} replaced, reads its input and writes its output,
// and its failed exit carries its status.
func TestStarter(t *testing.T) {
	start, err := bridgeos.Starter("sh", []string{"env", "WRAPPED_IN={cwd}"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p, err := start(dir, []string{"-c", `echo "$WRAPPED_IN"; pwd; read line; echo "got $line"; echo oops >&2; exit 3`})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Signal(bridge.Kill) }) // if the shell hangs
	io.WriteString(p.Stdin(), "hi\n")
	p.Stdin().Close()
	stderr := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(p.Stderr())
		stderr <- b
	}()
	var out []byte
	testwait.Do(t, "the shell's output to end", func() { out, err = io.ReadAll(p.Stdout()) })
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	testwait.Do(t, "the shell to exit", func() { werr = p.Wait() })
	real, _ := filepath.EvalSymlinks(dir)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != dir || (lines[1] != dir && lines[1] != real) || lines[2] != "got hi" {
		t.Errorf("the shell wrote %q; want the directory twice and the line", out)
	}
	if e := string(testwait.For(t, stderr, "the shell's stderr to end")); e != "oops\n" {
		t.Errorf("stderr %q", e)
	}
	var coded interface{ ExitCode() int }
	if !errors.As(werr, &coded) || coded.ExitCode() != 3 {
		t.Errorf("Wait() = %v, want exit status 3", werr)
	}
}

// TestStarterConcurrent starts processes at once, as the sessions of an
// Agent do, each on its own goroutine: under the race detector, a start
// must share nothing with another.
func TestStarterConcurrent(t *testing.T) {
	start, err := bridgeos.Starter("sh", nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			p, err := start(t.TempDir(), []string{"-c", "exit 0"})
			if err != nil {
				t.Error(err)
				return
			}
			p.Stdin().Close()
			go io.Copy(io.Discard, p.Stderr())
			io.Copy(io.Discard, p.Stdout())
			if err := p.Wait(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestSignal stops a process that ignores its input, and what it
// started.
func TestSignal(t *testing.T) {
	start, err := bridgeos.Starter("sh", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := start(t.TempDir(), []string{"-c", "sleep 60 & wait"})
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, p.Stderr())
	if err := p.Signal(bridge.Terminate); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, p.Stdout())
		done <- p.Wait()
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a terminated process exited with status 0")
		}
	case <-time.After(testwait.Limit):
		p.Signal(bridge.Kill)
		t.Fatalf("SIGTERM did not stop the process group within %v", testwait.Limit)
	}
}

// TestStarterConcurrently starts processes from one Starter at once, as
// sessions do: under the race detector, no start may touch another's
// state.
func TestStarterConcurrently(t *testing.T) {
	start, err := bridgeos.Starter("sh", nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			p, err := start(t.TempDir(), []string{"-c", "exit 0"})
			if err != nil {
				t.Error(err)
				return
			}
			p.Stdin().Close()
			go io.Copy(io.Discard, p.Stderr())
			io.Copy(io.Discard, p.Stdout())
			if err := p.Wait(); err != nil {
				t.Error(err)
			}
		})
	}
	testwait.Do(t, "the processes to end", wg.Wait)
}

func TestStarterNotFound(t *testing.T) {
	if _, err := bridgeos.Starter("no-such-program-"+t.Name(), nil); err == nil {
		t.Error("Starter found a program that does not exist")
	}
	if _, err := bridgeos.NewAgent(bridge.Config{CLI: missing{}}); err == nil {
		t.Error("NewAgent started without the CLI's program")
	}
}

// missing is a CLI whose program is nowhere.
type missing struct{}

func (missing) Info() bridge.CLIInfo { return bridge.CLIInfo{Program: "no-such-program-for-bridgeos"} }
func (missing) NewConversation(bridge.ConversationConfig) (bridge.Conversation, error) {
	return nil, errors.New("unused")
}

func TestNewAgentDefaults(t *testing.T) {
	a, err := bridgeos.NewAgent(bridge.Config{Start: func(string, []string) (bridge.Process, error) { return nil, os.ErrNotExist }})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
}

func TestNewSessionID(t *testing.T) {
	uuid4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := bridgeos.NewSessionID(), bridgeos.NewSessionID()
	if !uuid4.MatchString(a) || a == b {
		t.Errorf("NewSessionID() = %q, %q; want two random version 4 UUIDs", a, b)
	}
}

func TestClock(t *testing.T) {
	var c bridgeos.Clock
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Errorf("Now() is %v away", d)
	}
	fired := make(chan struct{})
	c.AfterFunc(time.Millisecond, func() { close(fired) })
	testwait.For(t, fired, "the function AfterFunc was given to be called")
	if c.AfterFunc(time.Hour, func() {})() != true {
		t.Error("stop did not cancel the call")
	}
}

// TestCheckDir checks that bridgeos.CheckDir takes an existing directory only.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir, want string
	}{
		{dir, ""},
		{filepath.Join(dir, "gone"), "no such directory"},
		{file, "not a directory"},
	} {
		got := ""
		if err := bridgeos.CheckDir(tt.dir); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckDir(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}
