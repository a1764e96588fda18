package usage

import "math/bits"

// PicoUSDPerUSD is the number of picodollars in one US dollar. Money is kept
// in integer picodollars (10⁻¹² USD) so that pricing and accumulation are
// exact; a uint64 holds up to about $18.4 million, and a session beyond that
// makes its cost counter Unknown rather than wrong.
const PicoUSDPerUSD = 1_000_000_000_000

// USD converts picodollars to dollars, for display and for the wire. The
// result is rounded to float64 precision; keep the integer for arithmetic.
func USD(pico uint64) float64 { return float64(pico) / PicoUSDPerUSD }

// Accumulator keeps one session's cumulative usage on the producer side.
// Add each call's (or turn's) [Report] in order; read the running state with
// [Accumulator.Snapshot]. The zero Accumulator is an empty session, ready to
// use. An Accumulator is not safe for concurrent use.
//
// Every counter — input, output, cache read, cache write, provider total and
// cost — follows the same rule on its own (see [State]): a report that lacks
// one figure makes only that counter Unknown, and an overflow poisons only
// the counter that overflowed.
type Accumulator struct {
	snap  Snapshot
	idSet bool // an identity has been recorded (snap.Identity or mixed)
}

// Add accumulates one report. Inconsistent cache figures are dropped first
// (see [Report]); the pricing identity survives only while every report
// carries the same proven one.
func (a *Accumulator) Add(r Report) {
	r = r.normalized()
	s := &a.snap
	s.Input = s.Input.add(r.Input)
	s.Output = s.Output.add(r.Output)
	s.CacheRead = s.CacheRead.add(r.CacheRead)
	s.CacheWrite = s.CacheWrite.add(r.CacheWrite)
	s.Total = s.Total.add(r.Total)
	s.Cost = s.Cost.add(r.Cost)

	switch {
	case !a.idSet:
		a.idSet = true
		if r.Identity.Proven() {
			s.Identity = r.Identity
		}
	case s.Identity != r.Identity || !r.Identity.Proven():
		s.Identity = Identity{}
	}

	if r.ContextWindow.ok {
		s.ContextWindow = r.ContextWindow
	} else if r.Model != "" && r.Model != s.Model {
		s.ContextWindow = Count{}
	}
	if r.Model != "" {
		s.Model = r.Model
	}
	s.LastInput, s.LastOutput = r.Input, r.Output
	s.Reports++
}

// Snapshot returns the session's state now. Snapshots of one session are
// monotonic: a later one is at least the earlier one in every counter that
// is Exact in both.
func (a *Accumulator) Snapshot() Snapshot { return a.snap }

// Snapshot is a session's cumulative usage at one moment: a plain value, safe
// to copy and to share.
type Snapshot struct {
	Input      Counter // inclusive input tokens
	Output     Counter // output tokens
	CacheRead  Counter // cache-read tokens, a subset of Input
	CacheWrite Counter // cache-write tokens, a subset of Input
	Total      Counter // the provider's total tokens
	Cost       Counter // cost in picodollars (see [PicoUSDPerUSD])

	// Identity is the session's pricing identity: zero unless every report
	// so far carried the same proven identity.
	Identity Identity
	// Model is the most recent report's non-empty model id.
	Model string
	// ContextWindow is the current model's context window in tokens: the last
	// reported one, dropped when a report names another model without giving
	// its window.
	ContextWindow Count
	// LastInput and LastOutput are the most recent report's inclusive input
	// and output: what the context holds now, as opposed to the session sum.
	LastInput, LastOutput Count
	// Reports is the number of reports added: model calls, or turns when
	// the caller adds one report per turn.
	Reports uint64
}

// UsedSaturating returns Input + Output with an Unseen or Unknown side
// counted as 0, saturating at the largest uint64. It is the one figure in
// this package that may be saturated or understated, because goose's
// `used` is a required number: use it for that display only, never for
// accounting, which the Counters keep exact.
func (s Snapshot) UsedSaturating() uint64 {
	in, _ := s.Input.Value()
	out, _ := s.Output.Value()
	sum, carry := bits.Add64(in, out, 0)
	if carry != 0 {
		return ^uint64(0)
	}
	return sum
}

// ContextUsed returns the tokens in the context now — the last report's
// inclusive input plus its output — and false when either is absent.
func (s Snapshot) ContextUsed() (uint64, bool) {
	return s.LastInput.add(s.LastOutput).Get()
}

// CostUSD returns the session's cost in dollars, and false unless the cost
// counter is Exact.
func (s Snapshot) CostUSD() (float64, bool) {
	p, ok := s.Cost.Value()
	return USD(p), ok
}

// Totals returns the counters as a consumer sees them on the wire: each
// present exactly when Exact.
func (s Snapshot) Totals() Totals {
	return Totals{
		Input:      s.Input.Count(),
		Output:     s.Output.Count(),
		CacheRead:  s.CacheRead.Count(),
		CacheWrite: s.CacheWrite.Count(),
		Total:      s.Total.Count(),
		Cost:       s.Cost.Count(),
	}
}
