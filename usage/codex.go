package usage

import "github.com/acpkit/acpkit/internal/members"

// CodexUsage is the token usage the OpenAI Codex CLI reports at the end of
// a turn: the "usage" object of a `codex exec --json` "turn.completed"
// line. Its figures are running totals of the whole thread — every turn
// since the thread began, in this process and in earlier ones that resumed
// it — not the usage of the turn that just ended.
//
// A turn's own usage is therefore a difference: the thread's usage after
// the turn minus its usage after the turn before, [CodexUsage.Since]. For a
// thread's first turn the totals are the turn's own. For a thread resumed
// in a new process the totals before the turn are known only if the caller
// kept the last CodexUsage the thread reported; without them the turn's
// usage is unknown, every figure absent.
type CodexUsage struct {
	Input      Count // input_tokens: every prompt token, cached ones included
	CacheRead  Count // cached_input_tokens: the part of Input read from the cache
	CacheWrite Count // cache_write_input_tokens: the part of Input written to it
	Output     Count // output_tokens, reasoning included
	Reasoning  Count // reasoning_output_tokens: the part of Output spent reasoning
}

// ParseCodexUsage reads the "usage" object of a Codex "turn.completed"
// line (the codex package's TurnCompleted.Usage) by the rules in the
// package documentation: a member that is missing, null, negative,
// fractional or not a number is absent. An error, wrapping
// [ErrNotObject], means data is not a JSON object.
func ParseCodexUsage(data []byte) (CodexUsage, error) {
	obj, err := object(data, ErrNotObject)
	if err != nil {
		return CodexUsage{}, err
	}
	m := members.GetAll(obj, "input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens")
	return CodexUsage{
		Input:      tokens(m[0]),
		CacheRead:  tokens(m[1]),
		CacheWrite: tokens(m[2]),
		Output:     tokens(m[3]),
		Reasoning:  tokens(m[4]),
	}, nil
}

// Since returns the usage between prev and u, two reports of one thread,
// prev the earlier: each figure of u minus the same figure of prev. A
// figure is absent when either side lacks it, or when u's is below prev's,
// which no two reports of one thread can give (prev then belongs to
// another thread, or is later than u).
//
// prev is normally the thread's usage after the previous turn. The zero
// CodexUsage, every figure absent, stands for totals nobody kept: the
// result is then all absent too, the honest usage of the first turn of a
// resumed thread whose earlier totals are lost.
func (u CodexUsage) Since(prev CodexUsage) CodexUsage {
	sub := func(a, b Count) Count {
		if !a.ok || !b.ok || a.n < b.n {
			return Count{}
		}
		return CountOf(a.n - b.n)
	}
	return CodexUsage{
		Input:      sub(u.Input, prev.Input),
		CacheRead:  sub(u.CacheRead, prev.CacheRead),
		CacheWrite: sub(u.CacheWrite, prev.CacheWrite),
		Output:     sub(u.Output, prev.Output),
		Reasoning:  sub(u.Reasoning, prev.Reasoning),
	}
}

// Report returns u as a [Report]: Input, CacheRead, CacheWrite and Output
// as they are. Codex reports no total and no cost, so Total and Cost are
// absent; Identity, Model and ContextWindow are left for the caller, who
// knows the model and the provider's base URL (see [IdentityFromBaseURL]).
// Reasoning has no place in a Report: it is part of Output.
//
// For one turn's usage, report the difference:
// cur.Since(prev).Report(); cur.Report() alone is the whole thread's.
func (u CodexUsage) Report() Report {
	return Report{Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output}
}
