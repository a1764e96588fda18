package usage

import "sync"

// Totals are session-cumulative figures as a consumer receives them: each
// counter present or absent, absent meaning the producer did not (or could
// no longer) vouch for it. Cost is in picodollars.
type Totals struct {
	Input, Output, CacheRead, CacheWrite, Total, Cost Count
}

// each calls f with a pointer to every figure of t and the matching one of u.
func (t *Totals) each(u *Totals, f func(a, b *Count)) {
	f(&t.Input, &u.Input)
	f(&t.Output, &u.Output)
	f(&t.CacheRead, &u.CacheRead)
	f(&t.CacheWrite, &u.CacheWrite)
	f(&t.Total, &u.Total)
	f(&t.Cost, &u.Cost)
}

// DeltaStatus says how far a [TurnDelta] can be trusted.
type DeltaStatus uint8

// The outcomes of a turn boundary.
const (
	// DeltaNoReport: no snapshot arrived during the turn. Every figure is
	// absent, and the baseline is kept, so the next turn's delta also covers
	// this one.
	DeltaNoReport DeltaStatus = iota
	// DeltaNoBaseline: the session's first reported turn. With nothing to
	// subtract, every figure is absent; the turn's mark becomes the baseline.
	DeltaNoBaseline
	// DeltaRegressed: some figure fell below the previous turn's mark (the
	// agent restarted, or its history was cleared). The delta is unreliable,
	// so every figure is absent; the baseline resets to this turn's mark.
	DeltaRegressed
	// DeltaOK: each figure present in both marks is the turn's usage.
	DeltaOK
)

// String returns the status name.
func (s DeltaStatus) String() string {
	switch s {
	case DeltaNoReport:
		return "no-report"
	case DeltaNoBaseline:
		return "no-baseline"
	case DeltaRegressed:
		return "regressed"
	case DeltaOK:
		return "ok"
	}
	return "DeltaStatus(?)"
}

// TurnDelta is one turn's usage as the [Tracker] derives it.
type TurnDelta struct {
	Status DeltaStatus
	// Usage is this turn's mark minus the previous turn's, per figure; a
	// figure is present only when Status is DeltaOK and both marks have it.
	Usage Totals
	// Mark is the turn's high-water mark: per figure, the largest value any
	// of the turn's snapshots carried.
	Mark Totals
}

// Tracker derives per-turn usage on the consumer side from cumulative
// snapshots of many sessions — several per turn, possibly duplicated or
// late — and turn boundaries given by the caller (typically the response to
// a prompt). The zero Tracker is ready to use; a Tracker is safe for
// concurrent use.
//
// Memory is constant per session (two [Totals]) until [Tracker.Forget]; a
// caller that tracks unbounded session ids must forget ended sessions.
//
// Within a turn, each figure keeps its high-water mark: a snapshot below
// what the turn already saw is late and changes nothing, and a figure absent
// from one snapshot keeps the value another snapshot gave. A stale snapshot
// of the previous turn that arrives after the boundary, as the only one of
// the new turn, looks like a restart when it is below that turn's mark.
type Tracker struct {
	mu       sync.Mutex
	sessions map[string]*turnState
}

type turnState struct {
	base, mark    Totals
	hasBase, seen bool
}

// Observe records a cumulative snapshot for session's current turn.
func (t *Tracker) Observe(session string, s Totals) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions == nil {
		t.sessions = map[string]*turnState{}
	}
	st := t.sessions[session]
	if st == nil {
		st = &turnState{}
		t.sessions[session] = st
	}
	st.seen = true
	st.mark.each(&s, func(m, v *Count) {
		if v.ok && (!m.ok || v.n > m.n) {
			*m = *v
		}
	})
}

// EndTurn closes session's current turn and returns its delta against the
// previous turn's mark (see [DeltaStatus]). The next snapshot starts a new
// turn.
func (t *Tracker) EndTurn(session string) TurnDelta {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.sessions[session]
	if st == nil || !st.seen {
		return TurnDelta{Status: DeltaNoReport}
	}
	d := TurnDelta{Mark: st.mark}
	switch {
	case !st.hasBase:
		d.Status = DeltaNoBaseline
	case st.regressed():
		d.Status = DeltaRegressed
	default:
		d.Status = DeltaOK
		d.Usage = st.mark
		d.Usage.each(&st.base, func(u, b *Count) {
			if u.ok && b.ok {
				*u = CountOf(u.n - b.n)
			} else {
				*u = Count{}
			}
		})
	}
	st.base, st.hasBase = st.mark, true
	st.mark, st.seen = Totals{}, false
	return d
}

// regressed reports whether a figure present in both the mark and the
// baseline went down.
func (st *turnState) regressed() bool {
	down := false
	st.mark.each(&st.base, func(m, b *Count) {
		if m.ok && b.ok && m.n < b.n {
			down = true
		}
	})
	return down
}

// Forget drops everything known about session.
func (t *Tracker) Forget(session string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sessions, session)
}

// Len returns the number of sessions the tracker holds state for.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}
