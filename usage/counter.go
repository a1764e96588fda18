package usage

import (
	"math/bits"
	"strconv"
)

// Count is one figure of one report: either absent or a value. The zero
// Count is absent, which is different from a present zero: absent means the
// source did not say, zero means it said none.
type Count struct {
	n  uint64
	ok bool
}

// CountOf returns a present Count holding n.
func CountOf(n uint64) Count { return Count{n: n, ok: true} }

// Get returns the value and true, or 0 and false when c is absent.
func (c Count) Get() (uint64, bool) { return c.n, c.ok }

// Present reports whether c holds a value.
func (c Count) Present() bool { return c.ok }

// String returns the value in decimal, or "absent".
func (c Count) String() string {
	if !c.ok {
		return "absent"
	}
	return strconv.FormatUint(c.n, 10)
}

// add returns c+d when both are present and the sum does not overflow;
// otherwise absent.
func (c Count) add(d Count) Count {
	if !c.ok || !d.ok {
		return Count{}
	}
	s, carry := bits.Add64(c.n, d.n, 0)
	if carry != 0 {
		return Count{}
	}
	return CountOf(s)
}

// State is where a session-cumulative [Counter] stands.
type State uint8

// The three states of a [Counter]. A counter starts Unseen, becomes Exact on
// the first turn that reports it, and becomes Unknown — for good — on the
// first turn that does not report it or whose addition would overflow.
const (
	StateUnseen  State = iota // no turn has been added yet
	StateExact                // every turn so far reported it, and the sum fits in a uint64
	StateUnknown              // some turn did not report it, or the sum overflowed; sticky
)

// String returns "unseen", "exact" or "unknown".
func (s State) String() string {
	switch s {
	case StateUnseen:
		return "unseen"
	case StateExact:
		return "exact"
	case StateUnknown:
		return "unknown"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Counter is a session-cumulative quantity: tokens for the token counters,
// picodollars (see [PicoUSDPerUSD]) for cost. The zero Counter is Unseen.
//
// A Counter never holds a wrapped or saturated value: an addition that would
// overflow uint64 makes it Unknown instead.
type Counter struct {
	n     uint64
	state State
}

// ExactCounter returns an Exact counter holding n.
func ExactCounter(n uint64) Counter { return Counter{n: n, state: StateExact} }

// UnknownCounter returns an Unknown counter.
func UnknownCounter() Counter { return Counter{state: StateUnknown} }

// State returns the counter's state.
func (c Counter) State() State { return c.state }

// Value returns the sum and true when the counter is Exact, and 0 and false
// when it is Unseen or Unknown.
func (c Counter) Value() (uint64, bool) {
	if c.state != StateExact {
		return 0, false
	}
	return c.n, true
}

// Exact reports whether the counter is in [StateExact]: the only state
// whose value may be shown or put on the wire.
func (c Counter) Exact() bool { return c.state == StateExact }

// Count returns the counter as a [Count]: present exactly when it is Exact.
// Unseen and Unknown both become absent, as they do on the wire.
func (c Counter) Count() Count {
	if c.state != StateExact {
		return Count{}
	}
	return CountOf(c.n)
}

// String returns the value in decimal when Exact, else "unseen" or "unknown".
func (c Counter) String() string {
	if c.state == StateExact {
		return strconv.FormatUint(c.n, 10)
	}
	return c.state.String()
}

// add applies one turn's figure: absent makes the counter Unknown, as does an
// overflowing sum; Unknown stays Unknown.
func (c Counter) add(d Count) Counter {
	switch c.state {
	case StateUnknown:
		return c
	case StateUnseen:
		if !d.ok {
			return UnknownCounter()
		}
		return ExactCounter(d.n)
	}
	s := Count{n: c.n, ok: true}.add(d)
	if !s.ok {
		return UnknownCounter()
	}
	return ExactCounter(s.n)
}
