// Package testwait bounds the waits of tests that run real processes,
// pipes or sockets, where no synctest bubble reports a deadlock: a wait
// that would hang fails the test instead, saying what it waited for,
// long before go test's own timeout ends the whole package without a
// word about it. Only tests import it.
package testwait

import (
	"context"
	"testing"
	"time"
)

// Limit bounds one wait. It is a safety net, not a measurement: far above
// what any wait takes on a loaded machine, far below go test's 10-minute
// default timeout.
const Limit = 60 * time.Second

// For returns the next value from ch, or fails the test, naming what, if
// none comes within Limit.
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
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Limit)
	t.Cleanup(cancel)
	return ctx
}
