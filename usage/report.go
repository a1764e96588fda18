package usage

// Identity names the price list a turn is billed by: the authority that
// publishes and bills by it, the model, and an optional cache class. The zero
// Identity means "not proven"; see [IdentityFromBaseURL] for how one is
// proven.
type Identity struct {
	// Authority is the host that publishes the price list: one of
	// [AuthorityAnthropic], [AuthorityOpenAI], [AuthorityOpenRouter].
	Authority string
	// Model is the model id as that authority names it.
	Model string
	// CacheClass optionally distinguishes price variants of one model (for
	// example a cache retention class); empty means none. Pricing ignores it;
	// it takes part in the comparison of identities across turns.
	CacheClass string
}

// Proven reports whether id names an authority and a model.
func (id Identity) Proven() bool { return id.Authority != "" && id.Model != "" }

// Report is the usage of one model call (or of one turn, when the caller
// aggregates calls itself; pricing is exact only per call, see [Price.Cost]).
// Every figure is a [Count]: absent when the provider did not report it.
//
// Input is the inclusive input: every prompt token, cached or not. CacheRead
// and CacheWrite are subsets of Input, not additions to it; CacheWrite5m and
// CacheWrite1h split CacheWrite by cache lifetime when the provider says so.
//
// A report whose cache figures cannot be subsets of its input (CacheRead +
// CacheWrite > Input) is inconsistent: its cache figures, and the split, are
// treated as not reported, by [Accumulator.Add] and by [Price.Cost] alike.
// A split whose parts do not add up to CacheWrite is treated as not reported.
type Report struct {
	Input        Count // inclusive input tokens
	Output       Count // output tokens (reasoning included)
	CacheRead    Count // input tokens read from the prompt cache
	CacheWrite   Count // input tokens written to the prompt cache
	CacheWrite5m Count // the part of CacheWrite with a 5-minute lifetime
	CacheWrite1h Count // the part of CacheWrite with a 1-hour lifetime
	Total        Count // the provider's own total, when it gives one

	// Cost is the call's cost in picodollars, normally set from
	// [PriceTable.Price] or [Price.Cost]; absent when not priced.
	Cost Count

	// Identity is the proven pricing identity, zero when unproven.
	Identity Identity
	// Model is the effective model id, for display; empty when unknown.
	Model string
	// ContextWindow is the model's context window in tokens, when known.
	ContextWindow Count
}

// ContextUsed returns the tokens in the context after the call r reports:
// its inclusive input plus its output, and false when either is absent.
func (r Report) ContextUsed() (uint64, bool) { return r.Input.add(r.Output).Get() }

// Overlay returns r with every present figure of later written over it, and
// later's Model and Identity when they are set. It merges the partial usage
// of one streamed call: Anthropic's message_start carries the input figures
// and message_delta the final output count.
func (r Report) Overlay(later Report) Report {
	over := func(dst *Count, src Count) {
		if src.ok {
			*dst = src
		}
	}
	over(&r.Input, later.Input)
	over(&r.Output, later.Output)
	over(&r.CacheRead, later.CacheRead)
	over(&r.CacheWrite, later.CacheWrite)
	over(&r.CacheWrite5m, later.CacheWrite5m)
	over(&r.CacheWrite1h, later.CacheWrite1h)
	over(&r.Total, later.Total)
	over(&r.Cost, later.Cost)
	over(&r.ContextWindow, later.ContextWindow)
	if later.Identity != (Identity{}) {
		r.Identity = later.Identity
	}
	if later.Model != "" {
		r.Model = later.Model
	}
	return r
}

// normalized drops figures that contradict each other (see [Report]).
func (r Report) normalized() Report {
	if in, ok := r.Input.Get(); ok {
		cached := CountOf(0)
		if r.CacheRead.ok {
			cached = cached.add(r.CacheRead)
		}
		if r.CacheWrite.ok {
			cached = cached.add(r.CacheWrite)
		}
		if !cached.ok || cached.n > in {
			r.CacheRead, r.CacheWrite = Count{}, Count{}
		}
	}
	if sum := r.CacheWrite5m.add(r.CacheWrite1h); !r.CacheWrite.ok || !sum.ok || sum.n != r.CacheWrite.n {
		r.CacheWrite5m, r.CacheWrite1h = Count{}, Count{}
	}
	return r
}
