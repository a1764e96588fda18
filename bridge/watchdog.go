package bridge

import (
	"sync"
	"sync/atomic"
	"time"
)

// watchdog calls a function once when a process has written nothing for
// a while. It counts lines rather than reading the clock, checking every
// quarter of the period: silence is noticed after the period and before
// one and a quarter of it.
type watchdog struct {
	lines atomic.Uint64 // lines read so far

	mu      sync.Mutex
	stop    func() bool
	stopped bool
}

// watchdogChecks is how many checks without a new line make a silence.
const watchdogChecks = 4

// newWatchdog starts watching; silent runs, at most once, in a timer's
// goroutine.
func newWatchdog(clock Clock, period time.Duration, silent func()) *watchdog {
	w := &watchdog{}
	step := period / watchdogChecks
	var seen uint64
	quiet := 0
	var check func()
	check = func() {
		if n := w.lines.Load(); n != seen {
			seen, quiet = n, 0
		} else {
			quiet++
		}
		if quiet >= watchdogChecks {
			silent()
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.stopped {
			w.stop = clock.AfterFunc(step, check)
		}
	}
	w.mu.Lock()
	w.stop = clock.AfterFunc(step, check)
	w.mu.Unlock()
	return w
}

// line records that the process wrote a line.
func (w *watchdog) line() {
	if w != nil {
		w.lines.Add(1)
	}
}

// Stop stops watching.
func (w *watchdog) Stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.stop()
}
