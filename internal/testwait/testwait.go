// Package testwait bounds the waits of tests that run real processes,
// pipes or sockets, where no synctest bubble reports a deadlock: a wait
// that would hang fails the test instead, saying what it waited for,
// long before go test's own timeout ends the whole package without a
// word about it. Only tests import it.
//
// One limit, [Limit], and one helper per kind of wait: [For] a channel,
// [Context] for a call that takes one, [Do] for a call that does not
// (a read from a pipe, Cmd.Wait, WaitGroup.Wait), and [Command] for a
// child process.
package testwait

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// Limit bounds one wait. It is a safety net, not a measurement: far above
// what any wait takes on a loaded machine, far below go test's 10-minute
// default timeout.
const Limit = 60 * time.Second

// errLimit is the cause of a [Context] that ran out, so that an error
// wrapping the context's cause says which deadline passed.
var errLimit = fmt.Errorf("testwait.Limit (%v) passed", Limit)

// For returns the next value from ch, or fails the test, naming what, if
// none comes within Limit. Like t.Fatal, it must be called from the
// test's goroutine.
func For[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("waited %v for %s", Limit, what)
		panic("unreachable")
	}
}

// Context returns a context that ends with the test or after Limit, for
// a call that waits on a peer: the call then fails with
// context.DeadlineExceeded, which the test reports with what it called.
// Its cause says that Limit passed.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeoutCause(t.Context(), Limit, errLimit)
	t.Cleanup(cancel)
	return ctx
}

// Do calls f on a goroutine of its own and waits for it to return, or
// fails the test, naming what, if it has not within Limit: for a call
// that takes no context, such as a read from a pipe, Cmd.Wait or
// WaitGroup.Wait. f must not call t.FailNow, as it does not run on the
// test's goroutine; what it sets is the test's to read once Do returns.
// A hung f is left running: the test's cleanups must end what it waits
// on (close the pipe, kill the process) for it to return. Like t.Fatal,
// Do must be called from the test's goroutine.
func Do(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	For(t, done, what)
}

// Command is exec.Command for a child the test runs to its end, with Run,
// Output or Start and Wait, reading its output meanwhile: the child's
// whole life is bounded by Limit. A child still running after Limit is
// killed, failing the test with a message naming it, so that the wait
// for it ends; one still running when the test ends is killed without
// one. Its WaitDelay is Limit too, so that Wait returns even when a child
// of the child keeps its output open.
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	ctx := Context(t)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error {
		// The deadline passes while the test runs (after, the context
		// ends Canceled), and Wait returns only once Cancel has: a test
		// that waits for its child cannot have ended by now.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("waited %v for %s to exit: killing it", Limit, cmd)
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = Limit
	return cmd
}
