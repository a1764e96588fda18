// Package fakemain is the process side of the fake CLI binaries
// (examples/fakeclaude, fakecodex and fakegemini): it binds a run to
// this process's arguments, standard streams, files, environment and
// clock, and stops it on SIGINT or SIGTERM. Only package main imports it.
package fakemain

import (
	"context"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/internal/fakecli"
)

// Run calls fake with an Env bound to this process and returns its exit
// status, for os.Exit. On SIGINT it cancels fake's context with the cause
// stopped(fakecli.ExitInterrupt), on SIGTERM with
// stopped(fakecli.ExitTerminate); stopped returns the package's Stopped.
func Run(fake func(context.Context, fakecli.Env) int, stopped func(code int) error) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-signals:
			code := fakecli.ExitInterrupt
			if s == syscall.SIGTERM {
				code = fakecli.ExitTerminate
			}
			cancel(stopped(code))
		case <-done:
		}
	}()

	return fake(ctx, fakecli.Env{
		Args:   os.Args[1:],
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Open:   func(name string) (fs.File, error) { return os.Open(name) },
		Getenv: os.Getenv,
		Sleep:  sleep,
	})
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
