// Package fakecli is the replay machinery the fake command-line agents
// share (claudetest, codextest and geminitest, and the binaries built on
// them): the environment a run touches, stopping when its context ends,
// finding and opening a transcript, copying its companion files, and
// writing its lines; and the format of the golden files their Render
// functions write. What each CLI accepts on its command line and how it
// works out its exit status stay in its own package.
package fakecli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpkit/acpkit/internal/lines"
)

// Exit statuses every fake CLI shares, as a shell reports them; each
// package exports its own constants with these values.
const (
	ExitError     = 1
	ExitInterrupt = 130 // 128 + SIGINT
	ExitTerminate = 143 // 128 + SIGTERM
)

// Env is everything a run touches; the packages' Env types have the same
// fields, documented there, and convert to it.
type Env struct {
	Args           []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Open           func(name string) (fs.File, error)
	Getenv         func(key string) string
	Sleep          func(ctx context.Context, d time.Duration) error
}

// ErrStopped is the error of a [Runner] method that stopped because Ctx
// ended.
var ErrStopped = errors.New("fakecli: stopped")

// Runner is one run of a fake CLI. Its methods that can fail return
// [ErrStopped] when Ctx ends, or else an error they have reported on
// Stderr, prefixed with Name: [Runner.Exit] gives the exit status for
// either.
type Runner struct {
	Ctx context.Context
	Env Env
	// Name is the fake's program name ("fakeclaude"), which prefixes its
	// own messages.
	Name string
	// StopCode returns the exit status for the cause of Ctx's end; see
	// [StopCode].
	StopCode func(cause error) int
	// Exts are the transcript extensions that a companion file's suffix
	// replaces; nil means ".jsonl" alone.
	Exts []string
}

// StopCode returns a [Runner.StopCode] that gives code(s) for a cause of
// type S, a package's Stopped, and [ExitInterrupt] for any other.
func StopCode[S error](code func(S) int) func(cause error) int {
	return func(cause error) int {
		var s S
		if errors.As(cause, &s) {
			return code(s)
		}
		return ExitInterrupt
	}
}

// Exit returns the exit status for an error of a Runner method:
// [Runner.Stop] for [ErrStopped], [ExitError] for any other.
func (r *Runner) Exit(err error) int {
	if errors.Is(err, ErrStopped) {
		return r.Stop()
	}
	return ExitError
}

// Stop returns the exit status for Ctx's end.
func (r *Runner) Stop() int {
	if r.StopCode == nil {
		return ExitInterrupt
	}
	return r.StopCode(context.Cause(r.Ctx))
}

// Errorf writes a line to Stderr, if there is one.
func (r *Runner) Errorf(format string, args ...any) {
	if r.Env.Stderr != nil {
		fmt.Fprintf(r.Env.Stderr, format+"\n", args...)
	}
}

// Getenv returns an environment variable's value, "" when unset.
func (r *Runner) Getenv(key string) string {
	if r.Env.Getenv == nil {
		return ""
	}
	return r.Env.Getenv(key)
}

// Delay reads the Go duration in the environment variable key; 0 when it
// is unset.
func (r *Runner) Delay(key string) (time.Duration, error) {
	s := r.Getenv(key)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, r.fail("%s: %s=%q is not a non-negative Go duration", r.Name, key, s)
	}
	return d, nil
}

// fail reports a message on Stderr and returns it as an error.
func (r *Runner) fail(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	r.Errorf("%v", err)
	return err
}

// TranscriptName returns the transcript to replay: name, from the command
// line's flag, or else the value of the environment variable key.
func (r *Runner) TranscriptName(name, flag, key string) (string, error) {
	if name == "" {
		name = r.Getenv(key)
	}
	if name == "" {
		return "", r.fail("%s: no transcript: pass %s FILE or set %s", r.Name, flag, key)
	}
	if r.Env.Open == nil {
		return "", r.fail("%s: no way to open %s", r.Name, name)
	}
	return name, nil
}

// OpenTranscript opens name, or, when it is a directory, the file of it
// that choose names, and returns the name of the file opened. It reports
// nothing: the error is the caller's to word.
func (r *Runner) OpenTranscript(name string, choose func(dir string) (string, error)) (fs.File, string, error) {
	f, err := r.Env.Open(name)
	if err != nil {
		return nil, "", err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", err
	}
	if !info.IsDir() {
		return f, name, nil
	}
	f.Close()
	if name, err = choose(filepath.ToSlash(name)); err != nil {
		return nil, "", err
	}
	if f, err = r.Env.Open(name); err != nil {
		return nil, "", err
	}
	return f, name, nil
}

// NewOrResume is a choose function for [Runner.OpenTranscript]: a
// directory's new.jsonl, or its resume.jsonl when resume is set.
func NewOrResume(resume bool) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		if resume {
			return path.Join(dir, "resume.jsonl"), nil
		}
		return path.Join(dir, "new.jsonl"), nil
	}
}

// ReadStdin reads Stdin to its end in a goroutine, since a Read cannot be
// interrupted: when Ctx ends first, ReadStdin returns at once and the
// read goes on until Stdin's Read returns; it touches nothing but Stdin.
// A nil Stdin reads as empty.
func (r *Runner) ReadStdin() (string, error) {
	if r.Env.Stdin == nil {
		return "", nil
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(r.Env.Stdin)
		done <- read{b, err}
	}()
	select {
	case <-r.Ctx.Done():
		return "", ErrStopped
	case got := <-done:
		if got.err != nil {
			return "", r.fail("%s: reading stdin: %w", r.Name, got.err)
		}
		return string(got.b), nil
	}
}

// CopyCompanion copies name's companion file, named with suffix in place
// of name's extension (one of Exts), to w, when there is one. It reports
// nothing.
func (r *Runner) CopyCompanion(name, suffix string, w io.Writer) error {
	exts := r.Exts
	if exts == nil {
		exts = []string{".jsonl"}
	}
	base, found := "", false
	for _, ext := range exts {
		if base, found = strings.CutSuffix(name, ext); found {
			break
		}
	}
	if !found {
		return nil
	}
	f, err := r.Env.Open(base + suffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if w == nil {
		return nil
	}
	_, err = io.Copy(w, f)
	return err
}

// Emit waits delay, then writes line to Stdout, adding a newline if it
// lacks one; it stops instead when Ctx ends first.
func (r *Runner) Emit(line []byte, delay time.Duration) error {
	if delay > 0 && r.Env.Sleep != nil {
		if err := r.Env.Sleep(r.Ctx, delay); err != nil {
			return ErrStopped
		}
	}
	if r.Ctx.Err() != nil {
		return ErrStopped
	}
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	if r.Env.Stdout != nil {
		if _, err := r.Env.Stdout.Write(line); err != nil {
			return r.fail("%s: writing stdout: %w", r.Name, err)
		}
	}
	return nil
}

// Replay emits the transcript's lines, each through [Runner.Emit], and
// passes each, with its newline, to observe once written; nil means it
// has written them all.
func (r *Runner) Replay(transcript io.Reader, delay time.Duration, observe func(line []byte)) error {
	br := bufio.NewReader(transcript)
	for {
		line, readErr := br.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if err := r.Emit(line, delay); err != nil {
				return err
			}
			observe(line)
		}
		if errors.Is(readErr, io.EOF) {
			return nil
		}
		if readErr != nil {
			return r.fail("%s: reading transcript: %w", r.Name, readErr)
		}
	}
}

// Input is one line a client wrote to a fake CLI, or the error that ended
// its input (io.EOF at its end).
type Input struct {
	Line []byte
	Err  error
}

// ReadLines reads r's lines, of at most maxLine bytes, in a goroutine,
// since a Read cannot be interrupted, and sends each on the channel it
// returns, the error that ends r last. The goroutine ends after that, or
// once done is closed and its current Read returns: the caller ends it by
// closing done and then r (the writing end of a pipe), as a process's
// exit does. A nil r reads as empty.
func ReadLines(r io.Reader, maxLine int, done <-chan struct{}) <-chan Input {
	ch := make(chan Input)
	go func() {
		send := func(in Input) bool {
			select {
			case ch <- in:
				return true
			case <-done:
				return false
			}
		}
		if r == nil {
			send(Input{Err: io.EOF})
			return
		}
		lr := lines.NewReader(r, maxLine)
		for {
			line, err := lr.Next()
			if err != nil { // io.EOF, a read error, or a runaway line
				send(Input{Err: err})
				return
			}
			if !send(Input{Line: bytes.Clone(line)}) {
				return
			}
		}
	}()
	return ch
}
