package bridgeos

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/acpkit/acpkit/bridge"
)

// NewAgent returns a bridge.Agent configured by cfg, with the operating
// system's defaults for what cfg leaves zero: Start runs the CLI's
// program found in PATH ([Starter]), NewSessionID returns [NewSessionID]'s
// ids, Clock is [Clock], CheckDir is [CheckDir], Location the local time
// zone, Zones time.LoadLocation, and Store, for a CLI that is a bridge.Keeper, the
// folder where it keeps its sessions for the user running the program
// ([Store] of its StoreDir). It fails when cfg leaves Start to it and the
// CLI is not in PATH.
func NewAgent(cfg bridge.Config) (*bridge.Agent, error) {
	cli := cfg.CLI
	if cli == nil {
		cli = bridge.Claude
	}
	if k, ok := cli.(bridge.Keeper); ok && cfg.Store == nil {
		if home, err := os.UserHomeDir(); err == nil {
			cfg.Store = Store(k.StoreDir(home, os.Getenv))
		}
	}
	if cfg.Start == nil {
		start, err := Starter(cli.Info().Program, nil)
		if err != nil {
			return nil, err
		}
		cfg.Start = start
	}
	if cfg.NewSessionID == nil {
		cfg.NewSessionID = NewSessionID
	}
	if cfg.CheckDir == nil {
		cfg.CheckDir = CheckDir
	}
	if cfg.Clock == nil {
		cfg.Clock = Clock{}
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.Zones == nil {
		cfg.Zones = time.LoadLocation
	}
	return bridge.NewAgent(cfg)
}

// Starter returns a bridge.Starter that runs program (a path, or a name
// looked up in PATH now) in the session's directory, in a process group of
// its own so that signals reach whatever it starts. With wrap, each start
// goes through that launcher, an OS sandbox for example: its words come
// first, with {cwd} replaced by the session's directory, then the program
// and its arguments.
func Starter(program string, wrap []string) (bridge.Starter, error) {
	path, err := exec.LookPath(program)
	if err != nil {
		return nil, err
	}
	return func(dir string, args []string) (bridge.Process, error) {
		argv := make([]string, 0, len(wrap)+1+len(args))
		for _, w := range wrap {
			argv = append(argv, strings.ReplaceAll(w, "{cwd}", dir))
		}
		argv = append(argv, path)
		argv = append(argv, args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		ownGroup(cmd)
		// A child the CLI started may hold its stderr open after it exits:
		// Wait does not wait for that longer than this.
		cmd.WaitDelay = waitDelay
		p := &process{cmd: cmd}
		p.stderr, p.stderrW = io.Pipe()
		cmd.Stderr = p.stderrW
		var err error // each start's own: sessions start at once
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if p.stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return p, nil
	}, nil
}

// CheckDir is a [bridge.Config] CheckDir: it requires dir to be an
// existing directory.
func CheckDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such directory")
	case err != nil:
		return err
	case !info.IsDir():
		return errors.New("not a directory")
	}
	return nil
}

// waitDelay bounds how long Wait waits for the CLI's stderr to close
// once the CLI has exited.
const waitDelay = 2 * time.Second

// process is a CLI started by os/exec.
type process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  io.Reader
	stderr  *io.PipeReader
	stderrW *io.PipeWriter // closed once the process has exited
}

func (p *process) Stdin() io.WriteCloser { return p.stdin }
func (p *process) Stdout() io.Reader     { return p.stdout }
func (p *process) Stderr() io.Reader     { return p.stderr }

func (p *process) Signal(s bridge.Signal) error { return signalGroup(p.cmd, s) }

// Wait waits for the process, ends its standard error, and then kills
// what is left of its process group, so that no grandchild outlives it.
func (p *process) Wait() error {
	err := p.cmd.Wait()
	p.stderrW.Close()
	killGroup(p.cmd)
	return err
}

// Clock is the real clock.
type Clock struct{}

// Now returns time.Now().
func (Clock) Now() time.Time { return time.Now() }

// AfterFunc calls time.AfterFunc.
func (Clock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// NewSessionID returns a random (version 4) UUID, the form Claude Code's
// --session-id requires.
func NewSessionID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails; see crypto/rand.Read
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Store returns the folder dir as a bridge.Store. It reads and removes
// through an [os.Root] opened for each call, so that no name, and no
// symbolic link inside the folder, reaches a file outside it. dir need
// not exist: until the CLI makes it, the Store is empty.
func Store(dir string) bridge.Store { return store{dir} }

type store struct{ dir string }

// in calls f with the root of the store.
func in[T any](s store, f func(*os.Root) (T, error)) (T, error) {
	r, err := os.OpenRoot(s.dir)
	if err != nil {
		var zero T
		return zero, err
	}
	defer r.Close() // the files opened in it stay open
	return f(r)
}

func (s store) Open(name string) (fs.File, error) {
	return in(s, func(r *os.Root) (fs.File, error) { return r.FS().Open(name) })
}

func (s store) ReadDir(name string) ([]fs.DirEntry, error) {
	return in(s, func(r *os.Root) ([]fs.DirEntry, error) { return fs.ReadDir(r.FS(), name) })
}

func (s store) Stat(name string) (fs.FileInfo, error) {
	return in(s, func(r *os.Root) (fs.FileInfo, error) { return fs.Stat(r.FS(), name) })
}

func (s store) RemoveAll(name string) error {
	_, err := in(s, func(r *os.Root) (struct{}, error) {
		if !fs.ValidPath(name) || name == "." {
			return struct{}{}, &fs.PathError{Op: "removeall", Path: name, Err: fs.ErrInvalid}
		}
		return struct{}{}, r.RemoveAll(name)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
