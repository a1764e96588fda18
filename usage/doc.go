// Package usage keeps honest token and cost accounting for agent sessions:
// what a session has used, what is not known, and what it cost — with
// arithmetic that cannot silently wrap.
//
// The package is pure: it reads only the bytes and values its callers pass
// and never does I/O or reads a clock.
//
// # Absent is not zero
//
// A provider's usage figure is either reported or not. A [Count] is one such
// figure — absent or a value — and absent never turns into 0. The
// converters [FromAnthropic], [FromOpenAIChat] and [FromOpenAIResponses]
// turn a provider's usage JSON into a [Report] of Counts;
// [FromClaudeResult] reads a Claude CLI result, as package claude parsed
// it, into the session's running totals and cost and this run's own
// usage and cost. [ParseGeminiStats] reads the Gemini CLI's per-process,
// per-model statistics, and [ParseCodexUsage] the Codex CLI's
// thread-cumulative usage, whose per-turn figures are differences
// ([CodexUsage.Since]).
//
// The converters validate their input once and require one JSON object
// (else the error wraps [ErrNotObject]); unknown members are ignored. A
// missing or null member is absent. A token count is present only when it
// is a JSON integer from 0 to 2⁶⁴−1 written without fraction or exponent —
// what encoding/json decodes into a uint64 — so a string, a negative, 1.5,
// 1e3 or a larger number is absent, not zero. When a member name repeats,
// the last one counts, as with encoding/json.
//
// # Session counters
//
// An [Accumulator] sums a session's reports into one [Counter] per figure:
// inclusive input, output, cache read, cache write (both subsets of the
// input), the provider's total, and cost. Each counter is Unseen before the
// first report, Exact while every report has carried its figure, and Unknown
// for good once one did not or the sum would overflow a uint64 — never a
// wrapped or saturated number. The counters are independent: losing one
// leaves the others exact. Only Exact values belong on the wire. A
// [Snapshot] is the session's state at one moment, and snapshots of one
// session never go down.
//
// # Pricing
//
// A pricing [Identity] names the price list a call is billed by. It is
// proven only for calls made directly to a host that publishes the list it
// bills by ([AuthorityFromBaseURL]); proxies, resellers and custom endpoints
// prove nothing, and a session whose calls had different identities has
// none. A [PriceTable], loaded from LiteLLM's price file with [LoadLiteLLM]
// or built in ([DefaultPrices]), prices each call before it is added,
// because the long-context tier and the cache-lifetime split apply per
// request. Money is integer picodollars ([PicoUSDPerUSD]); a cost that
// cannot be proven is absent, never zero.
//
// # On the wire
//
// [Snapshot.ACPUpdate] renders a snapshot as ACP's standard usage_update:
// the tokens in the context window now and, when it is exact, the
// session's cost. Package acp/goose renders goose's richer payload from
// the same snapshot.
//
// # Consumers
//
// A [Tracker] turns the cumulative snapshots an editor receives, several per
// turn and possibly late or repeated, into per-turn deltas, and says when a
// delta cannot be trusted: the first turn, or a turn after the agent
// restarted. When the producer reports each turn's own figures, as the
// Claude CLI does ([CLIResult].Run), no baseline is needed and none is
// lost with a restart.
package usage
