package testwait_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/internal/testwait"
)

// failures is a testing.TB that records its failures; FailNow ends the
// goroutine, as the testing package's does.
type failures struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *failures) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// onGoroutine runs wait as a test's goroutine would, and returns how long
// it took and what it failed with.
func onGoroutine(t *testing.T, wait func(testing.TB)) (time.Duration, []string) {
	f := &failures{TB: t}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(f)
	}()
	<-done
	return time.Since(start), f.msgs
}

// TestWaitsFail checks, on the bubble's clock, that each wait that gets
// nothing fails after Limit, naming what it waited for, and that one
// that gets what it waits for returns it at once.
func TestWaitsFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		took, msgs := onGoroutine(t, func(tb testing.TB) { testwait.For(tb, make(chan int), "a value") })
		if took != testwait.Limit || len(msgs) != 1 || msgs[0] != "waited 1m0s for a value" {
			t.Errorf("For on a silent channel: %v, %q", took, msgs)
		}

		release := make(chan struct{})
		took, msgs = onGoroutine(t, func(tb testing.TB) { testwait.Do(tb, "a call", func() { <-release }) })
		if took != testwait.Limit || len(msgs) != 1 || msgs[0] != "waited 1m0s for a call" {
			t.Errorf("Do of a call that hangs: %v, %q", took, msgs)
		}
		close(release) // the call left behind returns

		ch := make(chan int, 1)
		ch <- 7
		var got int
		took, msgs = onGoroutine(t, func(tb testing.TB) {
			got = testwait.For(tb, ch, "a value")
			testwait.Do(tb, "a call", func() {})
		})
		if took != 0 || len(msgs) != 0 || got != 7 {
			t.Errorf("waits that end at once: %v, %q, %d", took, msgs, got)
		}
	})
}

// TestContext checks that the context ends after Limit, with a cause
// that says so.
func TestContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx := testwait.Context(t)
		<-ctx.Done()
		if took, err := time.Since(start), context.Cause(ctx); took != testwait.Limit ||
			!errors.Is(ctx.Err(), context.DeadlineExceeded) || err.Error() != "testwait.Limit (1m0s) passed" {
			t.Errorf("after %v: %v, cause %v", took, ctx.Err(), err)
		}
	})
}
