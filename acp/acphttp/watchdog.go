package acphttp

import (
	"sync"
	"time"
)

// A watchdog calls check every period, on the Clock's goroutine, until it
// is halted. Each connection has one; it is how the connection notices
// time passing without reading a clock. Checks run one at a time, and
// none runs once halt has returned.
type watchdog struct {
	clock  Clock
	period time.Duration
	check  func()

	mu     sync.Mutex
	stop   func() bool
	halted bool
}

// startWatchdog starts a watchdog, or returns nil when period is 0.
func startWatchdog(clock Clock, period time.Duration, check func()) *watchdog {
	if period <= 0 {
		return nil
	}
	w := &watchdog{clock: clock, period: period, check: check}
	w.mu.Lock()
	w.stop = clock.AfterFunc(period, w.fire)
	w.mu.Unlock()
	return w
}

func (w *watchdog) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.halted {
		return
	}
	w.check()
	w.stop = w.clock.AfterFunc(w.period, w.fire)
}

// halt stops the watchdog, waiting for a check in progress. It is safe on
// a nil watchdog and more than once; check must not call it.
func (w *watchdog) halt() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.halted = true
	if w.stop != nil {
		w.stop()
	}
}

// A quiet measures, one watchdog check at a time, how long a counter has
// not moved: the time since a connection's client was last heard from,
// or since its output last made progress.
type quiet struct {
	last  int64
	since time.Duration
}

// observe records the counter's value at a check period after the last;
// busy false means there is nothing to wait for, which counts as moving.
// It returns how long the counter has stood still.
func (q *quiet) observe(v int64, busy bool, period time.Duration) time.Duration {
	if v != q.last || !busy {
		q.last, q.since = v, 0
		return 0
	}
	q.since += period
	return q.since
}
